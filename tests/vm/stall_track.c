// SPDX-License-Identifier: GPL-2.0
/* See stall_track.h. */
#include <string.h>

#include "stall_track.h"

void stall_track_scan(struct stall_track *t, uint64_t now)
{
	unsigned int i = 0;

	if (t->gen)
		t->prev_scan = t->scan;
	t->scan = now;
	/* Sockets the last scan did not see waiting start over. */
	while (i < t->n) {
		if (t->e[i].gen != t->gen)
			t->e[i] = t->e[--t->n];
		else
			i++;
	}
	t->gen++;
}

uint64_t stall_track_wait(struct stall_track *t, uint16_t lport, uint16_t rport,
			  uint64_t age)
{
	uint32_t key = (uint32_t)lport << 16 | rport;
	uint64_t sent = t->scan > age ? t->scan - age : 0, since;
	struct stall_entry *e = NULL;

	for (unsigned int i = 0; i < t->n; i++)
		if (t->e[i].key == key)
			e = &t->e[i];
	if (e && e->gen + 1 == t->gen) {
		since = e->since;
	} else {
		/* Waiting since the last scan at most, or, at the first
		 * scan, since the last send: all it can know.
		 */
		since = t->prev_scan;
		if (!e && t->n < STALL_TRACK_MAX)
			e = &t->e[t->n++];
	}
	/* New data went out since: the wait restarted then. */
	if (sent > since)
		since = sent;
	if (e) {
		e->key = key;
		e->gen = t->gen;
		e->since = since;
	}
	return t->scan - since;
}

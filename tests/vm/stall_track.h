/* SPDX-License-Identifier: GPL-2.0 */
/* How long a socket has waited, from scans of all sockets at intervals.
 *
 * A scan sees, per socket, whether it waits (unsent data, room in the
 * peer's window) and how long ago TCP last sent new data (its age). The
 * age alone overstates a wait: a socket idle for seconds that is seen
 * the moment it got a byte to send has an age of seconds but waited at
 * most since the previous scan. So a wait counts from the later of the
 * last send and the last scan that did not see the socket waiting.
 */
#ifndef __TSQ_STALL_TRACK_H
#define __TSQ_STALL_TRACK_H

#include <stdbool.h>
#include <stdint.h>

#define STALL_TRACK_MAX	256

struct stall_track {
	uint64_t prev_scan;	/* the previous scan's time, 0: none yet */
	uint64_t scan;		/* this scan's time */
	unsigned int gen;	/* this scan's number */
	unsigned int n;
	struct stall_entry {
		uint32_t key;	/* local port << 16 | remote port */
		unsigned int gen; /* the last scan that saw it waiting */
		uint64_t since;	/* it has waited since at most this */
	} e[STALL_TRACK_MAX];
};

/* A scan at @now: any unit, the same as the ages' (jiffies here). */
void stall_track_scan(struct stall_track *t, uint64_t now);

/* A socket this scan saw waiting, @age after its last send: how long it
 * has waited, in the unit of @now.
 */
uint64_t stall_track_wait(struct stall_track *t, uint16_t lport, uint16_t rport,
			  uint64_t age);

#endif

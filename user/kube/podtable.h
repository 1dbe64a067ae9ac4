/* SPDX-License-Identifier: GPL-2.0 */
/* What tsq-kube knows per pod uid: the drop-in it wrote, the refused
 * value it logged, the list it was last seen in.
 */
#ifndef __KUBE_PODTABLE_H
#define __KUBE_PODTABLE_H

#include <stdbool.h>
#include <stddef.h>

#include "pod.h"

struct pod_entry {
	char uid[KUBE_UID_MAX + 1];	/* "" for a free slot */
	char *dropin;			/* the file's text, NULL: no file */
	unsigned long bad;		/* hash of the value refused last, 0: none */
	unsigned int gen;		/* the list generation it was seen in */
};

struct pod_table {
	struct pod_entry *v;
	size_t size, nr;		/* size: a power of two, or 0 */
};

/* The entry for uid; with create, a new empty one if there is none.
 * NULL if absent (or out of memory).
 */
struct pod_entry *pod_table_get(struct pod_table *t, const char *uid, bool create);

/* Remove e; entries may move, so pointers into the table are stale after. */
void pod_table_del(struct pod_table *t, struct pod_entry *e);

/* Remove every entry whose gen is not gen, after calling fn on it. */
void pod_table_sweep(struct pod_table *t, unsigned int gen,
		     void (*fn)(struct pod_entry *e, void *ctx), void *ctx);

void pod_table_free(struct pod_table *t);

#endif

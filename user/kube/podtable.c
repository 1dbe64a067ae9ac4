// SPDX-License-Identifier: GPL-2.0
/* Open addressing on the uid, linear probing, deletion by backward
 * shift (no tombstones): a node's pods churn for months.
 */
#include <stdlib.h>
#include <string.h>

#include "podtable.h"

static size_t hash(const char *s)
{
	size_t h = 14695981039346656037ULL;	/* FNV-1a */

	while (*s)
		h = (h ^ (unsigned char)*s++) * 1099511628211ULL;
	return h;
}

static struct pod_entry *slot(struct pod_table *t, const char *uid)
{
	size_t i = hash(uid) & (t->size - 1);

	while (t->v[i].uid[0] && strcmp(t->v[i].uid, uid))
		i = (i + 1) & (t->size - 1);
	return &t->v[i];
}

static int grow(struct pod_table *t)
{
	struct pod_table n = { .size = t->size ? t->size * 2 : 64 };

	n.v = calloc(n.size, sizeof(*n.v));
	if (!n.v)
		return -1;
	for (size_t i = 0; i < t->size; i++)
		if (t->v[i].uid[0])
			*slot(&n, t->v[i].uid) = t->v[i];
	n.nr = t->nr;
	free(t->v);
	*t = n;
	return 0;
}

struct pod_entry *pod_table_get(struct pod_table *t, const char *uid, bool create)
{
	struct pod_entry *e;

	if (!uid[0] || strlen(uid) > KUBE_UID_MAX)
		return NULL;
	if (t->size) {
		e = slot(t, uid);
		if (e->uid[0] || !create)
			return e->uid[0] ? e : NULL;
	}
	if (!create)
		return NULL;
	/* At most 3/4 full. */
	if ((t->nr + 1) * 4 > t->size * 3 && grow(t))
		return NULL;
	e = slot(t, uid);
	memset(e, 0, sizeof(*e));
	strcpy(e->uid, uid);
	t->nr++;
	return e;
}

void pod_table_del(struct pod_table *t, struct pod_entry *e)
{
	size_t mask = t->size - 1, i = e - t->v, j = i, k;

	free(e->dropin);
	for (;;) {
		t->v[i].uid[0] = '\0';
		t->v[i].dropin = NULL;
		do {
			j = (j + 1) & mask;
			if (!t->v[j].uid[0]) {
				t->nr--;
				return;
			}
			k = hash(t->v[j].uid) & mask;
			/* Stay if k lies cyclically in (i, j]. */
		} while (i <= j ? (i < k && k <= j) : (i < k || k <= j));
		t->v[i] = t->v[j];
		i = j;
	}
}

void pod_table_sweep(struct pod_table *t, unsigned int gen,
		     void (*fn)(struct pod_entry *e, void *ctx), void *ctx)
{
	/* A deletion may move a later entry into slot i: look at i again. */
	for (size_t i = 0; i < t->size;) {
		struct pod_entry *e = &t->v[i];

		if (e->uid[0] && e->gen != gen) {
			fn(e, ctx);
			pod_table_del(t, e);
		} else {
			i++;
		}
	}
}

void pod_table_free(struct pod_table *t)
{
	for (size_t i = 0; i < t->size; i++)
		free(t->v[i].dropin);
	free(t->v);
	memset(t, 0, sizeof(*t));
}

// SPDX-License-Identifier: GPL-2.0
/* tsq.conf entries against the cgroup tree.
 *
 * An entry is pending until its cgroup exists, then applied: its policy
 * is in the cgroup's storage, and tsqd remembers the cgroup's id. The id
 * tells a cgroup made anew under the same path (systemctl restart) from
 * the one tsqd applied to; the kernel dropped the policy with the old
 * one. tsqd does not re-assert a policy someone changed by hand with
 * tsqctl: that would cost a map update per entry per look.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/inotify.h>
#include <bpf/bpf.h>

#include "policies.h"
#include "cgroup.h"
#include "conffile.h"
#include "log.h"
#include "unit.h"

#define CG_EVENTS	(IN_CREATE | IN_DELETE | IN_DELETE_SELF | IN_MOVED_TO | IN_ONLYDIR)

void policies_init(struct policies *ps, const char *mount, int map, int inotify)
{
	memset(ps, 0, sizeof(*ps));
	ps->mount = mount;
	ps->map = map;
	ps->inotify = inotify;
}

static void free_entries(struct entry *v, size_t nr)
{
	for (size_t i = 0; i < nr; i++) {
		free(v[i].target);
		free(v[i].where);
		free(v[i].path);
	}
	free(v);
}

void policies_changed_clear(struct policies *ps)
{
	for (size_t i = 0; i < ps->nr_changed; i++)
		free(ps->changed[i]);
	free(ps->changed);
	ps->changed = NULL;
	ps->nr_changed = 0;
}

void policies_free(struct policies *ps)
{
	free_entries(ps->v, ps->nr);
	ps->v = NULL;
	ps->nr = 0;
	policies_changed_clear(ps);
}

/* Best effort: without memory, a pod's running connections wait for
 * their next connect, as they did before tsqd looked into pods.
 */
static void note_changed(struct policies *ps, const char *path)
{
	char **v = realloc(ps->changed, (ps->nr_changed + 1) * sizeof(*v));

	if (!v)
		return;
	ps->changed = v;
	v[ps->nr_changed] = strdup(path);
	if (v[ps->nr_changed])
		ps->nr_changed++;
}

static void note_changed(struct policies *ps, const char *path);

/* Remove the policy tsqd gave e's cgroup, if that cgroup is still there. */
static int unapply(struct policies *ps, const struct entry *e)
{
	int fd, ret = 0;

	if (!e->cgid || !e->path || tsq_cgroup_open(ps->mount, e->path, &fd))
		return 0;
	if (tsq_cgroup_id(fd) == e->cgid && !bpf_map_delete_elem(ps->map, &fd)) {
		note_changed(ps, e->path);
		ret = 1;
	}
	close(fd);
	return ret;
}

static int by_target(const void *a, const void *b)
{
	return strcmp((*(struct entry *const *)a)->target,
		      (*(struct entry *const *)b)->target);
}

/* v's entries sorted by target, for find(): a reload of n entries costs
 * n log n, not n^2. NULL when out of memory (or nr is 0).
 */
static struct entry **sorted(struct entry *v, size_t nr)
{
	struct entry **idx = nr ? malloc(nr * sizeof(*idx)) : NULL;

	if (!idx)
		return NULL;
	for (size_t i = 0; i < nr; i++)
		idx[i] = &v[i];
	qsort(idx, nr, sizeof(*idx), by_target);
	return idx;
}

static struct entry *find(struct entry **idx, size_t nr, const char *target)
{
	struct entry key = { .target = (char *)target }, *k = &key, **e;

	if (!idx)
		return NULL;
	e = bsearch(&k, idx, nr, sizeof(*idx), by_target);
	return e ? *e : NULL;
}

int policies_load(struct policies *ps, const char *file, const char *dir,
		  char *err, size_t errlen)
{
	struct entry **old_idx = NULL, **new_idx = NULL, *v;
	struct tsq_conf conf;
	size_t removed = 0;
	int ret;

	tsq_conf_init(&conf, ps->mount);
	ret = tsq_conf_load(&conf, file, dir, err, errlen);
	if (ret) {
		tsq_conf_free(&conf);
		return ret;
	}
	v = calloc(conf.nr ? conf.nr : 1, sizeof(*v));
	old_idx = sorted(ps->v, ps->nr);
	if (!v || (ps->nr && !old_idx)) {
		free(v);
		free(old_idx);
		tsq_conf_free(&conf);
		return -ENOMEM;
	}
	for (size_t i = 0; i < conf.nr; i++) {
		const struct tsq_conf_entry *c = &conf.entries[i];
		struct entry *old = find(old_idx, ps->nr, c->target);

		v[i].target = strdup(c->target);
		if (asprintf(&v[i].where, "%s:%u", c->file, c->line) < 0)
			v[i].where = NULL;
		if (!v[i].target || !v[i].where) {
			free_entries(v, conf.nr);
			free(old_idx);
			tsq_conf_free(&conf);
			return -ENOMEM;
		}
		v[i].type = c->type;
		v[i].pol = c->policy;
		/* Unchanged: stays applied. Changed: applied again by sync. */
		if (old && old->path && !memcmp(&old->pol, &c->policy, sizeof(c->policy))) {
			v[i].path = old->path;
			old->path = NULL;
			v[i].cgid = old->cgid;
		}
	}
	free(old_idx);
	/* Only now: the entries' targets are set. Without the index (no
	 * memory), nothing counts as removed: better a stale policy kept
	 * than every policy dropped.
	 */
	new_idx = sorted(v, conf.nr);
	for (size_t i = 0; i < ps->nr && (new_idx || !conf.nr); i++) {
		if (!find(new_idx, conf.nr, ps->v[i].target) && unapply(ps, &ps->v[i])) {
			log_info("%s: no longer in the policy files, policy removed",
				 ps->v[i].target);
			removed++;
		}
	}
	free(new_idx);
	free_entries(ps->v, ps->nr);
	ps->v = v;
	ps->nr = conf.nr;
	tsq_conf_free(&conf);
	return removed;
}

/* The directory to watch for e's cgroup: its parent, or the deepest
 * ancestor that exists yet.
 */
static void watch_for(struct policies *ps, const char *path)
{
	char dir[PATH_MAX + 64];
	char *slash;

	snprintf(dir, sizeof(dir), "%s%s", ps->mount, path);
	while ((slash = strrchr(dir, '/')) && slash > dir + strlen(ps->mount)) {
		*slash = '\0';
		if (inotify_add_watch(ps->inotify, dir, CG_EVENTS) >= 0)
			return;
	}
	inotify_add_watch(ps->inotify, ps->mount, CG_EVENTS);
}

static int sync_one(struct policies *ps, struct entry *e)
{
	char path[PATH_MAX];
	int fd, ret;
	__u64 id;

	ret = tsq_target_open(ps->mount, e->type, e->target, path, sizeof(path), &fd);
	if (ret) {
		if (e->cgid)
			log_info("%s: cgroup %s went away, pending", e->target, e->path);
		else if (ret != -ENOENT)
			log_info("%s (%s): %s, pending", e->target, e->where, strerror(-ret));
		e->cgid = 0;
		if (!tsq_target_expected(e->type, e->target, path, sizeof(path)))
			watch_for(ps, path);
		return 0;
	}
	id = tsq_cgroup_id(fd);
	if (id && id == e->cgid && e->path && !strcmp(path, e->path)) {
		close(fd);
		watch_for(ps, path);
		return 0;
	}
	ret = bpf_map_update_elem(ps->map, &fd, &e->pol, BPF_ANY) ? -errno : 0;
	close(fd);
	if (ret) {
		log_info("%s: cgroup %s: %s", e->target, path, strerror(-ret));
		return 0;
	}
	log_info("%s: policy applied to %s", e->target, path);
	note_changed(ps, path);
	free(e->path);
	e->path = strdup(path);
	e->cgid = e->path ? id : 0;
	watch_for(ps, path);
	return 1;
}

int policies_sync(struct policies *ps)
{
	int changed = 0;

	ps->pending = 0;
	for (size_t i = 0; i < ps->nr; i++) {
		changed += sync_one(ps, &ps->v[i]);
		ps->pending += !ps->v[i].cgid;
	}
	return changed;
}

bool policies_pending_units(const struct policies *ps)
{
	for (size_t i = 0; i < ps->nr; i++)
		if (!ps->v[i].cgid && ps->v[i].type == TSQ_TARGET_UNIT)
			return true;
	return false;
}

// SPDX-License-Identifier: GPL-2.0
/* tsq.conf entries against the cgroup tree.
 *
 * An entry is pending until its cgroup exists, then applied: its policy
 * is in the cgroup's storage, and tsqd remembers the cgroup's id. The id
 * tells a cgroup made anew under the same path (systemctl restart) from
 * the one tsqd applied to; the kernel dropped the policy with the old
 * one. tsqd does not re-assert a policy someone changed by hand with
 * tsqctl: that would cost a map update per entry per look.
 *
 * A unit is where systemd says it is (unit.h), asked once a sync for all
 * unit entries. When that is elsewhere than where its policy went (a
 * unit restarted in another slice; a tsqd before this one, which took
 * any cgroup of the unit's name), the policy is taken off the old place.
 *
 * A cgroup that gets a policy takes entries in the per-cgroup maps,
 * which hold TSQ_MAX_CGROUPS: past it, a budget would quietly hold each
 * socket alone. So a new policy is refused there, counted over every
 * cgroup with one, whoever set it (tsq_policy_room()).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/inotify.h>
#include <bpf/bpf.h>

#include "policies.h"
#include "tsq_bpf.h"
#include "cgroup.h"
#include "conffile.h"
#include "log.h"
#include "quote.h"
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
		free(v[i].unit_path);
	}
	free(v);
}

void policies_changed_clear(struct policies *ps)
{
	for (size_t i = 0; i < ps->nr_changed; i++)
		free(ps->changed[i]);
	free(ps->changed);
	free(ps->changed_ids);
	ps->changed = NULL;
	ps->changed_ids = NULL;
	ps->nr_changed = 0;
	ps->changed_lost = false;
}

void policies_free(struct policies *ps)
{
	if (ps->asking)
		policies_ask_done(ps, -ECANCELED);
	free_entries(ps->v, ps->nr);
	ps->v = NULL;
	ps->nr = 0;
	policies_changed_clear(ps);
}

/* Best effort: without memory, a pod's running connections wait for
 * their next connect, as they did before tsqd looked into pods, and the
 * sync of tsqd's own netns visits every socket (changed_lost).
 */
static void note_changed(struct policies *ps, const char *path, __u64 id)
{
	char **v = realloc(ps->changed, (ps->nr_changed + 1) * sizeof(*v));
	__u64 *ids;

	if (v)
		ps->changed = v;
	ids = v ? realloc(ps->changed_ids, (ps->nr_changed + 1) * sizeof(*ids)) : NULL;
	if (ids)
		ps->changed_ids = ids;
	if (ids && id && (v[ps->nr_changed] = strdup(path))) {
		ids[ps->nr_changed++] = id;
		return;
	}
	ps->changed_lost = true;
}

/* Remove the policy tsqd gave e's cgroup, if that cgroup is still there
 * and still has it.
 */
static int unapply(struct policies *ps, const struct entry *e)
{
	struct tsq_policy cur;
	int fd, ret = 0;

	if (!e->cgid || !e->path || tsq_cgroup_open(ps->mount, e->path, &fd))
		return 0;
	if (tsq_cgroup_id(fd) == e->cgid && !bpf_map_lookup_elem(ps->map, &fd, &cur) &&
	    !memcmp(&cur, &e->pol, sizeof(cur)) && !bpf_map_delete_elem(ps->map, &fd)) {
		note_changed(ps, e->path, e->cgid);
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
	/* New entries: ask systemd anew at the next sync. */
	if (ps->asking)
		policies_ask_done(ps, -ECANCELED);
	ps->systemd_next = 0;
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

/* Whether one more cgroup may get a policy; counted once a sync. */
static bool room_for_one(struct policies *ps)
{
	unsigned int used, room;

	if (ps->used < 0) {
		/* Cannot count (no memory): better applied than refused. */
		if (tsq_policy_room(ps->mount, ps->map, &used, &room))
			return true;
		ps->used = used;
		ps->room = room;
	}
	if ((unsigned long)ps->used >= ps->room)
		return false;
	ps->used++;
	return true;
}

struct squat_ctx {
	struct policies *ps;
	const struct entry *e;
	const char *keep;	/* the unit's cgroup */
	int removed;
};

static void squat_one(int fd, const char *path, int depth, void *arg)
{
	struct squat_ctx *c = arg;
	const char *base = strrchr(path, '/');
	struct tsq_policy cur;
	char *safe;

	if (!base || strcmp(base + 1, c->e->target) || !strcmp(path, c->keep))
		return;
	if (bpf_map_lookup_elem(c->ps->map, &fd, &cur) || memcmp(&cur, &c->e->pol, sizeof(cur)) ||
	    bpf_map_delete_elem(c->ps->map, &fd))
		return;
	/* A tenant named the cgroups above it: escapes, not bytes, in the log. */
	safe = tsq_safe_dup(path);
	log_info("%s: policy taken off %s: not the unit's cgroup (%s is)", c->e->target,
		 safe ? safe : "(a cgroup)", c->keep);
	free(safe);
	note_changed(c->ps, path, tsq_cgroup_id(fd));
	c->removed++;
}

/* A unit entry just applied at path: take the same policy off any other
 * cgroup of the unit's name, where an earlier resolution put it.
 */
static int take_off_squats(struct policies *ps, const struct entry *e, const char *path)
{
	struct squat_ctx c = { .ps = ps, .e = e, .keep = path };

	tsq_cgroup_walk(ps->mount, "", squat_one, &c);
	return c.removed;
}

/* Unit entries. Where systemd puts a unit by default (/system.slice,
 * a slice by its name) is root's: a cgroup there is the unit's, found
 * at once. A unit elsewhere (Slice=) is where systemd says: one
 * systemctl show for all such entries, at most every SYSTEMD_ASK_MS
 * (and at once after a reload), run beside the event loop, which it
 * would hold for a second under TCG and for its whole timeout when
 * PID 1 is slow. A failure is retried as soon, once, then every
 * SYSTEMD_RETRY_MS. Answers are kept until the next one.
 */
#define SYSTEMD_ASK_MS		5000
#define SYSTEMD_RETRY_MS	30000

static long long mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

/* A unit entry's default cgroup, when it exists. */
static bool at_default(struct policies *ps, struct entry *e)
{
	char path[PATH_MAX];

	if (tsq_unit_cgroup_default(ps->mount, e->target, path, sizeof(path)))
		return false;
	free(e->unit_path);
	e->unit_path = strdup(path);
	e->unit_asked = false;
	return e->unit_path;
}

static void free_asked(struct policies *ps)
{
	for (size_t i = 0; i < ps->nasked; i++)
		free(ps->asked[i]);
	free(ps->asked);
	ps->asked = NULL;
	ps->nasked = 0;
}

static void ask_start(struct policies *ps, size_t n)
{
	int err = -ENOMEM;

	ps->asked = calloc(n, sizeof(*ps->asked));
	for (size_t i = 0; ps->asked && i < ps->nr; i++) {
		const struct entry *e = &ps->v[i];

		if (e->type != TSQ_TARGET_UNIT || e->unit_at_default)
			continue;
		if (!(ps->asked[ps->nasked++] = strdup(e->target)))
			goto fail;
	}
	if (ps->asked)
		err = tsq_systemctl_start(&ps->ask, (const char *const *)ps->asked, n);
	if (!err) {
		ps->asking = true;
		return;
	}
fail:
	policies_ask_done(ps, err);
}

void policies_ask_done(struct policies *ps, int err)
{
	char **paths = ps->nasked ? calloc(ps->nasked, sizeof(*paths)) : NULL;

	if (ps->asking)
		err = tsq_systemctl_finish(&ps->ask, paths ? err : -ENOMEM, paths ? ps->nasked : 0,
					   paths);
	ps->asking = false;
	if (err == -ECANCELED) {
		free(paths);
		free_asked(ps);
		return;
	}
	if (err && !ps->systemd_failed)
		log_info("systemctl show: %s; units found only where systemd puts them by default",
			 strerror(-err));
	else if (!err && ps->systemd_failed)
		log_info("systemctl show: answered again");
	ps->systemd_next = mono_ms() + (err && ps->systemd_failed ? SYSTEMD_RETRY_MS
							    : SYSTEMD_ASK_MS);
	ps->systemd_failed = err;
	/* By name: the entries may have moved meanwhile (a reload). */
	for (size_t i = 0; !err && i < ps->nr; i++) {
		struct entry *e = &ps->v[i];
		size_t k = 0;

		if (e->type != TSQ_TARGET_UNIT || e->unit_at_default)
			continue;
		while (k < ps->nasked && strcmp(ps->asked[k], e->target))
			k++;
		if (k == ps->nasked)
			continue;
		free(e->unit_path);
		e->unit_path = paths[k];
		paths[k] = NULL;
		e->unit_asked = true;
	}
	for (size_t k = 0; paths && k < ps->nasked; k++)
		free(paths[k]);
	free(paths);
	free_asked(ps);
}

int policies_ask_fd(const struct policies *ps)
{
	return ps->asking ? ps->ask.fd : -1;
}

bool policies_ask_input(struct policies *ps)
{
	int err;

	if (!ps->asking)
		return false;
	err = tsq_systemctl_read(&ps->ask);
	if (err == -EAGAIN)
		return false;
	policies_ask_done(ps, err);
	return true;
}

static void resolve_units(struct policies *ps)
{
	size_t n = 0;

	for (size_t i = 0; i < ps->nr; i++) {
		struct entry *e = &ps->v[i];

		if (e->type != TSQ_TARGET_UNIT)
			continue;
		e->unit_at_default = at_default(ps, e);
		if (e->unit_at_default)
			continue;
		/* Not where it was, nor asked about yet: unknown. */
		if (!e->unit_asked) {
			free(e->unit_path);
			e->unit_path = NULL;
		}
		n++;
	}
	if (n && !ps->asking && tsq_systemd_running() && mono_ms() >= ps->systemd_next)
		ask_start(ps, n);
}

/* The cgroup e names now, opened; its path below the mount in path. */
static int open_entry(struct policies *ps, const struct entry *e, char *path, size_t len,
		      int *fd)
{
	if (e->type != TSQ_TARGET_UNIT)
		return tsq_target_open(ps->mount, e->type, e->target, path, len, fd);
	if (!e->unit_path)
		return -ENOENT;
	if (strlen(e->unit_path) >= len)
		return -ENAMETOOLONG;
	strcpy(path, e->unit_path);
	return tsq_cgroup_open(ps->mount, path, fd);
}

static int sync_one(struct policies *ps, struct entry *e)
{
	struct tsq_policy cur;
	char path[PATH_MAX];
	int fd, ret, moved = 0;
	__u64 id;

	ret = open_entry(ps, e, path, sizeof(path), &fd);
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
	/* Applied elsewhere before: that cgroup is not the target's now. */
	if (e->cgid && unapply(ps, e)) {
		log_info("%s: policy taken off %s (now at %s)", e->target, e->path, path);
		moved = 1;
	}
	e->cgid = 0;
	if ((bpf_map_lookup_elem(ps->map, &fd, &cur) || !(cur.flags & TSQ_POLICY_ALL)) &&
	    !room_for_one(ps)) {
		close(fd);
		if (!e->full)
			log_info("%s: not applied to %s: %ld cgroups have a policy, as many as "
				 "tsq's per-cgroup maps hold; pending", e->target, path, ps->used);
		e->full = true;
		watch_for(ps, path);
		return moved;
	}
	e->full = false;
	ret = bpf_map_update_elem(ps->map, &fd, &e->pol, BPF_ANY) ? -errno : 0;
	close(fd);
	if (ret) {
		log_info("%s: cgroup %s: %s", e->target, path, strerror(-ret));
		return moved;
	}
	log_info("%s: policy applied to %s", e->target, path);
	note_changed(ps, path, id);
	free(e->path);
	e->path = strdup(path);
	e->cgid = e->path ? id : 0;
	watch_for(ps, path);
	if (e->type == TSQ_TARGET_UNIT)
		moved += take_off_squats(ps, e, path);
	return 1 + moved;
}

int policies_sync(struct policies *ps)
{
	int changed = 0;

	ps->pending = 0;
	ps->used = -1;
	resolve_units(ps);
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

/* SPDX-License-Identifier: GPL-2.0 */
/* The policy files, as applied to the cgroups that exist. */
#ifndef __TSQD_POLICIES_H
#define __TSQD_POLICIES_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

#include "tsq.h"
#include "target.h"
#include "unit.h"

struct entry {
	char *target;		/* canonical: "/a/b" or "x.service" */
	enum tsq_target_type type;
	struct tsq_policy pol;
	char *where;		/* "FILE:LINE", for messages */
	char *path;		/* its cgroup, while applied */
	__u64 cgid;		/* 0: pending, no cgroup (yet) */
	char *unit_path;	/* a unit's cgroup at this sync, NULL: none */
	bool unit_at_default;	/* ... where systemd puts it by default */
	bool unit_asked;	/* ... as systemd said at its last ask */
	bool full;		/* refused: the per-cgroup maps are full */
};

struct policies {
	struct entry *v;
	size_t nr;
	const char *mount;	/* cgroup2 mount, borrowed */
	int map;		/* pinned policy map */
	int inotify;		/* cgroup directory watches */
	size_t pending;
	/* Cgroups whose policy was set or removed since the last
	 * policies_changed_clear(): their processes' network namespaces
	 * need a policy_sync of their own (tsq_netns.h).
	 */
	char **changed;
	__u64 *changed_ids;	/* their ids, for the sync's scope */
	size_t nr_changed;
	bool changed_lost;	/* one not noted (no memory): sync all */
	long used;		/* cgroups with a policy; -1: not counted yet */
	unsigned int room;	/* how many the per-cgroup maps hold */
	int systemd_failed;	/* the last systemctl's -errno, said once */
	long long systemd_next;	/* CLOCK_MONOTONIC ms: ask no sooner */
	bool asking;		/* ask running: */
	struct tsq_systemctl ask;
	char **asked;		/* ... about these units */
	size_t nasked;
};

void policies_init(struct policies *ps, const char *mount, int map, int inotify);
void policies_free(struct policies *ps);

/*
 * Read the policy files (all or nothing) and make them the set in force:
 * targets that left the set lose the policy tsqd gave them, the others
 * get theirs by policies_sync(). On error ps is unchanged and err holds
 * "FILE:LINE: reason".
 */
int policies_load(struct policies *ps, const char *file, const char *dir,
		  char *err, size_t errlen);

/*
 * Give each target whose cgroup appeared, or was made anew (a restarted
 * unit), its policy; note those whose cgroup went. Watches the
 * directories where pending cgroups will appear. Returns how many map
 * entries changed (the caller bumps the generation once), or -errno.
 */
int policies_sync(struct policies *ps);

void policies_changed_clear(struct policies *ps);
/*
 * systemctl show, asked by policies_sync() about the units not in their
 * default cgroups, runs beside the caller's loop: the fd to poll while
 * it runs, or -1. policies_ask_input() when it is readable, and on every
 * tick (it times out); it returns true once the answer is in, and the
 * caller then syncs again. policies_ask_done(ps, err) ends a running
 * ask with err (-ECANCELED), or records a failure to start one.
 */
int policies_ask_fd(const struct policies *ps);
bool policies_ask_input(struct policies *ps);
void policies_ask_done(struct policies *ps, int err);

/* Units can appear anywhere: pending ones need a periodic look. */
bool policies_pending_units(const struct policies *ps);

#endif

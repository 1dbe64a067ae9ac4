// SPDX-License-Identifier: GPL-2.0
/* tsqctl set, unset and show: the policy map, entry by entry. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>

#include "tsqctl.h"
#include "tsq_bpf.h"
#include "tsq_netns.h"
#include "tsq_scope.h"
#include "cgroup.h"
#include "policy.h"
#include "print.h"
#include "quote.h"
#include "target.h"

/*
 * Open the cgroup a TARGET word names. A word that names no cgroup is
 * the user's mistake (2); a cgroup that cannot be opened, the system's
 * (1). Returns 0 or the exit code, with the message written.
 */
static int open_target(const struct tsqctl_ctx *c, const char *word, char *path,
		       size_t len, int *fd)
{
	struct tsq_target t;
	char err[256], q[TSQ_QUOTE_BUFSZ];
	int ret;

	if (tsq_target_parse(c->mount, word, &t, err, sizeof(err)))
		return usage_error("%s", err);
	ret = tsq_target_open(c->mount, t.type, t.name, path, len, fd);
	if (!ret)
		return 0;
	tsq_quote(q, sizeof(q), t.name);
	if (ret == -ENOENT && t.type == TSQ_TARGET_UNIT)
		return usage_error("unit %s: no such cgroup (is it running?)", q);
	if (ret == -ENOENT || ret == -ENOTDIR || ret == -ENAMETOOLONG)
		return usage_error("%s %s: %s", t.type == TSQ_TARGET_UNIT ? "unit" : "cgroup",
				   q, strerror(-ret));
	return runtime_error("%s %s: %s", t.type == TSQ_TARGET_UNIT ? "unit" : "cgroup", q,
			     strerror(-ret));
}

/* The policy map and the cgroup of word, both open, or the exit code. */
static int open_map_target(const struct tsqctl_ctx *c, const char *what, const char *word,
			   char *path, size_t len, int *map, int *cg)
{
	int ret;

	*map = tsq_pinned(TSQ_PIN_POLICY);
	if (*map < 0)
		return tsqctl_failed(*map, what);
	ret = open_target(c, word, path, len, cg);
	if (ret)
		close(*map);
	return ret;
}

/*
 * The policy map (cgroup storage) takes any number of entries, but the
 * maps that hold each policy's statistics and budget accounting do not:
 * past their size they would drop entries in silence. So a new policy
 * past that many is refused, as tsqd refuses it (tsq_policy_room()).
 * Costs a walk of the tree, only when the cgroup has no policy yet.
 */
static int check_room(const struct tsqctl_ctx *c, int map, int cg, const char *path)
{
	unsigned int used, room;
	struct tsq_policy p;
	int err;

	if (!bpf_map_lookup_elem(map, &cg, &p) && (p.flags & TSQ_POLICY_ALL))
		return 0;
	err = tsq_policy_room(c->mount, map, &used, &room);
	if (err)
		return tsqctl_failed(err, "set");
	if (used >= room)
		return runtime_error("set %s: %u cgroups have a policy, as many as tsq's per-cgroup maps hold",
				     path, used);
	return 0;
}

/* After a change on path (cgroup id): the established sockets of its
 * subtree in this netns and in the cgroup's processes' network
 * namespaces (a pod's) get their cgroup's policy again (policy_sync), or
 * stock TSQ; no other socket can be affected, and none other is visited
 * (tsq_scope.h; without a scope, all are). Entering another netns takes
 * CAP_SYS_ADMIN; without it, those connections keep what they had and
 * new ones get the policy, as this says.
 */
static int changed(const struct tsqctl_ctx *c, const char *verb, char *path, __u64 id)
{
	struct tsq_netns_sync st;
	int ret;

	tsq_scope_begin(&id, 1);
	ret = tsq_bump_gen();
	if (ret) {
		tsq_scope_end();
		return tsqctl_failed(ret, verb);
	}
	ret = tsq_sync_cgroup_netns(c->mount, &path, 1, &st);
	tsq_scope_end();
	if (!ret && st.failed)
		ret = st.err;
	if (ret)
		fprintf(stderr, "tsqctl: %s: established connections in other network namespaces "
			"of %s not reached: %s\n", verb, path, strerror(-ret));
	return 0;
}

int tsqctl_set(const struct tsqctl_ctx *c, int argc, char **argv)
{
	struct tsq_policy p = {};
	char path[4096], err[256];
	int cg, map, ret;
	__u64 id;

	if (argc < 3)
		return usage_error("usage: tsqctl set CGROUP|UNIT [limit SIZE] [limit-us USEC [rate pacing|delivered]] [tso SIZE] [budget SIZE]");
	if (tsq_policy_parse_args(argc - 1, argv + 1, &p, err, sizeof(err)))
		return usage_error("%s", err);
	ret = open_map_target(c, "set", argv[0], path, sizeof(path), &map, &cg);
	if (ret)
		return ret;
	ret = check_room(c, map, cg, path);
	if (ret) {
		close(cg);
		close(map);
		return ret;
	}
	ret = bpf_map_update_elem(map, &cg, &p, BPF_ANY) ? -errno : 0;
	id = tsq_cgroup_id(cg);
	close(cg);
	close(map);
	if (ret)
		return tsqctl_failed(ret, "set");
	return changed(c, "set", path, id);
}

int tsqctl_unset(const struct tsqctl_ctx *c, int argc, char **argv)
{
	char path[4096];
	int cg, map, ret;
	__u64 id;

	if (argc != 1)
		return usage_error("usage: tsqctl unset CGROUP|UNIT");
	ret = open_map_target(c, "unset", argv[0], path, sizeof(path), &map, &cg);
	if (ret)
		return ret;
	ret = bpf_map_delete_elem(map, &cg) ? -errno : 0;
	id = tsq_cgroup_id(cg);
	close(cg);
	close(map);
	if (ret == -ENOENT)
		return usage_error("%s has no policy", path);
	if (ret)
		return tsqctl_failed(ret, "unset");
	return changed(c, "unset", path, id);
}

static void show_one(int fd, const char *path, int depth, void *arg)
{
	int map = *(int *)arg;
	struct tsq_policy p;

	if (bpf_map_lookup_elem(map, &fd, &p) || !(p.flags & TSQ_POLICY_ALL))
		return;
	open_json_object(NULL);
	print_string(PRINT_ANY, "cgroup", "%s", path);
	tsq_policy_print(&p);
	print_nl();
	close_json_object();
}

int tsqctl_show(const struct tsqctl_ctx *c, int argc, char **argv)
{
	char path[4096];
	int ret = 0, cg, map;

	if (argc > 1)
		return usage_error("usage: tsqctl show [CGROUP|UNIT]");
	map = tsq_pinned(TSQ_PIN_POLICY);
	if (map < 0)
		return tsqctl_failed(map, "show");
	open_json_array(NULL);
	if (argc == 1) {
		ret = open_target(c, argv[0], path, sizeof(path), &cg);
		if (!ret) {
			show_one(cg, path[0] ? path : "/", 0, &map);
			close(cg);
		}
	} else {
		ret = tsq_cgroup_walk(c->mount, "", show_one, &map);
		ret = ret ? tsqctl_failed(ret, "show") : 0;
	}
	close_json_array();
	close(map);
	return ret;
}

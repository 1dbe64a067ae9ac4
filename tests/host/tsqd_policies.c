// SPDX-License-Identifier: GPL-2.0
/*
 * tsqd's policy files against a real cgroup tree and a real policy map,
 * natively: run by test_policies_maps.sh in a private cgroup namespace
 * (its root a fresh cgroup, mounted at MOUNT) with maps that scale_maps
 * pinned in a private bpffs, sized MAX, one policy already set 70 levels
 * down as tsqctl would. The code is tsqd's own (user/tsqd/policies.c,
 * metrics.c); only the event loop is this file's. Without systemd here,
 * units are where systemd puts them by default. OUT_DIR gets tsqd's
 * /metrics text at two points, for the script to check.
 *
 * usage: tsqd_policies MOUNT CONF_DIR OUT_DIR
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <bpf/bpf.h>

#include "cgroup.h"
#include "metrics.h"
#include "policies.h"
#include "tsq_bpf.h"
#include "tsq_report.h"
#include "tests/host/unit/test.h"

static const char *mount;
static int map;

/* mkdir -p below the mount. */
static void mk(const char *rel)
{
	char path[PATH_MAX], *p;

	snprintf(path, sizeof(path), "%s%s", mount, rel);
	for (p = path + strlen(mount) + 1; (p = strchr(p, '/')); p++) {
		*p = '\0';
		mkdir(path, 0755);
		*p = '/';
	}
	mkdir(path, 0755);
}

/* The policy's limit on the cgroup at rel, 0 for none, -1 if no cgroup. */
static long limit_of(const char *rel)
{
	struct tsq_policy p;
	long ret = 0;
	int fd;

	if (tsq_cgroup_open(mount, rel, &fd))
		return -1;
	if (!bpf_map_lookup_elem(map, &fd, &p) && (p.flags & TSQ_POLICY_ALL))
		ret = p.limit;
	close(fd);
	return ret;
}

static void set_limit(const char *rel, unsigned int limit)
{
	struct tsq_policy p = { .flags = TSQ_POLICY_LIMIT, .limit = limit };
	int fd;

	if (tsq_cgroup_open(mount, rel, &fd) || bpf_map_update_elem(map, &fd, &p, BPF_ANY))
		printf("# set %s: %s\n", rel, strerror(errno));
	close(fd);
}

static void expect(const char *rel, long want, const char *what)
{
	long got = limit_of(rel);

	check(got == want, what, "%s: limit %ld, want %ld", rel, got, want);
}

/* rel's policy is limit-us 1000 with exactly these flags. */
static void expect_flags(const char *rel, __u32 flags, const char *what)
{
	struct tsq_policy p = {};
	int fd;

	if (!tsq_cgroup_open(mount, rel, &fd)) {
		bpf_map_lookup_elem(map, &fd, &p);
		close(fd);
	}
	check(p.flags == flags && p.limit_us == 1000, what,
	      "%s: flags 0x%x limit-us %u, want 0x%x 1000", rel, p.flags, p.limit_us, flags);
}

/* The policy files: the units and /x as at the start, then last. */
static void write_conf(const char *conf, const char *last)
{
	FILE *f = fopen(conf, "w");

	if (!f)
		return;
	fprintf(f, "backup.service limit 8k\na@b.service limit 16k\n/x limit 4k\n%s\n", last);
	fclose(f);
}

/* What tsqd's /metrics would answer now, in dir/name. */
static void write_metrics(const struct policies *ps, const char *dir, const char *name)
{
	char path[PATH_MAX];
	struct tsq_report r;
	FILE *f;
	int err;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	err = tsq_report_collect(mount, &r);
	if (!check(!err, tname("metrics: %s collected", name), "%s", strerror(-err)))
		return;
	f = fopen(path, "w");
	if (f) {
		metrics_write(f, &r, ps->nr, ps->pending);
		fclose(f);
	}
	tsq_report_free(&r);
}

int main(int argc, char **argv)
{
	char conf[PATH_MAX], dir[PATH_MAX], err[1024];
	struct policies ps;
	int in;

	if (argc != 4) {
		fprintf(stderr, "usage: tsqd_policies MOUNT CONF_DIR OUT_DIR\n");
		return 2;
	}
	mount = argv[1];
	map = tsq_pinned(TSQ_PIN_POLICY);
	in = inotify_init1(IN_CLOEXEC | IN_NONBLOCK);
	if (!check(map >= 0 && in >= 0, "policies: the pinned policy map", "%s", strerror(-map)))
		return test_done();
	snprintf(conf, sizeof(conf), "%s/tsq.conf", argv[2]);
	snprintf(dir, sizeof(dir), "%s/none", argv[2]);
	write_conf(conf, "/y limit 2k");

	/* A delegated subtree's cgroups named like the units: a user's
	 * systemd (in a cgroup it named with a terminal escape sequence),
	 * and an older tsqd's doing on one of them.
	 */
	mk("/tenant/backup.service");
	mk("/tenant/a@b.service");
	mk("/user.slice/user-1000.slice/user@1000.service/esc\x1b]0;pwned\a/backup.service");
	set_limit("/user.slice/user-1000.slice/user@1000.service/esc\x1b]0;pwned\a/backup.service", 8192);

	policies_init(&ps, mount, map, in);
	check(policies_load(&ps, conf, dir, err, sizeof(err)) == 0, "policies: loaded", "%s", err);
	policies_sync(&ps);
	expect("/tenant/backup.service", 0, "unit: a squatted backup.service gets nothing");
	expect("/tenant/a@b.service", 0, "unit: a squatted a@b.service gets nothing");
	check(ps.pending == 4, "unit: both units and both cgroups pending", "%zu pending",
	      ps.pending);

	/* The units start where systemd puts them. */
	mk("/system.slice/backup.service");
	mk("/system.slice/system-a.slice/a@b.service");
	policies_sync(&ps);
	expect("/system.slice/backup.service", 8192, "unit: backup.service applied in system.slice");
	expect("/system.slice/system-a.slice/a@b.service", 16384,
	       "unit: an instance applied in its template's slice");
	expect("/user.slice/user-1000.slice/user@1000.service/esc\x1b]0;pwned\a/backup.service", 0,
	       "unit: the policy an older resolution left on a squat is taken off");
	expect("/tenant/backup.service", 0, "unit: the other squat still has nothing");

	/* Room: maps of 4 entries; c1, 70 levels down, has tsqctl's policy,
	 * and the two units have theirs: /x makes 4, /y finds no room.
	 */
	mk("/x");
	mk("/y");
	policies_sync(&ps);
	expect("/x", 4096, "room: /x applied, the 4th of 4");
	expect("/y", 0, "room: /y refused: a 5th policy would not fit the maps");
	check(ps.pending == 1, "room: /y stays pending", "%zu pending", ps.pending);
	/* Room again once a policy goes. */
	{
		int fd;

		if (!tsq_cgroup_open(mount, "/x", &fd)) {
			bpf_map_delete_elem(map, &fd);
			close(fd);
		}
	}
	policies_sync(&ps);
	expect("/y", 2048, "room: /y applied once /x lost its policy");

	/* rate: reloads that change /y to limit-us, then only its rate,
	 * apply it again each time, and the map holds the flag.
	 */
	write_conf(conf, "/y limit-us 1000");
	check(policies_load(&ps, conf, dir, err, sizeof(err)) == 0, "rate: reloaded, pacing",
	      "%s", err);
	policies_sync(&ps);
	expect_flags("/y", TSQ_POLICY_LIMIT_US, "rate: limit-us alone is the pacing rate's");
	write_metrics(&ps, argv[3], "metrics.pacing");
	write_conf(conf, "/y rate delivered limit-us 1000");
	check(policies_load(&ps, conf, dir, err, sizeof(err)) == 0, "rate: reloaded, delivered",
	      "%s", err);
	policies_sync(&ps);
	expect_flags("/y", TSQ_POLICY_LIMIT_US | TSQ_POLICY_RATE_DELIVERED,
		     "rate: a change of only the rate is applied, the flag in the map");
	write_metrics(&ps, argv[3], "metrics.delivered");
	policies_free(&ps);
	return test_done();
}

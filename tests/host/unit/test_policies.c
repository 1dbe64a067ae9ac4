// SPDX-License-Identifier: GPL-2.0
/*
 * tsqd's reload at the entry limit: TSQ_MAX_CGROUPS entries read again,
 * each matched with its old self (an unchanged applied entry stays
 * applied, a changed one is applied again). The cgroups do not exist
 * and the map is no map (-1): nothing is applied or removed.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include <bpf/bpf.h>

#include "conffile.h"
#include "policies.h"
#include "test.h"

static char tmpdir[] = "/tmp/tsq-policies-XXXXXX";

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

static int write_conf(const char *file, unsigned int n, unsigned int changed)
{
	FILE *f = fopen(file, "w");

	if (!f)
		return -errno;
	for (unsigned int i = 0; i < n; i++)
		fprintf(f, "/many/c%u limit %s\n", i, i == changed ? "32k" : "16k");
	return fclose(f) ? -errno : 0;
}

static struct entry *entry(struct policies *ps, const char *target)
{
	for (size_t i = 0; i < ps->nr; i++)
		if (!strcmp(ps->v[i].target, target))
			return &ps->v[i];
	return NULL;
}

int main(void)
{
	char file[128], dir[128], err[1024], cmd[160];
	struct policies ps;
	struct entry *e;
	long long t0, t_load, t_reload;
	int ret;

	if (!check(mkdtemp(tmpdir), "policies: mkdtemp", "%s", strerror(errno)))
		return test_done();
	snprintf(file, sizeof(file), "%s/tsq.conf", tmpdir);
	snprintf(dir, sizeof(dir), "%s/none", tmpdir);
	ret = write_conf(file, TSQ_MAX_CGROUPS, ~0U);
	if (!check(!ret, "policies: write the file", "%s", strerror(-ret)))
		return test_done();

	policies_init(&ps, "/sys/fs/cgroup", -1, -1);
	t0 = now_ms();
	ret = policies_load(&ps, file, dir, err, sizeof(err));
	t_load = now_ms() - t0;
	check(ret == 0 && ps.nr == TSQ_MAX_CGROUPS,
	      tname("policies: load of %u entries (%lld ms)", TSQ_MAX_CGROUPS, t_load),
	      "ret %d nr %zu: %s", ret, ps.nr, err);

	/* As if two had been applied; c7's policy changes in the file. */
	e = entry(&ps, "/many/c5");
	if (e) {
		e->path = strdup("/many/c5");
		e->cgid = 42;
	}
	e = entry(&ps, "/many/c7");
	if (e) {
		e->path = strdup("/many/c7");
		e->cgid = 43;
	}
	ret = write_conf(file, TSQ_MAX_CGROUPS, 7);
	t0 = now_ms();
	ret = ret ?: policies_load(&ps, file, dir, err, sizeof(err));
	t_reload = now_ms() - t0;
	check(ret == 0 && ps.nr == TSQ_MAX_CGROUPS,
	      tname("policies: reload of %u entries (%lld ms)", TSQ_MAX_CGROUPS, t_reload),
	      "ret %d nr %zu: %s", ret, ps.nr, err);
	/* The linear search took 12.2 s here (2 cores, a kernel build alongside). */
	check(t_reload < 2000, "policies: reload at the limit within 2 s",
	      "%lld ms", t_reload);
	e = entry(&ps, "/many/c5");
	ASSERT(e && e->cgid == 42 && e->path && !strcmp(e->path, "/many/c5"),
	       "policies: an unchanged applied entry stays applied");
	e = entry(&ps, "/many/c7");
	ASSERT(e && e->cgid == 0 && !e->path && e->pol.limit == 32768,
	       "policies: a changed entry is applied again");
	printf("# load %lld ms, reload %lld ms, %u entries\n", t_load, t_reload,
	       TSQ_MAX_CGROUPS);
	policies_free(&ps);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	ASSERT(!system(cmd), "policies: clean up");
	return test_done();
}

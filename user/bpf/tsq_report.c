// SPDX-License-Identifier: GPL-2.0
/* Per-cgroup statistics: one walk of the cgroup tree against the pinned
 * maps. A socket is counted in the cgroup it was created in
 * (tsq_cgrp_socks); the walk adds each cgroup's count to the nearest
 * cgroup at or above it that has a policy, which is the one the socket
 * follows.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "tsq_bpf.h"
#include "tsq_report.h"
#include "cgroup.h"
#include "print.h"
#include "size.h"

struct walk_ctx {
	struct tsq_report *r;
	int policy, stats, state, socks, ncpu, err;
	/* Index + 1 of the entry that covers each level; 0: none. As deep
	 * as the tree is.
	 */
	size_t *owner, nowner;
	struct tsq_stats *percpu;
};

static struct tsq_cgrp_report *add(struct walk_ctx *c, const char *path, __u64 id)
{
	struct tsq_report *r = c->r;
	struct tsq_cgrp_report *e;

	if (r->nr == r->alloc) {
		size_t n = r->alloc ? 2 * r->alloc : 64;
		void *v = realloc(r->v, n * sizeof(*r->v));

		if (!v)
			return NULL;
		r->v = v;
		r->alloc = n;
	}
	e = &r->v[r->nr];
	memset(e, 0, sizeof(*e));
	e->path = strdup(path);
	if (!e->path)
		return NULL;
	e->id = id;
	r->nr++;
	return e;
}

/* The BPF side's window: bpf_ktime_get_ns() is CLOCK_MONOTONIC. */
static __u64 now_window(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ((__u64)ts.tv_sec * 1000000000ULL + ts.tv_nsec) >> TSQ_WINDOW_SHIFT;
}

/* c->percpu holds the entry's per-CPU statistics if has_stats. */
static void sum_stats(struct walk_ctx *c, struct tsq_cgrp_report *e, bool has_stats)
{
	struct tsq_cgrp_state st;
	__s64 queued = 0, active = 0;
	__u64 now;

	if (has_stats) {
		for (int i = 0; i < c->ncpu; i++) {
			e->sum.limit_calls += c->percpu[i].limit_calls;
			e->sum.tso_calls += c->percpu[i].tso_calls;
			e->sum.throttles += c->percpu[i].throttles;
			e->sum.limit_bytes += c->percpu[i].limit_bytes;
			e->sum.limit_samples += c->percpu[i].limit_samples;
		}
	}
	if (e->sum.limit_samples)
		e->limit_mean = e->sum.limit_bytes / e->sum.limit_samples;
	/* Each socket counts in the slot of the window of its last call: the
	 * current and the previous window together hold the active ones.
	 * The window is read after the entry: a walk of many cgroups takes
	 * longer than two windows, and a window read at its start would find
	 * every later entry's slots newer than itself.
	 */
	if (bpf_map_lookup_elem(c->state, &e->id, &st))
		return;
	now = now_window();
	for (int s = 0; s < 2; s++) {
		if (st.win[s] == now || st.win[s] + 1 == now) {
			active += (__s32)st.active[s];
			queued += (__s64)st.queued[s];
		}
	}
	/* A slot recycled while another CPU added to it may hold a little
	 * less than nothing.
	 */
	e->active = active > 0 ? active : 0;
	e->queued = queued > 0 ? queued : 0;
}

static void visit(int fd, const char *path, int depth, void *arg)
{
	struct walk_ctx *c = arg;
	struct tsq_cgrp_socks socks = {};
	struct tsq_cgrp_report *e;
	struct tsq_policy p = {};
	size_t owner = depth ? c->owner[depth - 1] : 0;
	__u64 id = tsq_cgroup_id(fd);
	bool has_stats;

	c->r->cgroups++;
	if (c->err)
		return;
	if ((size_t)depth >= c->nowner) {
		size_t n = 2 * depth + 64;
		size_t *v = realloc(c->owner, n * sizeof(*v));

		if (!v) {
			c->err = -ENOMEM;
			return;
		}
		c->owner = v;
		c->nowner = n;
	}
	c->owner[depth] = owner;
	if (!id)
		return;
	if (bpf_map_lookup_elem(c->policy, &fd, &p))
		p.flags = 0;
	p.flags &= TSQ_POLICY_ALL;
	has_stats = !bpf_map_lookup_elem(c->stats, &id, c->percpu);
	if (p.flags || has_stats) {
		e = add(c, path, id);
		if (!e) {
			c->err = -ENOMEM;
			return;
		}
		e->policy = p;
		sum_stats(c, e, has_stats);
		if (p.flags)
			owner = c->r->nr;
	}
	c->owner[depth] = owner;
	if (owner && !bpf_map_lookup_elem(c->socks, &id, &socks) && socks.established > 0)
		c->r->v[owner - 1].sockets += socks.established;
}

static void close_fd(int fd)
{
	if (fd >= 0)
		close(fd);
}

int tsq_report_collect(const char *mount, struct tsq_report *r)
{
	struct walk_ctx c = { .r = r, .policy = -1, .stats = -1, .state = -1, .socks = -1 };
	int err;

	memset(r, 0, sizeof(*r));
	c.ncpu = libbpf_num_possible_cpus();
	if (c.ncpu <= 0)
		return c.ncpu ? c.ncpu : -EINVAL;
	c.percpu = calloc(c.ncpu, sizeof(*c.percpu));
	if (!c.percpu)
		return -ENOMEM;
	c.policy = tsq_pinned(TSQ_PIN_POLICY);
	c.stats = tsq_pinned(TSQ_PIN_STATS);
	c.state = tsq_pinned(TSQ_PIN_STATE);
	c.socks = tsq_pinned(TSQ_PIN_SOCKS);
	err = c.policy < 0 ? c.policy : c.stats < 0 ? c.stats :
	      c.state < 0 ? c.state : c.socks < 0 ? c.socks : 0;
	if (!err) {
		err = tsq_cgroup_walk(mount, "", visit, &c) ?: c.err;
	}
	if (!err)
		err = tsq_map_full_read(&r->full);
	close_fd(c.policy);
	close_fd(c.stats);
	close_fd(c.state);
	close_fd(c.socks);
	free(c.percpu);
	free(c.owner);
	if (err)
		tsq_report_free(r);
	return err;
}

int tsq_map_full_read(struct tsq_map_full *sum)
{
	int fd = tsq_pinned(TSQ_PIN_FULL), ncpu = libbpf_num_possible_cpus(), err = 0;
	struct tsq_map_full *percpu;
	__u32 zero = 0;

	memset(sum, 0, sizeof(*sum));
	if (fd == -ENOENT)
		return 0;
	if (fd < 0)
		return fd;
	percpu = ncpu > 0 ? calloc(ncpu, sizeof(*percpu)) : NULL;
	if (!percpu)
		err = ncpu > 0 ? -ENOMEM : -EINVAL;
	else if (bpf_map_lookup_elem(fd, &zero, percpu))
		err = -errno;
	for (int i = 0; !err && i < ncpu; i++) {
		sum->stats += percpu[i].stats;
		sum->state += percpu[i].state;
		sum->socks += percpu[i].socks;
	}
	free(percpu);
	close(fd);
	return err;
}

void tsq_map_full_print(const struct tsq_map_full *f)
{
	if (!f->stats && !f->state && !f->socks)
		return;
	print_u64(PRINT_FP, NULL, "per-cgroup maps full: %llu statistics,", f->stats);
	print_u64(PRINT_FP, NULL, " %llu budget", f->state);
	print_u64(PRINT_FP, NULL, " and %llu socket count entries refused since attach;", f->socks);
	print_string(PRINT_FP, NULL, " %s\n", "budgets without one hold per socket (tsqctl(8))");
}

void tsq_report_free(struct tsq_report *r)
{
	for (size_t i = 0; i < r->nr; i++)
		free(r->v[i].path);
	free(r->v);
	memset(r, 0, sizeof(*r));
}

void tsq_report_print(const struct tsq_report *r)
{
	open_json_array(NULL);
	for (size_t i = 0; i < r->nr; i++) {
		const struct tsq_cgrp_report *e = &r->v[i];
		char m[TSQ_SIZE_BUFSZ], q[TSQ_SIZE_BUFSZ];

		tsq_format_size(m, sizeof(m), e->limit_mean);
		tsq_format_size(q, sizeof(q), e->queued);
		open_json_object(NULL);
		print_string(PRINT_ANY, "cgroup", "%s", e->path);
		print_u64(PRINT_JSON, "id", NULL, e->id);
		print_bool(PRINT_JSON, "policy", NULL, e->policy.flags);
		if (!e->policy.flags)
			print_string(PRINT_FP, NULL, "%s", " (no policy)");
		print_u64(PRINT_JSON, "limit_calls", NULL, e->sum.limit_calls);
		print_u64(PRINT_JSON, "tso_calls", NULL, e->sum.tso_calls);
		print_u64(PRINT_JSON, "throttles", NULL, e->sum.throttles);
		print_u64(PRINT_JSON, "limit_mean", NULL, e->limit_mean);
		print_s64(PRINT_ANY, "sockets", "\n  sockets %lld", e->sockets);
		print_uint(PRINT_ANY, "active_sockets", " active %u", e->active);
		print_u64(PRINT_JSON, "queued_bytes", NULL, e->queued);
		print_string(PRINT_FP, NULL, " queued %s", q);
		print_string(PRINT_FP, NULL, " limit-mean %s", m);
		print_u64(PRINT_FP, NULL, "\n  calls %llu", e->sum.limit_calls);
		print_u64(PRINT_FP, NULL, " tso-calls %llu", e->sum.tso_calls);
		print_u64(PRINT_FP, NULL, " throttles %llu", e->sum.throttles);
		print_nl();
		close_json_object();
	}
	close_json_array();
	if (!print_is_json())
		tsq_map_full_print(&r->full);
}

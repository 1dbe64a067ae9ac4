// SPDX-License-Identifier: GPL-2.0
/* Per-cgroup statistics: one walk of the cgroup tree against the pinned
 * maps. A socket is counted in the cgroup it was created in
 * (tsq_cgrp_socks); the walk adds each cgroup's count to the nearest
 * cgroup at or above it that has a policy, which is the one the socket
 * follows. Bytes in queues come from one run of the policy_queued
 * iterator, by policy cgroup.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "tsq_bpf.h"
#include "tsq_report.h"
#include "cgroup.h"
#include "policy.h"
#include "print.h"
#include "size.h"

struct walk_ctx {
	struct tsq_report *r;
	int policy, stats, socks, ncpu, err;
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

/* c->percpu holds the entry's per-CPU statistics if has_stats. */
static void sum_stats(struct walk_ctx *c, struct tsq_cgrp_report *e, bool has_stats)
{
	if (has_stats) {
		for (int i = 0; i < c->ncpu; i++) {
			e->sum.throttles += c->percpu[i].throttles;
			e->sum.limit_bytes += c->percpu[i].limit_bytes;
			e->sum.limit_samples += c->percpu[i].limit_samples;
			e->sum.group_throttles += c->percpu[i].group_throttles;
		}
	}
	if (e->sum.limit_samples)
		e->limit_mean = e->sum.limit_bytes / e->sum.limit_samples;
}

static struct tsq_cgrp_report *find(struct tsq_report *r, __u64 id)
{
	for (size_t i = 0; i < r->nr; i++)
		if (r->v[i].id == id)
			return &r->v[i];
	return NULL;
}

/* The records may come cut anywhere: keep the part of one. */
struct queued_ctx {
	struct tsq_report *r;
	struct tsq_queued_rec rec;
	size_t have;
};

static void add_queued(struct tsq_report *r, const struct tsq_queued_rec *q)
{
	struct tsq_cgrp_report *e = find(r, q->cgid);

	if (!e)
		return;
	if (q->wmem)
		e->queued_sockets++;
	/* The group's count is the same in each of its sockets' records. */
	if (q->budget)
		e->queued = q->group_queued > 0 ? q->group_queued : 0;
	else
		e->queued += q->wmem;
}

static int on_queued(const void *buf, size_t len, void *arg)
{
	struct queued_ctx *q = arg;
	const char *p = buf;

	while (len) {
		size_t n = sizeof(q->rec) - q->have;

		if (n > len)
			n = len;
		memcpy((char *)&q->rec + q->have, p, n);
		q->have += n;
		p += n;
		len -= n;
		if (q->have == sizeof(q->rec)) {
			add_queued(q->r, &q->rec);
			q->have = 0;
		}
	}
	return 0;
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
	/* As the BPF side reads it: a policy only with a field's flag. */
	if (bpf_map_lookup_elem(c->policy, &fd, &p) || !(p.flags & TSQ_POLICY_ALL))
		p.flags = 0;
	p.flags &= TSQ_POLICY_KNOWN;
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
	struct walk_ctx c = { .r = r, .policy = -1, .stats = -1, .socks = -1 };
	struct queued_ctx q = { .r = r };
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
	c.socks = tsq_pinned(TSQ_PIN_SOCKS);
	err = c.policy < 0 ? c.policy : c.stats < 0 ? c.stats :
	      c.socks < 0 ? c.socks : 0;
	if (!err)
		err = tsq_cgroup_walk_all(mount, "", visit, &c, &r->unreadable) ?: c.err;
	/* Maps pinned without the programs (bench/scale_maps): no bytes
	 * in queues to report, the rest stands.
	 */
	if (!err) {
		err = tsq_run_iter(TSQ_PIN_QUEUED, on_queued, &q);
		if (err == -ENOENT)
			err = 0;
	}
	if (!err)
		err = tsq_map_full_read(&r->full);
	close_fd(c.policy);
	close_fd(c.stats);
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
		sum->socks += percpu[i].socks;
	}
	free(percpu);
	close(fd);
	return err;
}

void tsq_map_full_print(const struct tsq_map_full *f)
{
	if (!f->stats && !f->socks)
		return;
	print_u64(PRINT_FP, NULL, "per-cgroup maps full: %llu statistics", f->stats);
	print_u64(PRINT_FP, NULL, " and %llu socket count entries refused since attach;", f->socks);
	print_string(PRINT_FP, NULL, " %s\n", "their cgroups' statistics are incomplete");
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
		print_u64(PRINT_JSON, "throttles", NULL, e->sum.throttles);
		print_u64(PRINT_JSON, "group_throttles", NULL, e->sum.group_throttles);
		print_u64(PRINT_JSON, "limit_mean", NULL, e->limit_mean);
		print_s64(PRINT_ANY, "sockets", "\n  sockets %lld", e->sockets);
		print_uint(PRINT_ANY, "queued_sockets", " queueing %u", e->queued_sockets);
		print_u64(PRINT_JSON, "queued_bytes", NULL, e->queued);
		print_string(PRINT_FP, NULL, " queued %s", q);
		print_u64(PRINT_FP, NULL, "\n  throttles %llu", e->sum.throttles);
		print_string(PRINT_FP, NULL, " limit-mean %s", m);
		print_u64(PRINT_FP, NULL, " group-throttles %llu", e->sum.group_throttles);
		print_nl();
		close_json_object();
	}
	close_json_array();
	if (!print_is_json())
		tsq_map_full_print(&r->full);
}

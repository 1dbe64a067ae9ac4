// SPDX-License-Identifier: GPL-2.0
/* Load tsq_observe and turn what it sees into per-cgroup snapshots.
 *
 * Nothing is pinned: the programs live as long as the process that opened
 * them (tsqctl top, tsqd), which is what an observer should do, unlike the
 * policy (see tsq_bpf.c). Socket state comes from running the iter/tcp
 * program once per snapshot; delays from per-CPU histograms that only
 * grow, so a snapshot reports the difference with the previous one.
 */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "tsq_observe.h"
#include "tsq_observe.skel.h"
#include "cgroup.h"
#include "print.h"
#include "quote.h"

#define TCP_STATE_ESTABLISHED	1

struct delay_entry {
	__u64 id;
	struct tsq_obs_delay d;
};

struct tsq_obs {
	struct tsq_observe *skel;
	struct bpf_link *done[3], *xmit, *iter;
	const char *completion;		/* how TX completion is seen */
	int ncpu;
	struct tsq_obs_delay *percpu;
	struct delay_entry *prev;	/* sums at the previous snapshot, by id */
	size_t nprev;
	struct timespec last, opened;
};

static double now_secs(struct timespec *ts)
{
	clock_gettime(CLOCK_MONOTONIC, ts);
	return ts->tv_sec + ts->tv_nsec / 1e9;
}

void tsq_obs_close(struct tsq_obs *o)
{
	if (!o)
		return;
	bpf_link__destroy(o->iter);
	bpf_link__destroy(o->xmit);
	for (int i = 0; i < 3; i++)
		bpf_link__destroy(o->done[i]);
	tsq_observe__destroy(o->skel);
	free(o->percpu);
	free(o->prev);
	free(o);
}

/* fentry/tcp_wfree if the kernel allows it, else the tracepoints. */
static struct tsq_observe *load(bool fentry)
{
	struct tsq_observe *skel = tsq_observe__open();
	struct bpf_program *fallback[] = {
		skel ? skel->progs.observe_free : NULL,
		skel ? skel->progs.observe_drop : NULL,
		skel ? skel->progs.observe_rx : NULL,
	};
	int err;

	if (!skel)
		return NULL;
	bpf_program__set_autoload(skel->progs.observe_done, fentry);
	for (int i = 0; i < 3; i++)
		bpf_program__set_autoload(fallback[i], !fentry);
	err = tsq_observe__load(skel);
	if (err) {
		tsq_observe__destroy(skel);
		errno = -err;
		return NULL;
	}
	return skel;
}

struct tsq_obs *tsq_obs_open(void)
{
	struct tsq_obs *o = calloc(1, sizeof(*o));
	int err = 0;

	if (!o)
		return NULL;
	o->ncpu = libbpf_num_possible_cpus();
	if (o->ncpu <= 0) {
		err = o->ncpu ? o->ncpu : -EINVAL;
		goto fail;
	}
	o->percpu = calloc(o->ncpu, sizeof(*o->percpu));
	if (!o->percpu) {
		err = -ENOMEM;
		goto fail;
	}
	/* fentry can fail at load (EPERM on this 6.18 host) or at attach
	 * (EBUSY on the 6.12 guest): either way, the tracepoints instead.
	 */
	for (int fentry = 1; fentry >= 0; fentry--) {
		struct bpf_program *done[3] = {};
		/* A refused fentry is no news: the fallback follows. */
		libbpf_print_fn_t print = fentry ? libbpf_set_print(NULL) : NULL;

		o->skel = load(fentry);
		if (!o->skel) {
			err = -errno;
			if (fentry)
				libbpf_set_print(print);
			continue;
		}
		o->completion = fentry ? "fentry/tcp_wfree" : "tp_btf/consume_skb";
		done[0] = fentry ? o->skel->progs.observe_done : o->skel->progs.observe_free;
		done[1] = fentry ? NULL : o->skel->progs.observe_drop;
		done[2] = fentry ? NULL : o->skel->progs.observe_rx;
		err = 0;
		for (int i = 0; i < 3 && done[i] && !err; i++) {
			o->done[i] = bpf_program__attach(done[i]);
			err = o->done[i] ? 0 : -errno;
		}
		if (fentry)
			libbpf_set_print(print);
		if (!err)
			break;
		for (int i = 0; i < 3; i++) {
			bpf_link__destroy(o->done[i]);
			o->done[i] = NULL;
		}
		tsq_observe__destroy(o->skel);
		o->skel = NULL;
	}
	if (err)
		goto fail;
	o->iter = bpf_program__attach_iter(o->skel->progs.observe_tcp, NULL);
	if (!o->iter) {
		err = -errno;
		goto fail;
	}
	/* Only the split of the delay depends on it. */
	o->xmit = bpf_program__attach(o->skel->progs.observe_xmit);
	now_secs(&o->last);
	o->opened = o->last;
	return o;
fail:
	tsq_obs_close(o);
	errno = -err;
	return NULL;
}

static int cmp_u32(const void *a, const void *b)
{
	__u32 x = *(const __u32 *)a, y = *(const __u32 *)b;

	return x < y ? -1 : x > y;
}

static int cmp_id(const void *a, const void *b)
{
	__u64 x = *(const __u64 *)a, y = *(const __u64 *)b;

	return x < y ? -1 : x > y;
}

/* Run the iterator: every record of the caller's netns. */
static int read_socks(struct tsq_obs *o, struct tsq_obs_sock **out, size_t *nr)
{
	size_t len = 0, alloc = 64 * sizeof(**out);
	char *buf = malloc(alloc);
	int fd = bpf_iter_create(bpf_link__fd(o->iter));
	ssize_t n;

	if (fd < 0 || !buf) {
		free(buf);
		if (fd >= 0)
			close(fd);
		return fd < 0 ? -errno : -ENOMEM;
	}
	for (;;) {
		if (alloc - len < 4096) {
			char *nb = realloc(buf, alloc * 2);

			if (!nb) {
				n = -1;
				errno = ENOMEM;
				break;
			}
			buf = nb;
			alloc *= 2;
		}
		n = read(fd, buf + len, alloc - len);
		if (n < 0 && errno == EAGAIN)
			continue;
		if (n <= 0)
			break;
		len += n;
	}
	close(fd);
	if (n < 0) {
		free(buf);
		return -errno;
	}
	*out = (struct tsq_obs_sock *)buf;
	*nr = len / sizeof(**out);
	return 0;
}

/* The entry of id among the first n, which are sorted by id. */
static struct tsq_obs_cgrp *find(struct tsq_obs_snap *s, size_t n, __u64 id)
{
	return n ? bsearch(&id, s->v, n, sizeof(*s->v), cmp_id) : NULL;
}

static struct tsq_obs_cgrp *append(struct tsq_obs_snap *s, size_t *alloc, __u64 id)
{
	if (s->nr == *alloc) {
		size_t n = *alloc ? 2 * *alloc : 32;
		void *v = realloc(s->v, n * sizeof(*s->v));

		if (!v)
			return NULL;
		s->v = v;
		*alloc = n;
	}
	memset(&s->v[s->nr], 0, sizeof(s->v[0]));
	s->v[s->nr].id = id;
	return &s->v[s->nr++];
}

/* Records sorted by cgroup id: one pass a cgroup, p99 from its slice. */
static int add_socks(struct tsq_obs_snap *s, size_t *alloc, struct tsq_obs_sock *r,
		     size_t nr)
{
	__u32 *q = malloc((nr ? nr : 1) * sizeof(*q));

	if (!q)
		return -ENOMEM;
	qsort(r, nr, sizeof(*r), cmp_id);
	for (size_t i = 0; i < nr;) {
		struct tsq_obs_cgrp *e = append(s, alloc, r[i].cgid);
		size_t j = i, k;

		if (!e) {
			free(q);
			return -ENOMEM;
		}
		for (; j < nr && r[j].cgid == r[i].cgid; j++) {
			const struct tsq_obs_sock *sk = &r[j];

			q[j - i] = (__s32)sk->wmem_alloc < 0 ? 0 : sk->wmem_alloc;
			e->sockets++;
			e->established += sk->state == TCP_STATE_ESTABLISHED;
			e->throttled += !!(sk->flags & TSQ_OBS_THROTTLED);
			e->queued += q[j - i];
			e->unsent += sk->unsent;
			e->wmem_queued += sk->wmem_queued;
			/* ~0UL (and ~0U on 32-bit fields): TCP set no rate. */
			if (sk->pacing_rate && sk->pacing_rate < ~0U)
				e->pacing += sk->pacing_rate;
		}
		k = j - i;
		qsort(q, k, sizeof(*q), cmp_u32);
		e->queued_max = q[k - 1];
		e->queued_p99 = q[(99 * k + 99) / 100 - 1];
		i = j;
	}
	free(q);
	return 0;
}

static struct delay_entry *find_delay(struct delay_entry *v, size_t n, __u64 id)
{
	return n ? bsearch(&id, v, n, sizeof(*v), cmp_id) : NULL;
}

/*
 * Sum the per-CPU histograms into *cur (sorted by id) and report what
 * grew: since the last call, or, with cumulative, since the programs
 * were loaded (tsqd: Prometheus counters, which no reader may reset).
 */
static int add_delays(struct tsq_obs *o, struct tsq_obs_snap *s, size_t *alloc,
		      bool cumulative, struct delay_entry **curp, size_t *ncurp)
{
	int fd = bpf_map__fd(o->skel->maps.tsq_obs_delay);
	struct delay_entry *cur = NULL;
	size_t ncur = 0, acur = 0, sorted = s->nr;
	__u64 key, next, *pkey = NULL;

	while (!bpf_map_get_next_key(fd, pkey, &next)) {
		struct delay_entry *c, *p;
		struct tsq_obs_cgrp *e;
		bool grew = false;

		key = next;
		pkey = &key;
		if (bpf_map_lookup_elem(fd, &key, o->percpu))
			continue;
		if (ncur == acur) {
			void *v = realloc(cur, (acur = acur ? 2 * acur : 32) * sizeof(*cur));

			if (!v) {
				free(cur);
				return -ENOMEM;
			}
			cur = v;
		}
		c = &cur[ncur++];
		memset(c, 0, sizeof(*c));
		c->id = key;
		for (int cpu = 0; cpu < o->ncpu; cpu++) {
			for (int i = 0; i < TSQ_OBS_SLOTS; i++) {
				c->d.done[i] += o->percpu[cpu].done[i];
				c->d.qdisc[i] += o->percpu[cpu].qdisc[i];
			}
			c->d.done_ns += o->percpu[cpu].done_ns;
			c->d.qdisc_ns += o->percpu[cpu].qdisc_ns;
		}
		p = cumulative ? NULL : find_delay(o->prev, o->nprev, key);
		for (int i = 0; i < TSQ_OBS_SLOTS; i++)
			grew |= c->d.done[i] != (p ? p->d.done[i] : 0) ||
				c->d.qdisc[i] != (p ? p->d.qdisc[i] : 0);
		if (!grew)
			continue;
		e = find(s, sorted, key) ?: append(s, alloc, key);
		if (!e) {
			free(cur);
			return -ENOMEM;
		}
		for (int i = 0; i < TSQ_OBS_SLOTS; i++) {
			e->done[i] = c->d.done[i] - (p ? p->d.done[i] : 0);
			e->qdisc[i] = c->d.qdisc[i] - (p ? p->d.qdisc[i] : 0);
			e->done_n += e->done[i];
			e->qdisc_n += e->qdisc[i];
		}
		e->done_ns = c->d.done_ns - (p ? p->d.done_ns : 0);
		e->qdisc_ns = c->d.qdisc_ns - (p ? p->d.qdisc_ns : 0);
	}
	if (ncur)
		qsort(cur, ncur, sizeof(*cur), cmp_id);
	*curp = cur;
	*ncurp = ncur;
	/* qsort() and bsearch() want a base that is not NULL, even for none. */
	if (s->nr)
		qsort(s->v, s->nr, sizeof(*s->v), cmp_id);
	return 0;
}

struct name_ctx {
	struct tsq_obs_snap *s;
	size_t *alloc, sorted;
	bool all;
	int err;
	struct delay_entry *keys;	/* the delay map's, sorted */
	size_t nkeys;
	bool *seen;			/* keys[i] is a cgroup the walk found */
};

static void name_one(int fd, const char *path, int depth, void *arg)
{
	struct name_ctx *c = arg;
	__u64 id = tsq_cgroup_id(fd);
	struct tsq_obs_cgrp *e = NULL;
	struct delay_entry *k;

	if (!id || c->err)
		return;
	k = find_delay(c->keys, c->nkeys, id);
	if (k)
		c->seen[k - c->keys] = true;
	e = find(c->s, c->sorted, id);
	if (!e && !c->all)
		return;
	if (!e)
		e = append(c->s, c->alloc, id);
	if (!e || !(e->path = strdup(path[0] ? path : "/")))
		c->err = -ENOMEM;
}

static int cmp_queued(const void *a, const void *b)
{
	const struct tsq_obs_cgrp *x = a, *y = b;

	if (x->queued != y->queued)
		return x->queued > y->queued ? -1 : 1;
	if (x->done_n != y->done_n)
		return x->done_n > y->done_n ? -1 : 1;
	return x->id < y->id ? -1 : x->id > y->id;
}

/*
 * Drop the delay map's entries of cgroups the walk did not find: removed
 * ones (cgroup ids are not reused), which would otherwise fill the map
 * until new cgroups got no entry at all. A socket can outlive its cgroup
 * and make an entry again; the next snapshot drops that too. keys keeps
 * the entries that stay.
 */
static void prune(struct tsq_obs *o, struct name_ctx *nc, struct tsq_obs_snap *s)
{
	int fd = bpf_map__fd(o->skel->maps.tsq_obs_delay);
	size_t kept = 0;

	for (size_t i = 0; i < nc->nkeys; i++) {
		if (nc->seen[i]) {
			nc->keys[kept++] = nc->keys[i];
			continue;
		}
		if (!bpf_map_delete_elem(fd, &nc->keys[i].id))
			s->pruned++;
	}
	nc->nkeys = kept;
}

int tsq_obs_snapshot(struct tsq_obs *o, const char *mount, struct tsq_obs_snap *s,
		     unsigned int flags)
{
	struct name_ctx nc = { .s = s, .all = flags & TSQ_OBS_ALL };
	bool cumulative = flags & TSQ_OBS_CUMULATIVE;
	struct tsq_obs_sock *socks = NULL;
	size_t alloc = 0, nsocks = 0;
	struct timespec ts;
	int err;

	memset(s, 0, sizeof(*s));
	nc.alloc = &alloc;
	s->qdisc = o->xmit != NULL;
	s->completion = o->completion;
	s->cumulative = cumulative;
	err = read_socks(o, &socks, &nsocks);
	clock_gettime(CLOCK_REALTIME, &ts);
	s->time = ts.tv_sec + ts.tv_nsec / 1e9;
	if (!err) {
		s->sockets = nsocks;
		err = add_socks(s, &alloc, socks, nsocks);
	}
	if (!err && (flags & TSQ_OBS_SOCKS)) {
		s->socks = socks;
		s->nsocks = nsocks;
	} else {
		free(socks);
	}
	err = err ?: add_delays(o, s, &alloc, cumulative, &nc.keys, &nc.nkeys);
	now_secs(&ts);
	s->secs = ts.tv_sec - (cumulative ? o->opened : o->last).tv_sec +
		  (ts.tv_nsec - (cumulative ? o->opened : o->last).tv_nsec) / 1e9;
	if (!cumulative)
		o->last = ts;
	if (o->skel->bss)
		s->delay_map_full = o->skel->bss->delay_map_full;
	nc.sorted = s->nr;
	nc.seen = calloc(nc.nkeys ? nc.nkeys : 1, sizeof(*nc.seen));
	if (!err && !nc.seen)
		err = -ENOMEM;
	if (!err)
		err = tsq_cgroup_walk_all(mount, "", name_one, &nc, &s->unreadable) ?: nc.err;
	/* A cgroup the walk could not see may well exist: keep its delays. */
	if (!err && !s->unreadable)
		prune(o, &nc, s);
	free(nc.seen);
	if (err) {
		free(nc.keys);
		tsq_obs_snap_free(s);
		return err;
	}
	/* The sums seen now: the base of the next interval. */
	if (!cumulative) {
		free(o->prev);
		o->prev = nc.keys;
		o->nprev = nc.nkeys;
	} else {
		free(nc.keys);
	}
	if (s->nr)
		qsort(s->v, s->nr, sizeof(*s->v), cmp_queued);
	return 0;
}

void tsq_obs_snap_free(struct tsq_obs_snap *s)
{
	for (size_t i = 0; i < s->nr; i++)
		free(s->v[i].path);
	free(s->v);
	free(s->socks);
	memset(s, 0, sizeof(*s));
}

__u64 tsq_obs_hist_pct(const __u64 *hist, __u64 n, double p)
{
	__u64 cum = 0, want;

	if (!n)
		return 0;
	want = (__u64)(p / 100.0 * n + 0.999999);
	if (!want)
		want = 1;
	for (int i = 0; i < TSQ_OBS_SLOTS; i++) {
		cum += hist[i];
		if (cum >= want)
			return 2ULL << i;
	}
	return 2ULL << (TSQ_OBS_SLOTS - 1);
}

static void print_delay(const char *name, const __u64 *hist, __u64 n, __u64 ns)
{
	int last = -1;

	open_json_object(name);
	print_u64(PRINT_JSON, "count", NULL, n);
	print_u64(PRINT_JSON, "mean_ns", NULL, n ? ns / n : 0);
	print_u64(PRINT_JSON, "p50_ns", NULL, tsq_obs_hist_pct(hist, n, 50));
	print_u64(PRINT_JSON, "p99_ns", NULL, tsq_obs_hist_pct(hist, n, 99));
	for (int i = 0; i < TSQ_OBS_SLOTS; i++)
		if (hist[i])
			last = i;
	open_json_array("hist_log2_ns");
	for (int i = 0; i <= last; i++)
		print_u64(PRINT_JSON, NULL, NULL, hist[i]);
	close_json_array();
	close_json_object();
}

static void print_sock(const struct tsq_obs_sock *k)
{
	open_json_object(NULL);
	print_u64(PRINT_JSON, "cgroup_id", NULL, k->cgid);
	print_uint(PRINT_JSON, "sport", NULL, k->sport);
	print_uint(PRINT_JSON, "dport", NULL, k->dport);
	print_uint(PRINT_JSON, "state", NULL, k->state);
	/* sk_wmem_alloc less its base of 1: -1 on a socket being freed. */
	print_s64(PRINT_JSON, "wmem_alloc", NULL, (int)k->wmem_alloc);
	print_uint(PRINT_JSON, "wmem_queued", NULL, k->wmem_queued);
	print_uint(PRINT_JSON, "sndbuf", NULL, k->sndbuf);
	print_uint(PRINT_JSON, "unsent", NULL, k->unsent);
	print_uint(PRINT_JSON, "inflight", NULL, k->inflight);
	print_bool(PRINT_JSON, "throttled", NULL, k->flags & TSQ_OBS_THROTTLED);
	print_u64(PRINT_JSON, "pacing_rate", NULL, k->pacing_rate);
	close_json_object();
}

void tsq_obs_print_json(const struct tsq_obs_snap *s)
{
	open_json_object(NULL);
	print_float(PRINT_JSON, "time", NULL, s->time);
	print_float(PRINT_JSON, "interval_s", NULL, s->secs);
	print_bool(PRINT_JSON, "cumulative", NULL, s->cumulative);
	print_u64(PRINT_JSON, "delay_map_full", NULL, s->delay_map_full);
	print_u64(PRINT_JSON, "cgroups_unreadable", NULL, s->unreadable);
	print_u64(PRINT_JSON, "sockets", NULL, s->sockets);
	print_string(PRINT_JSON, "completion", NULL, s->completion);
	print_bool(PRINT_JSON, "qdisc_delay", NULL, s->qdisc);
	open_json_array("cgroups");
	for (size_t i = 0; i < s->nr; i++) {
		const struct tsq_obs_cgrp *e = &s->v[i];

		open_json_object(NULL);
		print_string(PRINT_JSON, "cgroup", NULL, e->path);
		print_u64(PRINT_JSON, "id", NULL, e->id);
		print_uint(PRINT_JSON, "sockets", NULL, e->sockets);
		print_uint(PRINT_JSON, "established", NULL, e->established);
		print_uint(PRINT_JSON, "throttled", NULL, e->throttled);
		print_u64(PRINT_JSON, "queued_bytes", NULL, e->queued);
		print_uint(PRINT_JSON, "queued_max", NULL, e->queued_max);
		print_uint(PRINT_JSON, "queued_p99", NULL, e->queued_p99);
		print_u64(PRINT_JSON, "unsent_bytes", NULL, e->unsent);
		print_u64(PRINT_JSON, "wmem_queued", NULL, e->wmem_queued);
		print_u64(PRINT_JSON, "pacing_rate", NULL, e->pacing);
		print_delay("delay", e->done, e->done_n, e->done_ns);
		if (s->qdisc)
			print_delay("qdisc_delay", e->qdisc, e->qdisc_n, e->qdisc_ns);
		close_json_object();
	}
	close_json_array();
	if (s->nsocks) {
		open_json_array("socket_list");
		for (size_t i = 0; i < s->nsocks; i++)
			print_sock(&s->socks[i]);
		close_json_array();
	}
	close_json_object();
}

/* Gauges of the sockets now; labelled by cgroup. */
static const struct obs_family {
	const char *name, *help;
	size_t off;
	bool u32;
} obs_families[] = {
#define F(n, h, field, w) { n, h, offsetof(struct tsq_obs_cgrp, field), w }
	F("tsq_obs_sockets", "Established TCP sockets created in the cgroup.", established, true),
	F("tsq_obs_throttled_sockets", "Sockets with TSQ_THROTTLED set now.", throttled, true),
	F("tsq_obs_queued_bytes", "sk_wmem_alloc over the sockets: bytes in qdiscs and rings.",
	  queued, false),
	F("tsq_obs_queued_max_bytes", "The largest sk_wmem_alloc of one socket.", queued_max, true),
	F("tsq_obs_unsent_bytes", "Bytes written but not yet sent.", unsent, false),
	F("tsq_obs_pacing_rate_bytes", "Sum of the pacing rates TCP set, bytes/s.", pacing, false),
#undef F
};

/* Buckets from 2^10 ns (about 1 us) to 2^31 ns (about 2.1 s), then +Inf:
 * the log2 slots below the first fold into it, the last slot (which
 * holds everything above) into +Inf.
 */
#define PROM_FIRST_SLOT	9
#define PROM_LAST_SLOT	(TSQ_OBS_SLOTS - 2)

/*
 * A Prometheus histogram a cgroup: cumulative since tsqd loaded the
 * programs, so that any number of scrapers can read it and rate() works;
 * a removed cgroup's series ends with it.
 */
static void prom_hist(FILE *f, const struct tsq_obs_snap *s, const char *name, bool qdisc)
{
	fprintf(f, "# HELP %s Delay from TCP's transmit to %s, per skb.\n# TYPE %s histogram\n",
		name, qdisc ? "the driver" : "TX completion", name);
	for (size_t i = 0; i < s->nr; i++) {
		const struct tsq_obs_cgrp *e = &s->v[i];
		const __u64 *hist = qdisc ? e->qdisc : e->done;
		__u64 n = qdisc ? e->qdisc_n : e->done_n, cum = 0;

		if (!e->path || !n)
			continue;
		for (int k = 0; k < TSQ_OBS_SLOTS; k++) {
			cum += hist[k];
			if (k < PROM_FIRST_SLOT || k > PROM_LAST_SLOT)
				continue;
			fprintf(f, "%s_bucket{cgroup=", name);
			tsq_prom_label(f, e->path);
			fprintf(f, ",le=\"%.9g\"} %llu\n", (double)(2ULL << k) / 1e9,
				(unsigned long long)cum);
		}
		fprintf(f, "%s_bucket{cgroup=", name);
		tsq_prom_label(f, e->path);
		fprintf(f, ",le=\"+Inf\"} %llu\n%s_sum{cgroup=", (unsigned long long)n, name);
		tsq_prom_label(f, e->path);
		fprintf(f, "} %.9f\n%s_count{cgroup=", (qdisc ? e->qdisc_ns : e->done_ns) / 1e9,
			name);
		tsq_prom_label(f, e->path);
		fprintf(f, "} %llu\n", (unsigned long long)n);
	}
}

int tsq_obs_serve(struct tsq_obs *o, const char *mount, FILE *f, bool json)
{
	struct tsq_obs_snap s;
	int err = tsq_obs_snapshot(o, mount, &s, TSQ_OBS_CUMULATIVE);

	if (err)
		return err;
	if (json) {
		err = print_start(f, true, false);
		if (!err)
			tsq_obs_print_json(&s);
		print_end();
		tsq_obs_snap_free(&s);
		return err;
	}
	fprintf(f, "# HELP tsq_observation_mode 1: no tcp_tsq_ops hook, statistics only.\n"
		"# TYPE tsq_observation_mode gauge\ntsq_observation_mode 1\n");
	for (size_t k = 0; k < sizeof(obs_families) / sizeof(obs_families[0]); k++) {
		const struct obs_family *fm = &obs_families[k];

		fprintf(f, "# HELP %s %s\n# TYPE %s gauge\n", fm->name, fm->help, fm->name);
		for (size_t i = 0; i < s.nr; i++) {
			const char *p = (const char *)&s.v[i] + fm->off;

			if (!s.v[i].path)
				continue;
			fprintf(f, "%s{cgroup=", fm->name);
			tsq_prom_label(f, s.v[i].path);
			fprintf(f, "} %llu\n", fm->u32 ? *(const __u32 *)p :
				(unsigned long long)*(const __u64 *)p);
		}
	}
	prom_hist(f, &s, "tsq_obs_delay_seconds", false);
	if (s.qdisc)
		prom_hist(f, &s, "tsq_obs_qdisc_delay_seconds", true);
	fprintf(f, "# HELP tsq_obs_delay_map_full_total Skbs whose cgroup found no room in "
		"the delay map.\n# TYPE tsq_obs_delay_map_full_total counter\n"
		"tsq_obs_delay_map_full_total %llu\n", (unsigned long long)s.delay_map_full);
	fprintf(f, "# HELP tsq_obs_cgroups_unreadable Cgroups tsqd could not open or read "
		"(their subtrees unnamed).\n# TYPE tsq_obs_cgroups_unreadable gauge\n"
		"tsq_obs_cgroups_unreadable %zu\n", s.unreadable);
	tsq_obs_snap_free(&s);
	return 0;
}

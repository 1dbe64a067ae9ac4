// SPDX-License-Identifier: GPL-2.0
/* tsqctl top: per-cgroup bytes in the host's queues and their delay.
 *
 * Works on any kernel with BTF, with or without the tcp_tsq_ops hook:
 * it loads bpf/tsq_observe.bpf.c for as long as it runs (see its design
 * comment) and lists the TCP sockets of the netns it runs in, as ss does.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/ioctl.h>

#include "tsqctl.h"
#include "tsq_observe.h"
#include "print.h"
#include "quote.h"

struct top_args {
	double interval;	/* seconds */
	long count;		/* frames; 0: until interrupted */
	unsigned int flags;	/* TSQ_OBS_* */
};

static int top_usage(void)
{
	fprintf(stderr, "usage: tsqctl [-j] top [-i SECONDS] [-n COUNT] [-a] [-s]\n");
	return 2;
}

static int parse_top(int argc, char **argv, struct top_args *a)
{
	char *end;

	for (int i = 0; i < argc; i++) {
		if (!strcmp(argv[i], "-a") || !strcmp(argv[i], "-s")) {
			a->flags |= argv[i][1] == 'a' ? TSQ_OBS_ALL : TSQ_OBS_SOCKS;
			continue;
		}
		if (i + 1 == argc || (strcmp(argv[i], "-i") && strcmp(argv[i], "-n"))) {
			fprintf(stderr, "tsqctl: top: What is \"%s\"?\n", argv[i]);
			return top_usage();
		}
		errno = 0;
		if (!strcmp(argv[i], "-i")) {
			a->interval = strtod(argv[++i], &end);
			if (errno || *end || !(a->interval >= 0.1 && a->interval <= 3600)) {
				fprintf(stderr, "tsqctl: top -i %s: want 0.1 to 3600 seconds\n",
					argv[i]);
				return 2;
			}
		} else {
			a->count = strtol(argv[++i], &end, 10);
			if (errno || *end || a->count < 1) {
				fprintf(stderr, "tsqctl: top -n %s: want a count of 1 or more\n",
					argv[i]);
				return 2;
			}
		}
	}
	return 0;
}

/* 1.2ms, 850us, 3.4s: the upper bound of a log2 slot, so two digits. */
static const char *fmt_ns(char *buf, size_t len, __u64 ns)
{
	if (!ns)
		snprintf(buf, len, "-");
	else if (ns < 10000)
		snprintf(buf, len, "%lluns", (unsigned long long)ns);
	else if (ns < 10000000)
		snprintf(buf, len, "%.0fus", ns / 1e3);
	else if (ns < 10000000000ULL)
		snprintf(buf, len, "%.0fms", ns / 1e6);
	else
		snprintf(buf, len, "%.0fs", ns / 1e9);
	return buf;
}

/* Bytes per second as tc writes rates: 95Mbit. */
static const char *fmt_rate(char *buf, size_t len, __u64 bps)
{
	double bits = bps * 8.0;

	if (!bps)
		snprintf(buf, len, "-");
	else if (bits >= 1e9)
		snprintf(buf, len, "%.1fGbit", bits / 1e9);
	else if (bits >= 1e6)
		snprintf(buf, len, "%.1fMbit", bits / 1e6);
	else
		snprintf(buf, len, "%.0fKbit", bits / 1e3);
	return buf;
}

/* 896, 42.2K, 8.2M: three digits are what a glance needs. */
static const char *fmt_bytes(char *buf, size_t len, __u64 b)
{
	if (b < 10000)
		snprintf(buf, len, "%llu", (unsigned long long)b);
	else if (b < 1000000)
		snprintf(buf, len, "%.1fK", b / 1e3);
	else
		snprintf(buf, len, "%.1fM", b / 1e6);
	return buf;
}

static void print_frame(const struct tsq_obs_snap *s, bool tty)
{
	struct winsize ws = { .ws_row = 0 };
	char stamp[32], a[5][16], d[4][16];
	time_t now = time(NULL);
	size_t rows = s->nr;

	if (tty) {
		fputs("\033[H\033[J", stdout);
		if (!ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) && ws.ws_row > 4 &&
		    rows > (size_t)ws.ws_row - 4)
			rows = ws.ws_row - 4;
	}
	strftime(stamp, sizeof(stamp), "%T", localtime(&now));
	printf("tsqctl top - %s, %.1f s, %zu TCP sockets, delay to TX completion%s\n",
	       stamp, s->secs, s->sockets, s->qdisc ? " (and to the driver)" : "");
	printf("%-28s %6s %4s %8s %8s %8s %8s %9s %7s %7s %7s %7s\n", "CGROUP", "SOCKS",
	       "THR", "QUEUED", "MAX", "P99", "UNSENT", "PACING", "DLY50", "DLY99",
	       "QDSC50", "QDSC99");
	for (size_t i = 0; i < rows; i++) {
		const struct tsq_obs_cgrp *e = &s->v[i];
		/* Anyone who makes a cgroup names it: no escape sequences. */
		char id[32], *name = e->path ? tsq_safe_dup(e->path) : NULL;

		if (!name)
			snprintf(id, sizeof(id), "(id %llu)", (unsigned long long)e->id);
		printf("%-28s %6u %4u %8s %8s %8s %8s %9s %7s %7s %7s %7s\n",
		       name ? name : id, e->established, e->throttled,
		       fmt_bytes(a[0], sizeof(a[0]), e->queued),
		       fmt_bytes(a[1], sizeof(a[1]), e->queued_max),
		       fmt_bytes(a[2], sizeof(a[2]), e->queued_p99),
		       fmt_bytes(a[3], sizeof(a[3]), e->unsent),
		       fmt_rate(a[4], sizeof(a[4]), e->pacing),
		       fmt_ns(d[0], sizeof(d[0]), tsq_obs_hist_pct(e->done, e->done_n, 50)),
		       fmt_ns(d[1], sizeof(d[1]), tsq_obs_hist_pct(e->done, e->done_n, 99)),
		       fmt_ns(d[2], sizeof(d[2]), tsq_obs_hist_pct(e->qdisc, e->qdisc_n, 50)),
		       fmt_ns(d[3], sizeof(d[3]), tsq_obs_hist_pct(e->qdisc, e->qdisc_n, 99)));
		free(name);
	}
	if (rows < s->nr)
		printf("(%zu more)\n", s->nr - rows);
	if (s->unreadable)
		printf("(%zu cgroups could not be read: their subtrees' sockets are unnamed)\n",
		       s->unreadable);
}

int tsqctl_top(const struct tsqctl_ctx *c, int argc, char **argv)
{
	struct top_args a = { .interval = 1.0, .count = print_is_json() ? 1 : 0 };
	bool tty = !print_is_json() && isatty(STDOUT_FILENO);
	struct tsq_obs *o;
	int err = parse_top(argc, argv, &a);

	if (err)
		return err;
	o = tsq_obs_open();
	if (!o) {
		fprintf(stderr, "tsqctl: top: loading the observation programs: %s%s\n",
			strerror(errno), errno == EPERM ? " (run as root)" : "");
		return 1;
	}
	for (long n = 0; !a.count || n < a.count; n++) {
		struct timespec ts = { (time_t)a.interval,
				       (long)((a.interval - (time_t)a.interval) * 1e9) };
		struct tsq_obs_snap s;

		nanosleep(&ts, NULL);
		err = tsq_obs_snapshot(o, c->mount, &s, a.flags);
		if (err) {
			fprintf(stderr, "tsqctl: top: %s\n", strerror(-err));
			break;
		}
		if (print_is_json())
			tsq_obs_print_json(&s);
		else
			print_frame(&s, tty);
		tsq_obs_snap_free(&s);
		if (fflush(stdout)) {
			err = -EIO;
			break;
		}
	}
	tsq_obs_close(o);
	return err ? 1 : 0;
}

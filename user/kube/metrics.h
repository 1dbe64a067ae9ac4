/* SPDX-License-Identifier: GPL-2.0 */
/* tsq-kube's counters as a Prometheus text file (--metrics-file), for
 * node_exporter's textfile collector: the whole file replaced at each
 * write, never seen half written.
 */
#ifndef __KUBE_METRICS_H
#define __KUBE_METRICS_H

#include <time.h>

/* What is written; counters since start. */
struct kube_metrics {
	unsigned long failures, lists;
	unsigned long backoff_ms, backoff_max_ms;	/* the wait chosen last; its ceiling */
	unsigned long dropins;				/* pods with a drop-in now */
	unsigned long skipped, oversized, refused;	/* pods */
};

struct kube_metrics_file {
	const char *path;	/* NULL: no --metrics-file */
	int dfd;		/* its directory, as it was at start */
	char name[256], tmp[256];
	int said_err;		/* the errno logged last, and when */
	time_t said_at;
};

/* Open path's directory for kube_metrics_write(); 0, or -errno
 * (-EINVAL: path is empty or names no file).
 */
int kube_metrics_open(struct kube_metrics_file *mf, const char *path);

/* Replace the file with m. A failure is a log line, at most one a
 * minute unless its errno changes; nothing else.
 */
void kube_metrics_write(struct kube_metrics_file *mf, const struct kube_metrics *m);

void kube_metrics_close(struct kube_metrics_file *mf);

#endif

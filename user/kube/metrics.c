// SPDX-License-Identifier: GPL-2.0
/* The textfile collector's convention: the file is replaced whole, by a
 * temporary file renamed over it, so a scrape never reads half of one.
 * The temporary name ends in .tmp: the collector reads only *.prom.
 *
 * The directory may be writable by others: the temporary file is made
 * new (O_EXCL, O_NOFOLLOW), so nothing planted there is written
 * through, and the rename replaces FILE itself, a symlink too, never
 * what it points to. A name already taken is unlinked only if it is a
 * regular file of ours: a crash's leftover, as an agent in a container
 * has the same pid at each start. No fsync: after a crash the next
 * write replaces what a lost rename left.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>

#include "log.h"
#include "metrics.h"

#define SAY_EVERY_S	60	/* a failure that repeats, logged again after */

static const struct family {
	const char *name, *type, *help;
	size_t off;
	bool ms;	/* milliseconds, written in seconds */
} families[] = {
#define F(n, t, field, ms, h) { "tsq_kube_" n, t, h, offsetof(struct kube_metrics, field), ms }
	F("failures_total", "counter", failures, false,
	  "Failures, each followed by a back-off wait: failed lists, 410 Gone, error events, "
	  "short watches, lost connections."),
	F("lists_total", "counter", lists, false, "Lists of the node's pods, failed ones too."),
	F("backoff_seconds", "gauge", backoff_ms, true,
	  "The back-off wait chosen last, jitter included; 0 once a watch brought pod events."),
	F("backoff_max_seconds", "gauge", backoff_max_ms, true,
	  "The back-off's ceiling: no wait is longer."),
	F("dropins", "gauge", dropins, false, "Pods with a drop-in now."),
	F("pods_skipped_total", "counter", skipped, false,
	  "Pods skipped: unreadable, or over the size limit."),
	F("pods_oversized_total", "counter", oversized, false,
	  "Pods skipped for being over the size limit (of those skipped)."),
	F("pods_refused_total", "counter", refused, false,
	  "Pods given no drop-in as --max-pods had been reached."),
#undef F
};

int kube_metrics_open(struct kube_metrics_file *mf, const char *path)
{
	const char *slash = strrchr(path, '/'), *name = slash ? slash + 1 : path;
	char dir[PATH_MAX];
	size_t n = slash ? (size_t)(slash - path) : 0;
	int fd;

	if (!*name || !strcmp(name, ".") || !strcmp(name, ".."))
		return -EINVAL;
	if (strlen(name) >= sizeof(mf->name) || n >= sizeof(dir) ||
	    snprintf(mf->tmp, sizeof(mf->tmp), ".%s.%d.tmp", name, getpid()) > NAME_MAX)
		return -ENAMETOOLONG;
	strcpy(mf->name, name);
	if (!slash)
		strcpy(dir, ".");
	else if (!n)
		strcpy(dir, "/");
	else
		snprintf(dir, sizeof(dir), "%.*s", (int)n, path);
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	mf->dfd = fd;
	mf->path = path;
	return 0;
}

/* The temporary file, new; -errno. */
static int create_tmp(struct kube_metrics_file *mf, const char **why)
{
	int flags = O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC;
	struct stat st;
	int fd;

	fd = openat(mf->dfd, mf->tmp, flags, 0644);
	if (fd >= 0 || errno != EEXIST)
		return fd < 0 ? -errno : fd;
	if (fstatat(mf->dfd, mf->tmp, &st, AT_SYMLINK_NOFOLLOW))
		return -errno;
	if (!S_ISREG(st.st_mode) || st.st_uid != geteuid()) {
		*why = ", and not a regular file of ours: left alone";
		return -EEXIST;
	}
	if (unlinkat(mf->dfd, mf->tmp, 0))
		return -errno;
	fd = openat(mf->dfd, mf->tmp, flags, 0644);
	return fd < 0 ? -errno : fd;
}

static void print(FILE *f, const struct kube_metrics *m)
{
	for (size_t i = 0; i < sizeof(families) / sizeof(families[0]); i++) {
		const struct family *fm = &families[i];
		unsigned long v = *(const unsigned long *)((const char *)m + fm->off);

		fprintf(f, "# HELP %s %s\n# TYPE %s %s\n", fm->name, fm->help, fm->name, fm->type);
		if (fm->ms)
			fprintf(f, "%s %g\n", fm->name, v / 1000.0);
		else
			fprintf(f, "%s %lu\n", fm->name, v);
	}
}

/* One line for a failure, unless the same errno had one this minute. */
static void say(struct kube_metrics_file *mf, const char *what, int err, const char *why)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	if (err == mf->said_err && now.tv_sec - mf->said_at < SAY_EVERY_S)
		return;
	mf->said_err = err;
	mf->said_at = now.tv_sec;
	log_info("--metrics-file %s: %s %s: %s%s (the same again is not logged for a minute)",
		 mf->path, what, mf->tmp, strerror(err), why);
}

void kube_metrics_write(struct kube_metrics_file *mf, const struct kube_metrics *m)
{
	const char *what = "creating", *why = "";
	FILE *f = NULL;
	int fd, err;

	if (!mf->path)
		return;
	fd = create_tmp(mf, &why);
	if (fd < 0) {
		say(mf, what, -fd, why);
		return;
	}
	what = "writing";
	/* Whatever the umask: the collector's node_exporter runs as nobody. */
	err = fchmod(fd, 0644) ? errno : 0;
	if (!err && !(f = fdopen(fd, "w")))
		err = errno;
	if (!f) {
		close(fd);
	} else {
		errno = 0;
		print(f, m);
		if (fflush(f) || ferror(f))
			err = errno ? errno : EIO;
		if (fclose(f) && !err)
			err = errno;
	}
	if (!err) {
		what = "renaming";
		if (renameat(mf->dfd, mf->tmp, mf->dfd, mf->name))
			err = errno;
	}
	if (err) {
		unlinkat(mf->dfd, mf->tmp, 0);
		say(mf, what, err, why);
	}
}

void kube_metrics_close(struct kube_metrics_file *mf)
{
	if (mf->path)
		close(mf->dfd);
	mf->path = NULL;
}

/* SPDX-License-Identifier: GPL-2.0 */
/* The drop-in files tsq-kube owns in tsqd's directory, one a pod:
 * tsq-kube-pod-<uid>.conf.
 */
#ifndef __KUBE_DROPIN_H
#define __KUBE_DROPIN_H

#define KUBE_DROPIN_PREFIX	"tsq-kube-pod-"
#define KUBE_DROPIN_SUFFIX	".conf"

/* The directory, made (0755) if missing, as an fd for the calls below;
 * -errno.
 */
int dropin_dir_open(const char *dir);

/*
 * Replace uid's drop-in with text atomically: a temporary file written,
 * fsync'd, renamed over the old one. tsqd sees the old file or the new
 * one, never a part, and so does a reboot. 0 or -errno.
 */
int dropin_write(int dfd, const char *uid, const char *text);

/* Remove uid's drop-in; 0 if it is gone (or was), else -errno. */
int dropin_remove(int dfd, const char *uid);

/*
 * Call fn for each drop-in of ours in the directory, with its uid and
 * contents (at most max - 1 bytes, NUL-terminated; "" if unreadable),
 * and remove the temporary files a crash left. 0 or -errno.
 */
typedef void (*dropin_fn)(const char *uid, const char *text, void *ctx);
int dropin_scan(int dfd, size_t max, dropin_fn fn, void *ctx);

#endif

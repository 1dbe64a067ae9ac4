/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* tsqd's pid file and the files beside it in /run/tsq. */
#ifndef __TSQ_PIDFILE_H
#define __TSQ_PIDFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#define TSQ_RUN_DIR	"/run/tsq"
#define TSQ_PIDFILE	TSQ_RUN_DIR "/tsqd.pid"

/*
 * dir (made 0755 if create and missing) is a directory, no symlink,
 * root's (or the caller's) and not writable by group or others. 0, or
 * -errno with why saying what was refused (-EPERM, -ENOTDIR).
 */
int tsq_run_dir_check(const char *dir, bool create, char *why, size_t len);

/*
 * An open file of that directory is a regular file with one link,
 * root's (or the caller's), not writable by group or others. 0 or
 * -errno with why.
 */
int tsq_run_file_check(int fd, const char *path, char *why, size_t len);

/*
 * open(path, flags) after checking its directory, with O_NOFOLLOW and
 * O_NONBLOCK (a FIFO does not hang the open), then the file: an fd, or
 * -errno with why.
 */
int tsq_run_file_open(const char *path, int flags, char *why, size_t len);

/*
 * Make path (and its directory), lock it and write our pid into it. The
 * returned fd holds the lock for as long as it is open: keep it for the
 * process's life; the kernel drops the lock however the process ends, so
 * a stale file never reads as a running daemon. -EBUSY if another live
 * process holds it (its pid in *other), or -errno; why says what failed.
 */
int tsq_pidfile_take(const char *path, pid_t *other, char *why, size_t len);

/*
 * The pid of the live process that holds path's lock; 0 if none (no
 * file, or nobody holds it); -errno with why if the directory or the
 * file is refused (see above).
 */
pid_t tsq_pidfile_owner(const char *path, char *why, size_t len);

#endif /* __TSQ_PIDFILE_H */

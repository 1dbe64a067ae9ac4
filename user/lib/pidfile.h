/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* tsqd's pid file: written by tsqd, read by tsqctl status. */
#ifndef __TSQ_PIDFILE_H
#define __TSQ_PIDFILE_H

#include <sys/types.h>

#define TSQ_PIDFILE	"/run/tsq/tsqd.pid"

/*
 * Make path (and its directory), lock it and write our pid into it. The
 * returned fd holds the lock for as long as it is open: keep it for the
 * process's life; the kernel drops the lock however the process ends, so
 * a stale file never reads as a running daemon. -EBUSY if another live
 * process holds it (its pid in *other), or -errno.
 */
int tsq_pidfile_take(const char *path, pid_t *other);

/* The pid of the live process that holds path's lock; 0 if none. */
pid_t tsq_pidfile_owner(const char *path);

#endif /* __TSQ_PIDFILE_H */

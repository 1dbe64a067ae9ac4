/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* What a policy applies to: a cgroup path or a systemd unit. */
#ifndef __TSQ_TARGET_H
#define __TSQ_TARGET_H

#include <stddef.h>

enum tsq_target_type {
	TSQ_TARGET_CGROUP,	/* a path below the cgroup2 root: "/", "/a/b" */
	TSQ_TARGET_UNIT,	/* a systemd unit: "backup.service" */
};

#define TSQ_TARGET_MAX	4096	/* with the NUL; also tsq.conf's line bound */

struct tsq_target {
	enum tsq_target_type type;
	char name[TSQ_TARGET_MAX];
};

/*
 * Read a TARGET word of tsq.conf or the tsqctl command line:
 *   /system.slice/a.service  a cgroup, relative to the cgroup2 root
 *   MOUNT/bulk               the same as /bulk: the mount point is stripped
 *   a.service, b.slice, c.scope   a unit
 * A cgroup path comes out canonical ("/a/b", "/" for the root), so equal
 * paths compare equal. "." and ".." components are refused, and so is
 * a path below /sys that is not below mount (the cgroup v1 tree on a
 * hybrid host, most likely).
 * Returns 0, or -EINVAL with one line in err.
 */
int tsq_target_parse(const char *mount, const char *word, struct tsq_target *t,
		     char *err, size_t errlen);

#endif /* __TSQ_TARGET_H */

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

/*
 * The cgroup a parsed target names, as a path below mount, opened
 * (O_DIRECTORY) into *fd: what tsqctl and tsqd apply a policy to. A
 * unit's cgroup is the one systemd gives it (tsq_unit_cgroup()).
 * Returns 0, -ENOENT if there is no such cgroup (a unit not running),
 * or another -errno.
 */
int tsq_target_open(const char *mount, enum tsq_target_type type, const char *name,
		    char *path, size_t len, int *fd);

/*
 * Where a target's cgroup appears when it does not exist yet: a cgroup
 * path as it is; a unit where systemd puts it by default
 * (tsq_unit_default_path()). A watch on its parent directory sees it
 * come. 0 or -errno.
 */
int tsq_target_expected(enum tsq_target_type type, const char *name, char *path,
			size_t len);

#endif /* __TSQ_TARGET_H */

/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* The cgroup2 hierarchy: where it is mounted, opening a cgroup safely, ids. */
#ifndef __TSQ_CGROUP_H
#define __TSQ_CGROUP_H

#include <stddef.h>
#include <stdio.h>
#include <linux/types.h>

/*
 * The mount point of the cgroup2 hierarchy: /sys/fs/cgroup on unified
 * systems, /sys/fs/cgroup/unified on hybrid ones. Only a mount of the
 * hierarchy's root counts, not a bind mount of a subtree.
 * Returns 0, -ENOENT if there is none, -ENAMETOOLONG.
 */
int tsq_cgroup_mount(char *buf, size_t len);
/* The same, from a mountinfo(5) stream. */
int tsq_cgroup_mount_from(FILE *mountinfo, char *buf, size_t len);

/*
 * Open the cgroup at path below mount ("/a/b", "a//b/", "" for the root)
 * as an O_RDONLY | O_DIRECTORY fd. Resolution stays below mount and
 * on its file system and follows no symlink; ".." is refused outright.
 * Returns 0, -EINVAL for "..", -EMEDIUMTYPE if the directory is not on
 * cgroup2, or the -errno of the failed open (-ENOENT, -ELOOP, -EXDEV).
 */
int tsq_cgroup_open(const char *mount, const char *path, int *fd);

/*
 * What tsq_cgroup_open() does where openat2() is missing (before 5.6):
 * one openat(O_NOFOLLOW) per component, checking the device each time;
 * ".." is refused here too.
 * Exposed so tests can cover it on a newer kernel.
 */
int tsq_cgroup_open_compat(int mount_fd, const char *path, int *fd);

/*
 * The cgroup id of an open cgroup2 directory, as bpf_get_current_cgroup_id()
 * and bpf_sk_cgroup_id() return it (the kernfs node id). 0 on error.
 */
__u64 tsq_cgroup_id(int fd);

/*
 * Visit the cgroup at path below mount and every cgroup beneath it, at
 * any depth, each before its children (depth 0 for the first). fn gets
 * an fd it must not keep and the path below mount ("/a/b"), which may be
 * longer than PATH_MAX. Directories that vanish during the walk are
 * skipped; no symlink is followed. The fds held stay bounded (about 32)
 * whatever the depth, with no privilege needed for it.
 * Returns 0, or the -errno of opening the first cgroup, or -ENOMEM.
 */
typedef void (*tsq_cgroup_walk_fn)(int fd, const char *path, int depth, void *ctx);
int tsq_cgroup_walk(const char *mount, const char *path, tsq_cgroup_walk_fn fn,
		    void *ctx);
/*
 * The same, and in *skipped the number of cgroups it could not open or
 * read whole though they exist (EACCES, EMFILE, ENOMEM): their subtrees
 * were not visited. Whoever removes state for the cgroups a walk did not
 * see must not do so after a walk with skipped > 0.
 */
int tsq_cgroup_walk_all(const char *mount, const char *path, tsq_cgroup_walk_fn fn,
			void *ctx, size_t *skipped);

/*
 * Call fn with each pid in cgroup.procs of the open cgroup fd, as the
 * caller's pid namespace sees them (0, a process outside it, skipped),
 * until fn returns nonzero. 0, or the -errno of opening the file.
 */
typedef int (*tsq_cgroup_pid_fn)(long pid, void *ctx);
int tsq_cgroup_procs(int fd, tsq_cgroup_pid_fn fn, void *ctx);

#endif /* __TSQ_CGROUP_H */

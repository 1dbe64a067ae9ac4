// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Opening a cgroup by a path that came from a config file or the command
 * line. The path must not lead tsqd out of the cgroup2 tree: a symlink or
 * ".." there would attach a policy to something else, so resolution is
 * confined with openat2() and checked with fstatfs().
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/magic.h>
#include <linux/openat2.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>

#include "cgroup.h"

#ifndef SYS_openat2
#define SYS_openat2 437
#endif

/* include/linux/exportfs.h, not in the uapi headers */
#define FILEID_KERNFS	0xfe

/* mountinfo(5) escapes space, tab, newline and backslash as \ooo. */
static void unescape(char *s)
{
	char *d = s;

	for (; *s; s++) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' &&
		    s[2] >= '0' && s[2] <= '7' && s[3] >= '0' && s[3] <= '7') {
			*d++ = (s[1] - '0') << 6 | (s[2] - '0') << 3 | (s[3] - '0');
			s += 3;
		} else {
			*d++ = *s;
		}
	}
	*d = '\0';
}

/* "36 35 0:30 ROOT MOUNTPOINT OPTS [OPTIONAL...] - FSTYPE SOURCE SUPER" */
static bool cgroup2_root_mount(char *line, char **mnt)
{
	char *field[5], *tok, *save;
	int i;

	for (i = 0, tok = strtok_r(line, " \n", &save); tok && i < 5;
	     tok = strtok_r(NULL, " \n", &save))
		field[i++] = tok;
	if (i < 5)
		return false;
	while (tok && strcmp(tok, "-"))
		tok = strtok_r(NULL, " \n", &save);
	tok = tok ? strtok_r(NULL, " \n", &save) : NULL;
	if (!tok || strcmp(tok, "cgroup2") || strcmp(field[3], "/"))
		return false;
	*mnt = field[4];
	return true;
}

int tsq_cgroup_mount_from(FILE *f, char *buf, size_t len)
{
	char *line = NULL, *mnt;
	size_t cap = 0;
	int err = -ENOENT;

	while (getline(&line, &cap, f) > 0) {
		if (!cgroup2_root_mount(line, &mnt))
			continue;
		unescape(mnt);
		err = strlen(mnt) < len ? 0 : -ENAMETOOLONG;
		if (!err)
			strcpy(buf, mnt);
		break;
	}
	free(line);
	return err;
}

int tsq_cgroup_mount(char *buf, size_t len)
{
	FILE *f;
	int err;

	f = fopen("/proc/self/mountinfo", "re");
	if (!f)
		return -errno;
	err = tsq_cgroup_mount_from(f, buf, len);
	fclose(f);
	return err;
}

static bool has_dotdot(const char *path)
{
	const char *p = path;

	while ((p = strstr(p, ".."))) {
		if ((p == path || p[-1] == '/') && (!p[2] || p[2] == '/'))
			return true;
		p += 2;
	}
	return false;
}

int tsq_cgroup_open_compat(int mount_fd, const char *path, int *fd)
{
	char name[NAME_MAX + 1];
	struct stat mst, st;
	int dfd, nfd;
	size_t n;

	if (fstat(mount_fd, &mst))
		return -errno;
	dfd = fcntl(mount_fd, F_DUPFD_CLOEXEC, 0);
	if (dfd < 0)
		return -errno;
	while (*path) {
		n = strcspn(path, "/");
		if (n > NAME_MAX) {
			close(dfd);
			return -ENAMETOOLONG;
		}
		memcpy(name, path, n);
		name[n] = '\0';
		path += n + !!path[n];
		if (!n || !strcmp(name, "."))
			continue;
		if (!strcmp(name, "..")) {
			close(dfd);
			return -EINVAL;
		}
		nfd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
			     O_CLOEXEC);
		close(dfd);
		if (nfd < 0)
			return -errno;
		dfd = nfd;
		if (fstat(dfd, &st)) {
			close(dfd);
			return -errno;
		}
		/* RESOLVE_NO_XDEV: a mount on a cgroup dir is not that cgroup. */
		if (st.st_dev != mst.st_dev) {
			close(dfd);
			return -EXDEV;
		}
	}
	*fd = dfd;
	return 0;
}

int tsq_cgroup_open(const char *mount, const char *path, int *fd)
{
	struct open_how how = {
		.flags = O_RDONLY | O_DIRECTORY | O_CLOEXEC,
		.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS |
			   RESOLVE_NO_MAGICLINKS | RESOLVE_NO_XDEV,
	};
	struct statfs sfs;
	int mfd, cfd, err = 0;

	if (has_dotdot(path))
		return -EINVAL;
	if (strlen(path) >= PATH_MAX)
		return -ENAMETOOLONG;
	while (*path == '/')
		path++;

	mfd = open(mount, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (mfd < 0)
		return -errno;
	cfd = syscall(SYS_openat2, mfd, *path ? path : ".", &how, sizeof(how));
	/* EPERM: a seccomp filter older than openat2() (Docker < 20.10). */
	if (cfd < 0 && (errno == ENOSYS || errno == EPERM))
		err = tsq_cgroup_open_compat(mfd, path, &cfd);
	else if (cfd < 0)
		err = -errno;
	close(mfd);
	if (err)
		return err;

	if (fstatfs(cfd, &sfs)) {
		err = -errno;
	} else if (sfs.f_type != CGROUP2_SUPER_MAGIC) {
		err = -EMEDIUMTYPE;
	}
	if (err) {
		close(cfd);
		return err;
	}
	*fd = cfd;
	return 0;
}

/*
 * A cgroup2 directory's file handle is its 64-bit kernfs id, the value
 * BPF sees. st_ino is the same on 64-bit kernels; it is the fallback for
 * a kernel built without CONFIG_FHANDLE.
 */
__u64 tsq_cgroup_id(int fd)
{
	union {
		struct file_handle fh;
		char buf[sizeof(struct file_handle) + sizeof(__u64)];
	} h = { .fh.handle_bytes = sizeof(__u64) };
	struct stat st;
	int mnt_id;
	__u64 id;

	if (!name_to_handle_at(fd, "", &h.fh, &mnt_id, AT_EMPTY_PATH) &&
	    h.fh.handle_type == FILEID_KERNFS &&
	    h.fh.handle_bytes == sizeof(id)) {
		memcpy(&id, h.fh.f_handle, sizeof(id));
		return id;
	}
	if (fstat(fd, &st))
		return 0;
	return st.st_ino;
}

static void walk(int dirfd, const char *path, int depth, tsq_cgroup_walk_fn fn,
		 void *ctx)
{
	struct dirent *de;
	DIR *d;

	fn(dirfd, path, depth, ctx);
	if (depth >= TSQ_CGROUP_WALK_DEPTH)
		return;
	d = fdopendir(dup(dirfd));
	if (!d)
		return;
	while ((de = readdir(d))) {
		char sub[PATH_MAX];
		int fd, n;

		if (de->d_type != DT_DIR || de->d_name[0] == '.')
			continue;
		n = snprintf(sub, sizeof(sub), "%s/%s", strcmp(path, "/") ? path : "",
			     de->d_name);
		if (n < 0 || (size_t)n >= sizeof(sub))
			continue;
		fd = openat(dirfd, de->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0)
			continue;
		walk(fd, sub, depth + 1, fn, ctx);
		close(fd);
	}
	closedir(d);
}

int tsq_cgroup_walk(const char *mount, const char *path, tsq_cgroup_walk_fn fn,
		    void *ctx)
{
	int fd, err = tsq_cgroup_open(mount, path, &fd);

	if (err)
		return err;
	walk(fd, path[0] ? path : "/", 0, fn, ctx);
	close(fd);
	return 0;
}

int tsq_cgroup_procs(int fd, tsq_cgroup_pid_fn fn, void *ctx)
{
	int pfd = openat(fd, "cgroup.procs", O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	FILE *f = pfd >= 0 ? fdopen(pfd, "r") : NULL;
	long pid;

	if (!f) {
		if (pfd >= 0)
			close(pfd);
		return pfd >= 0 ? -ENOMEM : -errno;
	}
	while (fscanf(f, "%ld", &pid) == 1)
		if (pid > 0 && fn(pid, ctx))
			break;
	fclose(f);
	return 0;
}

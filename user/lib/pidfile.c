// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* A pid file whose lock, not its content, says whether tsqd runs: a
 * process name can be anyone's, and a pid outlives its process.
 *
 * The file and its directory are trusted only when they are root's as
 * the pin directory must be: whoever owns /run/tsq can move the lock and
 * the pid file aside, and a file that is a FIFO (an open that hangs), a
 * hard link to someone's file (truncated by root) or someone's locked
 * file (a fake pid) must not be used.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/file.h>
#include <sys/stat.h>

#include "errmsg.h"
#include "pidfile.h"

static bool owner_ok(const struct stat *st)
{
	return !st->st_uid || st->st_uid == geteuid();
}

/* "PATH: strerror(errno)" into why; -errno. */
static int sys_err(char *why, size_t len, const char *path)
{
	int err = errno;

	tsq_errf(why, len, "%s: %s", path, strerror(err));
	return -err;
}

int tsq_run_dir_check(const char *dir, bool create, char *why, size_t len)
{
	struct stat st;

	if (create && mkdir(dir, 0755) && errno != EEXIST)
		return sys_err(why, len, dir);
	if (lstat(dir, &st))
		return sys_err(why, len, dir);
	if (!S_ISDIR(st.st_mode))
		return tsq_errf(why, len, "%s is not a directory: refusing it", dir), -ENOTDIR;
	if (!owner_ok(&st) || (st.st_mode & (S_IWGRP | S_IWOTH)))
		return tsq_errf(why, len,
				"%s is owned by uid %u with mode %04o: whoever owns it can move the lock and the pid file aside; refusing it (remove it)",
				dir, (unsigned int)st.st_uid,
				(unsigned int)(st.st_mode & 07777)), -EPERM;
	return 0;
}

int tsq_run_file_check(int fd, const char *path, char *why, size_t len)
{
	struct stat st;

	if (fstat(fd, &st))
		return sys_err(why, len, path);
	if (!S_ISREG(st.st_mode))
		return tsq_errf(why, len, "%s is not a regular file: refusing it", path), -EPERM;
	if (st.st_nlink != 1)
		return tsq_errf(why, len, "%s has %lu links: refusing it", path,
				(unsigned long)st.st_nlink), -EPERM;
	if (!owner_ok(&st) || (st.st_mode & (S_IWGRP | S_IWOTH)))
		return tsq_errf(why, len, "%s is owned by uid %u with mode %04o: refusing it",
				path, (unsigned int)st.st_uid,
				(unsigned int)(st.st_mode & 07777)), -EPERM;
	return 0;
}

int tsq_run_file_open(const char *path, int flags, char *why, size_t len)
{
	char dir[PATH_MAX];
	char *slash;
	int fd, err;

	snprintf(dir, sizeof(dir), "%s", path);
	slash = strrchr(dir, '/');
	if (slash && slash != dir) {
		*slash = '\0';
		err = tsq_run_dir_check(dir, flags & O_CREAT, why, len);
		if (err)
			return err;
	}
	/* O_NONBLOCK: opening a FIFO must not wait for its writer. */
	fd = open(path, flags | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK, 0644);
	if (fd < 0)
		return sys_err(why, len, path);
	err = tsq_run_file_check(fd, path, why, len);
	if (err) {
		close(fd);
		return err;
	}
	return fd;
}

static pid_t read_pid(int fd)
{
	char buf[32];
	ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);
	long pid;
	char *end;

	if (n <= 0)
		return 0;
	buf[n] = '\0';
	pid = strtol(buf, &end, 10);
	return pid > 0 && pid <= INT_MAX && (*end == '\n' || !*end) ? pid : 0;
}

int tsq_pidfile_take(const char *path, pid_t *other, char *why, size_t len)
{
	char line[32];
	int fd, n, err;

	fd = tsq_run_file_open(path, O_RDWR | O_CREAT, why, len);
	if (fd < 0)
		return fd;
	if (flock(fd, LOCK_EX | LOCK_NB)) {
		err = errno == EWOULDBLOCK ? -EBUSY : -errno;
		if (other)
			*other = read_pid(fd);
		tsq_errf(why, len, "%s: %s", path, strerror(-err));
		close(fd);
		return err;
	}
	n = snprintf(line, sizeof(line), "%d\n", (int)getpid());
	if (ftruncate(fd, 0) || pwrite(fd, line, n, 0) != n) {
		err = sys_err(why, len, path);
		close(fd);
		return err;
	}
	return fd;
}

pid_t tsq_pidfile_owner(const char *path, char *why, size_t len)
{
	int fd = tsq_run_file_open(path, O_RDONLY, why, len);
	pid_t pid = 0;

	if (fd == -ENOENT) {
		if (len)
			why[0] = '\0';
		return 0;
	}
	if (fd < 0)
		return fd;
	/* A lock we can take is a lock nobody holds. */
	if (flock(fd, LOCK_SH | LOCK_NB) && errno == EWOULDBLOCK)
		pid = read_pid(fd);
	close(fd);
	return pid;
}

// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* A pid file whose lock, not its content, says whether tsqd runs: a
 * process name can be anyone's, and a pid outlives its process.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/file.h>
#include <sys/stat.h>

#include "pidfile.h"

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

int tsq_pidfile_take(const char *path, pid_t *other)
{
	char dir[PATH_MAX], line[32];
	char *slash;
	int fd, n, err;

	snprintf(dir, sizeof(dir), "%s", path);
	slash = strrchr(dir, '/');
	if (slash && slash != dir) {
		*slash = '\0';
		if (mkdir(dir, 0755) && errno != EEXIST)
			return -errno;
	}
	fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
	if (fd < 0)
		return -errno;
	if (flock(fd, LOCK_EX | LOCK_NB)) {
		err = errno == EWOULDBLOCK ? -EBUSY : -errno;
		if (other)
			*other = read_pid(fd);
		close(fd);
		return err;
	}
	n = snprintf(line, sizeof(line), "%d\n", (int)getpid());
	if (ftruncate(fd, 0) || pwrite(fd, line, n, 0) != n) {
		err = -errno;
		close(fd);
		return err;
	}
	return fd;
}

pid_t tsq_pidfile_owner(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	pid_t pid = 0;

	if (fd < 0)
		return 0;
	/* A lock we can take is a lock nobody holds. */
	if (flock(fd, LOCK_SH | LOCK_NB) && errno == EWOULDBLOCK)
		pid = read_pid(fd);
	close(fd);
	return pid;
}

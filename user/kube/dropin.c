// SPDX-License-Identifier: GPL-2.0
/* Atomic drop-ins: tsqd reloads when a file in its directory changes,
 * and refuses the whole set if one file is broken, so a file is never
 * seen half written: write a temporary name tsqd ignores (it reads
 * *.conf not starting with '.'), fsync, rename. The directory is not
 * fsync'd: after a crash a rename may be lost, never a file's contents,
 * and the next list writes what is missing.
 * Mode 0644, owned by whoever runs this (root): tsqd refuses a file
 * that group or others may write.
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
#include <sys/stat.h>

#include "dropin.h"
#include "pod.h"

#define TMP_SUFFIX	".tmp"

int dropin_dir_open(const char *dir)
{
	int fd;

	if (mkdir(dir, 0755) && errno != EEXIST)
		return -errno;
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

static void names(const char *uid, char *name, char *tmp)
{
	snprintf(name, NAME_MAX, KUBE_DROPIN_PREFIX "%s" KUBE_DROPIN_SUFFIX, uid);
	snprintf(tmp, NAME_MAX, "." KUBE_DROPIN_PREFIX "%s" TMP_SUFFIX, uid);
}

static int write_all(int fd, const char *buf, size_t len)
{
	while (len) {
		ssize_t n = write(fd, buf, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		buf += n;
		len -= n;
	}
	return 0;
}

int dropin_write(int dfd, const char *uid, const char *text)
{
	char name[NAME_MAX], tmp[NAME_MAX];
	int fd, ret;

	if (!kube_uid_valid(uid))
		return -EINVAL;
	names(uid, name, tmp);
	fd = openat(dfd, tmp, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0)
		return -errno;
	/* Whatever the umask: tsqd wants exactly "not group/other-writable". */
	ret = fchmod(fd, 0644) ? -errno : 0;
	if (!ret)
		ret = write_all(fd, text, strlen(text));
	if (!ret && fsync(fd))
		ret = -errno;
	if (close(fd) && !ret)
		ret = -errno;
	if (!ret && renameat(dfd, tmp, dfd, name))
		ret = -errno;
	if (ret)
		unlinkat(dfd, tmp, 0);
	return ret;
}

int dropin_remove(int dfd, const char *uid)
{
	char name[NAME_MAX], tmp[NAME_MAX];

	if (!kube_uid_valid(uid))
		return -EINVAL;
	names(uid, name, tmp);
	if (unlinkat(dfd, name, 0) && errno != ENOENT)
		return -errno;
	return 0;
}

/* "PREFIX<uid>SUFFIX" -> uid, if it is one of ours. */
static bool ours(const char *name, const char *prefix, const char *suffix, char *uid)
{
	size_t n = strlen(name), p = strlen(prefix), s = strlen(suffix);

	if (n <= p + s || n - p - s > KUBE_UID_MAX || strncmp(name, prefix, p) ||
	    strcmp(name + n - s, suffix))
		return false;
	memcpy(uid, name + p, n - p - s);
	uid[n - p - s] = '\0';
	return kube_uid_valid(uid);
}

static void read_small(int dfd, const char *name, char *buf, size_t max)
{
	int fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	struct stat st;
	ssize_t n = -1;

	if (fd >= 0 && !fstat(fd, &st) && S_ISREG(st.st_mode))
		n = read(fd, buf, max - 1);
	buf[n > 0 ? n : 0] = '\0';
	if (fd >= 0)
		close(fd);
}

int dropin_scan(int dfd, size_t max, dropin_fn fn, void *ctx)
{
	char uid[KUBE_UID_MAX + 1], *buf = malloc(max);
	struct dirent *de;
	DIR *d;
	int fd = dup(dfd);

	if (fd < 0 || !buf) {
		free(buf);
		if (fd >= 0)
			close(fd);
		return -ENOMEM;
	}
	d = fdopendir(fd);
	if (!d) {
		free(buf);
		close(fd);
		return -errno;
	}
	rewinddir(d);
	while ((de = readdir(d))) {
		if (ours(de->d_name, "." KUBE_DROPIN_PREFIX, TMP_SUFFIX, uid)) {
			unlinkat(dfd, de->d_name, 0);
		} else if (ours(de->d_name, KUBE_DROPIN_PREFIX, KUBE_DROPIN_SUFFIX, uid)) {
			read_small(dfd, de->d_name, buf, max);
			fn(uid, buf, ctx);
		}
	}
	closedir(d);
	free(buf);
	return 0;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * tsqd's pid file: taken once, read while its holder lives, free after;
 * and refused when /run/tsq or the file is not root's alone, as a
 * hostile local user could leave them: a directory they own, a FIFO (an
 * open that would hang tsqctl status), a hard link to a file they own
 * (truncated by root), their own locked file with a fake pid.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "pidfile.h"
#include "test.h"

#define NOBODY	65534

static char dir[] = "/tmp/tsq-pid-XXXXXX";

/* Exit status of fn(path) in a child given 3 s; -1 if it hung. */
static int in_child(int (*fn)(const char *), const char *path)
{
	pid_t child = fork();
	int status;

	if (!child) {
		alarm(3);
		_exit(fn(path) & 0xff);
	}
	waitpid(child, &status, 0);
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static int owner_status(const char *path)
{
	char why[256];

	return -tsq_pidfile_owner(path, why, sizeof(why));
}

static int take_status(const char *path)
{
	char why[256];
	int fd = tsq_pidfile_take(path, NULL, why, sizeof(why));

	return fd >= 0 ? 0 : -fd;
}

static void write_file(const char *path, const char *text, uid_t uid)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);

	if (fd < 0 || write(fd, text, strlen(text)) < 0 || fchown(fd, uid, uid))
		printf("# %s: %s\n", path, strerror(errno));
	if (fd >= 0)
		close(fd);
}

static bool file_is(const char *path, const char *text)
{
	char buf[64] = "";
	int fd = open(path, O_RDONLY);
	ssize_t n = fd < 0 ? -1 : read(fd, buf, sizeof(buf) - 1);

	if (fd >= 0)
		close(fd);
	return n >= 0 && !strcmp(buf, text);
}

/*
 * A child that holds path's lock until killed: as tsqd does (take), or
 * as anyone may with flock(1) on a file of theirs. Its pid once it
 * holds it, or -1.
 */
static pid_t holder(const char *path, bool take)
{
	char why[256], c = 'n';
	int p[2], fd;
	pid_t child;

	if (pipe(p))
		return -1;
	child = fork();
	if (!child) {
		close(p[0]);
		if (take)
			fd = tsq_pidfile_take(path, NULL, why, sizeof(why));
		else
			fd = open(path, O_RDONLY);
		if (fd >= 0 && (take || !flock(fd, LOCK_EX)))
			c = 'y';
		if (write(p[1], &c, 1) != 1)
			_exit(1);
		pause();
		_exit(0);
	}
	close(p[1]);
	if (child < 0 || read(p[0], &c, 1) != 1 || c != 'y') {
		if (child > 0)
			kill(child, SIGKILL);
		child = -1;
	}
	close(p[0]);
	return child;
}

static void test_basic(void)
{
	char path[64], why[256];
	pid_t child, other = 0;
	int fd, status;

	snprintf(path, sizeof(path), "%s/run/tsqd.pid", dir);
	ASSERT(tsq_pidfile_owner(path, why, sizeof(why)) == 0, "pidfile: no file, no daemon");

	/* A child takes it and waits; so it holds the lock, as tsqd would. */
	child = holder(path, true);
	ASSERT(child > 0, "pidfile: taken, its directory made");
	check(tsq_pidfile_owner(path, why, sizeof(why)) == child,
	      "pidfile: the holder's pid read back", "%d, want %d",
	      (int)tsq_pidfile_owner(path, why, sizeof(why)), (int)child);
	fd = tsq_pidfile_take(path, &other, why, sizeof(why));
	check(fd == -EBUSY && other == child, "pidfile: a second taker gets -EBUSY and the pid",
	      "%d, other %d", fd, (int)other);

	kill(child, SIGKILL);
	waitpid(child, &status, 0);
	ASSERT(tsq_pidfile_owner(path, why, sizeof(why)) == 0,
	       "pidfile: the holder killed, no daemon (stale pid ignored)");
	fd = tsq_pidfile_take(path, NULL, why, sizeof(why));
	ASSERT(fd >= 0 && tsq_pidfile_owner(path, why, sizeof(why)) == getpid(),
	       "pidfile: taken again after the holder died");
	if (fd >= 0)
		close(fd);
}

static void test_hostile(void)
{
	char d[64], path[128], victim[128], why[256];
	int fd, status;
	pid_t child;

	/* The directory is someone else's, or anyone's. */
	snprintf(d, sizeof(d), "%s/theirs", dir);
	snprintf(path, sizeof(path), "%s/tsqd.pid", d);
	mkdir(d, 0755);
	ASSERT(!chown(d, NOBODY, NOBODY), "hostile: a directory owned by nobody");
	fd = tsq_pidfile_take(path, NULL, why, sizeof(why));
	check(fd == -EPERM && strstr(why, "owned by uid 65534"),
	      "hostile: nobody's directory refused by take", "%d: %s", fd, why);
	check(access(path, F_OK), "hostile: no file made in nobody's directory", "made");
	snprintf(d, sizeof(d), "%s/anyones", dir);
	snprintf(path, sizeof(path), "%s/tsqd.pid", d);
	mkdir(d, 0755);
	chmod(d, 01777);
	fd = tsq_pidfile_take(path, NULL, why, sizeof(why));
	check(fd == -EPERM, "hostile: a directory with mode 1777 refused", "%d: %s", fd, why);
	snprintf(d, sizeof(d), "%s/link", dir);
	snprintf(path, sizeof(path), "%s/run", dir);
	ASSERT(!symlink(path, d), "hostile: a symlink to a good directory");
	snprintf(path, sizeof(path), "%s/tsqd.pid", d);
	fd = tsq_pidfile_take(path, NULL, why, sizeof(why));
	check(fd == -ENOTDIR, "hostile: a directory that is a symlink refused", "%d: %s", fd, why);

	/* A FIFO: status must not hang on its open. */
	snprintf(d, sizeof(d), "%s/fifo", dir);
	snprintf(path, sizeof(path), "%s/tsqd.pid", d);
	mkdir(d, 0755);
	ASSERT(!mkfifo(path, 0644), "hostile: a FIFO as the pid file");
	status = in_child(owner_status, path);
	check(status == EPERM, "hostile: owner of a FIFO: refused, no hang",
	      "exit %d (-1: hung)", status);
	status = in_child(take_status, path);
	check(status == EPERM, "hostile: take of a FIFO: refused, no hang",
	      "exit %d (-1: hung)", status);

	/* A hard link to nobody's file: never truncated. */
	snprintf(d, sizeof(d), "%s/hard", dir);
	snprintf(path, sizeof(path), "%s/tsqd.pid", d);
	snprintf(victim, sizeof(victim), "%s/victim", d);
	mkdir(d, 0755);
	write_file(victim, "precious\n", NOBODY);
	ASSERT(!link(victim, path), "hostile: the pid file a hard link to nobody's file");
	fd = tsq_pidfile_take(path, NULL, why, sizeof(why));
	check(fd == -EPERM && strstr(why, "2 links"), "hostile: a hard link refused",
	      "%d: %s", fd, why);
	ASSERT(file_is(victim, "precious\n"), "hostile: the linked file unchanged");
	chown(victim, 0, 0);
	fd = tsq_pidfile_take(path, NULL, why, sizeof(why));
	check(fd == -EPERM, "hostile: a hard link to root's file refused too", "%d: %s", fd, why);

	/* Nobody's file, locked, saying pid 1. */
	snprintf(d, sizeof(d), "%s/fake", dir);
	snprintf(path, sizeof(path), "%s/tsqd.pid", d);
	mkdir(d, 0755);
	write_file(path, "1\n", NOBODY);
	child = holder(path, false);
	ASSERT(child > 0, "hostile: nobody's pid file, locked, says pid 1");
	status = tsq_pidfile_owner(path, why, sizeof(why));
	check(status == -EPERM && strstr(why, "owned by uid 65534"),
	      "hostile: owner refuses it, reports no pid 1", "%d: %s", status, why);
	fd = tsq_pidfile_take(path, NULL, why, sizeof(why));
	check(fd == -EPERM, "hostile: take refuses it (not \"another tsqd, pid 1\")",
	      "%d: %s", fd, why);
	kill(child, SIGKILL);
	waitpid(child, &status, 0);
}

int main(void)
{
	char cmd[64];

	if (!check(mkdtemp(dir) != NULL, "pidfile: mkdtemp", "%s", strerror(errno)))
		return test_done();
	test_basic();
	if (geteuid())
		printf("# SKIP: pidfile: hostile files: not root\n");
	else
		test_hostile();
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	ASSERT(!system(cmd), "pidfile: clean up");
	return test_done();
}

// SPDX-License-Identifier: GPL-2.0
/* tsqd's pid file: taken once, read while its holder lives, free after. */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>
#include <sys/wait.h>

#include "pidfile.h"
#include "test.h"

int main(void)
{
	char dir[] = "/tmp/tsq-pid-XXXXXX", path[64], cmd[64];
	int p[2], fd, status;
	pid_t child, other = 0;
	char c;

	if (!check(mkdtemp(dir) != NULL, "pidfile: mkdtemp", "%s", strerror(errno)))
		return test_done();
	snprintf(path, sizeof(path), "%s/run/tsqd.pid", dir);
	ASSERT(tsq_pidfile_owner(path) == 0, "pidfile: no file, no daemon");

	/* A child takes it and waits; so it holds the lock, as tsqd would. */
	if (pipe(p))
		return 1;
	child = fork();
	if (!child) {
		close(p[0]);
		fd = tsq_pidfile_take(path, NULL);
		c = fd >= 0 ? 'y' : 'n';
		if (write(p[1], &c, 1) != 1)
			_exit(1);
		pause();
		_exit(0);
	}
	close(p[1]);
	if (read(p[0], &c, 1) != 1)
		c = 'n';
	ASSERT(c == 'y', "pidfile: taken, its directory made");
	check(tsq_pidfile_owner(path) == child, "pidfile: the holder's pid read back",
	      "%d, want %d", (int)tsq_pidfile_owner(path), (int)child);
	fd = tsq_pidfile_take(path, &other);
	check(fd == -EBUSY && other == child, "pidfile: a second taker gets -EBUSY and the pid",
	      "%d, other %d", fd, (int)other);

	kill(child, SIGKILL);
	waitpid(child, &status, 0);
	ASSERT(tsq_pidfile_owner(path) == 0, "pidfile: the holder killed, no daemon (stale pid ignored)");
	fd = tsq_pidfile_take(path, NULL);
	ASSERT(fd >= 0 && tsq_pidfile_owner(path) == getpid(),
	       "pidfile: taken again after the holder died");
	if (fd >= 0)
		close(fd);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	ASSERT(!system(cmd), "pidfile: clean up");
	return test_done();
}

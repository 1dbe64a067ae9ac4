// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * From a systemd unit name to its cgroup, the way systemd itself knows
 * it: the unit's ControlGroup property, from `systemctl show` (which
 * needs no D-Bus daemon: as root it talks to PID 1's private socket).
 * A directory named like a unit proves nothing: anyone with a delegated
 * subtree (a user's systemd, a container) can make
 * .../user@1000.service/backup.service, and a policy meant for the
 * system's backup.service must not follow it there. The place systemd
 * gives a unit by default (/system.slice/NAME, a slice by its name) is
 * root's, and a cgroup there is the unit's: found without asking, which
 * costs an exec (a second under TCG). Elsewhere (Slice=), systemd is
 * asked; without systemd (no /run/systemd/system) such a unit is not
 * found. Never a search of the tree.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "cgroup.h"
#include "unit.h"

static const char *const suffixes[] = { ".service", ".slice", ".scope" };

static bool invalid(const char **why, const char *reason)
{
	if (why)
		*why = reason;
	return false;
}

static bool unit_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') || (c && strchr(":_.\\-@", c));
}

/* Only these unit types have a cgroup of their own. */
static bool has_cgroup(const char *dot)
{
	size_t i;

	for (i = 0; dot && i < sizeof(suffixes) / sizeof(suffixes[0]); i++)
		if (!strcmp(dot, suffixes[i]))
			return true;
	return false;
}

static bool is_slice(const char *name)
{
	const char *dot = strrchr(name, '.');

	return dot && !strcmp(dot, ".slice");
}

bool tsq_unit_name_valid(const char *name, const char **why)
{
	const char *p, *dot, *at;
	size_t len;

	len = strlen(name);
	if (!len)
		return invalid(why, "is empty");
	if (len > TSQ_UNIT_NAME_MAX)
		return invalid(why, "is longer than 255 characters");
	for (p = name; *p; p++)
		if (!unit_char(*p))
			return invalid(why, "has a character outside [A-Za-z0-9:_.\\-@]");

	dot = strrchr(name, '.');
	if (!has_cgroup(dot))
		return invalid(why, "does not end in .service, .slice or .scope");
	if (dot == name)
		return invalid(why, "has nothing before its suffix");

	at = strchr(name, '@');
	if (at == name)
		return invalid(why, "starts with @");
	if (at && is_slice(name))
		return invalid(why, "is a slice with an @, which systemd refuses");
	if (at && at + 1 == dot)
		return invalid(why, "is a template: only its instances have cgroups");

	/* Each dash in a slice name is a level: no empty level. */
	if (is_slice(name) && strcmp(name, "-.slice") &&
	    (name[0] == '-' || dot[-1] == '-' || memmem(name, dot - name, "--", 2)))
		return invalid(why, "is not a valid slice name (a '-' at either end or \"--\")");
	return true;
}

int tsq_unit_slice_path(const char *slice, char *path, size_t len)
{
	const char *dot, *end;
	size_t off = 0;
	int n;

	if (!tsq_unit_name_valid(slice, NULL) || !is_slice(slice))
		return -EINVAL;
	if (!strcmp(slice, "-.slice"))
		return len > 1 ? (strcpy(path, "/"), 0) : -ENAMETOOLONG;

	/* Each dash ends the name of a parent: a-b-c.slice is in a-b.slice. */
	dot = strrchr(slice, '.');
	for (end = slice; end <= dot; end++) {
		if (end != dot && *end != '-')
			continue;
		n = snprintf(path + off, len - off, "/%.*s.slice",
			     (int)(end - slice), slice);
		if (n < 0 || (size_t)n >= len - off)
			return -ENAMETOOLONG;
		off += n;
	}
	return 0;
}

static bool cgroup_exists(const char *mount, const char *path)
{
	int fd;

	if (tsq_cgroup_open(mount, path, &fd))
		return false;
	close(fd);
	return true;
}

int tsq_unit_default_path(const char *unit, char *path, size_t len)
{
	const char *at, *dot;
	int n;

	if (!tsq_unit_name_valid(unit, NULL))
		return -EINVAL;
	if (is_slice(unit))
		return tsq_unit_slice_path(unit, path, len);
	/* An instance goes in its template's slice: system-getty.slice. */
	at = strchr(unit, '@');
	dot = strrchr(unit, '.');
	if (at && at < dot)
		n = snprintf(path, len, "/system.slice/system-%.*s.slice/%s",
			     (int)(at - unit), unit, unit);
	else
		n = snprintf(path, len, "/system.slice/%s", unit);
	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

int tsq_unit_cgroup_default(const char *mount, const char *unit, char *path, size_t len)
{
	int err = tsq_unit_default_path(unit, path, len);

	if (err)
		return err;
	return cgroup_exists(mount, path) ? 0 : -ENOENT;
}

bool tsq_systemd_running(void)
{
	struct stat st;

	/* sd_booted(3): PID 1 is systemd when this directory exists. */
	return !lstat("/run/systemd/system", &st) && S_ISDIR(st.st_mode);
}

static const char *systemctl_path(void)
{
	static const char *const paths[] = { "/usr/bin/systemctl", "/bin/systemctl" };

	for (size_t i = 0; i < sizeof(paths) / sizeof(paths[0]); i++)
		if (!access(paths[i], X_OK))
			return paths[i];
	return NULL;
}

static long long ms_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

/*
 * argv's stdout into a malloc()ed string; stderr and stdin /dev/null.
 * Killed after TSQ_SYSTEMCTL_TIMEOUT_MS: tsqd must not hang on a busy
 * PID 1. 0 if it exited 0, else -errno (-ETIMEDOUT, -EIO for a failure).
 */
static int capture(char *const argv[], char **out)
{
	static char *const envp[] = { "PATH=/usr/bin:/bin", "LC_ALL=C", "SYSTEMD_PAGER=",
				      "SYSTEMD_COLORS=0", NULL };
	long long end = ms_now() + TSQ_SYSTEMCTL_TIMEOUT_MS;
	size_t len = 0, cap = 4096;
	char *buf = malloc(cap);
	int pfd[2], status, err = 0;
	pid_t pid;

	if (!buf)
		return -ENOMEM;
	if (pipe2(pfd, O_CLOEXEC)) {
		free(buf);
		return -errno;
	}
	pid = fork();
	if (pid < 0) {
		err = -errno;
		close(pfd[0]);
		close(pfd[1]);
		free(buf);
		return err;
	}
	if (!pid) {
		int null = open("/dev/null", O_RDWR);

		if (null < 0 || dup2(pfd[1], 1) < 0 || dup2(null, 0) < 0 || dup2(null, 2) < 0)
			_exit(127);
		execve(argv[0], argv, envp);
		_exit(127);
	}
	close(pfd[1]);
	for (;;) {
		struct pollfd p = { .fd = pfd[0], .events = POLLIN };
		long long left = end - ms_now();
		ssize_t n;

		if (left <= 0) {
			err = -ETIMEDOUT;
			break;
		}
		if (poll(&p, 1, left) < 0) {
			if (errno == EINTR)
				continue;
			err = -errno;
			break;
		}
		if (!p.revents)
			continue;
		if (cap - len < 1024) {
			char *nb = cap < (1 << 24) ? realloc(buf, cap * 2) : NULL;

			if (!nb) {
				err = -ENOMEM;
				break;
			}
			buf = nb;
			cap *= 2;
		}
		n = read(pfd[0], buf + len, cap - len - 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		len += n;
	}
	close(pfd[0]);
	if (err)
		kill(pid, SIGKILL);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (!err && !(WIFEXITED(status) && !WEXITSTATUS(status)))
		err = -EIO;
	if (err) {
		free(buf);
		return err;
	}
	buf[len] = '\0';
	*out = buf;
	return 0;
}

int tsq_units_systemd(const char *const *units, size_t n, char **paths)
{
	const char *systemctl = systemctl_path();
	char **argv, *out = NULL, *line, *save;
	size_t block = 0;
	int err;

	for (size_t i = 0; i < n; i++)
		paths[i] = NULL;
	if (!systemctl)
		return -ENOENT;
	argv = calloc(n + 7, sizeof(*argv));
	if (!argv)
		return -ENOMEM;
	argv[0] = (char *)systemctl;
	argv[1] = "show";
	argv[2] = "--no-pager";
	argv[3] = "--all";		/* an empty property too: one line a unit */
	argv[4] = "--property=ControlGroup";
	argv[5] = "--";
	for (size_t i = 0; i < n; i++)
		argv[6 + i] = (char *)units[i];
	err = capture(argv, &out);
	free(argv);
	if (err)
		return err;
	/* One block a unit, in the order asked, blocks apart by a blank line:
	 * "ControlGroup=/system.slice/a.service\n\nControlGroup=\n". An
	 * inactive or unknown unit has an empty one.
	 */
	for (line = strtok_r(out, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (strncmp(line, "ControlGroup=", 13))
			continue;
		if (block == n) {
			err = -EPROTO;
			break;
		}
		if (line[13] == '/') {
			paths[block] = strdup(line + 13);
			if (!paths[block]) {
				err = -ENOMEM;
				break;
			}
		}
		block++;
	}
	if (!err && block != n)
		err = -EPROTO;
	free(out);
	if (err)
		for (size_t i = 0; i < n; i++) {
			free(paths[i]);
			paths[i] = NULL;
		}
	return err;
}

int tsq_unit_cgroup(const char *mount, const char *unit, char *path, size_t len)
{
	char *found = NULL;
	int err;

	/* Where systemd puts it by default is root's: no need to ask. */
	err = tsq_unit_cgroup_default(mount, unit, path, len);
	if (err != -ENOENT || !tsq_systemd_running() || tsq_units_systemd(&unit, 1, &found))
		return err;
	if (!found)
		return -ENOENT;		/* systemd says: not running */
	err = strlen(found) < len ? 0 : -ENAMETOOLONG;
	if (!err)
		strcpy(path, found);
	free(found);
	return err;
}

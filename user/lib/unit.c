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

int tsq_systemctl_start(struct tsq_systemctl *sc, const char *const *units, size_t n)
{
	static char *const envp[] = { "PATH=/usr/bin:/bin", "LC_ALL=C", "SYSTEMD_PAGER=",
				      "SYSTEMD_COLORS=0", NULL };
	const char *systemctl = systemctl_path();
	char **argv;
	int pfd[2], err = 0;

	*sc = (struct tsq_systemctl){ .pid = -1, .fd = -1 };
	if (!systemctl)
		return -ENOENT;
	argv = calloc(n + 7, sizeof(*argv));
	sc->cap = 4096;
	sc->out = malloc(sc->cap);
	if (!argv || !sc->out) {
		err = -ENOMEM;
		goto out;
	}
	argv[0] = (char *)systemctl;
	argv[1] = "show";
	argv[2] = "--no-pager";
	argv[3] = "--all";		/* an empty property too: one line a unit */
	argv[4] = "--property=ControlGroup";
	argv[5] = "--";
	for (size_t i = 0; i < n; i++)
		argv[6 + i] = (char *)units[i];
	if (pipe2(pfd, O_CLOEXEC | O_NONBLOCK)) {
		err = -errno;
		goto out;
	}
	sc->pid = fork();
	if (!sc->pid) {
		int null = open("/dev/null", O_RDWR);
		sigset_t none;

		/* tsqd blocks the signals its signalfd reads. */
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		if (null < 0 || dup2(pfd[1], 1) < 0 || dup2(null, 0) < 0 || dup2(null, 2) < 0)
			_exit(127);
		/* Its stdout blocks as usual; the O_NONBLOCK is the reader's. */
		fcntl(1, F_SETFL, 0);
		execve(argv[0], argv, envp);
		_exit(127);
	}
	if (sc->pid < 0)
		err = -errno;
	close(pfd[1]);
	if (err)
		close(pfd[0]);
	else
		sc->fd = pfd[0];
	sc->end = ms_now() + TSQ_SYSTEMCTL_TIMEOUT_MS;
out:
	free(argv);
	if (err) {
		free(sc->out);
		sc->out = NULL;
	}
	return err;
}

int tsq_systemctl_read(struct tsq_systemctl *sc)
{
	for (;;) {
		ssize_t n;

		if (sc->cap - sc->len < 1024) {
			char *nb = sc->cap < (1 << 24) ? realloc(sc->out, sc->cap * 2) : NULL;

			if (!nb)
				return -ENOMEM;
			sc->out = nb;
			sc->cap *= 2;
		}
		n = read(sc->fd, sc->out + sc->len, sc->cap - sc->len - 1);
		if (n > 0) {
			sc->len += n;
			continue;
		}
		if (!n)
			return 0;
		if (errno == EINTR)
			continue;
		if (errno == EAGAIN)
			return ms_now() < sc->end ? -EAGAIN : -ETIMEDOUT;
		return -errno;
	}
}

/* One block a unit, in the order asked, blocks apart by a blank line:
 * "ControlGroup=/system.slice/a.service\n\nControlGroup=\n". An
 * inactive or unknown unit has an empty one.
 */
static int parse_show(char *out, size_t n, char **paths)
{
	char *line, *save;
	size_t block = 0;

	for (line = strtok_r(out, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (strncmp(line, "ControlGroup=", 13))
			continue;
		if (block == n)
			return -EPROTO;
		if (line[13] == '/' && !(paths[block] = strdup(line + 13)))
			return -ENOMEM;
		block++;
	}
	return block == n ? 0 : -EPROTO;
}

int tsq_systemctl_finish(struct tsq_systemctl *sc, int err, size_t n, char **paths)
{
	int status;

	for (size_t i = 0; i < n; i++)
		paths[i] = NULL;
	if (sc->fd >= 0)
		close(sc->fd);
	sc->fd = -1;
	if (sc->pid > 0) {
		if (err)
			kill(sc->pid, SIGKILL);
		while (waitpid(sc->pid, &status, 0) < 0 && errno == EINTR)
			;
		if (!err && !(WIFEXITED(status) && !WEXITSTATUS(status)))
			err = -EIO;
	}
	sc->pid = -1;
	if (!err && sc->out) {
		sc->out[sc->len] = '\0';
		err = parse_show(sc->out, n, paths);
	}
	free(sc->out);
	sc->out = NULL;
	if (err)
		for (size_t i = 0; i < n; i++) {
			free(paths[i]);
			paths[i] = NULL;
		}
	return err;
}

int tsq_units_systemd(const char *const *units, size_t n, char **paths)
{
	struct tsq_systemctl sc;
	int err;

	for (size_t i = 0; i < n; i++)
		paths[i] = NULL;
	err = tsq_systemctl_start(&sc, units, n);
	if (err)
		return err;
	while ((err = tsq_systemctl_read(&sc)) == -EAGAIN) {
		struct pollfd p = { .fd = sc.fd, .events = POLLIN };
		long long left = sc.end - ms_now();

		if (poll(&p, 1, left > 0 ? left : 0) < 0 && errno != EINTR) {
			err = -errno;
			break;
		}
	}
	return tsq_systemctl_finish(&sc, err, n, paths);
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

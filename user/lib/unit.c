// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * From a systemd unit name to its cgroup, without asking systemd over
 * D-Bus: tsqd must not depend on it, and the cgroup tree already says
 * where each unit is.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

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

struct search {
	const char *unit;
	dev_t dev;
	char cur[PATH_MAX];	/* the directory being read */
	char found[PATH_MAX];	/* the shallowest match */
	int best;		/* its depth, 0 for none yet */
	int count;		/* matches at that depth */
};

static bool is_dir(int dfd, const struct dirent *de)
{
	struct stat st;

	if (de->d_type != DT_UNKNOWN)
		return de->d_type == DT_DIR;
	return !fstatat(dfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) &&
	       S_ISDIR(st.st_mode);
}

static bool worth_descending(const struct search *s, int depth)
{
	return depth < TSQ_UNIT_SEARCH_DEPTH && (!s->best || depth < s->best);
}

/*
 * Depth-first, pruned below the best match so far. Directories that
 * vanish or cannot be read while we look are skipped: cgroups come and
 * go all the time.
 */
static void walk(struct search *s, int dfd, size_t curlen, int depth)
{
	struct dirent *de;
	struct stat st;
	size_t n;
	DIR *dir;
	int cfd;

	dir = fdopendir(dfd);
	if (!dir) {
		close(dfd);
		return;
	}
	while ((de = readdir(dir))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, "..") ||
		    !is_dir(dirfd(dir), de))
			continue;
		n = strlen(de->d_name);
		if (curlen + 1 + n >= sizeof(s->cur))
			continue;
		s->cur[curlen] = '/';
		memcpy(s->cur + curlen + 1, de->d_name, n + 1);

		if (!strcmp(de->d_name, s->unit)) {
			if (!s->best || depth < s->best) {
				s->best = depth;
				s->count = 0;
				strcpy(s->found, s->cur);
			}
			if (depth == s->best)
				s->count++;
			continue;
		}
		if (!worth_descending(s, depth))
			continue;
		cfd = openat(dirfd(dir), de->d_name,
			     O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (cfd < 0)
			continue;
		if (fstat(cfd, &st) || st.st_dev != s->dev) {
			close(cfd);
			continue;
		}
		walk(s, cfd, curlen + 1 + n, depth + 1);
	}
	s->cur[curlen] = '\0';
	closedir(dir);
}

static bool cgroup_exists(const char *mount, const char *path)
{
	int fd;

	if (tsq_cgroup_open(mount, path, &fd))
		return false;
	close(fd);
	return true;
}

static int copy_path(char *path, size_t len, const char *src)
{
	if (strlen(src) >= len)
		return -ENAMETOOLONG;
	strcpy(path, src);
	return 0;
}

int tsq_unit_cgroup(const char *mount, const char *unit, char *path, size_t len)
{
	struct search *s;
	struct stat st;
	int fd, err;

	if (!tsq_unit_name_valid(unit, NULL))
		return -EINVAL;

	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	/* The fast path: where systemd puts it unless told otherwise. */
	err = 0;
	if (is_slice(unit))
		err = tsq_unit_slice_path(unit, s->found, sizeof(s->found));
	else
		snprintf(s->found, sizeof(s->found), "/system.slice/%s", unit);
	if (!err && cgroup_exists(mount, s->found)) {
		err = copy_path(path, len, s->found);
		goto out;
	}

	err = tsq_cgroup_open(mount, "", &fd);
	if (err)
		goto out;
	if (fstat(fd, &st)) {
		err = -errno;
		close(fd);
		goto out;
	}
	s->unit = unit;
	s->dev = st.st_dev;
	walk(s, fd, 0, 1);
	if (!s->count)
		err = -ENOENT;
	else if (s->count > 1)
		err = -ENOTUNIQ;
	else
		err = copy_path(path, len, s->found);
out:
	free(s);
	return err;
}

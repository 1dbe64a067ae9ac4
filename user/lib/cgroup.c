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

/*
 * The walk keeps one level a directory on the path from the first cgroup
 * to the current one: its children's names, read at once, and its fd
 * while that is open. The depth is the tree's, with no bound: a cgroup
 * the walk skipped would be a cgroup whose sockets show nowhere, and
 * anyone with a delegated subtree can make one as deep as they like.
 * So that depth does not cost an fd a level, a level below
 * WALK_OPEN_LEVELS closes its parent's fd on the way down, and the parent
 * is opened again on the way up: as ".." of the child, which needs no
 * privilege (a cgroup2 directory cannot move to another parent), checked
 * against the id it had, or else by its file handle (CAP_DAC_READ_SEARCH).
 * What cannot be opened or read all the same (EMFILE, EACCES, ENOMEM) is
 * counted, never skipped in silence: a caller that drops state for
 * cgroups it did not see must not, after an incomplete walk.
 */
#define WALK_OPEN_LEVELS	32

struct level {
	int fd;			/* -1: closed, open again from a child or by id */
	__u64 id;
	char **names;		/* its subdirectories */
	size_t nr, next;
	size_t plen;		/* its path's length */
};

struct walker {
	int mount_fd;		/* for open_by_handle_at(); -1: cannot */
	char *path;
	size_t cap;
	struct level *lv;
	size_t depth, alloc;
	size_t skipped;		/* cgroups not visited, or not whole */
	tsq_cgroup_walk_fn fn;
	void *ctx;
};

static void free_names(struct level *l)
{
	for (size_t i = 0; i < l->nr; i++)
		free(l->names[i]);
	free(l->names);
	l->names = NULL;
	l->nr = l->next = 0;
}

/* The names of dfd's subdirectories: 0, or -errno if not all were read. */
static int read_names(int dfd, struct level *l)
{
	int fd = openat(dfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC), err = 0;
	struct dirent *de;
	size_t alloc = 0;
	DIR *d;

	d = fd < 0 ? NULL : fdopendir(fd);
	if (!d) {
		err = -errno;
		if (fd >= 0)
			close(fd);
		return err;
	}
	while ((errno = 0, de = readdir(d))) {
		char **v;

		/* ".x" is a cgroup like any other: only "." and ".." are not. */
		if (de->d_type != DT_DIR || !strcmp(de->d_name, ".") ||
		    !strcmp(de->d_name, ".."))
			continue;
		if (l->nr == alloc) {
			v = realloc(l->names, (alloc = alloc ? 2 * alloc : 16) * sizeof(*v));
			if (!v)
				break;
			l->names = v;
		}
		l->names[l->nr] = strdup(de->d_name);
		if (!l->names[l->nr])
			break;
		l->nr++;
	}
	/* readdir() ends with errno 0; a break is out of memory. */
	if (de || errno)
		err = de ? -ENOMEM : -errno;
	closedir(d);
	return err;
}

/* Open a cgroup by its id, as name_to_handle_at() gave it. */
static int open_by_id(int mount_fd, __u64 id)
{
	union {
		struct file_handle fh;
		char buf[sizeof(struct file_handle) + sizeof(__u64)];
	} h = { .fh.handle_bytes = sizeof(__u64), .fh.handle_type = FILEID_KERNFS };

	memcpy(h.fh.f_handle, &id, sizeof(id));
	return open_by_handle_at(mount_fd, &h.fh, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
}

/* Path of the current level + "/" + name; false when out of memory. */
static bool set_path(struct walker *w, size_t plen, const char *name)
{
	size_t n = strlen(name), need = plen + 1 + n + 1;

	if (need > w->cap) {
		char *p = realloc(w->path, need * 2);

		if (!p)
			return false;
		w->path = p;
		w->cap = need * 2;
	}
	/* The root's path is "/": its children are "/a", not "//a". */
	if (plen == 1 && w->path[0] == '/')
		plen = 0;
	w->path[plen] = '/';
	memcpy(w->path + plen + 1, name, n + 1);
	return true;
}

/* Visit fd (the cgroup at w->path) and make it the deepest level. */
static bool push(struct walker *w, int fd)
{
	struct level *l;
	int err;

	w->fn(fd, w->path, w->depth, w->ctx);
	if (w->depth == w->alloc) {
		size_t n = w->alloc ? 2 * w->alloc : 64;
		struct level *v = realloc(w->lv, n * sizeof(*v));

		if (!v)
			return false;
		w->lv = v;
		w->alloc = n;
	}
	l = &w->lv[w->depth++];
	memset(l, 0, sizeof(*l));
	l->fd = fd;
	l->plen = strlen(w->path);
	l->id = tsq_cgroup_id(fd);
	/* A cgroup removed meanwhile reads as ENOENT, or empty. */
	err = read_names(fd, l);
	if (err && err != -ENOENT)
		w->skipped++;
	return true;
}

/* The parent of a level whose fd is open, if it is still the one it was. */
static int open_parent(struct walker *w, int child_fd, __u64 id)
{
	int fd = openat(child_fd, "..", O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (fd >= 0 && id && tsq_cgroup_id(fd) == id)
		return fd;
	if (fd >= 0)
		close(fd);
	return w->mount_fd >= 0 && id ? open_by_id(w->mount_fd, id) : -1;
}

static void pop(struct walker *w)
{
	struct level *l = &w->lv[--w->depth];

	if (w->depth && w->lv[w->depth - 1].fd < 0 && l->fd >= 0)
		w->lv[w->depth - 1].fd = open_parent(w, l->fd, w->lv[w->depth - 1].id);
	if (l->fd >= 0)
		close(l->fd);
	free_names(l);
}

/* The next child of the deepest level, opened; -1 when it has no more. */
static int next_child(struct walker *w)
{
	struct level *l = &w->lv[w->depth - 1];

	if (l->fd < 0 && l->next < l->nr) {
		/* Removed meanwhile (its children with it), or out of fds. */
		w->skipped += l->nr - l->next;
		l->next = l->nr;
	}
	while (l->next < l->nr) {
		const char *name = l->names[l->next++];
		int fd;

		fd = openat(l->fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0 && errno != ENOENT)
			w->skipped++;
		if (fd < 0)
			continue;
		if (!set_path(w, l->plen, name)) {
			close(fd);
			w->skipped++;
			continue;
		}
		if (w->depth >= WALK_OPEN_LEVELS && l->id) {
			close(l->fd);
			l->fd = -1;
		}
		return fd;
	}
	return -1;
}

int tsq_cgroup_walk_all(const char *mount, const char *path, tsq_cgroup_walk_fn fn,
			void *ctx, size_t *skipped)
{
	struct walker w = { .mount_fd = -1, .fn = fn, .ctx = ctx };
	int fd, err = tsq_cgroup_open(mount, path, &fd);

	if (skipped)
		*skipped = 0;
	if (err)
		return err;
	w.cap = strlen(path) + 2 > PATH_MAX ? strlen(path) + 2 : PATH_MAX;
	w.path = malloc(w.cap);
	if (!w.path) {
		close(fd);
		return -ENOMEM;
	}
	snprintf(w.path, w.cap, "%s", path[0] ? path : "/");
	/* Handles need CAP_DAC_READ_SEARCH: the fallback of a fallback. */
	w.mount_fd = open(mount, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (w.mount_fd >= 0) {
		int probe = open_by_id(w.mount_fd, tsq_cgroup_id(fd));

		if (probe < 0) {
			close(w.mount_fd);
			w.mount_fd = -1;
		} else {
			close(probe);
		}
	}
	if (!push(&w, fd)) {
		close(fd);
		err = -ENOMEM;
	}
	while (w.depth) {
		int cfd = next_child(&w);

		if (cfd < 0) {
			pop(&w);
			continue;
		}
		if (!push(&w, cfd)) {
			close(cfd);
			err = -ENOMEM;
			break;
		}
	}
	while (w.depth)
		pop(&w);
	free(w.lv);
	free(w.path);
	if (w.mount_fd >= 0)
		close(w.mount_fd);
	if (skipped)
		*skipped = w.skipped;
	return err;
}

int tsq_cgroup_walk(const char *mount, const char *path, tsq_cgroup_walk_fn fn,
		    void *ctx)
{
	return tsq_cgroup_walk_all(mount, path, fn, ctx, NULL);
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

// SPDX-License-Identifier: GPL-2.0
/*
 * Cgroup resolution on the real cgroup2 tree: needs root. Everything is
 * made below a fresh MOUNT/tsq-test-PID and removed at the end.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdlib.h>
#include <unistd.h>
#include <linux/capability.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include "cgroup.h"
#include "test.h"
#include "unit.h"

static const char hybrid[] =
	"22 1 8:1 / / rw,relatime shared:1 - ext4 /dev/sda1 rw\n"
	"31 23 0:28 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755\n"
	"32 31 0:29 / /sys/fs/cgroup/cpu rw,relatime - cgroup cgroup rw,cpu\n"
	"40 31 0:37 / /sys/fs/cgroup/systemd rw - cgroup cgroup rw,name=systemd\n"
	"41 31 0:38 / /sys/fs/cgroup/unified rw,relatime shared:9 - cgroup2 cgroup2 rw\n";
static const char unified[] =
	"25 22 0:22 / /sys/fs/cgroup rw,nosuid shared:4 master:1 - cgroup2 cgroup2 rw,nsdelegate\n";
static const char bind_first[] =
	"50 22 0:22 /system.slice /srv/cg rw - cgroup2 cgroup2 rw\n"
	"51 22 0:22 / /mnt/my\\040cgroup\\134x rw - cgroup2 none rw\n";
static const char no_cgroup2[] =
	"31 23 0:28 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755\n"
	"32 31 0:29 / /cgroup2-but-v1 rw - cgroup cgroup2 rw\n";

static int mount_from(const char *text, char *buf, size_t len)
{
	FILE *f = fmemopen((void *)text, strlen(text), "r");
	int ret;

	if (!f)
		return -errno;
	ret = tsq_cgroup_mount_from(f, buf, len);
	fclose(f);
	return ret;
}

static void test_mountinfo(void)
{
	char buf[64];

	ASSERT(!mount_from(hybrid, buf, sizeof(buf)) &&
	       !strcmp(buf, "/sys/fs/cgroup/unified"), "mountinfo: hybrid");
	ASSERT(!mount_from(unified, buf, sizeof(buf)) &&
	       !strcmp(buf, "/sys/fs/cgroup"),
	       "mountinfo: unified, optional fields");
	ASSERT(!mount_from(bind_first, buf, sizeof(buf)) &&
	       !strcmp(buf, "/mnt/my cgroup\\x"),
	       "mountinfo: bind mount of a subtree skipped, escapes decoded");
	ASSERT(mount_from(no_cgroup2, buf, sizeof(buf)) == -ENOENT,
	       "mountinfo: no cgroup2: -ENOENT");
	ASSERT(mount_from("", buf, sizeof(buf)) == -ENOENT,
	       "mountinfo: empty: -ENOENT");
	ASSERT(mount_from(unified, buf, 14) == -ENAMETOOLONG &&
	       !mount_from(unified, buf, 15), "mountinfo: buffer length");
}

static char mnt[256], base[512], tmpdir[] = "/tmp/tsq-cg-XXXXXX";
static char made[64][1024];
static int nr_made;

/* mkdir below base, remembered for the clean-up. */
static bool mk(const char *rel)
{
	char *p = made[nr_made];

	snprintf(p, sizeof(made[0]), "%s/%s", base, rel);
	if (mkdir(p, 0755) && errno != EEXIST) {
		printf("# mkdir %s: %s\n", p, strerror(errno));
		return false;
	}
	nr_made++;
	return true;
}

static void cleanup(void)
{
	char cmd[PATH_MAX + 16];

	while (nr_made > 0)
		rmdir(made[--nr_made]);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	if (tmpdir[strlen(tmpdir) - 1] != 'X' && system(cmd))
		printf("# could not remove %s\n", tmpdir);
}

/* What stat(1) says the inode is. */
static unsigned long long stat_ino(const char *path)
{
	unsigned long long ino = 0;
	char cmd[PATH_MAX + 32];
	FILE *p;

	snprintf(cmd, sizeof(cmd), "stat -c %%i '%s'", path);
	p = popen(cmd, "r");
	if (!p)
		return 0;
	if (fscanf(p, "%llu", &ino) != 1)
		ino = 0;
	pclose(p);
	return ino;
}

static int open_rel(const char *mount, const char *path, __u64 *id)
{
	int fd, ret;

	ret = tsq_cgroup_open(mount, path, &fd);
	if (ret)
		return ret;
	if (id)
		*id = tsq_cgroup_id(fd);
	close(fd);
	return 0;
}

static void test_open(void)
{
	char rel[PATH_MAX], path[PATH_MAX + 32];
	const char *name = base + strlen(mnt);	/* "/tsq-test-PID" */
	__u64 id, id2;
	int fd, ret;

	snprintf(rel, sizeof(rel), "%s/a/b", name);
	snprintf(path, sizeof(path), "%s/a/b", base);
	ret = open_rel(mnt, rel, &id);
	ASSERT(!ret, "cgroup: open a/b");
	check(!ret && id && id == stat_ino(path), "cgroup: id is stat -c %i",
	      "id %llu, stat %llu", (unsigned long long)id, stat_ino(path));
	ret = open_rel(mnt, rel + 1, &id2);
	ASSERT(!ret && id2 == id, "cgroup: open without leading /");
	snprintf(rel, sizeof(rel), "//%s//a///b/", name + 1);
	ASSERT(!open_rel(mnt, rel, &id2) && id2 == id,
	       "cgroup: empty components are fine");
	snprintf(rel, sizeof(rel), "%s/./a/./b/.", name);
	ASSERT(!open_rel(mnt, rel, &id2) && id2 == id, "cgroup: . components");
	snprintf(rel, sizeof(rel), "%s/a", name);
	ASSERT(!open_rel(mnt, rel, &id2) && id2 != id, "cgroup: a is not a/b");
	ASSERT(!open_rel(mnt, "", &id2) && id2 == 1 &&
	       !open_rel(mnt, "/", &id) && id == 1, "cgroup: root id is 1");

	ASSERT(!tsq_cgroup_open(mnt, rel, &fd) && fd >= 0 &&
	       (fcntl(fd, F_GETFD) & FD_CLOEXEC) &&
	       (fcntl(fd, F_GETFL) & O_ACCMODE) == O_RDONLY &&
	       !close(fd), "cgroup: fd is O_RDONLY, close-on-exec");

	snprintf(rel, sizeof(rel), "%s/a/../a/b", name);
	ASSERT(open_rel(mnt, rel, NULL) == -EINVAL, "cgroup: .. refused");
	ASSERT(open_rel(mnt, "..", NULL) == -EINVAL, "cgroup: bare .. refused");
	snprintf(rel, sizeof(rel), "%s/a/b/..", name);
	ASSERT(open_rel(mnt, rel, NULL) == -EINVAL,
	       "cgroup: trailing .. refused");
	snprintf(rel, sizeof(rel), "%s/a..b", name);
	ASSERT(open_rel(mnt, rel, NULL) == -ENOENT,
	       "cgroup: a..b is a name, not ..");
	snprintf(rel, sizeof(rel), "%s/nonexistent", name);
	ASSERT(open_rel(mnt, rel, NULL) == -ENOENT, "cgroup: missing: -ENOENT");
	snprintf(rel, sizeof(rel), "%s/a/cgroup.procs", name);
	ASSERT(open_rel(mnt, rel, NULL) == -ENOTDIR,
	       "cgroup: a file: -ENOTDIR");
}

/* Ways out of the cgroup2 tree, or into it from elsewhere. */
static void test_escapes(void)
{
	char path[PATH_MAX + 64], parent[PATH_MAX], rel[PATH_MAX];
	const char *name = base + strlen(mnt);
	int ret, fd, cfd;

	snprintf(path, sizeof(path), "%s/link", tmpdir);
	if (!check(!symlink(base, path), "cgroup: symlink into cgroup2",
		   "%s", strerror(errno)))
		return;
	mkdir(strcat(strcpy(path, tmpdir), "/plain"), 0755);

	/* Followed, link/a would be a real cgroup and pass the magic test. */
	ret = open_rel(tmpdir, "link/a", NULL);
	check(ret == -ELOOP, "cgroup: path through a symlink refused",
	      "ret %d", ret);
	ret = open_rel(tmpdir, "link", NULL);
	check(ret == -ELOOP, "cgroup: symlink as the last component refused",
	      "ret %d", ret);
	ret = open_rel(tmpdir, "plain", NULL);
	check(ret == -EMEDIUMTYPE, "cgroup: a tmp dir fails the magic check",
	      "ret %d", ret);
	ret = open_rel(tmpdir, "", NULL);
	check(ret == -EMEDIUMTYPE, "cgroup: a tmp dir as mount fails too",
	      "ret %d", ret);
	ret = open_rel("/proc/self", "cwd", NULL);
	check(ret == -ELOOP, "cgroup: magic link refused", "ret %d", ret);

	/* The mount point below its parent: crossing it is RESOLVE_NO_XDEV. */
	snprintf(parent, sizeof(parent), "%s", mnt);
	dirname(parent);
	snprintf(rel, sizeof(rel), "%s%s/a", strrchr(mnt, '/'), name);
	ret = open_rel(parent, rel, NULL);
	check(ret == -EXDEV, "cgroup: crossing into the mount refused",
	      "ret %d for %s below %s", ret, rel, parent);

	/* The fallback for kernels without openat2(). */
	fd = open(mnt, O_RDONLY | O_DIRECTORY);
	snprintf(rel, sizeof(rel), "%s/a/b", name);
	snprintf(path, sizeof(path), "%s/a/b", base);
	ret = tsq_cgroup_open_compat(fd, rel, &cfd);
	ASSERT(!ret && tsq_cgroup_id(cfd) == stat_ino(path) && !close(cfd),
	       "cgroup compat: open a/b");
	ret = tsq_cgroup_open_compat(fd, "", &cfd);
	ASSERT(!ret && tsq_cgroup_id(cfd) == 1 && !close(cfd),
	       "cgroup compat: root");
	snprintf(rel, sizeof(rel), "%s/a/../a/b", name);
	ASSERT(tsq_cgroup_open_compat(fd, rel, &cfd) == -EINVAL,
	       "cgroup compat: .. refused");
	close(fd);
	fd = open(tmpdir, O_RDONLY | O_DIRECTORY);
	ret = tsq_cgroup_open_compat(fd, "link/a", &cfd);
	check(ret == -ELOOP || ret == -ENOTDIR,
	      "cgroup compat: symlink refused", "ret %d", ret);
	close(fd);
	fd = open(parent, O_RDONLY | O_DIRECTORY);
	snprintf(rel, sizeof(rel), "%s%s/a", strrchr(mnt, '/'), name);
	ret = tsq_cgroup_open_compat(fd, rel, &cfd);
	check(ret == -EXDEV, "cgroup compat: crossing a mount refused",
	      "ret %d", ret);
	close(fd);
}

/*
 * Without systemd, a unit is where systemd would put it by default, and
 * nowhere else: a directory of its name in a delegated subtree (a
 * user's systemd, a container) is anyone's, and never found.
 */
static void test_units(void)
{
	static const struct {
		const char *unit;
		int ret;
		const char *path;
	} cases[] = {
		{ "test-tsq.slice", 0, "/test.slice/test-tsq.slice" },
		{ "test-tsq-x.slice", 0, "/test.slice/test-tsq.slice/test-tsq-x.slice" },
		{ "fast.service", 0, "/system.slice/fast.service" },
		{ "a@b.service", 0, "/system.slice/system-a.slice/a@b.service" },
		{ "run-r1.scope", 0, "/system.slice/run-r1.scope" },
		{ "-.slice", 0, "/" },
		/* Squatted: only below a user's manager or elsewhere. */
		{ "backup.service", -ENOENT, NULL },
		{ "misplaced-y.slice", -ENOENT, NULL },
		{ "x.scope", -ENOENT, NULL },
		{ "c@d.service", -ENOENT, NULL },
		{ "foo", -EINVAL, NULL },
		{ "foo@.service", -EINVAL, NULL },
	};
	static const char *const dirs[] = {
		"u", "u/test.slice", "u/test.slice/test-tsq.slice",
		"u/test.slice/test-tsq.slice/test-tsq-x.slice", "u/test-tsq.slice",
		"u/system.slice", "u/system.slice/fast.service",
		"u/system.slice/system-a.slice", "u/system.slice/system-a.slice/a@b.service",
		"u/system.slice/run-r1.scope",
		"u/user.slice", "u/user.slice/user-1000.slice",
		"u/user.slice/user-1000.slice/user@1000.service",
		"u/user.slice/user-1000.slice/user@1000.service/backup.service",
		"u/backup.service",
		"u/other", "u/other/misplaced-y.slice", "u/x.scope",
		/* An instance outside its template's slice. */
		"u/system.slice/c@d.service",
	};
	char root[1024], path[PATH_MAX];
	size_t i;
	int ret;

	for (i = 0; i < ARRAY_SIZE(dirs); i++)
		if (!mk(dirs[i]))
			return;
	/* The fake tree's root stands in for the mount point. */
	snprintf(root, sizeof(root), "%s/u", base);

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		path[0] = '\0';
		ret = tsq_unit_cgroup_default(root, cases[i].unit, path, sizeof(path));
		check(ret == cases[i].ret &&
		      (ret || !strcmp(path, cases[i].path)),
		      tname("unit %s", cases[i].unit), "ret %d \"%s\"", ret,
		      path);
	}
	ret = tsq_unit_cgroup_default(root, "fast.service", path, 10);
	ASSERT(ret == -ENAMETOOLONG, "unit: path buffer too small");
	ret = tsq_unit_cgroup_default(tmpdir, "fast.service", path, sizeof(path));
	ASSERT(ret == -ENOENT || ret == -EMEDIUMTYPE, "unit: outside cgroup2: not found");
	/* A symlink on the unit's path, into the real one, is not taken. */
	snprintf(path, sizeof(path), "%s/test.slice", tmpdir);
	snprintf(root + strlen(root), sizeof(root) - strlen(root), "/test.slice");
	ret = symlink(root, path);
	ret = ret ?: tsq_unit_cgroup_default(tmpdir, "test-tsq.slice", path, sizeof(path));
	ASSERT(ret == -ENOENT, "unit: symlink named like the unit refused");
}

/* levels nested directories named name below dfd. */
static bool make_chain(int dfd, const char *name, int levels)
{
	int fd = dup(dfd);

	for (int i = 0; i < levels && fd >= 0; i++) {
		int next;

		if (mkdirat(fd, name, 0755) && errno != EEXIST)
			break;
		next = openat(fd, name, O_RDONLY | O_DIRECTORY);
		close(fd);
		fd = next;
	}
	if (fd < 0)
		return false;
	close(fd);
	return true;
}

/* Remove the tree below dfd's child name, children first. */
static void remove_tree(int dfd, const char *name)
{
	int fd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
	DIR *d = fd < 0 ? NULL : fdopendir(fd);
	struct dirent *de;

	while (d && (de = readdir(d)))
		if (de->d_type == DT_DIR && strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
			remove_tree(dirfd(d), de->d_name);
	if (d)
		closedir(d);
	unlinkat(dfd, name, AT_REMOVEDIR);
}

struct walk_seen {
	int visited, deepest, hidden;
	size_t longest;
	int max_fds;
};

static int open_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	int n = 0;

	while (d && readdir(d))
		n++;
	if (d)
		closedir(d);
	return n;
}

static void seen_one(int fd, const char *path, int depth, void *arg)
{
	struct walk_seen *w = arg;
	const char *last = strrchr(path, '/');

	w->visited++;
	if (depth > w->deepest)
		w->deepest = depth;
	if (strlen(path) > w->longest)
		w->longest = strlen(path);
	if (last && !strcmp(last, "/.hidden"))
		w->hidden++;
	if (depth % 20 == 0) {
		int n = open_fds();

		if (n > w->max_fds)
			w->max_fds = n;
	}
}

/* Drop caps (bit numbers) from the effective set; 0 or -1. */
static int drop_caps(const int *caps, int n)
{
	struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct d[2] = {};

	if (syscall(SYS_capget, &h, d))
		return -1;
	for (int i = 0; i < n; i++)
		d[caps[i] / 32].effective &= ~(1U << (caps[i] % 32));
	return syscall(SYS_capset, &h, d);
}

struct walk_result {
	int ret, visited, deepest, max_fds;
	size_t skipped;
};

/*
 * As under tsqd.service, whose seccomp filter refuses open_by_handle_at():
 * without CAP_DAC_READ_SEARCH (nor CAP_DAC_OVERRIDE) and with 48 fds, in
 * a child. The 150 levels are walked with the fds bounded all the same;
 * a subtree nobody's and mode 0700 is not readable then, and counted.
 */
static void test_walk_unprivileged(const char *rel)
{
	static const int dac[] = { CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH };
	struct rlimit rl = { 48, 48 };
	struct walk_result r = { .ret = -1 };
	char priv[PATH_MAX + 16];
	int p[2], status;
	pid_t pid;

	snprintf(priv, sizeof(priv), "%s/w/priv", base);
	if (!check(!mkdir(priv, 0755) && !chown(priv, 65534, 65534) && !chmod(priv, 0700) &&
		   !pipe(p), "walk: a subtree of nobody's, mode 0700", "%s", strerror(errno)))
		return;
	strcat(priv, "/inner");
	mkdir(priv, 0755);
	pid = fork();
	if (!pid) {
		struct walk_seen w = {};

		close(p[0]);
		if (!drop_caps(dac, 2) && !setrlimit(RLIMIT_NOFILE, &rl)) {
			r.ret = tsq_cgroup_walk_all(mnt, rel, seen_one, &w, &r.skipped);
			r.visited = w.visited;
			r.deepest = w.deepest;
			r.max_fds = w.max_fds;
		}
		_exit(write(p[1], &r, sizeof(r)) != sizeof(r));
	}
	close(p[1]);
	if (read(p[0], &r, sizeof(r)) != sizeof(r))
		r.ret = -EIO;
	close(p[0]);
	waitpid(pid, &status, 0);
	/* Everything but priv, which cannot be opened, and its child. */
	check(!r.ret && r.visited == 1 + 150 + 20 + 1 && r.deepest == 150,
	      "walk: without CAP_DAC_READ_SEARCH and 48 fds: all 150 levels",
	      "ret %d, %d visited, deepest %d", r.ret, r.visited, r.deepest);
	check(r.max_fds > 0 && r.max_fds < 48,
	      tname("walk: ... fds bounded (%d open at most)", r.max_fds), "%d", r.max_fds);
	check(r.skipped == 1, "walk: ... the 0700 subtree counted as not read",
	      "%zu skipped", r.skipped);
}

/*
 * The walk reaches every cgroup whatever its depth or path length, with
 * a bounded number of fds: a cgroup 150 levels down, one whose path is
 * over PATH_MAX, one whose name starts with a dot.
 */
static void test_walk(void)
{
	const char *name = base + strlen(mnt);
	char rel[PATH_MAX], longname[251];
	struct walk_seen w = {};
	int bfd, ret;

	memset(longname, 'L', sizeof(longname) - 1);
	longname[sizeof(longname) - 1] = '\0';
	bfd = open(base, O_RDONLY | O_DIRECTORY);
	if (!check(bfd >= 0 && !mkdirat(bfd, "w", 0755), "walk: setup", "%s", strerror(errno)))
		return;
	{
		int wfd = openat(bfd, "w", O_RDONLY | O_DIRECTORY);

		ASSERT(make_chain(wfd, "d", 150) && make_chain(wfd, longname, 20) &&
		       !mkdirat(wfd, ".hidden", 0755), "walk: 150 levels, a path over PATH_MAX");
		close(wfd);
	}
	snprintf(rel, sizeof(rel), "%s/w", name);
	ret = tsq_cgroup_walk(mnt, rel, seen_one, &w);
	check(!ret && w.visited == 1 + 150 + 20 + 1, "walk: every cgroup visited",
	      "ret %d, %d visited", ret, w.visited);
	check(w.deepest == 150, "walk: 150 levels deep", "deepest %d", w.deepest);
	check(w.longest == strlen(rel) + 20 * (1 + strlen(longname)),
	      "walk: a path longer than PATH_MAX, whole", "longest %zu", w.longest);
	check(w.hidden == 1, "walk: a name starting with a dot", "%d", w.hidden);
	check(w.max_fds > 0 && w.max_fds < 64,
	      tname("walk: fds bounded at depth 150 (%d open at most)", w.max_fds),
	      "at most %d open", w.max_fds);
	test_walk_unprivileged(rel);
	remove_tree(bfd, "w");
	close(bfd);
}

int main(void)
{
	test_mountinfo();

	if (geteuid()) {
		printf("# SKIP: cgroup file system tests: not root\n");
		return test_done();
	}
	if (tsq_cgroup_mount(mnt, sizeof(mnt))) {
		printf("# SKIP: cgroup file system tests: no cgroup2 mount\n");
		return test_done();
	}
	snprintf(base, sizeof(base), "%s/tsq-test-%d", mnt, (int)getpid());
	if (mkdir(base, 0755)) {
		printf("# SKIP: cgroup file system tests: mkdir %s: %s\n", base,
		       strerror(errno));
		return test_done();
	}
	strcpy(made[nr_made++], base);
	if (mkdtemp(tmpdir) && mk("a") && mk("a/b")) {
		test_open();
		test_escapes();
		test_units();
		test_walk();
	}
	cleanup();
	ASSERT(access(base, F_OK) && errno == ENOENT, "cgroup: test tree removed");
	return test_done();
}

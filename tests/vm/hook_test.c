// SPDX-License-Identifier: GPL-2.0
/* hook_test: drives the tcp_tsq_ops hook from the VM tests.
 *
 *   hook_test attach MAP DIR [limit BYTES] [tso BYTES] [budget BYTES]
 *	attach struct_ops MAP (tsq_fixed, or one of tsq_misbehave's) and pin
 *	the link, and for tsq_fixed its cfg and stats maps and its sync
 *	iterator, under DIR; tsq_fixed's policy also goes to the running
 *	connections of the caller's netns
 *   hook_test cfg DIR [limit BYTES] [tso BYTES] [budget BYTES]
 *				tsq_fixed's policy from now on
 *   hook_test sync DIR		tsq_fixed's policy (its cfg now) to the
 *				running connections
 *   hook_test refused DIR	print the calls tsq_misbehave's kfunc refused
 *   hook_test detach DIR	BPF_LINK_DETACH the pinned link, remove DIR
 *   hook_test calls DIR	print the policies set so far (tsq_fixed)
 *				or the calls (tsq_misbehave)
 *   hook_test TEST		exclusive | update | replace | hup | refuse |
 *				unpriv | race
 *
 * Tests are shaped like selftests/bpf prog_tests: real sockets, counters
 * read back from maps, ASSERT_* and one cleanup label. The hook runs when
 * a connection is established: the tests make loopback connections.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/capability.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "cgroup.h"
#include "tsq.h"
#include "tsq_fixed.h"
#include "tsq_fixed.skel.h"
#include "tsq_misbehave.skel.h"
#include "tsq_no_ops.skel.h"
#include "tsq_writer.skel.h"

static int failures;

#define ASSERT(cond, fmt, ...) ({					\
	bool ___ok = (cond);						\
	if (!___ok) {							\
		fprintf(stderr, "FAIL %s:%d: " fmt "\n", __func__,	\
			__LINE__, ##__VA_ARGS__);			\
		failures++;						\
	}								\
	___ok;								\
})
#define ASSERT_OK_PTR(p, what) ASSERT((p) != NULL, "%s: %s", what, strerror(errno))
#define ASSERT_OK(err, what) ASSERT((err) == 0, "%s: %d (%s)", what, err, strerror(-(err)))

static int libbpf_quiet(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	if (level == LIBBPF_WARN && getenv("V"))
		return vfprintf(stderr, fmt, ap);
	return 0;
}

/* Sum of one per-CPU counter of tsq_fixed_stats. */
static __u64 fixed_calls(int stats_fd, __u32 idx)
{
	int ncpu = libbpf_num_possible_cpus();
	__u64 vals[ncpu], sum = 0;

	if (bpf_map_lookup_elem(stats_fd, &idx, vals))
		return 0;
	for (int i = 0; i < ncpu; i++)
		sum += vals[i];
	return sum;
}

static __u64 misbehave_calls(struct tsq_misbehave *skel)
{
	return __atomic_load_n(&skel->bss->calls, __ATOMIC_RELAXED);
}

static struct bpf_map *misbehave_map(struct tsq_misbehave *skel, const char *name)
{
	return bpf_object__find_map_by_name(skel->obj, name);
}

static int set_fixed_cfg(struct tsq_fixed *skel, __u32 limit, __u32 tso, __u32 budget)
{
	struct tsq_fixed_cfg cfg = { .limit = limit, .tso_bytes = tso, .budget = budget };
	__u32 zero = 0;

	return bpf_map__update_elem(skel->maps.tsq_fixed_cfg, &zero, sizeof(zero),
				    &cfg, sizeof(cfg), BPF_ANY);
}

/* n connections over loopback, each established and closed: the hook's
 * established callback runs for both ends of each.
 */
static int connect_n(int n)
{
	struct sockaddr_in sa = { .sin_family = AF_INET };
	socklen_t len = sizeof(sa);
	int lfd, err = 0;

	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (lfd < 0 || bind(lfd, (struct sockaddr *)&sa, sizeof(sa)) ||
	    listen(lfd, n) || getsockname(lfd, (struct sockaddr *)&sa, &len)) {
		err = -errno;
		goto out;
	}
	for (int i = 0; i < n && !err; i++) {
		int c = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), a = -1;

		if (c < 0 || connect(c, (struct sockaddr *)&sa, sizeof(sa)) ||
		    (a = accept(lfd, NULL, NULL)) < 0)
			err = -errno;
		if (a >= 0)
			close(a);
		if (c >= 0)
			close(c);
	}
out:
	if (lfd >= 0)
		close(lfd);
	return err;
}

/* Run a loaded iterator program to its end. */
static int run_iter(int prog_fd)
{
	int link, iter, n;
	char buf[64];

	link = bpf_link_create(prog_fd, 0, BPF_TRACE_ITER, NULL);
	if (link < 0)
		return -errno;
	iter = bpf_iter_create(link);
	close(link);
	if (iter < 0)
		return -errno;
	while ((n = read(iter, buf, sizeof(buf))) > 0)
		;
	close(iter);
	return n < 0 ? -errno : 0;
}

static int parse_u32(const char *s, __u32 *out)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || end == s || *end || s[0] == '-' || v > 0xffffffffUL)
		return -EINVAL;
	*out = v;
	return 0;
}

/* Parse "limit N tso N budget N" pairs into cfg; 2 on a bad word. */
static int parse_cfg(int argc, char **argv, struct tsq_fixed_cfg *cfg)
{
	for (int i = 0; i + 1 < argc; i += 2) {
		__u32 *dst = !strcmp(argv[i], "limit") ? &cfg->limit :
			     !strcmp(argv[i], "tso") ? &cfg->tso_bytes :
			     !strcmp(argv[i], "budget") ? &cfg->budget : NULL;

		if (!dst || parse_u32(argv[i + 1], dst)) {
			fprintf(stderr, "hook_test: bad argument \"%s %s\"\n",
				argv[i], argv[i + 1]);
			return 2;
		}
	}
	return argc % 2 ? 2 : 0;
}

static int cmd_attach(int argc, char **argv)
{
	const char *name = argv[0], *dir = argv[1];
	struct tsq_misbehave *mis = NULL;
	struct tsq_fixed *fixed = NULL;
	struct bpf_link *link = NULL;
	struct tsq_fixed_cfg cfg = {};
	char path[256];
	int err = -EINVAL;

	if (parse_cfg(argc - 2, argv + 2, &cfg))
		return 2;
	if (mkdir(dir, 0700) && errno != EEXIST) {
		fprintf(stderr, "hook_test: mkdir %s: %s\n", dir, strerror(errno));
		return 1;
	}

	if (!strcmp(name, "tsq_fixed")) {
		fixed = tsq_fixed__open_and_load();
		if (!fixed)
			goto out;
		err = set_fixed_cfg(fixed, cfg.limit, cfg.tso_bytes, cfg.budget);
		if (err)
			goto out;
		link = bpf_map__attach_struct_ops(fixed->maps.tsq_fixed);
		snprintf(path, sizeof(path), "%s/cfg", dir);
		err = err ?: bpf_map__pin(fixed->maps.tsq_fixed_cfg, path);
		snprintf(path, sizeof(path), "%s/stats", dir);
		err = err ?: bpf_map__pin(fixed->maps.tsq_fixed_stats, path);
		snprintf(path, sizeof(path), "%s/sync", dir);
		err = err ?: bpf_program__pin(fixed->progs.fixed_sync, path);
		/* The connections that run already. */
		err = err ?: run_iter(bpf_program__fd(fixed->progs.fixed_sync));
	} else {
		struct bpf_map *map;

		mis = tsq_misbehave__open_and_load();
		if (!mis)
			goto out;
		map = misbehave_map(mis, name);
		if (!map) {
			fprintf(stderr, "hook_test: no struct_ops map %s\n", name);
			goto out;
		}
		link = bpf_map__attach_struct_ops(map);
		snprintf(path, sizeof(path), "%s/bss", dir);
		err = bpf_map__pin(mis->maps.bss, path);
	}
	if (!link) {
		err = -errno;
		goto out;
	}
	snprintf(path, sizeof(path), "%s/link", dir);
	err = err ?: bpf_link__pin(link, path);
out:
	if (err)
		fprintf(stderr, "hook_test: attach %s: %s\n", name, strerror(-err));
	bpf_link__destroy(link);
	tsq_fixed__destroy(fixed);
	tsq_misbehave__destroy(mis);
	return err ? 1 : 0;
}

static int cmd_detach(const char *dir)
{
	const char *files[] = { "link", "sync", "cfg", "stats", "bss" };
	char path[256];
	int fd, err;

	snprintf(path, sizeof(path), "%s/link", dir);
	fd = bpf_obj_get(path);
	if (fd < 0) {
		fprintf(stderr, "hook_test: %s: %s\n", path, strerror(errno));
		return 1;
	}
	err = bpf_link_detach(fd);
	close(fd);
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, files[i]);
		unlink(path);
	}
	rmdir(dir);
	if (err)
		fprintf(stderr, "hook_test: detach: %s\n", strerror(errno));
	return err ? 1 : 0;
}

static int cmd_calls(const char *dir)
{
	char path[256];
	__u64 calls = 0;
	int fd;

	snprintf(path, sizeof(path), "%s/stats", dir);
	fd = bpf_obj_get(path);
	if (fd >= 0) {
		calls = fixed_calls(fd, TSQ_FIXED_SET);
	} else {
		/* tsq_misbehave keeps one counter in .bss */
		__u32 zero = 0;

		snprintf(path, sizeof(path), "%s/bss", dir);
		fd = bpf_obj_get(path);
		if (fd < 0 || bpf_map_lookup_elem(fd, &zero, &calls)) {
			fprintf(stderr, "hook_test: %s: %s\n", path, strerror(errno));
			return 1;
		}
	}
	close(fd);
	printf("%llu\n", (unsigned long long)calls);
	return 0;
}

/* Both skeletons most tests need; false (and a failure) if either fails. */
static bool load_both(struct tsq_fixed **fixed, struct tsq_misbehave **mis)
{
	*fixed = tsq_fixed__open_and_load();
	*mis = tsq_misbehave__open_and_load();
	return ASSERT_OK_PTR(*fixed, "load tsq_fixed") &&
	       ASSERT_OK_PTR(*mis, "load tsq_misbehave");
}

/* A second attach is refused while the first holds the hook. */
static void test_exclusive(void)
{
	struct bpf_link *l1 = NULL, *l2 = NULL;
	struct tsq_misbehave *mis;
	struct tsq_fixed *fixed;

	if (!load_both(&fixed, &mis))
		goto cleanup;

	l1 = bpf_map__attach_struct_ops(fixed->maps.tsq_fixed);
	if (!ASSERT_OK_PTR(l1, "first attach"))
		goto cleanup;
	l2 = bpf_map__attach_struct_ops(mis->maps.passthru);
	ASSERT(!l2 && errno == EBUSY, "second attach: want EBUSY, got %s",
	       l2 ? "success" : strerror(errno));
	bpf_link__destroy(l2);

	/* The same map twice is a second instance too. */
	l2 = bpf_map__attach_struct_ops(fixed->maps.tsq_fixed);
	ASSERT(!l2 && errno == EBUSY, "same map again: want EBUSY, got %s",
	       l2 ? "success" : strerror(errno));
	bpf_link__destroy(l2);

	/* Detach frees the slot at once. */
	ASSERT_OK(bpf_link__detach(l1), "detach");
	l2 = bpf_map__attach_struct_ops(mis->maps.passthru);
	ASSERT_OK_PTR(l2, "attach after detach");
cleanup:
	bpf_link__destroy(l2);
	bpf_link__destroy(l1);
	tsq_misbehave__destroy(mis);
	tsq_fixed__destroy(fixed);
}

/* Link update swaps programs: the new one runs for the connections
 * made after it, the old one no more, and the link never goes away.
 */
static void test_update(void)
{
	struct tsq_misbehave *mis = NULL;
	struct tsq_fixed *fixed = NULL;
	struct bpf_link *link = NULL;
	int stats_fd;
	__u64 a, b, m1, m2;

	if (!load_both(&fixed, &mis))
		goto cleanup;
	stats_fd = bpf_map__fd(fixed->maps.tsq_fixed_stats);

	link = bpf_map__attach_struct_ops(fixed->maps.tsq_fixed);
	if (!ASSERT_OK_PTR(link, "attach"))
		goto cleanup;
	ASSERT_OK(connect_n(10), "connect");
	a = fixed_calls(stats_fd, TSQ_FIXED_SET);
	ASSERT(a >= 20, "tsq_fixed set %llu policies for 10 connections, want 20",
	       (unsigned long long)a);

	if (!ASSERT_OK(bpf_link__update_map(link, mis->maps.passthru), "update"))
		goto cleanup;
	m1 = misbehave_calls(mis);
	ASSERT_OK(connect_n(10), "connect");
	b = fixed_calls(stats_fd, TSQ_FIXED_SET);
	m2 = misbehave_calls(mis);
	ASSERT(b == a, "old program still called after update (%llu -> %llu)",
	       (unsigned long long)a, (unsigned long long)b);
	ASSERT(m2 - m1 == 20, "new program called %llu times for 10 connections, want 20",
	       (unsigned long long)(m2 - m1));
	printf("update: old %llu calls, new +%llu for 10 connections\n",
	       (unsigned long long)b, (unsigned long long)(m2 - m1));
cleanup:
	bpf_link__destroy(link);
	tsq_misbehave__destroy(mis);
	tsq_fixed__destroy(fixed);
}

/* BPF_F_REPLACE with the wrong old map is refused; the old program keeps
 * working and the link still points at it.
 */
static void test_replace(void)
{
	LIBBPF_OPTS(bpf_link_update_opts, opts, .flags = BPF_F_REPLACE);
	struct bpf_link_info info = {};
	__u32 info_len = sizeof(info);
	struct tsq_misbehave *mis = NULL;
	struct tsq_fixed *fixed = NULL;
	struct bpf_link *link = NULL;
	struct bpf_map_info minfo = {};
	__u32 minfo_len = sizeof(minfo);
	int stats_fd, err;
	__u64 a, b;

	if (!load_both(&fixed, &mis))
		goto cleanup;
	stats_fd = bpf_map__fd(fixed->maps.tsq_fixed_stats);
	link = bpf_map__attach_struct_ops(fixed->maps.tsq_fixed);
	if (!ASSERT_OK_PTR(link, "attach"))
		goto cleanup;

	/* A refused attach still sets the maps' programs (state READY),
	 * which link update requires of the new map.
	 */
	ASSERT(!bpf_map__attach_struct_ops(mis->maps.set_min) && errno == EBUSY,
	       "attach of a second map not refused");
	ASSERT(!bpf_map__attach_struct_ops(mis->maps.passthru) && errno == EBUSY,
	       "attach of a third map not refused");

	opts.old_map_fd = bpf_map__fd(mis->maps.set_max);
	err = bpf_link_update(bpf_link__fd(link), bpf_map__fd(mis->maps.set_min), &opts);
	ASSERT(err == -EPERM, "replace with wrong old map: want -EPERM, got %d", err);

	a = fixed_calls(stats_fd, TSQ_FIXED_SET);
	ASSERT_OK(connect_n(5), "connect");
	b = fixed_calls(stats_fd, TSQ_FIXED_SET);
	ASSERT(b > a, "old program stopped after refused replace");

	ASSERT_OK(bpf_link_get_info_by_fd(bpf_link__fd(link), &info, &info_len), "link info");
	ASSERT_OK(bpf_map_get_info_by_fd(bpf_map__fd(fixed->maps.tsq_fixed), &minfo,
					 &minfo_len), "map info");
	ASSERT(info.struct_ops.map_id == minfo.id, "link moved to map %u, want %u",
	       info.struct_ops.map_id, minfo.id);

	/* With the right old map it goes through. */
	opts.old_map_fd = bpf_map__fd(fixed->maps.tsq_fixed);
	err = bpf_link_update(bpf_link__fd(link), bpf_map__fd(mis->maps.passthru), &opts);
	ASSERT_OK(err, "replace with the right old map");
cleanup:
	bpf_link__destroy(link);
	tsq_misbehave__destroy(mis);
	tsq_fixed__destroy(fixed);
}

/* A detach through another fd of the link, as `bpftool link detach` or a
 * reset tool does, reaches the owner as EPOLLHUP, and the hook is idle.
 */
static void test_hup(void)
{
	struct bpf_link_info info = {};
	__u32 info_len = sizeof(info);
	struct tsq_misbehave *mis;
	struct bpf_link *link = NULL;
	struct pollfd pfd;
	int other = -1, n;
	__u64 a, b;

	mis = tsq_misbehave__open_and_load();
	if (!ASSERT_OK_PTR(mis, "load tsq_misbehave"))
		goto cleanup;
	link = bpf_map__attach_struct_ops(mis->maps.passthru);
	if (!ASSERT_OK_PTR(link, "attach"))
		goto cleanup;

	pfd = (struct pollfd){ .fd = bpf_link__fd(link), .events = POLLIN };
	ASSERT(poll(&pfd, 1, 0) == 0, "EPOLLHUP before detach");

	ASSERT_OK(bpf_link_get_info_by_fd(bpf_link__fd(link), &info, &info_len), "info");
	other = bpf_link_get_fd_by_id(info.id);
	if (!ASSERT(other >= 0, "link by id: %s", strerror(errno)))
		goto cleanup;
	ASSERT_OK(bpf_link_detach(other), "detach via second fd");

	n = poll(&pfd, 1, 1000);
	ASSERT(n == 1 && (pfd.revents & POLLHUP), "owner saw no EPOLLHUP (n=%d revents=%#x)",
	       n, pfd.revents);

	a = misbehave_calls(mis);
	ASSERT_OK(connect_n(5), "connect");
	b = misbehave_calls(mis);
	ASSERT(a == b, "program still called after detach");
cleanup:
	if (other >= 0)
		close(other);
	bpf_link__destroy(link);
	tsq_misbehave__destroy(mis);
}

/* Load, then attach: the errno of the step that failed, or 0. */
#define REFUSED(skel_type) ({					\
	struct skel_type *___s = skel_type##__open_and_load();		\
	struct bpf_link *___l = NULL;					\
	int ___err = ___s ? 0 : errno;					\
									\
	if (___s) {							\
		___l = bpf_map__attach_struct_ops(			\
			bpf_object__next_map(___s->obj, NULL));		\
		___err = ___l ? 0 : errno;				\
	}								\
	bpf_link__destroy(___l);					\
	skel_type##__destroy(___s);					\
	___err;								\
})

/* Tables the kernel must refuse: no callback at all, a socket writer, and
 * attach without a link.
 */
static void test_refuse(void)
{
	struct tsq_fixed *fixed;
	struct bpf_link *link;
	int err;

	err = REFUSED(tsq_no_ops);
	ASSERT(err == EINVAL, "ops table with no callback: want EINVAL, got %d", err);
	err = REFUSED(tsq_writer);
	ASSERT(err == EACCES || err == EINVAL, "socket writer: want EACCES, got %d", err);

	/* Register by plain map update, bypassing the link: refused. */
	fixed = tsq_fixed__open();
	if (!ASSERT_OK_PTR(fixed, "open tsq_fixed"))
		return;
	bpf_map__set_map_flags(fixed->maps.tsq_fixed,
			       bpf_map__map_flags(fixed->maps.tsq_fixed) & ~BPF_F_LINK);
	if (ASSERT_OK(tsq_fixed__load(fixed), "load without BPF_F_LINK")) {
		link = bpf_map__attach_struct_ops(fixed->maps.tsq_fixed);
		ASSERT(!link && errno == EOPNOTSUPP,
		       "attach without link: want EOPNOTSUPP, got %s",
		       link ? "success" : strerror(errno));
		bpf_link__destroy(link);
	}
	tsq_fixed__destroy(fixed);
}

/* Without CAP_BPF and CAP_PERFMON loading fails cleanly. */
static void test_unpriv(void)
{
	pid_t pid = fork();
	int status;

	if (pid == 0) {
		struct __user_cap_header_struct hdr = {
			.version = _LINUX_CAPABILITY_VERSION_3,
		};
		struct __user_cap_data_struct data[2] = {};
		struct tsq_fixed *fixed;

		if (syscall(SYS_capset, &hdr, data))
			_exit(3);
		fixed = tsq_fixed__open_and_load();
		if (fixed)
			_exit(1);
		_exit(errno == EPERM ? 0 : 2);
	}
	waitpid(pid, &status, 0);
	ASSERT(WIFEXITED(status) && WEXITSTATUS(status) == 0,
	       "unprivileged load: status %#x (1: loaded, 2: not EPERM)", status);
}

#define RACE_LOOPS 1000

struct race_arg {
	struct bpf_map *map, *swap;
	struct tsq_fixed *fixed;	/* its policy to the flows, varied */
	int attached, busy, other;
};

static void *race_thread(void *p)
{
	struct race_arg *arg = p;

	for (int i = 0; i < RACE_LOOPS; i++) {
		struct bpf_link *link = bpf_map__attach_struct_ops(arg->map);

		if (!link) {
			if (errno == EBUSY)
				arg->busy++;
			else
				arg->other++;
			continue;
		}
		arg->attached++;
		/* The running flows in and out of a group, and from one
		 * limit to another, while the other thread attaches.
		 */
		if (arg->fixed &&
		    (set_fixed_cfg(arg->fixed, i & 2 ? 8192 : 0, 8192, i & 4 ? 32768 : 0) ||
		     run_iter(bpf_program__fd(arg->fixed->progs.fixed_sync))))
			arg->other++;
		if (arg->swap && bpf_link__update_map(link, arg->swap))
			arg->other++;
		/* Half of the time an explicit detach, else close only. */
		if (i & 1)
			bpf_link__detach(link);
		bpf_link__destroy(link);
		/* Let the other thread find the slot free now and then:
		 * without it one thread could win every round (1 of 1000
		 * seen).
		 */
		usleep(100);
	}
	return NULL;
}

/* Attach, update and detach from two threads while flows run. The shell
 * around it checks the flows and dmesg.
 */
static void test_race(void)
{
	struct tsq_misbehave *mis = NULL;
	struct tsq_fixed *fixed = NULL;
	struct race_arg args[2] = {};
	pthread_t th[2];

	if (!load_both(&fixed, &mis))
		goto cleanup;
	set_fixed_cfg(fixed, 8192, 8192, 32768);

	args[0] = (struct race_arg){ .map = fixed->maps.tsq_fixed,
				     .swap = mis->maps.set_alt, .fixed = fixed };
	args[1] = (struct race_arg){ .map = mis->maps.passthru,
				     .swap = mis->maps.set_min };
	for (int i = 0; i < 2; i++)
		pthread_create(&th[i], NULL, race_thread, &args[i]);
	for (int i = 0; i < 2; i++)
		pthread_join(th[i], NULL);

	for (int i = 0; i < 2; i++) {
		printf("race: thread %d attached %d, EBUSY %d, other errors %d\n",
		       i, args[i].attached, args[i].busy, args[i].other);
		ASSERT(args[i].attached > 0, "thread %d never attached", i);
		ASSERT(args[i].other == 0, "thread %d: %d unexpected errors", i,
		       args[i].other);
		ASSERT(args[i].attached + args[i].busy == RACE_LOOPS, "lost iterations");
	}
cleanup:
	tsq_misbehave__destroy(mis);
	tsq_fixed__destroy(fixed);
}

static const struct {
	const char *name;
	void (*fn)(void);
} tests[] = {
	{ "exclusive", test_exclusive },
	{ "update", test_update },
	{ "replace", test_replace },
	{ "hup", test_hup },
	{ "refuse", test_refuse },
	{ "unpriv", test_unpriv },
	{ "race", test_race },
};

static int usage(void)
{
	fprintf(stderr,
		"usage: hook_test attach MAP DIR [limit BYTES] [tso BYTES] [budget BYTES]\n"
		"       hook_test cfg DIR [limit BYTES] [tso BYTES] [budget BYTES]\n"
		"       hook_test sync DIR | detach DIR | calls DIR | refused DIR\n"
		"       hook_test exclusive|update|replace|hup|refuse|unpriv|race\n");
	return 2;
}

/* cfg DIR [limit N] [tso N] [budget N]: tsq_fixed's policy, from now on. */
static int cmd_cfg(int argc, char **argv)
{
	struct tsq_fixed_cfg cfg = {};
	char path[256];
	__u32 zero = 0;
	int fd, err;

	if (parse_cfg(argc - 1, argv + 1, &cfg))
		return 2;
	snprintf(path, sizeof(path), "%s/cfg", argv[0]);
	fd = bpf_obj_get(path);
	err = fd < 0 || bpf_map_update_elem(fd, &zero, &cfg, BPF_ANY) ? -errno : 0;
	if (fd >= 0)
		close(fd);
	if (err)
		fprintf(stderr, "hook_test: cfg %s: %s\n", path, strerror(-err));
	return err ? 1 : 0;
}

/* refused DIR: how many calls tsq_misbehave's kfunc refused. */
static int cmd_refused(const char *dir)
{
	struct tsq_misbehave__bss bss;
	char path[256];
	__u32 zero = 0;
	int fd;

	snprintf(path, sizeof(path), "%s/bss", dir);
	fd = bpf_obj_get(path);
	if (fd < 0 || bpf_map_lookup_elem(fd, &zero, &bss)) {
		fprintf(stderr, "hook_test: %s: %s\n", path, strerror(errno));
		return 1;
	}
	close(fd);
	printf("%llu\n", (unsigned long long)bss.refused);
	return 0;
}

static int cmd_sync(const char *dir)
{
	char path[256];
	int fd, err;

	snprintf(path, sizeof(path), "%s/sync", dir);
	fd = bpf_obj_get(path);
	err = fd < 0 ? -errno : run_iter(fd);
	if (fd >= 0)
		close(fd);
	if (err)
		fprintf(stderr, "hook_test: sync %s: %s\n", path, strerror(-err));
	return err ? 1 : 0;
}

int main(int argc, char **argv)
{
	libbpf_set_print(libbpf_quiet);
	setvbuf(stdout, NULL, _IOLBF, 0);

	if (argc >= 4 && !strcmp(argv[1], "attach") && argc % 2 == 0)
		return cmd_attach(argc - 2, argv + 2);
	if (argc == 3 && !strcmp(argv[1], "sync"))
		return cmd_sync(argv[2]);
	if (argc >= 3 && !strcmp(argv[1], "cfg"))
		return cmd_cfg(argc - 2, argv + 2);
	if (argc == 3 && !strcmp(argv[1], "refused"))
		return cmd_refused(argv[2]);
	if (argc == 3 && !strcmp(argv[1], "detach"))
		return cmd_detach(argv[2]);
	if (argc == 3 && !strcmp(argv[1], "calls"))
		return cmd_calls(argv[2]);
	if (argc != 2)
		return usage();

	for (size_t i = 0; i < sizeof(tests) / sizeof(tests[0]); i++) {
		if (strcmp(argv[1], tests[i].name))
			continue;
		tests[i].fn();
		printf("%s: %s\n", tests[i].name, failures ? "FAIL" : "ok");
		return failures ? 1 : 0;
	}
	return usage();
}

// SPDX-License-Identifier: GPL-2.0
/* Load, attach and pin tsq_cgroup; open what is pinned.
 *
 * Everything lives under /sys/fs/bpf/tsq (mode 0700, objects 0600), so the
 * policy keeps working when tsqd is restarted or not running at all, and
 * tsqctl can work on the maps directly. Reset is an explicit act, not a
 * side effect of a daemon dying: the kernel falls back to stock TSQ only
 * when the link is detached or unpinned.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "cgroup.h"
#include "pidfile.h"
#include "tsq.h"
#include "tsq_bpf.h"
#include "tsq_cgroup.skel.h"

/* How an object of the skeleton is pinned. */
enum pin_kind {
	PIN_MAP,		/* the map */
	PIN_TRACING,		/* the program attached where its SEC() says; the link */
	PIN_PROG,		/* the program, unattached: an iterator others run */
	PIN_STRUCT_OPS,		/* the struct_ops map's link: what marks tsq attached */
};

/*
 * Everything tsq pins, in the order tsq_attach() pins it: the policy's
 * link last, so that a pinned link means the rest is there. Attach,
 * unpin and the rollback of a failed attach all walk this table.
 */
static const struct pin {
	const char *name;
	enum pin_kind kind;
	size_t off;		/* of the map or program pointer in the skeleton */
} pins[] = {
#define MAP(n, m)	{ n, PIN_MAP, offsetof(struct tsq_cgroup, maps.m) }
#define PROG(n, k, p)	{ n, k, offsetof(struct tsq_cgroup, progs.p) }
	MAP(TSQ_PIN_POLICY, tsq_cgrp_policy),	/* cgroup storage: struct tsq_policy */
	MAP(TSQ_PIN_STATS, tsq_stats),		/* per-CPU struct tsq_stats by cgroup id */
	MAP(TSQ_PIN_SOCKS, tsq_cgrp_socks),	/* struct tsq_cgrp_socks by cgroup id */
	MAP(TSQ_PIN_FULL, tsq_map_full),	/* per-CPU struct tsq_map_full */
	MAP(TSQ_PIN_SCOPE, tsq_sync_scope),	/* struct tsq_sync_scope by pid */
	MAP(TSQ_PIN_SYNC_COUNT, tsq_sync_count),	/* per-CPU struct tsq_sync_count */
	MAP(TSQ_PIN_EFF, tsq_eff),		/* LRU of struct tsq_eff by cgroup id */
	MAP(TSQ_PIN_GEN, tsq_gen),		/* the generation tsq_eff's entries need */
	PROG("throttle", PIN_TRACING, policy_throttle),	/* throttle counter */
	PROG("sk_state", PIN_TRACING, policy_sk_state),	/* socket counter */
	PROG("sk_destroy", PIN_TRACING, policy_sk_destroy),	/* its backstop */
	PROG("rmdir", PIN_TRACING, policy_rmdir),	/* removed cgroups */
	PROG(TSQ_PIN_SYNC, PIN_PROG, policy_sync),	/* iter/tcp: policy to sockets */
	PROG(TSQ_PIN_QUEUED, PIN_PROG, policy_queued),	/* iter/tcp: bytes in queues */
	{ TSQ_PIN_LINK, PIN_STRUCT_OPS, offsetof(struct tsq_cgroup, maps.tsq_policy) },
#undef MAP
#undef PROG
};

#define NR_PINS		(sizeof(pins) / sizeof(pins[0]))
_Static_assert(NR_PINS <= 32, "pins_present() keeps a bit a pin");

static void *skel_ptr(struct tsq_cgroup *skel, const struct pin *p)
{
	return *(void **)((char *)skel + p->off);
}

static void pin_path(char *buf, size_t len, const char *name)
{
	snprintf(buf, len, "%s/%s", TSQ_PIN_DIR, name);
}

enum tsq_hook tsq_hook_probe(void)
{
	enum tsq_hook hook = TSQ_HOOK_NONE;
	struct btf *btf = btf__load_vmlinux_btf();

	if (!btf)
		return TSQ_HOOK_NONE;
	if (btf__find_by_name_kind(btf, "tcp_tsq_ops", BTF_KIND_STRUCT) > 0)
		hook = TSQ_HOOK_TSQ_OPS;
	else if (btf__find_by_name_kind(btf, "bpf_tcp_ops", BTF_KIND_STRUCT) > 0 &&
		 btf__find_by_name_kind(btf, "bpf_tcp_tsq_set", BTF_KIND_FUNC) > 0)
		hook = TSQ_HOOK_BPF_TCP_OPS;
	btf__free(btf);
	return hook;
}

/* Each hook's name for JSON, and one line on it for people. */
static const struct {
	const char *name, *str;
} hooks[] = {
	[TSQ_HOOK_NONE] = { "none",
		"no tcp_tsq_ops or bpf_tcp_tsq_set() in this kernel's BTF (kernel without the tsq series): observation only" },
	[TSQ_HOOK_TSQ_OPS] = { "tcp_tsq_ops", "tcp_tsq_ops present" },
	[TSQ_HOOK_BPF_TCP_OPS] = { "bpf_tcp_ops",
		"bpf_tcp_ops with bpf_tcp_tsq_set(): tsq does not attach through it yet (kernel/README.md), observation only" },
};

const char *tsq_hook_name(enum tsq_hook hook)
{
	return hooks[hook].name;
}

const char *tsq_hook_str(enum tsq_hook hook)
{
	return hooks[hook].str;
}

bool tsq_hook_present(void)
{
	return tsq_hook_probe() == TSQ_HOOK_TSQ_OPS;
}

int tsq_pin_dir_check(char *err, size_t errlen)
{
	struct stat st;

	if (lstat(TSQ_PIN_DIR, &st))
		return -errno;
	if (!S_ISDIR(st.st_mode)) {
		snprintf(err, errlen, "%s is not a directory: refusing it", TSQ_PIN_DIR);
		return -ENOTDIR;
	}
	if (st.st_uid || (st.st_mode & (S_IWGRP | S_IWOTH))) {
		snprintf(err, errlen,
			 "%s is owned by uid %u with mode %04o: whoever owns it can rename or remove the pins; refusing it (remove it, and mount bpffs with mode=0700)",
			 TSQ_PIN_DIR, (unsigned int)st.st_uid,
			 (unsigned int)(st.st_mode & 07777));
		return -EPERM;
	}
	return 0;
}

int tsq_pinned(const char *name)
{
	char path[256], why[256];
	int fd;

	fd = tsq_pin_dir_check(why, sizeof(why));
	if (fd && fd != -ENOENT)
		return fd;
	pin_path(path, sizeof(path), name);
	fd = bpf_obj_get(path);
	return fd < 0 ? -errno : fd;
}

/* A map's, program's or link's fd pinned as name, root's alone. */
static int pin_fd(int fd, const char *name)
{
	char path[256];

	pin_path(path, sizeof(path), name);
	return bpf_obj_pin(fd, path) || chmod(path, 0600) ? -errno : 0;
}

static int pin_map(struct bpf_map *map, const char *name)
{
	return pin_fd(bpf_map__fd(map), name);
}

static int pin_link(struct bpf_link *link, const char *name)
{
	return pin_fd(bpf_link__fd(link), name);
}


int tsq_pin_maps(struct tsq_cgroup *skel)
{
	int err = 0;

	for (size_t i = 0; i < NR_PINS && !err; i++)
		if (pins[i].kind == PIN_MAP)
			err = pin_map(skel_ptr(skel, &pins[i]), pins[i].name);
	return err;
}

/* Attach and reset, by tsqd and tsqctl alike, one at a time: the lock
 * file's flock is released when its holder exits, however it exits.
 * The lock and its directory are checked as the pid file is (pidfile.h):
 * whoever owns them could let two attaches run at once.
 * Returns the fd that holds the lock, or -errno.
 */
static int lock_pins(void)
{
	char why[512];
	int fd;

	fd = tsq_run_file_open(TSQ_LOCK_FILE, O_RDWR | O_CREAT, why, sizeof(why));
	if (fd < 0)
		return fd;
	/* O_NONBLOCK was for the open: this flock waits for the holder. */
	if (flock(fd, LOCK_EX)) {
		int err = -errno;

		close(fd);
		return err;
	}
	return fd;
}

/* Bit i: pins[i] exists. */
static unsigned int pins_present(void)
{
	unsigned int mask = 0;
	char path[256];

	for (size_t i = 0; i < NR_PINS; i++) {
		pin_path(path, sizeof(path), pins[i].name);
		if (!access(path, F_OK))
			mask |= 1U << i;
	}
	return mask;
}

/* Remove the pins whose bit is clear in before, and the directory if it
 * is empty then: after a failed attach, only that call's pins.
 */
static void unpin_new(unsigned int before)
{
	char path[256];

	for (size_t i = 0; i < NR_PINS; i++) {
		pin_path(path, sizeof(path), pins[i].name);
		if (!(before & (1U << i)))
			unlink(path);
	}
	rmdir(TSQ_PIN_DIR);	/* only if empty */
}

void tsq_unpin_all(void)
{
	unpin_new(0);
}

/* Pin a link just made and drop the handle: the pin keeps it attached.
 * A NULL link (a failed attach) returns the attach's -errno.
 */
static int pin_attached(struct bpf_link *link, const char *name)
{
	int err;

	if (!link)
		return -errno;
	err = pin_link(link, name);
	bpf_link__destroy(link);
	return err;
}

/* Attach a tracing program and pin its link. */
static int attach_pinned(struct bpf_program *prog, const char *name)
{
	return pin_attached(bpf_program__attach(prog), name);
}

static int pin_prog(struct bpf_program *prog, const char *name)
{
	return pin_fd(bpf_program__fd(prog), name);
}

/* Pin one entry of pins[]; link is the struct_ops link already made. */
static int pin_one(struct tsq_cgroup *skel, const struct pin *p, struct bpf_link *link)
{
	switch (p->kind) {
	case PIN_MAP:
		return pin_map(skel_ptr(skel, p), p->name);
	case PIN_TRACING:
		return attach_pinned(skel_ptr(skel, p), p->name);
	case PIN_PROG:
		return pin_prog(skel_ptr(skel, p), p->name);
	case PIN_STRUCT_OPS:
		return pin_link(link, p->name);
	}
	return -EINVAL;
}

int tsq_attach(void)
{
	struct bpf_link *link = NULL;
	struct tsq_cgroup *skel = NULL;
	unsigned int before = ~0U;
	int err, fd, lock;
	char why[256];

	lock = lock_pins();
	if (lock < 0)
		return lock;
	/* Under the lock: whoever attached first wins, the others see it. */
	fd = tsq_pinned(TSQ_PIN_LINK);
	if (fd >= 0) {
		close(fd);
		err = -EEXIST;
		goto unlock;
	}
	if (mkdir(TSQ_PIN_DIR, 0700) && errno != EEXIST) {
		err = -errno;
		goto unlock;
	}
	err = tsq_pin_dir_check(why, sizeof(why));
	if (err)
		goto unlock;
	before = pins_present();

	skel = tsq_cgroup__open_and_load();
	if (!skel) {
		err = -errno;
		unpin_new(before);
		goto unlock;
	}
	link = bpf_map__attach_struct_ops(skel->maps.tsq_policy);
	if (!link) {
		err = -errno;
		goto out;
	}
	for (size_t i = 0; i < NR_PINS && !err; i++)
		err = pin_one(skel, &pins[i], link);
out:
	if (err) {
		if (link)
			bpf_link__detach(link);
		unpin_new(before);
	}
	bpf_link__destroy(link);
	tsq_cgroup__destroy(skel);
unlock:
	close(lock);
	return err;
}

static void clear_policy(int fd, const char *path, int depth, void *arg)
{
	bpf_map_delete_elem(*(int *)arg, &fd);
}

/* Stock TSQ for the sockets of the caller's netns: no policy left for
 * policy_sync to give them. A socket keeps what was set until then, as
 * it keeps what a bpf_setsockopt() set after its program is gone.
 */
static int clear_policies(void)
{
	char mount[4096];
	int fd = tsq_pinned(TSQ_PIN_POLICY), err;

	if (fd < 0)
		return fd;
	err = tsq_cgroup_mount(mount, sizeof(mount)) ?:
	      tsq_cgroup_walk(mount, "", clear_policy, &fd);
	close(fd);
	return err ?: tsq_bump_gen();
}

int tsq_reset(void)
{
	int lock = lock_pins(), fd, err = 0;

	if (lock < 0)
		return lock;
	fd = tsq_pinned(TSQ_PIN_LINK);
	if (fd >= 0) {
		err = clear_policies();
		if (bpf_link_detach(fd) && !err)
			err = -errno;
		close(fd);
	}
	if (fd >= 0 || fd == -ENOENT)
		tsq_unpin_all();
	close(lock);
	return fd < 0 ? fd : err;
}

__u32 tsq_link_id(int fd)
{
	struct bpf_link_info info = {};
	__u32 len = sizeof(info);

	return bpf_link_get_info_by_fd(fd, &info, &len) ? 0 : info.id;
}

/* A link of the pinned iterator name: each bpf_iter_create() on it walks
 * the TCP sockets of the netns the calling thread is in then.
 */
static int iter_link(const char *name)
{
	int prog = tsq_pinned(name), link;

	if (prog < 0)
		return prog;
	link = bpf_link_create(prog, 0, BPF_TRACE_ITER, NULL);
	close(prog);
	return link < 0 ? -errno : link;
}

static int iter_run(int link, int (*fn)(const void *buf, size_t len, void *arg),
		    void *arg)
{
	int iter = bpf_iter_create(link), err = 0;
	char buf[4096];
	ssize_t n;

	if (iter < 0)
		return -errno;
	while ((n = read(iter, buf, sizeof(buf))) > 0)
		if (fn && (err = fn(buf, n, arg)))
			break;
	if (n < 0)
		err = -errno;
	close(iter);
	return err;
}

int tsq_run_iter(const char *name, int (*fn)(const void *buf, size_t len, void *arg),
		 void *arg)
{
	int link = iter_link(name), err;

	if (link < 0)
		return link;
	err = iter_run(link, fn, arg);
	close(link);
	return err;
}

int tsq_sync_link(void)
{
	return iter_link(TSQ_PIN_SYNC);
}

/* policy_sync does its work as it visits each socket and prints nothing. */
int tsq_sync_run(int link)
{
	return iter_run(link, NULL, NULL);
}

/* Any value other than the one a resolve read before the policy map's
 * change would do; this one is read after it. Pins an older tsq made
 * have no generation, nor a policy cache to make stale.
 */
static int bump_gen(void)
{
	int fd = tsq_pinned(TSQ_PIN_GEN), err;
	__u32 zero = 0;
	__u64 gen;

	if (fd == -ENOENT)
		return 0;
	if (fd < 0)
		return fd;
	err = bpf_map_lookup_elem(fd, &zero, &gen) ? -errno : 0;
	gen++;
	if (!err && bpf_map_update_elem(fd, &zero, &gen, BPF_ANY))
		err = -errno;
	close(fd);
	return err;
}

int tsq_bump_gen(void)
{
	return bump_gen() ?: tsq_run_iter(TSQ_PIN_SYNC, NULL, NULL);
}

struct room_ctx {
	int map;
	unsigned int n;
};

static void count_policy(int fd, const char *path, int depth, void *arg)
{
	struct room_ctx *c = arg;
	struct tsq_policy p;

	if (!bpf_map_lookup_elem(c->map, &fd, &p) && (p.flags & TSQ_POLICY_ALL))
		c->n++;
}

int tsq_policy_room(const char *mount, int policy_map, unsigned int *used,
		    unsigned int *room)
{
	static const char *const per_cgroup[] = { TSQ_PIN_STATS, TSQ_PIN_SOCKS };
	struct room_ctx c = { .map = policy_map };
	int err;

	*room = 0;
	for (size_t i = 0; i < sizeof(per_cgroup) / sizeof(per_cgroup[0]); i++) {
		struct bpf_map_info info = {};
		__u32 len = sizeof(info);
		int fd = tsq_pinned(per_cgroup[i]);

		if (fd < 0)
			continue;	/* not in this version of the pins */
		if (!bpf_map_get_info_by_fd(fd, &info, &len) &&
		    (!*room || info.max_entries < *room))
			*room = info.max_entries;
		close(fd);
	}
	if (!*room)
		*room = TSQ_MAX_CGROUPS;
	err = tsq_cgroup_walk(mount, "", count_policy, &c);
	*used = c.n;
	return err;
}

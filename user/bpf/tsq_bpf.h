/* SPDX-License-Identifier: GPL-2.0 */
/* The pinned state of tsq under /sys/fs/bpf/tsq, shared by tsqd and tsqctl. */
#ifndef __TSQ_BPF_H
#define __TSQ_BPF_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

#define TSQ_PIN_DIR	"/sys/fs/bpf/tsq"
#define TSQ_LOCK_FILE	"/run/tsq/lock"	/* flock: one attach or reset at a time */

/* The pinned objects that tsqctl and tsqd open, below TSQ_PIN_DIR; the
 * whole set, and what each one is, is the pins[] table in tsq_bpf.c.
 */
#define TSQ_PIN_LINK		"link"
#define TSQ_PIN_POLICY		"policy"
#define TSQ_PIN_STATS		"stats"
#define TSQ_PIN_SOCKS		"socks"
#define TSQ_PIN_FULL		"full"
#define TSQ_PIN_SYNC		"sync"
#define TSQ_PIN_QUEUED		"queued"
#define TSQ_PIN_SCOPE		"scope"
#define TSQ_PIN_SYNC_COUNT	"sync_count"
#define TSQ_PIN_EFF		"eff"
#define TSQ_PIN_GEN		"gen"

/* The hook through which the running kernel lets a program give a new
 * connection its policy, from its BTF: the series' bridge tcp_tsq_ops,
 * which tsq attaches to; bpf-next's bpf_tcp_ops with bpf_tcp_tsq_set(),
 * which tsq cannot attach through yet; or none.
 */
enum tsq_hook {
	TSQ_HOOK_NONE,
	TSQ_HOOK_TSQ_OPS,
	TSQ_HOOK_BPF_TCP_OPS,
};

enum tsq_hook tsq_hook_probe(void);
/* The hook's name for JSON, and one line on it for people. */
const char *tsq_hook_name(enum tsq_hook hook);
const char *tsq_hook_str(enum tsq_hook hook);
/* tsq can attach: the kernel has tcp_tsq_ops. */
bool tsq_hook_present(void);

/* Load tsq_cgroup, attach it and pin everything, holding TSQ_LOCK_FILE.
 * -EEXIST if pinned (by another process, perhaps a moment ago). On an
 * error, only the pins this call made are removed.
 */
int tsq_attach(void);

/* Detach and unpin, after the established sockets of the caller's netns
 * went back to stock TSQ; sockets elsewhere keep their policy until they
 * close.
 */
int tsq_reset(void);

struct tsq_cgroup;

/* Pin a loaded tsq_cgroup's maps under TSQ_PIN_DIR, mode 0600. */
int tsq_pin_maps(struct tsq_cgroup *skel);

/* Remove whatever of TSQ_PIN_DIR's objects, and the directory, exist. */
void tsq_unpin_all(void);

/*
 * TSQ_PIN_DIR is root's alone: a directory, owned by root, not writable
 * by group or others (on a bpffs mounted with its default mode 1777,
 * anyone may make it first). 0; -ENOENT if missing; -EPERM or -ENOTDIR
 * with err saying why.
 */
int tsq_pin_dir_check(char *err, size_t errlen);

/* fd of a pinned object, or -errno; -ENOENT means not attached, -EPERM
 * or -ENOTDIR that TSQ_PIN_DIR failed tsq_pin_dir_check().
 */
int tsq_pinned(const char *name);

/* The id of a BPF link, for messages; 0 if the kernel would not say. */
__u32 tsq_link_id(int fd);

/* After a policy change: make the connection hook's resolved policies
 * stale (bump tsq_gen: include/tsq.h), then give the established sockets
 * of the caller's netns the policy their cgroup has now (policy_sync);
 * new connections get it when they are established. Call it after the
 * policy map's change, never before.
 */
int tsq_bump_gen(void);

/* Run the pinned iterator name to its end: its output goes to fn, in
 * pieces of any size, if fn is not NULL. 0 or -errno.
 */
int tsq_run_iter(const char *name, int (*fn)(const void *buf, size_t len, void *arg),
		 void *arg);
/* The policy_sync iterator as a link (-errno), and one run of it over the
 * established sockets of the calling thread's netns (0 or -errno).
 */
int tsq_sync_link(void);
int tsq_sync_run(int link);
/*
 * Cgroups below mount whose entry in policy_map (the pinned policy map)
 * is a policy, at any depth, whoever set it; and how many the per-cgroup
 * maps hold (the smallest max_entries of those pinned, TSQ_MAX_CGROUPS
 * if none is). A new policy past that many would find no room for its
 * statistics and budget: tsqctl set and tsqd refuse it. 0 or -errno.
 */
int tsq_policy_room(const char *mount, int policy_map, unsigned int *used,
		    unsigned int *room);

#endif /* __TSQ_BPF_H */

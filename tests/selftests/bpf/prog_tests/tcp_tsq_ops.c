// SPDX-License-Identifier: GPL-2.0
/* tcp_tsq_ops: link semantics, the kfunc filter, identity equals stock,
 * per-socket opt-in and the attach privilege (also from a user namespace
 * with a BPF token), with real TCP sockets over
 * a veth pair whose sender side has a 100 Mbit/s TBF.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <unistd.h>
#include <fcntl.h>
#include <mntent.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <linux/capability.h>
#include <linux/mount.h>

#include "test_progs.h"
#include "tcp_tsq_identity.skel.h"
#include "tcp_tsq_ops_kfunc.skel.h"
#include "tcp_ca_kfunc_ok.skel.h"

#define NS_SND		"tsqt_snd"
#define NS_RCV		"tsqt_rcv"
#define ADDR_SND	"198.19.0.1"
#define ADDR_RCV	"198.19.0.2"
#define PORT_IN		5301	/* opted in */
#define PORT_OUT	5302	/* not opted in */
#define FLOW_BYTES	(8 << 20)	/* 0.7 s at 100 Mbit/s */

static int cgroup_root_fd(void)
{
	struct mntent *m;
	FILE *f = setmntent("/proc/self/mounts", "r");
	int fd = -1;

	while (f && (m = getmntent(f))) {
		if (!strcmp(m->mnt_type, "cgroup2")) {
			fd = open(m->mnt_dir, O_RDONLY | O_DIRECTORY);
			break;
		}
	}
	if (f)
		endmntent(f);
	return fd;
}

static void netns_down(void)
{
	SYS_NOFAIL("ip netns del " NS_SND " 2>/dev/null");
	SYS_NOFAIL("ip netns del " NS_RCV " 2>/dev/null");
}

static bool netns_up(void)
{
	netns_down();
	SYS(fail, "ip netns add " NS_SND " && ip netns add " NS_RCV);
	SYS(fail, "ip link add tsqt0 netns " NS_SND " type veth peer name tsqt1 netns " NS_RCV);
	SYS(fail, "ip -n " NS_SND " addr add " ADDR_SND "/30 dev tsqt0");
	SYS(fail, "ip -n " NS_RCV " addr add " ADDR_RCV "/30 dev tsqt1");
	SYS(fail, "ip -n " NS_SND " link set tsqt0 up && ip -n " NS_RCV " link set tsqt1 up");
	SYS(fail, "tc -n " NS_SND " qdisc add dev tsqt0 root tbf rate 100mbit burst 16k latency 100ms");
	return true;
fail:
	return false;
}

static void *drain(void *arg)
{
	int fd = (long)arg;
	char buf[65536];

	while (recv(fd, buf, sizeof(buf), 0) > 0)
		;
	close(fd);
	return NULL;
}

/* Send FLOW_BYTES from NS_SND to port of the server socket srv. */
static int flow(int srv, unsigned short port)
{
	static char buf[65536];
	struct nstoken *ns;
	pthread_t rx;
	long left = FLOW_BYTES;
	int fd, peer;

	ns = open_netns(NS_SND);
	if (!ASSERT_OK_PTR(ns, "open_netns"))
		return -1;
	fd = connect_to_addr4(ADDR_RCV, port);
	close_netns(ns);
	if (!ASSERT_GT(fd, -1, "connect"))
		return -1;
	peer = accept(srv, NULL, NULL);
	if (!ASSERT_GT(peer, -1, "accept")) {
		close(fd);
		return -1;
	}
	pthread_create(&rx, NULL, drain, (void *)(long)peer);
	while (left > 0) {
		size_t len = left < (long)sizeof(buf) ? (size_t)left : sizeof(buf);
		ssize_t n = send(fd, buf, len, 0);

		if (n <= 0)
			break;
		left -= n;
	}
	shutdown(fd, SHUT_WR);
	pthread_join(rx, NULL);
	close(fd);
	return ASSERT_EQ(left, 0, "bytes sent") ? 0 : -1;
}

static int server(unsigned short port)
{
	struct nstoken *ns = open_netns(NS_RCV);
	int fd;

	if (!ASSERT_OK_PTR(ns, "open_netns"))
		return -1;
	fd = start_server_addr4(ADDR_RCV, port);
	close_netns(ns);
	ASSERT_GT(fd, -1, "start_server");
	return fd;
}

static __u64 run_cnt(struct bpf_program *prog)
{
	struct bpf_prog_info info = {};
	__u32 len = sizeof(info);

	if (bpf_prog_get_info_by_fd(bpf_program__fd(prog), &info, &len))
		return ~0ULL;
	return info.run_cnt;
}

/* One instance at a time, atomic update, re-attach after detach. */
static void test_link(void)
{
	struct tcp_tsq_identity *skel = tcp_tsq_identity__open_and_load();
	struct bpf_link *link, *second;

	if (!ASSERT_OK_PTR(skel, "open_and_load"))
		return;
	link = bpf_map__attach_struct_ops(skel->maps.identity);
	if (!ASSERT_OK_PTR(link, "attach"))
		goto out;
	second = bpf_map__attach_struct_ops(skel->maps.other);
	ASSERT_ERR_PTR(second, "second attach");
	ASSERT_EQ(errno, EBUSY, "second attach errno");
	bpf_link__destroy(second);
	ASSERT_OK(bpf_link__update_map(link, skel->maps.other), "update");
	ASSERT_OK(bpf_link__detach(link), "detach");
	bpf_link__destroy(link);
	link = bpf_map__attach_struct_ops(skel->maps.identity);
	ASSERT_OK_PTR(link, "attach after detach");
	bpf_link__destroy(link);
out:
	tcp_tsq_identity__destroy(skel);
}

/* Every kfunc of bpf_tcp_ca and the built-in congestion controls is
 * refused to tcp_tsq_ops programs, and loads in a tcp_congestion_ops.
 */
static void test_kfuncs(void)
{
	struct tcp_ca_kfunc_ok *ca;
	struct bpf_map *map, *m;
	static char log[65536];
	int refused = 0, total = 0;

	ca = tcp_ca_kfunc_ok__open_and_load();
	ASSERT_OK_PTR(ca, "the same kfuncs from tcp_congestion_ops");
	tcp_ca_kfunc_ok__destroy(ca);

	for (int i = 0;; i++) {
		struct tcp_tsq_ops_kfunc *skel = tcp_tsq_ops_kfunc__open();
		struct bpf_program *prog;
		int n = 0, err;
		char *msg;

		if (!ASSERT_OK_PTR(skel, "open"))
			return;
		map = NULL;
		bpf_object__for_each_map(m, skel->obj) {
			if (bpf_map__type(m) != BPF_MAP_TYPE_STRUCT_OPS)
				continue;
			if (n++ == i)
				map = m;
			else
				bpf_map__set_autocreate(m, false);
		}
		if (!map) {
			tcp_tsq_ops_kfunc__destroy(skel);
			break;
		}
		total++;
		bpf_object__for_each_program(prog, skel->obj)
			bpf_program__set_log_buf(prog, log, sizeof(log));
		log[0] = 0;
		err = tcp_tsq_ops_kfunc__load(skel);
		msg = strstr(log, "calling kernel function ");
		if (ASSERT_COND(err && msg && strstr(msg, " is not allowed"),
				bpf_map__name(map), "loaded (err %d) or no refusal in the log", err)) {
			*strchrnul(msg, '\n') = 0;
			printf("# %s: %s\n", bpf_map__name(map), msg);
			refused++;
		}
		tcp_tsq_ops_kfunc__destroy(skel);
	}
	printf("# %d of %d kfunc callers refused\n", refused, total);
	ASSERT_GT(total, 20, "kfunc callers tried");
}

/* The identity program, the opt-in for PORT_IN at the cgroup2 root and,
 * if asked, the throttle check, attached; hook_down() undoes any part.
 */
struct hook {
	struct tcp_tsq_identity *skel;
	struct bpf_link *link, *optin, *tp;
};

static bool hook_up(struct hook *h, bool check_throttles)
{
	int cg;

	h->skel = tcp_tsq_identity__open();
	if (!ASSERT_OK_PTR(h->skel, "open"))
		return false;
	h->skel->bss->optin_port = PORT_IN;
	if (!ASSERT_OK(tcp_tsq_identity__load(h->skel), "load"))
		return false;
	cg = cgroup_root_fd();
	h->optin = bpf_program__attach_cgroup(h->skel->progs.optin, cg);
	if (cg >= 0)
		close(cg);
	if (check_throttles) {
		h->tp = bpf_program__attach(h->skel->progs.check_throttle);
		if (!ASSERT_OK_PTR(h->tp, "tracepoint"))
			return false;
	}
	h->link = bpf_map__attach_struct_ops(h->skel->maps.identity);
	return ASSERT_OK_PTR(h->optin, "optin") && ASSERT_OK_PTR(h->link, "attach");
}

static void hook_down(struct hook *h)
{
	bpf_link__destroy(h->link);
	bpf_link__destroy(h->tp);
	bpf_link__destroy(h->optin);
	tcp_tsq_identity__destroy(h->skel);
}

/* A program that returns its input changes no limit: at each throttle
 * the kernel's limit is the one the program returned, doubled for a
 * retransmit, the tracepoint says it came from BPF, and none differs.
 */
static void test_identity(const char *sysctl_bytes)
{
	struct hook h = {};
	int srv = -1;

	if (!netns_up())
		return;
	SYS(out, "ip netns exec " NS_SND " sysctl -qw net.ipv4.tcp_limit_output_bytes=%s",
	    sysctl_bytes);
	if (!hook_up(&h, true))
		goto out;
	srv = server(PORT_IN);
	if (srv < 0 || flow(srv, PORT_IN))
		goto out;
	printf("# limit_output_bytes %s: %llu throttles, %llu same, %llu differ, last limit %llu\n",
	       sysctl_bytes, h.skel->bss->throttles, h.skel->bss->same,
	       h.skel->bss->differ, h.skel->bss->last_limit);
	ASSERT_EQ(h.skel->bss->opted_in, 1, "sockets opted in");
	ASSERT_GT(h.skel->bss->throttles, 20, "throttles compared");
	ASSERT_EQ(h.skel->bss->differ, 0, "limits that differ from the program's");
	ASSERT_EQ(h.skel->bss->not_bpf, 0, "throttles without the bpf flag");
out:
	if (srv >= 0)
		close(srv);
	hook_down(&h);
	netns_down();
}

/* With the hook attached, a socket that did not opt in runs no program. */
static void test_opt_in(void)
{
	struct hook h = {};
	int srv_in = -1, srv_out = -1, stats;
	__u64 l0, t0, l1, t1;

	stats = bpf_enable_stats(BPF_STATS_RUN_TIME);
	if (!ASSERT_GT(stats, -1, "bpf_enable_stats") || !netns_up() || !hook_up(&h, false))
		goto out;
	srv_in = server(PORT_IN);
	srv_out = server(PORT_OUT);
	if (srv_in < 0 || srv_out < 0)
		goto out;

	l0 = run_cnt(h.skel->progs.identity_limit);
	t0 = run_cnt(h.skel->progs.identity_tso_segs);
	if (flow(srv_out, PORT_OUT))
		goto out;
	l1 = run_cnt(h.skel->progs.identity_limit);
	t1 = run_cnt(h.skel->progs.identity_tso_segs);
	printf("# not opted in: %llu tsq_limit runs, %llu tso_segs runs for %d bytes\n",
	       l1 - l0, t1 - t0, FLOW_BYTES);
	ASSERT_EQ(l1 - l0, 0, "tsq_limit runs, not opted in");
	ASSERT_EQ(t1 - t0, 0, "tso_segs runs, not opted in");
	ASSERT_EQ(h.skel->bss->opted_in, 0, "opted in before the second flow");

	if (flow(srv_in, PORT_IN))
		goto out;
	l0 = run_cnt(h.skel->progs.identity_limit);
	t0 = run_cnt(h.skel->progs.identity_tso_segs);
	printf("# opted in: %llu tsq_limit runs, %llu tso_segs runs\n", l0 - l1, t0 - t1);
	ASSERT_GT(l0 - l1, 100, "tsq_limit runs, opted in");
	ASSERT_GT(t0 - t1, 100, "tso_segs runs, opted in");
out:
	if (srv_in >= 0)
		close(srv_in);
	if (srv_out >= 0)
		close(srv_out);
	if (stats >= 0)
		close(stats);
	hook_down(&h);
	netns_down();
}

/* CAP_BPF and CAP_PERFMON load the program; attaching the hook, which
 * applies to the whole host, takes CAP_NET_ADMIN as well.
 */
static void test_net_admin(void)
{
	int status = -1;
	pid_t pid = fork();

	if (pid == 0) {
		struct __user_cap_header_struct hdr = {
			.version = _LINUX_CAPABILITY_VERSION_3,
		};
		struct __user_cap_data_struct data[2] = {};
		struct tcp_tsq_identity *skel;
		struct bpf_link *link;

		data[CAP_SYS_ADMIN / 32].effective |= 1U << (CAP_SYS_ADMIN % 32);
		data[CAP_BPF / 32].effective |= 1U << (CAP_BPF % 32);
		data[CAP_PERFMON / 32].effective |= 1U << (CAP_PERFMON % 32);
		for (int i = 0; i < 2; i++)
			data[i].permitted = data[i].effective;
		if (syscall(SYS_capset, &hdr, data))
			_exit(10);
		skel = tcp_tsq_identity__open_and_load();
		if (!skel)
			_exit(11);
		link = bpf_map__attach_struct_ops(skel->maps.identity);
		if (link)
			_exit(12);
		_exit(errno == EPERM ? 0 : 13);
	}
	waitpid(pid, &status, 0);
	ASSERT_COND(WIFEXITED(status) && WEXITSTATUS(status) == 0, "attach without CAP_NET_ADMIN",
		    "exit %d (10 capset, 11 load failed, 12 attached, 13 not EPERM)",
		    WIFEXITED(status) ? WEXITSTATUS(status) : -1);
}

static int send_fd(int sock, int fd)
{
	char cbuf[CMSG_SPACE(sizeof(int))] = {}, c = 0;
	struct iovec iov = { .iov_base = &c, .iov_len = 1 };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1 };
	struct cmsghdr *cm;

	if (fd >= 0) {
		msg.msg_control = cbuf;
		msg.msg_controllen = sizeof(cbuf);
		cm = CMSG_FIRSTHDR(&msg);
		cm->cmsg_level = SOL_SOCKET;
		cm->cmsg_type = SCM_RIGHTS;
		cm->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(cm), &fd, sizeof(int));
	}
	return sendmsg(sock, &msg, MSG_NOSIGNAL) == 1 ? 0 : -1;
}

/* The fd sent with one byte, or -1 if none came. */
static int recv_fd(int sock)
{
	char cbuf[CMSG_SPACE(sizeof(int))], c;
	struct iovec iov = { .iov_base = &c, .iov_len = 1 };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1,
			      .msg_control = cbuf, .msg_controllen = sizeof(cbuf) };
	struct cmsghdr *cm;
	int fd;

	if (recvmsg(sock, &msg, 0) != 1)
		return -1;
	cm = CMSG_FIRSTHDR(&msg);
	if (!cm || cm->cmsg_type != SCM_RIGHTS)
		return -1;
	memcpy(&fd, CMSG_DATA(cm), sizeof(int));
	return fd;
}

static int write_file(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY), ok;

	if (fd < 0)
		return -1;
	ok = write(fd, s, strlen(s)) == (ssize_t)strlen(s);
	close(fd);
	return ok ? 0 : -1;
}

/* In a new user and mount namespace: a bpffs instance for the parent to
 * delegate everything on, then the hook's programs loaded with a token
 * from it, and the attach. Exit 0 when the attach fails with EPERM.
 */
static int userns_child(int sock)
{
	LIBBPF_OPTS(bpf_object_open_opts, opts);
	char dir[] = "/tmp/tsqt_tokenXXXXXX";
	struct tcp_tsq_identity *skel;
	struct bpf_link *link;
	int fs_fd, mnt_fd;

	if (unshare(CLONE_NEWUSER | CLONE_NEWNS))
		return 20;
	if (write_file("/proc/self/setgroups", "deny") ||
	    write_file("/proc/self/uid_map", "0 0 1") ||
	    write_file("/proc/self/gid_map", "0 0 1"))
		return 21;
	fs_fd = syscall(__NR_fsopen, "bpf", 0);
	if (fs_fd < 0 || send_fd(sock, fs_fd))
		return 22;
	mnt_fd = recv_fd(sock);
	if (mnt_fd < 0 || !mkdtemp(dir) ||
	    syscall(__NR_move_mount, mnt_fd, "", AT_FDCWD, dir, MOVE_MOUNT_F_EMPTY_PATH))
		return 23;
	opts.bpf_token_path = dir;
	skel = tcp_tsq_identity__open_opts(&opts);
	if (!skel || tcp_tsq_identity__load(skel))
		return 11;
	link = bpf_map__attach_struct_ops(skel->maps.identity);
	if (link)
		return 12;
	return errno == EPERM ? 0 : 13;
}

/* A container with a BPF token that delegates everything can load the
 * programs, but not attach the hook, which applies to the whole host.
 */
static void test_userns_token(void)
{
	const char *opt[] = { "delegate_cmds", "delegate_maps", "delegate_progs",
			      "delegate_attachs" };
	int sp[2], fs_fd, mnt_fd = -1, status = -1;
	pid_t pid;

	if (!ASSERT_OK(socketpair(AF_UNIX, SOCK_STREAM, 0, sp), "socketpair"))
		return;
	pid = fork();
	if (pid == 0) {
		close(sp[0]);
		_exit(userns_child(sp[1]));
	}
	close(sp[1]);
	fs_fd = recv_fd(sp[0]);
	if (fs_fd >= 0) {
		bool ok = true;

		for (size_t i = 0; i < sizeof(opt) / sizeof(opt[0]); i++)
			ok = ok && !syscall(__NR_fsconfig, fs_fd, FSCONFIG_SET_STRING,
					    opt[i], "any", 0);
		if (ok && !syscall(__NR_fsconfig, fs_fd, FSCONFIG_CMD_CREATE, NULL, NULL, 0))
			mnt_fd = syscall(__NR_fsmount, fs_fd, 0, 0);
		close(fs_fd);
	}
	send_fd(sp[0], mnt_fd);
	if (mnt_fd >= 0)
		close(mnt_fd);
	close(sp[0]);
	waitpid(pid, &status, 0);
	ASSERT_COND(WIFEXITED(status) && WEXITSTATUS(status) == 0,
		    "attach from a user namespace with a BPF token",
		    "exit %d (11 load failed, 12 attached, 13 not EPERM, 20-23 setup)",
		    WIFEXITED(status) ? WEXITSTATUS(status) : -1);
}

void test_tcp_tsq_ops(void)
{
	if (test__start_subtest("link"))
		test_link();
	if (test__start_subtest("kfuncs_refused"))
		test_kfuncs();
	if (test__start_subtest("identity_8k"))
		test_identity("8192");
	if (test__start_subtest("identity_1m"))
		test_identity("1048576");
	if (test__start_subtest("opt_in"))
		test_opt_in();
	if (test__start_subtest("net_admin"))
		test_net_admin();
	if (test__start_subtest("userns_token"))
		test_userns_token();
}

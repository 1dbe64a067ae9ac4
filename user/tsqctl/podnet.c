// SPDX-License-Identifier: GPL-2.0
/* tsqctl doctor: how this node's pods and containers reach the NIC.
 *
 * TSQ and tsq count a socket's bytes until the skb is freed. A pod's skbs
 * keep their socket on the way to the host's NIC, and so meet its queue,
 * only on some paths:
 *   hostNetwork        the host's own sockets;
 *   macvlan, ipvlan    the pod's device transmits on the NIC directly;
 *   BPF host routing   a BPF program redirects from the pod's veth (or
 *                      netkit) to the NIC, past the host's stack;
 *   bridged veth       the bridge forwards without ip_rcv(), unless
 *                      br_netfilter runs iptables on bridged packets,
 *                      which orphans them (br_nf_pre_routing);
 * and not on a routed veth: the host's ip_rcv() orphans the skb (for
 * tproxy), so the NIC's queue is no longer the socket's. bench/ measured
 * it: a netns behind a routed veth left 4.3 MB in the NIC's qdisc where a
 * macvlan left 121 KB (8 flows, README).
 *
 * The namespaces looked at: those of the processes in the kubelet's pod
 * cgroups (kubepods.slice, kubepods), then those named in /run/netns
 * (ip netns, and containerd's pod sandboxes). In each, the device of the
 * default route (or the only device) and, for a veth or netkit, its peer
 * in this netns: its master, and BPF on its ingress (tcx or a clsact bpf
 * filter).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <net/if.h>
#include <sys/stat.h>
#include <linux/if_link.h>
#include <linux/net_namespace.h>
#include <linux/pkt_sched.h>
#include <linux/rtnetlink.h>
#include <bpf/bpf.h>

#include "tsqctl.h"
#include "netlink.h"
#include "podnet.h"
#include "cgroup.h"
#include "print.h"

#define MAX_NETNS	1024

/* Each way: its JSON key and its words in text. */
static const struct {
	const char *key, *name;
} kinds[PODNET_NR] = {
	[PODNET_HOST] = { "host", "hostNetwork" },
	[PODNET_MACVLAN] = { "macvlan", "macvlan" },
	[PODNET_IPVLAN] = { "ipvlan", "ipvlan" },
	[PODNET_BPF] = { "bpf", "BPF host routing" },
	[PODNET_BRIDGED] = { "bridged-veth", "bridged veth" },
	[PODNET_BRIDGED_NF] = { "bridged-veth-br-netfilter", "bridged veth, br_netfilter" },
	[PODNET_ROUTED] = { "routed-veth", "routed veth" },
	[PODNET_UNKNOWN] = { "unknown", "unknown" },
};

bool podnet_helps(enum podnet_kind k)
{
	return k == PODNET_HOST || k == PODNET_MACVLAN || k == PODNET_IPVLAN ||
	       k == PODNET_BPF || k == PODNET_BRIDGED;
}

struct link {
	int index, peer, master;
	int peer_nsid;		/* -1: the peer or lower device is in this netns */
	char name[IFNAMSIZ], kind[32];
	bool up;
};

struct links {
	struct link v[64];
	int nr;
	int oif;		/* the IPv4 default route's device, 0 if none */
};

static void parse_link(struct nlmsghdr *h, void *ctx)
{
	struct links *ls = ctx;
	struct ifinfomsg *ifi = NLMSG_DATA(h);
	int len = IFLA_PAYLOAD(h);
	struct link *l;

	if (h->nlmsg_type != RTM_NEWLINK || ls->nr == (int)(sizeof(ls->v) / sizeof(ls->v[0])) ||
	    (ifi->ifi_flags & IFF_LOOPBACK))
		return;
	l = &ls->v[ls->nr];
	memset(l, 0, sizeof(*l));
	l->index = ifi->ifi_index;
	l->up = ifi->ifi_flags & IFF_UP;
	l->peer_nsid = -1;
	for (struct rtattr *a = IFLA_RTA(ifi); RTA_OK(a, len); a = RTA_NEXT(a, len)) {
		switch (a->rta_type) {
		case IFLA_IFNAME:
			snprintf(l->name, sizeof(l->name), "%s", nl_str(a) ?: "");
			break;
		case IFLA_LINK:
			l->peer = nl_u32(a);
			break;
		case IFLA_MASTER:
			l->master = nl_u32(a);
			break;
		case IFLA_LINK_NETNSID:
			l->peer_nsid = (int)nl_u32(a);
			break;
		case IFLA_LINKINFO: {
			int n = RTA_PAYLOAD(a);

			for (struct rtattr *b = RTA_DATA(a); RTA_OK(b, n); b = RTA_NEXT(b, n))
				if (b->rta_type == IFLA_INFO_KIND)
					snprintf(l->kind, sizeof(l->kind), "%s", nl_str(b) ?: "");
			break;
		}
		}
	}
	ls->nr++;
}

static int get_links(struct links *ls, int index)
{
	struct {
		struct nlmsghdr h;
		struct ifinfomsg i;
	} req = {
		.h = { .nlmsg_type = RTM_GETLINK, .nlmsg_flags = index ? 0 : NLM_F_DUMP },
		.i = { .ifi_family = AF_UNSPEC, .ifi_index = index },
	};

	ls->nr = 0;
	return nl_request(&req, sizeof(req), parse_link, ls);
}

static void parse_route(struct nlmsghdr *h, void *ctx)
{
	struct links *ls = ctx;
	struct rtmsg *r = NLMSG_DATA(h);
	int len = RTM_PAYLOAD(h);

	if (h->nlmsg_type != RTM_NEWROUTE || r->rtm_dst_len || r->rtm_table != RT_TABLE_MAIN)
		return;
	for (struct rtattr *a = RTM_RTA(r); RTA_OK(a, len); a = RTA_NEXT(a, len))
		if (a->rta_type == RTA_OIF && !ls->oif)
			ls->oif = nl_u32(a);
}

static void default_route(struct links *ls)
{
	struct {
		struct nlmsghdr h;
		struct rtmsg r;
	} req = {
		.h = { .nlmsg_type = RTM_GETROUTE, .nlmsg_flags = NLM_F_DUMP },
		.r = { .rtm_family = AF_INET },
	};

	ls->oif = 0;
	nl_request(&req, sizeof(req), parse_route, ls);
}

/* The id this netns gives the netns of fd; -1 if it has none. */
static void parse_nsid(struct nlmsghdr *h, void *ctx)
{
	struct rtgenmsg *g = NLMSG_DATA(h);
	int len = h->nlmsg_len - NLMSG_LENGTH(NLMSG_ALIGN(sizeof(*g)));

	if (h->nlmsg_type != RTM_NEWNSID)
		return;
	for (struct rtattr *a = (void *)((char *)g + NLMSG_ALIGN(sizeof(*g))); RTA_OK(a, len);
	     a = RTA_NEXT(a, len))
		if (a->rta_type == NETNSA_NSID)
			*(int *)ctx = (int)nl_u32(a);
}

static int nsid_of(int fd)
{
	struct {
		struct nlmsghdr h;
		struct rtgenmsg g;
		char pad[3];
		struct rtattr a;
		__u32 fd;
	} req = {
		.h = { .nlmsg_type = RTM_GETNSID },
		.g = { .rtgen_family = AF_UNSPEC },
		.a = { .rta_len = RTA_LENGTH(sizeof(__u32)), .rta_type = NETNSA_FD },
		.fd = fd,
	};
	int id = -1;

	return nl_request(&req, sizeof(req), parse_nsid, &id) ? -1 : id;
}

/* Any filter on the clsact ingress of ifindex whose kind is bpf. */
static void parse_filter(struct nlmsghdr *h, void *ctx)
{
	struct tcmsg *t = NLMSG_DATA(h);
	int len = h->nlmsg_len - NLMSG_LENGTH(sizeof(*t));

	if (h->nlmsg_type != RTM_NEWTFILTER)
		return;
	for (struct rtattr *a = TCA_RTA(t); RTA_OK(a, len); a = RTA_NEXT(a, len))
		if (a->rta_type == TCA_KIND && nl_str(a) && !strcmp(nl_str(a), "bpf"))
			*(bool *)ctx = true;
}

static bool ingress_bpf(int ifindex)
{
	struct {
		struct nlmsghdr h;
		struct tcmsg t;
	} req = {
		.h = { .nlmsg_type = RTM_GETTFILTER, .nlmsg_flags = NLM_F_DUMP },
		.t = { .tcm_family = AF_UNSPEC, .tcm_ifindex = ifindex,
		       .tcm_parent = TC_H_MAKE(TC_H_CLSACT, TC_H_MIN_INGRESS) },
	};
	LIBBPF_OPTS(bpf_prog_query_opts, q);
	bool found = false;

	if (!bpf_prog_query_opts(ifindex, BPF_TCX_INGRESS, &q) && q.prog_cnt)
		return true;
	nl_request(&req, sizeof(req), parse_filter, &found);
	return found;
}

static bool br_netfilter(void)
{
	char v[8];

	tsqctl_read_line("/proc/sys/net/bridge/bridge-nf-call-iptables", v, sizeof(v));
	return v[0] == '1';
}

struct netns {
	char name[64];		/* "pod-a" (/run/netns) or "pid 1234" */
	ino_t ino;
	enum podnet_kind kind;
	char dev[IFNAMSIZ], host_dev[IFNAMSIZ];
};

struct scan {
	int self;		/* our netns, to come back to and compare with */
	ino_t self_ino;
	struct netns v[MAX_NETNS];
	int nr;
	bool full;
};

/* Classify the netns of fd; the calling thread is back in ours after. */
static void classify(struct scan *s, int fd, struct netns *ns)
{
	struct links ls;
	struct link *up = NULL;
	int host_nsid, peer;

	ns->kind = PODNET_UNKNOWN;
	if (setns(fd, CLONE_NEWNET))
		return;
	host_nsid = nsid_of(s->self);
	if (!get_links(&ls, 0)) {
		default_route(&ls);
		for (int i = 0; i < ls.nr; i++)
			if (ls.v[i].index == ls.oif || (!ls.oif && ls.v[i].up && !up))
				up = &ls.v[i];
	}
	if (up) {
		snprintf(ns->dev, sizeof(ns->dev), "%s", up->name);
		if (!strcmp(up->kind, "macvlan") || !strcmp(up->kind, "macvtap"))
			ns->kind = PODNET_MACVLAN;
		else if (!strcmp(up->kind, "ipvlan") || !strcmp(up->kind, "ipvtap"))
			ns->kind = PODNET_IPVLAN;
	}
	peer = up && (!strcmp(up->kind, "veth") || !strcmp(up->kind, "netkit")) &&
	       up->peer_nsid >= 0 && up->peer_nsid == host_nsid ? up->peer : 0;
	if (setns(s->self, CLONE_NEWNET)) {
		perror("tsqctl: doctor: back to our netns");
		exit(2);
	}
	if (!peer || get_links(&ls, peer) || ls.nr != 1)
		return;
	snprintf(ns->host_dev, sizeof(ns->host_dev), "%s", ls.v[0].name);
	if (ingress_bpf(peer) || !strcmp(up->kind, "netkit"))
		ns->kind = PODNET_BPF;
	else if (ls.v[0].master)
		ns->kind = br_netfilter() ? PODNET_BRIDGED_NF : PODNET_BRIDGED;
	else
		ns->kind = PODNET_ROUTED;
}

static void add(struct scan *s, const char *name, const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct netns *ns;
	struct stat st;

	if (fd < 0)
		return;
	if (fstat(fd, &st))
		goto out;
	for (int i = 0; i < s->nr; i++)
		if (s->v[i].ino == st.st_ino)
			goto out;
	if (s->nr == MAX_NETNS) {
		s->full = true;
		goto out;
	}
	ns = &s->v[s->nr++];
	memset(ns, 0, sizeof(*ns));
	snprintf(ns->name, sizeof(ns->name), "%s", name);
	ns->ino = st.st_ino;
	if (st.st_ino == s->self_ino)
		ns->kind = PODNET_HOST;
	else
		classify(s, fd, ns);
out:
	close(fd);
}

static int pod_proc(long pid, void *ctx)
{
	char name[64], ns[64];

	snprintf(name, sizeof(name), "pid %ld", pid);
	snprintf(ns, sizeof(ns), "/proc/%ld/ns/net", pid);
	add(ctx, name, ns);
	return 0;
}

static void pod_procs(int fd, const char *path, int depth, void *ctx)
{
	tsq_cgroup_procs(fd, pod_proc, ctx);
}

/* The node's set-up, in a word: the most common way its namespaces take. */
static const char *most_common(const unsigned int *count)
{
	int best = -1;

	for (int k = 0; k < PODNET_NR; k++)
		if (count[k] && (best < 0 || count[k] > count[best]))
			best = k;
	return best < 0 ? "none" : kinds[best].key;
}

void podnet_print(const char *mount, podnet_advise_fn advise, void *ctx)
{
	static struct scan s;
	unsigned int count[PODNET_NR] = {};
	char path[300];
	struct dirent *de;
	struct stat st;
	DIR *dir;

	s.nr = 0;
	s.full = false;
	s.self = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	if (s.self < 0 || fstat(s.self, &st))
		return;
	s.self_ino = st.st_ino;
	if (mount && *mount) {
		tsq_cgroup_walk(mount, "/kubepods.slice", pod_procs, &s);
		tsq_cgroup_walk(mount, "/kubepods", pod_procs, &s);
	}
	dir = opendir("/run/netns");
	while (dir && (de = readdir(dir))) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/run/netns/%s", de->d_name);
		add(&s, de->d_name, path);
	}
	if (dir)
		closedir(dir);
	close(s.self);

	print_string(PRINT_FP, NULL, "%s\n", "pod network (namespaces of kubepods and /run/netns):");
	open_json_array("pod_netns");
	for (int i = 0; i < s.nr; i++) {
		struct netns *ns = &s.v[i];

		count[ns->kind]++;
		open_json_object(NULL);
		print_string(PRINT_ANY, "netns", "  %s:", ns->name);
		print_string(PRINT_JSON, "via", NULL, kinds[ns->kind].key);
		print_string(PRINT_FP, NULL, " %s", kinds[ns->kind].name);
		print_string(PRINT_ANY, "dev", " (%s", ns->dev[0] ? ns->dev : "-");
		print_string(PRINT_ANY, "host_dev", ", host side %s)", ns->host_dev[0] ?
			     ns->host_dev : "-");
		print_bool(PRINT_JSON, "tsq_sees_nic_queue", NULL, podnet_helps(ns->kind));
		print_string(PRINT_FP, NULL, "%s\n", podnet_helps(ns->kind) ? "" :
			     ns->kind == PODNET_UNKNOWN ? ": tsq's effect unknown" :
			     ": skbs orphaned, tsq does not see the NIC's queue");
		close_json_object();
	}
	close_json_array();
	if (!s.nr)
		print_string(PRINT_FP, NULL, "%s\n", "  none");
	print_string(PRINT_ANY, "pod_network", "  this node: %s\n", most_common(count));
	if (count[PODNET_ROUTED])
		advise(ctx, "%u network namespaces reach the NIC through a routed veth: the host's "
		       "ip_rcv() orphans their skbs, so TSQ and tsq do not see the NIC's queue for "
		       "their sockets; hostNetwork, macvlan/ipvlan or BPF host routing keep it",
		       count[PODNET_ROUTED]);
	if (count[PODNET_BRIDGED_NF])
		advise(ctx, "%u network namespaces are bridged with br_netfilter on "
		       "(bridge-nf-call-iptables): it orphans bridged skbs, so tsq does not see the "
		       "NIC's queue for their sockets", count[PODNET_BRIDGED_NF]);
	if (s.full)
		advise(ctx, "more than %d network namespaces: the rest were not looked at", MAX_NETNS);
}

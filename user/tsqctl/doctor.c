// SPDX-License-Identifier: GPL-2.0
/* tsqctl doctor: what on this machine decides what TSQ can do.
 *
 * TSQ counts a socket's bytes from TCP's transmit to the skb's TX
 * completion (sk_wmem_alloc). What happens in between, and when the
 * completion comes, is up to the qdisc, the driver and its BQL; TCP's own
 * knobs size the limit and the TSO packets. doctor reads all of them for
 * the netns it runs in (and TCP's knobs of each netns in /run/netns),
 * says whether the tsq hook exists and what is
 * attached, how the pods' network namespaces reach the NIC (podnet.c),
 * which of tsqd's features its capabilities leave off,
 * and adds a line of advice where a setting defeats TSQ.
 * Exit code 0: nothing to advise; 1: advice; 2: an error.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <net/if.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <linux/capability.h>
#include <linux/ethtool.h>
#include <linux/if_link.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <linux/sockios.h>

#include "tsqctl.h"
#include "netlink.h"
#include "pidfile.h"
#include "podnet.h"
#include "tsq_bpf.h"
#include "print.h"

#define MAX_NICS	256
#define MAX_ADVICE	64

struct nic {
	char name[IFNAMSIZ], driver[32], kind[32], qdisc[32];
	unsigned int tx_queues, gso_max_size, gso_max_segs;
	bool physical;		/* has a device below it (sysfs device link) */
};

struct doctor {
	struct nic nics[MAX_NICS];
	int nr;
	char *advice[MAX_ADVICE];
	int nadvice;
};

static void vadvise(struct doctor *d, const char *fmt, va_list ap)
{
	if (d->nadvice < MAX_ADVICE && vasprintf(&d->advice[d->nadvice], fmt, ap) >= 0)
		d->nadvice++;
}

static void advise(struct doctor *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void advise(struct doctor *d, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vadvise(d, fmt, ap);
	va_end(ap);
}

/* podnet_print()'s way to advise. */
static void advise_ctx(void *ctx, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vadvise(ctx, fmt, ap);
	va_end(ap);
}

/* -1 if the file is missing (an older kernel, BQL compiled out). */
static long long read_num(const char *path)
{
	char buf[64], *end;
	long long v;

	tsqctl_read_line(path, buf, sizeof(buf));
	if (!buf[0])
		return -1;
	v = strtoll(buf, &end, 10);
	return *end ? -1 : v;
}

static void parse_linkinfo(struct nic *n, struct rtattr *li, int len)
{
	for (struct rtattr *a = RTA_DATA(li); RTA_OK(a, len); a = RTA_NEXT(a, len))
		if (a->rta_type == IFLA_INFO_KIND)
			snprintf(n->kind, sizeof(n->kind), "%s", (char *)RTA_DATA(a));
}

static void parse_link(struct doctor *d, struct nlmsghdr *h)
{
	struct ifinfomsg *ifi = NLMSG_DATA(h);
	int len = IFLA_PAYLOAD(h);
	struct nic *n;

	if (d->nr == MAX_NICS || (ifi->ifi_flags & IFF_LOOPBACK))
		return;
	n = &d->nics[d->nr];
	memset(n, 0, sizeof(*n));
	for (struct rtattr *a = IFLA_RTA(ifi); RTA_OK(a, len); a = RTA_NEXT(a, len)) {
		switch (a->rta_type) {
		case IFLA_IFNAME:
			snprintf(n->name, sizeof(n->name), "%s", (char *)RTA_DATA(a));
			break;
		case IFLA_QDISC:
			snprintf(n->qdisc, sizeof(n->qdisc), "%s", (char *)RTA_DATA(a));
			break;
		case IFLA_NUM_TX_QUEUES:
			n->tx_queues = *(__u32 *)RTA_DATA(a);
			break;
		case IFLA_GSO_MAX_SIZE:
			n->gso_max_size = *(__u32 *)RTA_DATA(a);
			break;
		case IFLA_GSO_MAX_SEGS:
			n->gso_max_segs = *(__u32 *)RTA_DATA(a);
			break;
		case IFLA_LINKINFO:
			parse_linkinfo(n, a, RTA_PAYLOAD(a));
			break;
		}
	}
	if (n->name[0])
		d->nr++;
}

static void on_link(struct nlmsghdr *h, void *ctx)
{
	if (h->nlmsg_type == RTM_NEWLINK)
		parse_link(ctx, h);
}

/* Every link of this netns but lo, from one RTM_GETLINK dump. */
static int dump_links(struct doctor *d)
{
	struct {
		struct nlmsghdr h;
		struct ifinfomsg i;
	} req = {
		.h = { .nlmsg_type = RTM_GETLINK, .nlmsg_flags = NLM_F_DUMP },
		.i = { .ifi_family = AF_UNSPEC },
	};

	return nl_request(&req, sizeof(req), on_link, d);
}

static void nic_driver(struct nic *n)
{
	struct ethtool_drvinfo info = { .cmd = ETHTOOL_GDRVINFO };
	struct ifreq ifr = {};
	char path[128];
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);

	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", n->name);
	ifr.ifr_data = (void *)&info;
	if (fd >= 0 && !ioctl(fd, SIOCETHTOOL, &ifr))
		snprintf(n->driver, sizeof(n->driver), "%s", info.driver);
	if (fd >= 0)
		close(fd);
	snprintf(path, sizeof(path), "/sys/class/net/%s/device", n->name);
	n->physical = !access(path, F_OK);
}

/* BQL limit and inflight of each TX queue. */
static void print_bql(const struct nic *n)
{
	char path[256];
	bool first = true;

	open_json_array("bql");
	print_string(PRINT_FP, NULL, "%s", "    bql");
	for (unsigned int q = 0; q < n->tx_queues; q++) {
		long long limit, inflight;

		snprintf(path, sizeof(path),
			 "/sys/class/net/%s/queues/tx-%u/byte_queue_limits/limit", n->name, q);
		limit = read_num(path);
		snprintf(path, sizeof(path),
			 "/sys/class/net/%s/queues/tx-%u/byte_queue_limits/inflight", n->name, q);
		inflight = read_num(path);
		if (limit < 0)
			continue;
		open_json_object(NULL);
		print_uint(PRINT_JSON, "queue", NULL, q);
		print_s64(PRINT_JSON, "limit", NULL, limit);
		print_s64(PRINT_JSON, "inflight", NULL, inflight);
		close_json_object();
		if (q < 8) {
			print_uint(PRINT_FP, NULL, " tx-%u", q);
			print_s64(PRINT_FP, NULL, " %lld", inflight);
			print_s64(PRINT_FP, NULL, "/%lld", limit);
		} else if (q == 8) {
			print_string(PRINT_FP, NULL, "%s", " ...");
		}
		first = false;
	}
	close_json_array();
	print_string(PRINT_FP, NULL, "%s\n", first ? " none" : " (inflight/limit bytes)");
}

static void check_nic(struct doctor *d, const struct nic *n, const char *napi_tx)
{
	if (!strcmp(n->driver, "virtio_net") && napi_tx[0] == 'N')
		advise(d, "%s: virtio-net with napi_tx=0 orphans skbs at transmit: TSQ and BQL "
		       "see nothing (see 31c03aef9bc2); load virtio_net with napi_tx=1", n->name);
	if (n->physical && (!strcmp(n->qdisc, "pfifo_fast") || !strcmp(n->qdisc, "pfifo")))
		advise(d, "%s: qdisc %s is one FIFO per band: a bulk flow's bytes delay every "
		       "other flow; fq or fq_codel keeps flows apart", n->name, n->qdisc);
}

static void print_nics(struct doctor *d, const char *napi_tx)
{
	open_json_array("nics");
	print_string(PRINT_FP, NULL, "%s\n", "NICs (this netns):");
	for (int i = 0; i < d->nr; i++) {
		struct nic *n = &d->nics[i];
		bool virtio;

		nic_driver(n);
		check_nic(d, n, napi_tx);
		virtio = !strcmp(n->driver, "virtio_net");
		open_json_object(NULL);
		print_string(PRINT_ANY, "dev", "  %s:", n->name);
		print_string(PRINT_ANY, "driver", " driver %s", n->driver[0] ? n->driver : "-");
		print_string(PRINT_JSON, "kind", NULL, n->kind);
		print_bool(PRINT_JSON, "physical", NULL, n->physical);
		if (!n->physical)
			print_string(PRINT_FP, NULL, "%s", " (virtual)");
		if (virtio)
			print_string(PRINT_FP, NULL, ", napi_tx %s", napi_tx[0] == 'Y' ? "1" : "0");
		print_string(PRINT_JSON, "qdisc", NULL, n->qdisc);
		print_string(PRINT_FP, NULL, ", qdisc %s", n->qdisc[0] ? n->qdisc : "-");
		print_uint(PRINT_ANY, "tx_queues", ", %u tx queues", n->tx_queues);
		print_uint(PRINT_ANY, "gso_max_size", ", gso_max_size %u", n->gso_max_size);
		print_uint(PRINT_ANY, "gso_max_segs", " gso_max_segs %u", n->gso_max_segs);
		if (virtio)
			print_bool(PRINT_JSON, "napi_tx", NULL, napi_tx[0] == 'Y');
		print_nl();
		print_bql(n);
		close_json_object();
	}
	close_json_array();
}

static const char *const sysctls[] = {
	"ipv4/tcp_limit_output_bytes", "ipv4/tcp_tso_rtt_log", "ipv4/tcp_min_tso_segs",
	"ipv4/tcp_pacing_ss_ratio", "ipv4/tcp_pacing_ca_ratio",
};

/* TCP's knobs of the netns this task is in; ns names it in advice. */
static void print_sysctls(struct doctor *d, const char *ns)
{
	char path[128], cc[32], where[96] = "";

	if (ns)
		snprintf(where, sizeof(where), "netns %s: ", ns);
	if (ns)
		print_string(PRINT_FP, NULL, "TCP (netns %s):\n", ns);
	else
		print_string(PRINT_FP, NULL, "%s\n", "TCP (this netns):");
	open_json_object("sysctl");
	for (size_t i = 0; i < sizeof(sysctls) / sizeof(sysctls[0]); i++) {
		const char *name = strchr(sysctls[i], '/') + 1;
		long long v;

		snprintf(path, sizeof(path), "/proc/sys/net/%s", sysctls[i]);
		v = read_num(path);
		print_string(PRINT_FP, NULL, "  %s:", name);
		if (v < 0)
			print_null(PRINT_ANY, name, " %s\n", "- (not in this kernel)");
		else
			print_s64(PRINT_ANY, name, " %lld\n", v);
		if (!strcmp(name, "tcp_limit_output_bytes") && v >= 0 && v < 131072)
			advise(d, "%stcp_limit_output_bytes %lld is below two 64 KB TSO packets: "
			       "one flow may not fill a fast link", where, v);
		if (!strcmp(name, "tcp_min_tso_segs") && v > 2)
			advise(d, "%stcp_min_tso_segs %lld (default 2) makes every TSO packet, and "
			       "so every socket's queue, at least that many segments", where, v);
	}
	close_json_object();
	tsqctl_read_line("/proc/sys/net/ipv4/tcp_congestion_control", cc, sizeof(cc));
	print_string(PRINT_ANY, "congestion_control", "  congestion control: %s\n", cc);
}

/* The same for each netns named in /run/netns (ip netns add): /proc/sys/net
 * answers for the netns of the task that opens it, so enter each in turn.
 */
static void print_named_netns(struct doctor *d)
{
	int self = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	DIR *dir = self >= 0 ? opendir("/run/netns") : NULL;
	struct dirent *de;

	open_json_array("netns");
	while (dir && (de = readdir(dir))) {
		char path[300];
		int fd;

		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/run/netns/%s", de->d_name);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0 || setns(fd, CLONE_NEWNET)) {
			if (fd >= 0)
				close(fd);
			continue;
		}
		close(fd);
		open_json_object(NULL);
		print_string(PRINT_JSON, "name", NULL, de->d_name);
		print_sysctls(d, de->d_name);
		close_json_object();
		if (setns(self, CLONE_NEWNET))
			break;	/* cannot happen: we came from there */
	}
	if (dir)
		closedir(dir);
	if (self >= 0)
		close(self);
	close_json_array();
}

/* The hook, and what tsq has pinned. */
static void print_hook(void)
{
	enum tsq_hook hook = tsq_hook_probe();
	int fd = tsq_pinned(TSQ_PIN_LINK);
	struct dirent *de;
	bool first = true;
	DIR *dir;

	print_bool(PRINT_JSON, "hook", NULL, hook == TSQ_HOOK_TSQ_OPS);
	print_string(PRINT_JSON, "hook_type", NULL, tsq_hook_name(hook));
	print_string(PRINT_FP, NULL, "tsq:\n  hook: %s\n", tsq_hook_str(hook));
	print_bool(PRINT_JSON, "attached", NULL, fd >= 0);
	print_string(PRINT_FP, NULL, "  attached: %s", fd >= 0 ? "yes" : "no");
	print_uint(PRINT_JSON, "link_id", NULL, fd >= 0 ? tsq_link_id(fd) : 0);
	if (fd >= 0) {
		print_uint(PRINT_FP, NULL, " (link id %u)", tsq_link_id(fd));
		close(fd);
	}
	print_string(PRINT_FP, NULL, "\n  pinned in %s:", TSQ_PIN_DIR);
	open_json_array("pinned");
	dir = opendir(TSQ_PIN_DIR);
	while (dir && (de = readdir(dir))) {
		if (de->d_name[0] == '.')
			continue;
		print_string(PRINT_ANY, NULL, " %s", de->d_name);
		first = false;
	}
	if (dir)
		closedir(dir);
	close_json_array();
	print_string(PRINT_FP, NULL, "%s\n", first ? " nothing" : "");
}

/*
 * What tsqd does only with capabilities beyond the CAP_BPF, CAP_PERFMON
 * and CAP_NET_ADMIN it cannot start without. tsqd.service gives it
 * CAP_DAC_READ_SEARCH, not netns_sync's two (tsqd(8), CAPABILITIES).
 */
static const struct feature {
	const char *name;
	unsigned int caps[2];		/* all needed; 0 ends */
	const char *without;
} features[] = {
	{ "netns_sync", { CAP_SYS_ADMIN, CAP_SYS_PTRACE },
	  "policy changes reach established connections in pods' and containers' network "
	  "namespaces only when they reconnect" },
	{ "unreadable_cgroups", { CAP_DAC_READ_SEARCH },
	  "cgroups their owners made unreadable (mode 0700) are counted but not named" },
};

static const char *cap_name(unsigned int cap)
{
	switch (cap) {
	case CAP_SYS_ADMIN:		return "CAP_SYS_ADMIN";
	case CAP_SYS_PTRACE:		return "CAP_SYS_PTRACE";
	case CAP_DAC_READ_SEARCH:	return "CAP_DAC_READ_SEARCH";
	}
	return "?";
}

/* The effective capabilities of pid, from /proc; false if unknown. */
static bool cap_eff(pid_t pid, unsigned long long *eff)
{
	char path[64], line[256];
	bool found = false;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	f = fopen(path, "re");
	while (f && !found && fgets(line, sizeof(line), f))
		found = sscanf(line, "CapEff: %llx", eff) == 1;
	if (f)
		fclose(f);
	return found;
}

/* The running tsqd's capabilities, and what it does without the missing. */
static void print_tsqd(struct doctor *d)
{
	unsigned long long eff;
	char why[256];
	pid_t pid = tsq_pidfile_owner(TSQ_PIDFILE, why, sizeof(why));

	print_string(PRINT_FP, NULL, "%s", "tsqd:");
	if (pid <= 0 || !cap_eff(pid, &eff)) {
		print_null(PRINT_JSON, "tsqd", NULL, NULL);
		print_string(PRINT_FP, NULL, " %s\n", pid < 0 ? why : "not running");
		return;
	}
	open_json_object("tsqd");
	print_uint(PRINT_ANY, "pid", " pid %u\n", pid);
	open_json_array("features_off");
	for (size_t i = 0; i < sizeof(features) / sizeof(features[0]); i++) {
		const struct feature *f = &features[i];
		char missing[128] = "";

		for (int k = 0; k < 2 && f->caps[k]; k++)
			if (!(eff & 1ULL << f->caps[k]))
				snprintf(missing + strlen(missing), sizeof(missing) - strlen(missing),
					 "%s%s", missing[0] ? " and " : "", cap_name(f->caps[k]));
		if (!missing[0])
			continue;
		print_string(PRINT_JSON, NULL, NULL, f->name);
		print_string(PRINT_FP, NULL, "  %s: off", f->name);
		print_string(PRINT_FP, NULL, " (no %s)\n", missing);
		advise(d, "tsqd runs without %s: %s (tsqd(8), CAPABILITIES)", missing, f->without);
	}
	close_json_array();
	close_json_object();
}

int tsqctl_doctor(const struct tsqctl_ctx *c, int argc, char **argv)
{
	static struct doctor d;
	char napi_tx[8], qdisc[32];
	int err;

	if (argc) {
		fprintf(stderr, "tsqctl: doctor takes no arguments\n");
		return 2;
	}
	err = dump_links(&d);
	if (err) {
		fprintf(stderr, "tsqctl: doctor: listing links: %s\n", strerror(-err));
		return 2;
	}
	tsqctl_read_line("/sys/module/virtio_net/parameters/napi_tx", napi_tx, sizeof(napi_tx));
	tsqctl_read_line("/proc/sys/net/core/default_qdisc", qdisc, sizeof(qdisc));
	open_json_object(NULL);
	print_nics(&d, napi_tx);
	print_string(PRINT_JSON, "default_qdisc", NULL, qdisc);
	print_string(PRINT_FP, NULL, "  default qdisc: %s\n", qdisc[0] ? qdisc :
		     "- (the sysctl exists in the initial netns only)");
	if (!strcmp(qdisc, "pfifo_fast"))
		advise(&d, "net.core.default_qdisc is pfifo_fast: new devices get one FIFO per "
		       "band; fq (pacing, flow isolation) or fq_codel suits TSQ better");
	print_sysctls(&d, NULL);
	print_named_netns(&d);
	podnet_print(c->mount, advise_ctx, &d);
	print_hook();
	print_tsqd(&d);
	open_json_array("advice");
	for (int i = 0; i < d.nadvice; i++)
		print_string(PRINT_ANY, NULL, "advice: %s\n", d.advice[i]);
	close_json_array();
	close_json_object();
	for (int i = 0; i < d.nadvice; i++)
		free(d.advice[i]);
	return d.nadvice ? 1 : 0;
}

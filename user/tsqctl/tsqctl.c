// SPDX-License-Identifier: GPL-2.0
/* tsqctl: set and show TCP Small Queues policy per cgroup or systemd unit.
 *
 * Works on the maps tsq pins under /sys/fs/bpf/tsq, with or without tsqd.
 * See tsqctl(8) and the design comment in bpf/tsq_cgroup.bpf.c.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "tsq.h"
#include "tsq_bpf.h"
#include "tsq_report.h"
#include "tsqctl.h"
#include "cgroup.h"
#include "pidfile.h"
#include "policy.h"
#include "quote.h"
#include "size.h"
#include "target.h"
#include "unit.h"

static bool json;
static char mount_point[4096];

/* One line on stderr; rc is the exit status the caller returns. */
__attribute__((format(printf, 2, 3)))
static int complain(int rc, const char *fmt, ...)
{
	va_list ap;

	fputs("tsqctl: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return rc;
}

/* The command line is wrong: exit 2, nothing changed. */
#define bad_input(...)	complain(2, __VA_ARGS__)
/* The system cannot do it (no hook, already attached): exit 1. */
#define refused(...)	complain(1, __VA_ARGS__)

static int failed(int err, const char *what)
{
	char why[256] = "";

	if ((err == -EPERM || err == -ENOTDIR) && tsq_pin_dir_check(why, sizeof(why)) &&
	    why[0])
		fprintf(stderr, "tsqctl: %s: %s\n", what, why);
	else if (err == -ENOENT)
		fprintf(stderr, "tsqctl: %s: tsq is not attached (start tsqd or run 'tsqctl attach')\n",
			what);
	else
		fprintf(stderr, "tsqctl: %s: %s\n", what, strerror(-err));
	return 1;
}

/* Open the cgroup a TARGET word names: a cgroup path or a systemd unit. */
static int open_target(const char *word, char *path, size_t len, int *fd)
{
	struct tsq_target t;
	char err[256], q[128];
	int ret;

	if (tsq_target_parse(mount_point, word, &t, err, sizeof(err)))
		return bad_input("%s", err);
	if (t.type == TSQ_TARGET_UNIT) {
		ret = tsq_unit_cgroup(mount_point, t.name, path, len);
		if (ret)
			return bad_input("unit %s: %s", tsq_quote(q, sizeof(q), t.name),
					 ret == -ENOENT ? "no such cgroup (is it running?)" :
					 strerror(-ret));
	} else {
		snprintf(path, len, "%s", t.name);
	}
	ret = tsq_cgroup_open(mount_point, path, fd);
	if (ret)
		return bad_input("cgroup %s: %s", tsq_quote(q, sizeof(q), path),
				 strerror(-ret));
	return 0;
}

static void print_policy(const char *path, const struct tsq_policy *p, bool first)
{
	char buf[TSQ_POLICY_FMT_BUFSZ];

	if (!json) {
		tsq_policy_format(p, buf, sizeof(buf));
		printf("%s %s\n", path, buf);
		return;
	}
	printf("%s{\"cgroup\":", first ? "" : ",");
	tsq_json_str(stdout, path);
	if (p->flags & TSQ_POLICY_LIMIT)
		printf(",\"limit\":%u", p->limit);
	if (p->flags & TSQ_POLICY_LIMIT_US)
		printf(",\"limit_us\":%u", p->limit_us);
	if (p->flags & TSQ_POLICY_TSO)
		printf(",\"tso\":%u", p->tso);
	if (p->flags & TSQ_POLICY_BUDGET)
		printf(",\"budget\":%u", p->budget);
	printf("}");
}

static int cmd_attach(int argc, char **argv)
{
	int err;

	if (argc)
		return bad_input("attach takes no arguments");
	if (!tsq_hook_present())
		return refused("this kernel has no tcp_tsq_ops hook (see kernel/README.md)");
	err = tsq_attach();
	if (err == -EEXIST)
		return refused("already attached (%s)", TSQ_PIN_DIR);
	return err ? failed(err, "attach") : 0;
}

static int cmd_set(int argc, char **argv)
{
	struct tsq_policy p = {};
	char path[4096], err[256];
	int cg, map, ret;

	if (argc < 3)
		return bad_input("usage: tsqctl set CGROUP|UNIT [limit SIZE] [limit-us USEC] [tso SIZE] [budget SIZE]");
	if (tsq_policy_parse_args(argc - 1, argv + 1, &p, err, sizeof(err)))
		return bad_input("%s", err);
	map = tsq_pinned(TSQ_PIN_POLICY);
	if (map < 0)
		return failed(map, "set");
	ret = open_target(argv[0], path, sizeof(path), &cg);
	if (ret) {
		close(map);
		return ret;
	}
	ret = bpf_map_update_elem(map, &cg, &p, BPF_ANY) ? -errno : 0;
	close(cg);
	close(map);
	if (ret)
		return failed(ret, "set");
	ret = tsq_bump_gen();
	return ret ? failed(ret, "set") : 0;
}

static int cmd_unset(int argc, char **argv)
{
	char path[4096];
	int cg, map, ret;

	if (argc != 1)
		return bad_input("usage: tsqctl unset CGROUP|UNIT");
	map = tsq_pinned(TSQ_PIN_POLICY);
	if (map < 0)
		return failed(map, "unset");
	ret = open_target(argv[0], path, sizeof(path), &cg);
	if (ret) {
		close(map);
		return ret;
	}
	ret = bpf_map_delete_elem(map, &cg) ? -errno : 0;
	close(cg);
	close(map);
	if (ret == -ENOENT)
		return bad_input("%s has no policy", path);
	if (ret)
		return failed(ret, "unset");
	ret = tsq_bump_gen();
	return ret ? failed(ret, "unset") : 0;
}

struct show_ctx {
	int map;
	int shown;
};

static void show_one(int fd, const char *path, int depth, void *arg)
{
	struct show_ctx *c = arg;
	struct tsq_policy p;

	if (bpf_map_lookup_elem(c->map, &fd, &p) || !(p.flags & TSQ_POLICY_ALL))
		return;
	print_policy(path, &p, !c->shown);
	c->shown++;
}

static int cmd_show(int argc, char **argv)
{
	struct show_ctx c = {};
	char path[4096];
	int ret = 0, cg;

	if (argc > 1)
		return bad_input("usage: tsqctl show [CGROUP|UNIT]");
	c.map = tsq_pinned(TSQ_PIN_POLICY);
	if (c.map < 0)
		return failed(c.map, "show");
	if (json)
		printf("[");
	if (argc == 1) {
		ret = open_target(argv[0], path, sizeof(path), &cg);
		if (!ret) {
			show_one(cg, path[0] ? path : "/", 0, &c);
			close(cg);
		}
	} else {
		ret = tsq_cgroup_walk(mount_point, "", show_one, &c);
		ret = ret ? failed(ret, "show") : 0;
	}
	if (json)
		printf("]\n");
	close(c.map);
	return ret;
}

static int stats_once(void)
{
	struct tsq_report r;
	int err = tsq_report_collect(mount_point, &r);

	if (err)
		return failed(err, "stats");
	if (json)
		tsq_report_json(stdout, &r);
	else
		tsq_report_text(stdout, &r);
	tsq_report_free(&r);
	return fflush(stdout) ? 1 : 0;
}

/* --watch [SECONDS]: again every interval; -j makes it a JSON array a line. */
static int cmd_stats(int argc, char **argv)
{
	unsigned long secs = 0;
	char *end;
	int ret;

	if (argc && !strcmp(argv[0], "--watch")) {
		secs = 1;
		if (argc == 2) {
			errno = 0;
			secs = strtoul(argv[1], &end, 10);
			if (errno || *end || !isdigit((unsigned char)argv[1][0]) ||
			    !secs || secs > 3600)
				return bad_input("stats --watch: interval %s: want 1 to 3600 seconds",
						 argv[1]);
		}
		argc -= argc == 2 ? 2 : 1;
	}
	if (argc)
		return bad_input("usage: tsqctl [-j] stats [--watch [SECONDS]]");
	for (;;) {
		if (secs && !json) {
			time_t now = time(NULL);
			char stamp[32];

			strftime(stamp, sizeof(stamp), "%F %T", localtime(&now));
			printf("--- %s\n", stamp);
		}
		ret = stats_once();
		if (ret || !secs)
			return ret;
		sleep(secs);
	}
}

static int cmd_reset(int argc, char **argv)
{
	int err;

	if (argc)
		return bad_input("reset takes no arguments");
	err = tsq_reset();
	return err ? failed(err, "reset") : 0;
}

/* Per NIC: the driver, virtio-net's napi_tx (TSQ needs timely TX
 * completion) and the BQL limit of each TX queue.
 */
static void print_nics(void)
{
	char napi[8], path[512], val[32], drv[256];
	struct dirent *de, *q;
	bool first = true;
	DIR *d, *qd;

	tsqctl_read_line("/sys/module/virtio_net/parameters/napi_tx", napi, sizeof(napi));
	d = opendir("/sys/class/net");
	if (json)
		printf(",\"nics\":[");
	while (d && (de = readdir(d))) {
		ssize_t n;

		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/sys/class/net/%s/device/driver", de->d_name);
		n = readlink(path, drv, sizeof(drv) - 1);
		if (n <= 0)
			continue;	/* virtual: lo, veth, ... */
		drv[n] = 0;
		const char *name = strrchr(drv, '/') ? strrchr(drv, '/') + 1 : drv;
		bool virtio = !strcmp(name, "virtio_net");

		if (json) {
			printf("%s{\"dev\":", first ? "" : ",");
			tsq_json_str(stdout, de->d_name);
			printf(",\"driver\":");
			tsq_json_str(stdout, name);
			if (virtio)
				printf(",\"napi_tx\":%s", napi[0] == 'Y' ? "true" : "false");
			printf(",\"bql\":{");
		} else {
			printf("nic %s: driver %s", de->d_name, name);
			if (virtio)
				printf(" napi_tx %s", napi);
			printf(" bql");
		}
		first = false;
		snprintf(path, sizeof(path), "/sys/class/net/%s/queues", de->d_name);
		qd = opendir(path);
		bool qfirst = true;

		while (qd && (q = readdir(qd))) {
			char lp[1024];

			if (strncmp(q->d_name, "tx-", 3))
				continue;
			snprintf(lp, sizeof(lp), "%s/%s/byte_queue_limits/limit", path, q->d_name);
			tsqctl_read_line(lp, val, sizeof(val));
			if (json)
				printf("%s\"%s\":%s", qfirst ? "" : ",", q->d_name, val[0] ? val : "null");
			else
				printf(" %s=%s", q->d_name, val[0] ? val : "-");
			qfirst = false;
		}
		if (qd)
			closedir(qd);
		printf(json ? "}}" : "\n");
	}
	if (d)
		closedir(d);
	if (json)
		printf("]");
}

static int cmd_status(int argc, char **argv)
{
	char lob[32], cc[64], qd[64];
	int fd = tsq_pinned(TSQ_PIN_LINK), daemon = tsq_pidfile_owner(TSQ_PIDFILE);
	bool hook = tsq_hook_present(), attached = fd >= 0;
	__u32 id = 0;

	if (argc)
		return bad_input("status takes no arguments");
	if (fd >= 0) {
		id = tsq_link_id(fd);
		close(fd);
	}
	tsqctl_read_line("/proc/sys/net/ipv4/tcp_limit_output_bytes", lob, sizeof(lob));
	tsqctl_read_line("/proc/sys/net/ipv4/tcp_congestion_control", cc, sizeof(cc));
	tsqctl_read_line("/proc/sys/net/core/default_qdisc", qd, sizeof(qd));
	if (json) {
		printf("{\"hook\":%s,\"attached\":%s,\"link_id\":%u,\"tsqd_pid\":%d,"
		       "\"tsqd_mode\":%s,"
		       "\"tcp_limit_output_bytes\":%s,"
		       "\"congestion_control\":\"%s\",\"default_qdisc\":\"%s\"",
		       hook ? "true" : "false", attached ? "true" : "false", id, daemon,
		       !daemon ? "null" : hook ? "\"policy\"" : "\"observation\"",
		       lob[0] ? lob : "null", cc, qd);
		print_nics();
		printf("}\n");
	} else {
		printf("hook: %s\nattached: %s", hook ? "tcp_tsq_ops present" :
		       "missing (kernel without the tsq series)",
		       attached ? TSQ_PIN_DIR : "no");
		if (attached)
			printf(" (link id %u)", id);
		if (daemon)
			printf("\ntsqd: running, pid %d%s", daemon,
			       hook ? "" : ", observation mode (no hook: statistics only)");
		else
			printf("\ntsqd: not running");
		printf("\ntcp_limit_output_bytes: %s\ncongestion control: %s\n"
		       "default qdisc: %s\n", lob, cc, qd);
		print_nics();
	}
	return 0;
}

static int cmd_top(int argc, char **argv)
{
	struct tsqctl_ctx c = { .json = json, .mount = mount_point };

	return tsqctl_top(&c, argc, argv);
}

static int cmd_doctor(int argc, char **argv)
{
	struct tsqctl_ctx c = { .json = json, .mount = mount_point };

	return tsqctl_doctor(&c, argc, argv);
}

static const struct cmd {
	const char *name;
	int (*fn)(int argc, char **argv);
} cmds[] = {
	{ "attach", cmd_attach },
	{ "set", cmd_set },
	{ "unset", cmd_unset },
	{ "show", cmd_show },
	{ "stats", cmd_stats },
	{ "reset", cmd_reset },
	{ "status", cmd_status },
	{ "top", cmd_top },
	{ "doctor", cmd_doctor },
};

static int usage(FILE *f, int rc)
{
	fprintf(f,
		"Usage: tsqctl [-j] COMMAND [ARGS]\n"
		"  attach                             load and pin the policy program\n"
		"  set CGROUP|UNIT [limit SIZE] [limit-us USEC] [tso SIZE] [budget SIZE]\n"
		"  unset CGROUP|UNIT                  back to the parent's policy\n"
		"  show [CGROUP|UNIT]                 policies set\n"
		"  stats [--watch [SECONDS]]          per-cgroup counters\n"
		"  reset                              detach: every socket to stock TSQ\n"
		"  status                             hook, attachment, kernel defaults, NICs\n"
		"  top [-i SECONDS] [-n COUNT] [-a] [-s]\n"
		"                                     bytes queued and their delay per cgroup\n"
		"                                     (any kernel; TCP sockets of this netns)\n"
		"  doctor                             what decides TSQ's effect here, with advice\n"
		"CGROUP is a path below the cgroup2 root (/bulk); UNIT a systemd unit\n"
		"(nginx.service). SIZE as tc writes it: 65536, 64k, 64KiB, 1m.\n");
	return rc;
}

static int quiet(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ "verbose", no_argument, NULL, 'v' },
		{},
	};
	bool verbose = false;
	int opt, err;

	while ((opt = getopt_long(argc, argv, "+jhv", opts, NULL)) != -1) {
		switch (opt) {
		case 'j':
			json = true;
			break;
		case 'v':
			verbose = true;
			break;
		case 'h':
			return usage(stdout, 0);
		default:
			return usage(stderr, 2);
		}
	}
	argc -= optind;
	argv += optind;
	if (!argc)
		return usage(stderr, 2);
	if (!verbose)
		libbpf_set_print(quiet);
	/* doctor needs none: ip netns exec hides it behind a new /sys. */
	err = tsq_cgroup_mount(mount_point, sizeof(mount_point));
	if (err && strcmp(argv[0], "doctor"))
		return refused("no cgroup2 mount found");

	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
		if (!strcmp(argv[0], cmds[i].name))
			return cmds[i].fn(argc - 1, argv + 1);
	return bad_input("What is \"%s\"? Try \"tsqctl --help\".", argv[0]);
}

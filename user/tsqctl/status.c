// SPDX-License-Identifier: GPL-2.0
/* tsqctl status: the hook, the link, tsqd, the kernel's defaults, NICs. */
#include <dirent.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "tsqctl.h"
#include "tsq_bpf.h"
#include "pidfile.h"
#include "tsq_report.h"
#include "print.h"

void tsqctl_read_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");

	buf[0] = 0;
	if (f) {
		if (fgets(buf, len, f))
			buf[strcspn(buf, "\n")] = 0;
		fclose(f);
	}
}

/* The BQL limit of each TX queue of dev, keyed by queue: "tx-0". */
static void print_bql(const char *dev)
{
	char path[512], lp[1024], val[32];
	struct dirent *q;
	DIR *qd;

	print_string(PRINT_FP, NULL, "%s", " bql");
	open_json_object("bql");
	snprintf(path, sizeof(path), "/sys/class/net/%s/queues", dev);
	qd = opendir(path);
	while (qd && (q = readdir(qd))) {
		if (strncmp(q->d_name, "tx-", 3))
			continue;
		snprintf(lp, sizeof(lp), "%s/%s/byte_queue_limits/limit", path, q->d_name);
		tsqctl_read_line(lp, val, sizeof(val));
		print_string(PRINT_FP, NULL, " %s=", q->d_name);
		print_number_text(PRINT_ANY, q->d_name, "%s", val);
	}
	if (qd)
		closedir(qd);
	close_json_object();
}

/* Per NIC with a driver: the driver, virtio-net's napi_tx (TSQ needs
 * timely TX completion) and the BQL limit of each TX queue.
 */
static void print_nics(void)
{
	char napi[8], path[512], drv[256];
	struct dirent *de;
	DIR *d;

	tsqctl_read_line("/sys/module/virtio_net/parameters/napi_tx", napi, sizeof(napi));
	d = opendir("/sys/class/net");
	open_json_array("nics");
	while (d && (de = readdir(d))) {
		const char *name;
		ssize_t n;

		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/sys/class/net/%s/device/driver", de->d_name);
		n = readlink(path, drv, sizeof(drv) - 1);
		if (n <= 0)
			continue;	/* virtual: lo, veth, ... */
		drv[n] = 0;
		name = strrchr(drv, '/') ? strrchr(drv, '/') + 1 : drv;
		open_json_object(NULL);
		print_string(PRINT_ANY, "dev", "nic %s:", de->d_name);
		print_string(PRINT_ANY, "driver", " driver %s", name);
		if (!strcmp(name, "virtio_net")) {
			print_bool(PRINT_JSON, "napi_tx", NULL, napi[0] == 'Y');
			print_string(PRINT_FP, NULL, " napi_tx %s", napi);
		}
		print_bql(de->d_name);
		print_nl();
		close_json_object();
	}
	if (d)
		closedir(d);
	close_json_array();
}

int tsqctl_status(const struct tsqctl_ctx *c, int argc, char **argv)
{
	char lob[32], cc[64], qd[64], why[512];
	int fd, daemon;
	enum tsq_hook hook;
	bool attached;
	__u32 id = 0;

	if (argc)
		return usage_error("status takes no arguments");
	fd = tsq_pinned(TSQ_PIN_LINK);
	daemon = tsq_pidfile_owner(TSQ_PIDFILE, why, sizeof(why));
	hook = tsq_hook_probe();
	attached = fd >= 0;
	if (fd >= 0) {
		id = tsq_link_id(fd);
		close(fd);
	}
	tsqctl_read_line("/proc/sys/net/ipv4/tcp_limit_output_bytes", lob, sizeof(lob));
	tsqctl_read_line("/proc/sys/net/ipv4/tcp_congestion_control", cc, sizeof(cc));
	tsqctl_read_line("/proc/sys/net/core/default_qdisc", qd, sizeof(qd));

	open_json_object(NULL);
	print_bool(PRINT_JSON, "hook", NULL, hook == TSQ_HOOK_TSQ_OPS);
	print_string(PRINT_JSON, "hook_type", NULL, tsq_hook_name(hook));
	print_string(PRINT_FP, NULL, "hook: %s\n", tsq_hook_str(hook));
	print_bool(PRINT_JSON, "attached", NULL, attached);
	print_string(PRINT_FP, NULL, "attached: %s", attached ? TSQ_PIN_DIR : "no");
	print_uint(PRINT_JSON, "link_id", NULL, id);
	if (attached)
		print_uint(PRINT_FP, NULL, " (link id %u)", id);
	print_nl();
	print_uint(PRINT_JSON, "tsqd_pid", NULL, daemon > 0 ? daemon : 0);
	if (daemon < 0) {
		/* Someone else's file there says nothing about tsqd. */
		print_null(PRINT_JSON, "tsqd_mode", NULL, NULL);
		print_string(PRINT_ANY, "tsqd_error", "tsqd: unknown: %s\n", why);
	} else if (!daemon) {
		print_null(PRINT_JSON, "tsqd_mode", NULL, NULL);
		print_string(PRINT_FP, NULL, "%s\n", "tsqd: not running");
	} else {
		print_string(PRINT_JSON, "tsqd_mode", NULL, hook ? "policy" : "observation");
		print_uint(PRINT_FP, NULL, "tsqd: running, pid %u", daemon);
		print_string(PRINT_FP, NULL, "%s\n", hook ? "" :
			     ", observation mode (no hook: statistics only)");
	}
	print_number_text(PRINT_ANY, "tcp_limit_output_bytes", "tcp_limit_output_bytes: %s\n",
			  lob);
	print_string(PRINT_ANY, "congestion_control", "congestion control: %s\n", cc);
	print_string(PRINT_ANY, "default_qdisc", "default qdisc: %s\n", qd);
	if (attached) {
		struct tsq_map_full f;

		if (!tsq_map_full_read(&f)) {
			open_json_object("map_full");
			print_u64(PRINT_JSON, "stats", NULL, f.stats);
			print_u64(PRINT_JSON, "socks", NULL, f.socks);
			close_json_object();
			if (!print_is_json())
				tsq_map_full_print(&f);
		}
	}
	print_nics();
	close_json_object();
	return 0;
}

// SPDX-License-Identifier: GPL-2.0
/* tsqctl: set and show TCP Small Queues policy per cgroup or systemd unit.
 *
 * Works on the maps tsq pins under /sys/fs/bpf/tsq, with or without tsqd.
 * See tsqctl(8) and the design comment in bpf/tsq_cgroup.bpf.c. This file
 * holds the options and the command table; each command group has its
 * own file.
 */
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <bpf/libbpf.h>

#include "tsqctl.h"
#include "tsq_bpf.h"
#include "cgroup.h"
#include "print.h"

int tsqctl_complain(int rc, const char *fmt, ...)
{
	va_list ap;

	fputs("tsqctl: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return rc;
}

int tsqctl_failed(int err, const char *what)
{
	char why[256] = "";

	if ((err == -EPERM || err == -ENOTDIR) && tsq_pin_dir_check(why, sizeof(why)) &&
	    why[0])
		return runtime_error("%s: %s", what, why);
	if (err == -ENOENT)
		return runtime_error("%s: tsq is not attached (start tsqd or run 'tsqctl attach')",
				     what);
	return runtime_error("%s: %s", what, strerror(-err));
}

static const struct cmd {
	const char *name;
	tsqctl_cmd_fn fn;
	bool needs_cgroup2;
} cmds[] = {
	{ "attach", tsqctl_attach, true },
	{ "set", tsqctl_set, true },
	{ "unset", tsqctl_unset, true },
	{ "show", tsqctl_show, true },
	{ "stats", tsqctl_stats, true },
	{ "reset", tsqctl_reset, true },
	{ "status", tsqctl_status, true },
	{ "top", tsqctl_top, true },
	/* ip netns exec hides cgroup2 behind a new /sys. */
	{ "doctor", tsqctl_doctor, false },
};

static int usage(FILE *f, int rc)
{
	fprintf(f,
		"Usage: tsqctl [-j [-p]] [-v] COMMAND [ARGS]\n"
		"  attach                             load and pin the policy program\n"
		"  set CGROUP|UNIT [limit SIZE] [limit-us USEC [rate pacing|delivered]]\n"
		"                  [tso SIZE] [budget SIZE]\n"
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
		"(nginx.service). SIZE as tc writes it: 65536, 64k, 64KiB, 1m.\n"
		"-j: JSON, -p: JSON pretty-printed, -v: libbpf's messages too.\n");
	return rc;
}

/* Without -v, libbpf says nothing: each failure is reported in one
 * line of ours, which scripts and the tests count on.
 */
static int libbpf_silent(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "pretty", no_argument, NULL, 'p' },
		{ "help", no_argument, NULL, 'h' },
		{ "verbose", no_argument, NULL, 'v' },
		{},
	};
	bool verbose = false, json = false, pretty = false;
	struct tsqctl_ctx c = { .mount = "" };
	static char mount[4096];
	const struct cmd *cmd = NULL;
	int opt, ret;

	while ((opt = getopt_long(argc, argv, "+jphv", opts, NULL)) != -1) {
		switch (opt) {
		case 'j':
			json = true;
			break;
		case 'p':
			json = pretty = true;
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
	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
		if (!strcmp(argv[0], cmds[i].name))
			cmd = &cmds[i];
	if (!cmd)
		return usage_error("What is \"%s\"? Try \"tsqctl --help\".", argv[0]);
	if (!verbose)
		libbpf_set_print(libbpf_silent);
	if (!tsq_cgroup_mount(mount, sizeof(mount)))
		c.mount = mount;
	else if (cmd->needs_cgroup2)
		return runtime_error("no cgroup2 mount found");
	if (print_start(stdout, json, pretty))
		return runtime_error("%s", strerror(ENOMEM));
	ret = cmd->fn(&c, argc - 1, argv + 1);
	print_end();
	return ret;
}

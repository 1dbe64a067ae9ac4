/* SPDX-License-Identifier: GPL-2.0 */
/* tsqctl's commands, one file a command group (as bpftool splits its). */
#ifndef __TSQCTL_H
#define __TSQCTL_H

#include <stdbool.h>
#include <stddef.h>

/* What every command gets from main(): the cgroup2 mount ("" if none:
 * doctor runs without one). -j is the print layer's mode.
 */
struct tsqctl_ctx {
	const char *mount;
};

typedef int (*tsqctl_cmd_fn)(const struct tsqctl_ctx *c, int argc, char **argv);

int tsqctl_attach(const struct tsqctl_ctx *c, int argc, char **argv);	/* attach.c */
int tsqctl_reset(const struct tsqctl_ctx *c, int argc, char **argv);
int tsqctl_set(const struct tsqctl_ctx *c, int argc, char **argv);	/* policy.c */
int tsqctl_unset(const struct tsqctl_ctx *c, int argc, char **argv);
int tsqctl_show(const struct tsqctl_ctx *c, int argc, char **argv);
int tsqctl_stats(const struct tsqctl_ctx *c, int argc, char **argv);	/* stats.c */
int tsqctl_status(const struct tsqctl_ctx *c, int argc, char **argv);	/* status.c */
int tsqctl_top(const struct tsqctl_ctx *c, int argc, char **argv);	/* top.c */
int tsqctl_doctor(const struct tsqctl_ctx *c, int argc, char **argv);	/* doctor.c */

/* One line on stderr after "tsqctl: "; returns rc for the caller to exit
 * with. Exit codes: 2 the command line is wrong (nothing was done), 1 the
 * system could not do it.
 */
__attribute__((format(printf, 2, 3)))
int tsqctl_complain(int rc, const char *fmt, ...);
#define usage_error(...)	tsqctl_complain(2, __VA_ARGS__)
#define runtime_error(...)	tsqctl_complain(1, __VA_ARGS__)

/* A libbpf or system call failed with -err while doing what: say why in
 * one line (not attached, a pin directory refused, errno); returns 1.
 */
int tsqctl_failed(int err, const char *what);

/* The first line of a file, without its newline; "" if unreadable. */
void tsqctl_read_line(const char *path, char *buf, size_t len);	/* status.c */

#endif /* __TSQCTL_H */

/* SPDX-License-Identifier: GPL-2.0 */
/* tsqctl commands that live in their own files. */
#ifndef __TSQCTL_H
#define __TSQCTL_H

#include <stdbool.h>
#include <stddef.h>

/* What every command gets from main(): -j, the cgroup2 mount. */
struct tsqctl_ctx {
	bool json;
	const char *mount;
};

int tsqctl_top(const struct tsqctl_ctx *c, int argc, char **argv);	/* top.c */
int tsqctl_doctor(const struct tsqctl_ctx *c, int argc, char **argv);	/* doctor.c */

/* The first line of a file, without its newline; "" if unreadable. */
void tsqctl_read_line(const char *path, char *buf, size_t len);	/* doctor.c */

#endif /* __TSQCTL_H */

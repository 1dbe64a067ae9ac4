/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* systemd unit names and where their cgroups are. */
#ifndef __TSQ_UNIT_H
#define __TSQ_UNIT_H

#include <stdbool.h>
#include <stddef.h>

#define TSQ_UNIT_NAME_MAX	255	/* systemd's UNIT_NAME_MAX - 1 */

/*
 * A unit that has a cgroup: NAME.service, NAME.slice or NAME.scope in
 * systemd's charset [A-Za-z0-9:_.\-@], instances but not templates
 * ("a@b.service", not "a@.service"). If not, *why (if given) says why.
 */
bool tsq_unit_name_valid(const char *name, const char **why);

/*
 * Where systemd puts a slice, from its name alone:
 * "a-b.slice" -> "/a.slice/a-b.slice", "-.slice" -> "/".
 * Returns 0, -EINVAL for a name that is not a valid slice, -ENAMETOOLONG.
 */
int tsq_unit_slice_path(const char *slice, char *path, size_t len);

/*
 * Where systemd puts a unit unless its Slice= says otherwise: a slice
 * where its name puts it, an instance (a@b.service) in its template's
 * slice (/system.slice/system-a.slice/a@b.service), any other unit in
 * /system.slice. 0, -EINVAL (invalid name), -ENAMETOOLONG.
 */
int tsq_unit_default_path(const char *unit, char *path, size_t len);

/* The default path if that cgroup exists below mount; else -ENOENT. */
int tsq_unit_cgroup_default(const char *mount, const char *unit, char *path, size_t len);

/* PID 1 is systemd (sd_booted(3)). */
bool tsq_systemd_running(void);

/* TCG: 0.4-1.2 s idle, 7 s loaded; tsqd does not wait for it */
#define TSQ_SYSTEMCTL_TIMEOUT_MS	10000

/*
 * `systemctl show --property=ControlGroup` of units, run without waiting
 * for it (tsqd's event loop polls fd): start, read whenever fd is
 * readable until it returns 0 (all read) or an error other than -EAGAIN
 * (-ETIMEDOUT past TSQ_SYSTEMCTL_TIMEOUT_MS), then finish with that
 * result, which reaps the child (killed on an error) and gives paths[]
 * as tsq_units_systemd() does. On start's error there is nothing to
 * finish.
 */
struct tsq_systemctl {
	int pid;
	int fd;			/* its stdout, O_NONBLOCK */
	char *out;
	size_t len, cap;
	long long end;		/* CLOCK_MONOTONIC ms: killed then */
};

int tsq_systemctl_start(struct tsq_systemctl *sc, const char *const *units, size_t n);
int tsq_systemctl_read(struct tsq_systemctl *sc);
int tsq_systemctl_finish(struct tsq_systemctl *sc, int err, size_t n, char **paths);

/*
 * The ControlGroup of each of units, from one `systemctl show`: paths[i]
 * is malloc()ed ("/system.slice/a.service"), or NULL for a unit that has
 * no cgroup now (not running, unknown). 0, or -errno when systemctl is
 * missing (-ENOENT), fails or times out; then every paths[i] is NULL.
 */
int tsq_units_systemd(const char *const *units, size_t n, char **paths);

/*
 * The cgroup of a unit, as a path below mount ("/system.slice/a.service"):
 * the default path (tsq_unit_cgroup_default()) when that cgroup exists,
 * which only root and systemd can make; else systemd's ControlGroup,
 * where systemd runs and answers. Never a search of the tree: a
 * directory of the unit's name elsewhere may be anyone's.
 * Returns 0, -EINVAL for an invalid name, -ENOENT if the unit has no
 * cgroup (yet), -ENAMETOOLONG.
 */
int tsq_unit_cgroup(const char *mount, const char *unit, char *path, size_t len);

#endif /* __TSQ_UNIT_H */

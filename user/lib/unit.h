/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* systemd unit names and where their cgroups are. */
#ifndef __TSQ_UNIT_H
#define __TSQ_UNIT_H

#include <stdbool.h>
#include <stddef.h>

#define TSQ_UNIT_NAME_MAX	255	/* systemd's UNIT_NAME_MAX - 1 */
#define TSQ_UNIT_SEARCH_DEPTH	8	/* components below the cgroup2 root */

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
 * The cgroup of a unit, as a path below mount ("/system.slice/a.service").
 * Slices are looked up where their name puts them, services first in
 * system.slice; otherwise the tree is searched, TSQ_UNIT_SEARCH_DEPTH
 * deep, following no symlinks, for a directory named like the unit.
 * The shallowest match wins: a unit of the same name in a container's
 * nested tree is deeper.
 * Returns 0, -EINVAL for an invalid name, -ENOENT if there is no such
 * cgroup (yet), -ENOTUNIQ if two are equally shallow, -ENAMETOOLONG.
 */
int tsq_unit_cgroup(const char *mount, const char *unit, char *path, size_t len);

#endif /* __TSQ_UNIT_H */

/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * tsq.conf(5): /etc/tsq/tsq.conf, then each *.conf in /etc/tsq/tsq.conf.d.
 *
 *   # TARGET  KEYWORD VALUE [KEYWORD VALUE]...
 *   backup.service            limit 64k tso 16k
 *   /system.slice/rsync.scope limit-us 2000
 *
 * One entry per line; '#' starts a comment where a word could start.
 */
#ifndef __TSQ_CONFFILE_H
#define __TSQ_CONFFILE_H

#include <stddef.h>

#include "tsq.h"
#include "target.h"

#define TSQ_CONF_FILE		"/etc/tsq/tsq.conf"
#define TSQ_CONF_DIR		"/etc/tsq/tsq.conf.d"
#define TSQ_CONF_MAX_LINE	4096		/* bytes, without the newline */
#define TSQ_CONF_MAX_ENTRIES	TSQ_MAX_CGROUPS	/* in all files together: the maps' size */
#define TSQ_CONF_MAX_FILE	(64 << 20)	/* bytes */

struct tsq_conf_entry {
	char *target;		/* canonical, see tsq_target_parse() */
	enum tsq_target_type type;
	struct tsq_policy policy;
	const char *file;	/* where it was set, for messages */
	unsigned int line;
};

struct tsq_conf {
	struct tsq_conf_entry *entries;
	size_t nr, alloc;
	char **files;		/* the names entry->file points to */
	size_t nr_files;
	const char *mount;	/* cgroup2 mount point, borrowed */
	size_t *hash;		/* entry index + 1, 0 for empty: duplicates */
	size_t hash_size;	/* a power of 2 */
};

/* mount is kept, not copied: it must outlive conf. */
void tsq_conf_init(struct tsq_conf *conf, const char *mount);
void tsq_conf_free(struct tsq_conf *conf);

/*
 * Add the entries of one file, given as a buffer (name is for messages)
 * or by path. All or nothing: on error conf is as it was, err holds
 * "FILE:LINE: reason" and -EINVAL (or -ENOMEM, or the -errno of reading
 * the file) is returned. A target already in conf is an error naming
 * both places.
 */
int tsq_conf_parse_buf(struct tsq_conf *conf, const char *name,
		       const char *buf, size_t len, char *err, size_t errlen);
int tsq_conf_parse_file(struct tsq_conf *conf, const char *path,
			char *err, size_t errlen);

/*
 * The main file, then every *.conf in dir in strcmp() order. The main
 * file must exist (NULL: none); the directory may be missing or NULL.
 * Each file must be a regular file, no symbolic link, owned by root (or
 * the effective uid) and not writable by group or others; the directory
 * too, but it may be a link. -EPERM for an owner or mode refused. All
 * or nothing, like tsq_conf_parse_buf().
 */
int tsq_conf_load(struct tsq_conf *conf, const char *file, const char *dir,
		  char *err, size_t errlen);

#endif /* __TSQ_CONFFILE_H */

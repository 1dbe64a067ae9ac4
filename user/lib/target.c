// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* TARGET words: which cgroup, or which unit, a policy line names. */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "cgroup.h"
#include "errmsg.h"
#include "quote.h"
#include "target.h"
#include "unit.h"


/* Collapse slashes, drop a trailing one; NULL or a reason to refuse. */
static const char *canonical(const char *in, char *out, size_t outlen)
{
	size_t o = 0, n;

	while (*in) {
		while (*in == '/')
			in++;
		if (!*in)
			break;
		n = strcspn(in, "/");
		if ((n == 1 && in[0] == '.') ||
		    (n == 2 && in[0] == '.' && in[1] == '.'))
			return "\".\" and \"..\" are not allowed";
		if (n > NAME_MAX)
			return "has a component longer than 255 bytes";
		if (o + 1 + n >= outlen)
			return "is too long";
		out[o++] = '/';
		memcpy(out + o, in, n);
		o += n;
		in += n;
	}
	if (!o)
		out[o++] = '/';
	out[o] = '\0';
	return NULL;
}

/* "/sys/fs/cgroup/a" below mount "/sys/fs/cgroup" is "/a". */
static bool strip_mount(char *path, const char *mount)
{
	size_t n = strlen(mount);

	if (strncmp(path, mount, n) || (path[n] && path[n] != '/'))
		return false;
	if (!path[n])
		strcpy(path, "/");
	else
		memmove(path, path + n, strlen(path + n) + 1);
	return true;
}

static bool under_sys(const char *path)
{
	return !strncmp(path, "/sys", 4) && (!path[4] || path[4] == '/');
}

int tsq_target_parse(const char *mount, const char *word, struct tsq_target *t,
		     char *err, size_t errlen)
{
	char mnt[TSQ_TARGET_MAX], q[TSQ_QUOTE_BUFSZ];
	const char *why, *p;
	bool stripped;

	tsq_quote(q, sizeof(q), word);
	for (p = word; *p; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			return tsq_errf(err, errlen,
				    "target \"%s\" has a control character", q);

	if (word[0] != '/') {
		if (strchr(word, '/'))
			return tsq_errf(err, errlen,
				    "cgroup path \"%s\" must start with \"/\" (the cgroup2 root)",
				    q);
		if (!tsq_unit_name_valid(word, &why))
			return tsq_errf(err, errlen,
				    "\"%s\" is neither a cgroup path nor a unit name: it %s",
				    q, why);
		t->type = TSQ_TARGET_UNIT;
		strcpy(t->name, word);	/* fits: <= TSQ_UNIT_NAME_MAX */
		return 0;
	}

	t->type = TSQ_TARGET_CGROUP;
	why = canonical(word, t->name, sizeof(t->name));
	if (why)
		return tsq_errf(err, errlen, "cgroup path \"%s\" %s", q, why);
	/* mount is "/" where cgroup2 is mounted on the root: nothing to strip. */
	if (canonical(mount, mnt, sizeof(mnt)) || !strcmp(mnt, "/"))
		return 0;
	stripped = strip_mount(t->name, mnt);
	/*
	 * A first component "sys" is a file system path; so that every
	 * canonical name reads back as itself, a top-level cgroup named
	 * "sys" cannot be a target.
	 */
	if (!under_sys(t->name))
		return 0;
	if (stripped)
		return tsq_errf(err, errlen,
			    "cgroup path \"%s\": a top-level cgroup named \"sys\" is not supported",
			    q);
	return tsq_errf(err, errlen, "\"%s\" is not under the cgroup2 mount %s",
		    q, mnt);
}

int tsq_target_open(const char *mount, enum tsq_target_type type, const char *name,
		    char *path, size_t len, int *fd)
{
	int ret;

	if (type == TSQ_TARGET_UNIT) {
		ret = tsq_unit_cgroup(mount, name, path, len);
		if (ret)
			return ret;
	} else if (snprintf(path, len, "%s", name) >= (int)len) {
		return -ENAMETOOLONG;
	}
	return tsq_cgroup_open(mount, path, fd);
}

int tsq_target_expected(enum tsq_target_type type, const char *name, char *path,
			size_t len)
{
	if (type == TSQ_TARGET_UNIT)
		return tsq_unit_default_path(name, path, len);
	return snprintf(path, len, "%s", name) >= (int)len ? -ENAMETOOLONG : 0;
}

// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * tsq.conf and tsq.conf.d. A set of files is taken whole or not at all:
 * half a policy set applied is worse than the old set kept, so every
 * error undoes what the same call added.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "conffile.h"
#include "policy.h"
#include "quote.h"
#include "unit.h"

#define ERRLEN	512

__attribute__((format(printf, 5, 6)))
static int fail(char *err, size_t errlen, const char *file, unsigned int line,
		const char *fmt, ...)
{
	char q[ERRLEN];
	va_list ap;
	int n;

	if (err && errlen) {
		tsq_quote(q, sizeof(q), file);
		n = line ? snprintf(err, errlen, "%s:%u: ", q, line) :
			   snprintf(err, errlen, "%s: ", q);
		if (n >= 0 && (size_t)n < errlen) {
			va_start(ap, fmt);
			vsnprintf(err + n, errlen - n, fmt, ap);
			va_end(ap);
		}
	}
	return -EINVAL;
}

void tsq_conf_init(struct tsq_conf *conf, const char *mount)
{
	memset(conf, 0, sizeof(*conf));
	conf->mount = mount;
}

/*
 * What the duplicate check compares: a slice's cgroup follows from its
 * name, so "x.slice" is the cgroup "/x.slice" (and "a-b.slice" is
 * "/a.slice/a-b.slice"); two entries for one cgroup would have the
 * second win in the map, and removing either line drop both. Other
 * units are found by a search, and keep their name.
 */
static const char *dup_key(enum tsq_target_type *type, const char *name,
			   char *buf, size_t len)
{
	if (*type == TSQ_TARGET_UNIT && !tsq_unit_slice_path(name, buf, len)) {
		*type = TSQ_TARGET_CGROUP;
		return buf;
	}
	return name;
}

/* FNV-1a over the duplicate key; the type keeps unit "x" apart from a
 * cgroup named "x".
 */
static size_t hash_key(enum tsq_target_type type, const char *name)
{
	char buf[TSQ_TARGET_MAX];
	const char *s = dup_key(&type, name, buf, sizeof(buf));
	uint64_t h = 14695981039346656037ULL ^ type;

	for (; *s; s++) {
		h ^= (unsigned char)*s;
		h *= 1099511628211ULL;
	}
	return h;
}

static void hash_insert(struct tsq_conf *conf, size_t idx)
{
	const struct tsq_conf_entry *e = &conf->entries[idx];
	size_t mask = conf->hash_size - 1, i;

	for (i = hash_key(e->type, e->target) & mask; conf->hash[i];
	     i = (i + 1) & mask)
		;
	conf->hash[i] = idx + 1;
}

static void hash_rebuild(struct tsq_conf *conf)
{
	size_t i;

	memset(conf->hash, 0, conf->hash_size * sizeof(*conf->hash));
	for (i = 0; i < conf->nr; i++)
		hash_insert(conf, i);
}

static const struct tsq_conf_entry *find(const struct tsq_conf *conf,
					 const struct tsq_target *t)
{
	size_t mask = conf->hash_size - 1, i;
	char tbuf[TSQ_TARGET_MAX], ebuf[TSQ_TARGET_MAX];
	enum tsq_target_type ttype = t->type, etype;
	const struct tsq_conf_entry *e;
	const char *tkey, *ekey;

	if (!conf->hash_size)
		return NULL;
	tkey = dup_key(&ttype, t->name, tbuf, sizeof(tbuf));
	for (i = hash_key(t->type, t->name) & mask; conf->hash[i];
	     i = (i + 1) & mask) {
		e = &conf->entries[conf->hash[i] - 1];
		etype = e->type;
		ekey = dup_key(&etype, e->target, ebuf, sizeof(ebuf));
		if (etype == ttype && !strcmp(ekey, tkey))
			return e;
	}
	return NULL;
}

/* Room for one more entry, the hash at most half full. */
static int reserve(struct tsq_conf *conf)
{
	struct tsq_conf_entry *entries;
	size_t n, *hash;

	if (conf->nr == conf->alloc) {
		n = conf->alloc ? conf->alloc * 2 : 64;
		entries = realloc(conf->entries, n * sizeof(*entries));
		if (!entries)
			return -ENOMEM;
		conf->entries = entries;
		conf->alloc = n;
	}
	if ((conf->nr + 1) * 2 > conf->hash_size) {
		n = conf->hash_size ? conf->hash_size * 2 : 128;
		hash = calloc(n, sizeof(*hash));
		if (!hash)
			return -ENOMEM;
		free(conf->hash);
		conf->hash = hash;
		conf->hash_size = n;
		hash_rebuild(conf);
	}
	return 0;
}

static int add_file(struct tsq_conf *conf, const char *name, const char **out)
{
	char **files, *copy;

	files = realloc(conf->files, (conf->nr_files + 1) * sizeof(*files));
	if (!files)
		return -ENOMEM;
	conf->files = files;
	copy = strdup(name);
	if (!copy)
		return -ENOMEM;
	conf->files[conf->nr_files++] = copy;
	*out = copy;
	return 0;
}

/* Back to nr entries and nr_files files. */
static void truncate_conf(struct tsq_conf *conf, size_t nr, size_t nr_files)
{
	while (conf->nr > nr)
		free(conf->entries[--conf->nr].target);
	while (conf->nr_files > nr_files)
		free(conf->files[--conf->nr_files]);
	if (conf->hash_size)
		hash_rebuild(conf);
}

void tsq_conf_free(struct tsq_conf *conf)
{
	truncate_conf(conf, 0, 0);
	free(conf->entries);
	free(conf->files);
	free(conf->hash);
	tsq_conf_init(conf, conf->mount);
}

static int is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r';
}

static int parse_line(struct tsq_conf *conf, const char *file,
		      unsigned int lineno, char *line, char *err, size_t errlen)
{
	char *argv[TSQ_CONF_MAX_LINE / 2 + 1], msg[ERRLEN], q[ERRLEN];
	const struct tsq_conf_entry *dup;
	struct tsq_conf_entry *e;
	struct tsq_policy policy;
	struct tsq_target t;
	int argc = 0, ret;
	char *s;

	for (s = line; *s; s++)
		if (((unsigned char)*s < 0x20 && !is_blank(*s)) || *s == 0x7f)
			return fail(err, errlen, file, lineno,
				    "control character 0x%02x", *s);

	for (s = line;;) {
		while (is_blank(*s))
			s++;
		if (!*s || *s == '#')
			break;
		argv[argc++] = s;
		while (*s && !is_blank(*s))
			s++;
		if (*s)
			*s++ = '\0';
	}
	if (!argc)
		return 0;
	if (argc == 1)
		return fail(err, errlen, file, lineno,
			    "\"%s\" has no policy: expected KEYWORD VALUE after it",
			    tsq_quote(q, TSQ_QUOTE_BUFSZ, argv[0]));

	if (tsq_target_parse(conf->mount, argv[0], &t, msg, sizeof(msg)) ||
	    tsq_policy_parse_args(argc - 1, argv + 1, &policy, msg, sizeof(msg)))
		return fail(err, errlen, file, lineno, "%s", msg);

	dup = find(conf, &t);
	if (dup && !strcmp(dup->target, t.name))
		return fail(err, errlen, file, lineno,
			    "duplicate target \"%s\", first at %s:%u",
			    tsq_quote(q, TSQ_QUOTE_BUFSZ, t.name),
			    tsq_quote(msg, sizeof(msg), dup->file), dup->line);
	if (dup) {
		char q2[TSQ_QUOTE_BUFSZ];

		return fail(err, errlen, file, lineno,
			    "duplicate target: \"%s\" and \"%s\" at %s:%u name the same cgroup",
			    tsq_quote(q, TSQ_QUOTE_BUFSZ, t.name),
			    tsq_quote(q2, TSQ_QUOTE_BUFSZ, dup->target),
			    tsq_quote(msg, sizeof(msg), dup->file), dup->line);
	}
	if (conf->nr >= TSQ_CONF_MAX_ENTRIES)
		return fail(err, errlen, file, lineno,
			    "more than %u entries, the most tsq's maps hold",
			    TSQ_CONF_MAX_ENTRIES);

	ret = reserve(conf);
	if (ret)
		return ret;
	e = &conf->entries[conf->nr];
	e->target = strdup(t.name);
	if (!e->target)
		return -ENOMEM;
	e->type = t.type;
	e->policy = policy;
	e->file = file;
	e->line = lineno;
	hash_insert(conf, conf->nr++);
	return 0;
}

static int parse_lines(struct tsq_conf *conf, const char *file,
		       const char *buf, size_t len, char *err, size_t errlen)
{
	const char *p = buf, *end = buf + len, *nl;
	char line[TSQ_CONF_MAX_LINE + 1];
	unsigned int lineno = 0;
	size_t n;
	int ret;

	while (p < end) {
		nl = memchr(p, '\n', end - p);
		n = (nl ? nl : end) - p;
		lineno++;
		if (n > TSQ_CONF_MAX_LINE)
			return fail(err, errlen, file, lineno,
				    "line longer than %u bytes", TSQ_CONF_MAX_LINE);
		if (memchr(p, '\0', n))
			return fail(err, errlen, file, lineno, "NUL byte");
		memcpy(line, p, n);
		line[n] = '\0';
		ret = parse_line(conf, file, lineno, line, err, errlen);
		if (ret)
			return ret;
		p = nl ? nl + 1 : end;
	}
	return 0;
}

int tsq_conf_parse_buf(struct tsq_conf *conf, const char *name,
		       const char *buf, size_t len, char *err, size_t errlen)
{
	size_t nr = conf->nr, nr_files = conf->nr_files;
	const char *file;
	int ret;

	ret = add_file(conf, name, &file);
	if (!ret)
		ret = parse_lines(conf, file, buf, len, err, errlen);
	if (ret == -ENOMEM)
		fail(err, errlen, name, 0, "out of memory");
	if (ret)
		truncate_conf(conf, nr, nr_files);
	return ret;
}

static int read_all(int fd, char **bufp, size_t *lenp)
{
	size_t len = 0, alloc = 0;
	char *buf = NULL, *n;
	ssize_t r;

	for (;;) {
		if (len == alloc) {
			alloc = alloc ? alloc * 2 : 8192;
			if (alloc > TSQ_CONF_MAX_FILE + 1)
				alloc = TSQ_CONF_MAX_FILE + 1;
			if (len == alloc) {
				free(buf);
				return -EFBIG;
			}
			n = realloc(buf, alloc);
			if (!n) {
				free(buf);
				return -ENOMEM;
			}
			buf = n;
		}
		r = read(fd, buf + len, alloc - len);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			free(buf);
			return -errno;
		}
		if (!r)
			break;
		len += r;
	}
	*bufp = buf;
	*lenp = len;
	return 0;
}

/*
 * Policy files decide for the whole machine: like sudoers, they count
 * only when root (or whoever runs us) owns them and nobody else can
 * write them. The same goes for the drop-in directory.
 */
static int check_owner(const struct stat *st, const char *path, char *err,
		       size_t errlen)
{
	if (st->st_uid != 0 && st->st_uid != geteuid()) {
		fail(err, errlen, path, 0, "owned by uid %u, not root",
		     (unsigned int)st->st_uid);
		return -EPERM;
	}
	if (st->st_mode & (S_IWGRP | S_IWOTH)) {
		fail(err, errlen, path, 0,
		     "writable by group or others (mode %04o): chmod go-w",
		     (unsigned int)(st->st_mode & 07777));
		return -EPERM;
	}
	return 0;
}

/*
 * name relative to dfd; path is what messages call it. No symbolic link
 * is followed, and O_NONBLOCK keeps a FIFO from blocking the open: it is
 * then refused as not a regular file.
 */
static int parse_at(struct tsq_conf *conf, int dfd, const char *name,
		    const char *path, char *err, size_t errlen)
{
	size_t len = 0;
	char *buf = NULL;
	struct stat st;
	int fd, ret;

	fd = openat(dfd, name, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK |
		    O_NOFOLLOW);
	if (fd < 0) {
		ret = -errno;
		if (ret == -ELOOP)
			fail(err, errlen, path, 0, "a symbolic link, not followed");
		else
			fail(err, errlen, path, 0, "%s", strerror(-ret));
		return ret;
	}
	if (fstat(fd, &st)) {
		ret = -errno;
		fail(err, errlen, path, 0, "%s", strerror(-ret));
		goto out;
	}
	if (!S_ISREG(st.st_mode)) {
		ret = fail(err, errlen, path, 0, "not a regular file");
		goto out;
	}
	ret = check_owner(&st, path, err, errlen);
	if (ret)
		goto out;
	ret = read_all(fd, &buf, &len);
	if (ret == -EFBIG) {
		fail(err, errlen, path, 0, "larger than %u bytes",
		     TSQ_CONF_MAX_FILE);
		goto out;
	}
	if (ret) {
		fail(err, errlen, path, 0, "%s", strerror(-ret));
		goto out;
	}
	ret = tsq_conf_parse_buf(conf, path, buf, len, err, errlen);
	free(buf);
out:
	close(fd);
	return ret;
}

int tsq_conf_parse_file(struct tsq_conf *conf, const char *path,
			char *err, size_t errlen)
{
	return parse_at(conf, AT_FDCWD, path, path, err, errlen);
}

static int conf_name(const struct dirent *de)
{
	size_t n = strlen(de->d_name);

	return de->d_name[0] != '.' && n > 5 &&
	       !strcmp(de->d_name + n - 5, ".conf");
}

/* Byte order, as systemd sorts drop-ins: the locale must not matter. */
static int by_name(const struct dirent **a, const struct dirent **b)
{
	return strcmp((*a)->d_name, (*b)->d_name);
}

static int load_dir(struct tsq_conf *conf, const char *dir,
		    char *err, size_t errlen)
{
	struct dirent **names = NULL;
	struct stat st;
	char *path;
	int i, n = 0, dfd, ret;

	dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0 && errno == ENOENT)
		return 0;
	if (dfd < 0 || fstat(dfd, &st)) {
		ret = -errno;
		fail(err, errlen, dir, 0, "%s", strerror(-ret));
		goto out;
	}
	ret = check_owner(&st, dir, err, errlen);
	if (ret)
		goto out;
	n = scandirat(dfd, ".", &names, conf_name, by_name);
	if (n < 0) {
		ret = -errno;
		n = 0;
		fail(err, errlen, dir, 0, "%s", strerror(-ret));
		goto out;
	}
	for (i = 0; i < n && !ret; i++) {
		if (asprintf(&path, "%s/%s", dir, names[i]->d_name) < 0) {
			fail(err, errlen, dir, 0, "out of memory");
			ret = -ENOMEM;
			break;
		}
		ret = parse_at(conf, dfd, names[i]->d_name, path, err, errlen);
		free(path);
	}
out:
	for (i = 0; i < n; i++)
		free(names[i]);
	free(names);
	if (dfd >= 0)
		close(dfd);
	return ret;
}

int tsq_conf_load(struct tsq_conf *conf, const char *file, const char *dir,
		  char *err, size_t errlen)
{
	size_t nr = conf->nr, nr_files = conf->nr_files;
	int ret = 0;

	/* A missing main file is an error: an editor's rename or a broken
	 * deployment must not read as "no policy at all".
	 */
	if (file)
		ret = tsq_conf_parse_file(conf, file, err, errlen);
	if (!ret && dir)
		ret = load_dir(conf, dir, err, errlen);
	if (ret)
		truncate_conf(conf, nr, nr_files);
	return ret;
}

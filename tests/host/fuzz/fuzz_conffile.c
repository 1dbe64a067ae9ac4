// SPDX-License-Identifier: GPL-2.0
/*
 * tsq_conf_parse_buf() on arbitrary bytes. Accepted: every entry is
 * canonical and valid, targets are unique, and the set written back out
 * as a file parses to the same set. Refused: nothing is kept and the
 * message is one "fuzz.conf:..." line.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conffile.h"
#include "policy.h"
#include "unit.h"

#define MNT	"/sys/fs/cgroup"

static void check_entry(const struct tsq_conf_entry *e)
{
	const char *t = e->target, *p, *q;
	size_t n;

	if (tsq_policy_validate(&e->policy, NULL, 0) || !e->policy.flags ||
	    !e->line || strcmp(e->file, "fuzz.conf"))
		abort();
	if (e->type == TSQ_TARGET_UNIT) {
		if (!tsq_unit_name_valid(t, NULL))
			abort();
		return;
	}
	/* Canonical: "/" or "/a/b", no empty, "." or ".." component. */
	if (t[0] != '/' || !strcmp(t, "/sys") || !strncmp(t, "/sys/", 5))
		abort();
	for (p = t; t[1] && *p; p = q) {
		q = strchr(p + 1, '/') ?: p + strlen(p);
		n = q - p - 1;
		if (!n || (n == 1 && p[1] == '.') ||
		    (n == 2 && p[1] == '.' && p[2] == '.'))
			abort();
	}
}

/* Write the set back out as a conf file. */
static char *serialize(const struct tsq_conf *conf, size_t *len)
{
	char fmt[TSQ_POLICY_FMT_BUFSZ], *buf;
	size_t i, off = 0, cap = 1;

	for (i = 0; i < conf->nr; i++)
		cap += strlen(conf->entries[i].target) + 2 + sizeof(fmt);
	buf = malloc(cap);
	if (!buf)
		return NULL;
	for (i = 0; i < conf->nr; i++) {
		if (tsq_policy_format(&conf->entries[i].policy, fmt,
				      sizeof(fmt)) <= 0)
			abort();
		off += sprintf(buf + off, "%s %s\n", conf->entries[i].target,
			       fmt);
	}
	*len = off;
	return buf;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct tsq_conf conf, again;
	char err[1024], *text;
	size_t i, j, len;

	tsq_conf_init(&conf, MNT);
	err[0] = '\0';
	if (tsq_conf_parse_buf(&conf, "fuzz.conf", (const char *)data, size,
			       err, sizeof(err))) {
		if (conf.nr || conf.nr_files || strncmp(err, "fuzz.conf:", 10) ||
		    strchr(err, '\n'))
			abort();
		tsq_conf_free(&conf);
		return 0;
	}

	for (i = 0; i < conf.nr; i++) {
		check_entry(&conf.entries[i]);
		for (j = 0; j < i && conf.nr < 512; j++)
			if (conf.entries[i].type == conf.entries[j].type &&
			    !strcmp(conf.entries[i].target, conf.entries[j].target))
				abort();
	}

	/* The same file again duplicates its first entry and changes nothing. */
	if (conf.nr) {
		if (!tsq_conf_parse_buf(&conf, "fuzz.conf", (const char *)data,
					size, err, sizeof(err)) ||
		    conf.nr_files != 1 || !strstr(err, "duplicate target"))
			abort();
	}

	text = serialize(&conf, &len);
	if (text) {
		tsq_conf_init(&again, MNT);
		if (tsq_conf_parse_buf(&again, "fuzz.conf", text, len, err,
				       sizeof(err)) || again.nr != conf.nr)
			abort();
		for (i = 0; i < conf.nr; i++)
			if (again.entries[i].type != conf.entries[i].type ||
			    strcmp(again.entries[i].target, conf.entries[i].target) ||
			    memcmp(&again.entries[i].policy,
				   &conf.entries[i].policy,
				   sizeof(struct tsq_policy)))
				abort();
		tsq_conf_free(&again);
		free(text);
	}
	tsq_conf_free(&conf);
	return 0;
}

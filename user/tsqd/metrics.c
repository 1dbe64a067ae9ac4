// SPDX-License-Identifier: GPL-2.0
/* Prometheus text format: a HELP and TYPE line per metric family, then one
 * sample per cgroup, labelled with its path. A summary's _sum and _count
 * are two entries of one family.
 */
#include <stddef.h>

#include "metrics.h"
#include "policy.h"
#include "quote.h"

enum { U64, S64, U32 };

static const struct family {
	const char *name;	/* the family's */
	const char *suffix;	/* the samples': name + suffix */
	const char *type, *help;	/* NULL: the family of the entry before */
	size_t off;
	int kind;
} families[] = {
#define F(n, sfx, t, h, field, k) { n, sfx, t, h, offsetof(struct tsq_cgrp_report, field), k }
	F("tsq_throttles_total", "", "counter", "Times a socket was held back by its own TSQ limit.",
	  sum.throttles, U64),
	F("tsq_limit_bytes", "_sum", "summary",
	  "Limits in force at those times: _sum / _count is their mean.", sum.limit_bytes, U64),
	F("tsq_limit_bytes", "_count", NULL, NULL, sum.limit_samples, U64),
	F("tsq_group_throttles_total", "", "counter",
	  "Times a socket waited for room in the cgroup's budget.", sum.group_throttles, U64),
	F("tsq_sockets", "", "gauge", "Established TCP sockets the policy covers.",
	  sockets, S64),
	F("tsq_queued_sockets", "", "gauge", "Sockets of tsqd's netns with bytes in queues.",
	  queued_sockets, U32),
	F("tsq_queued_bytes", "", "gauge",
	  "Bytes in queues: the budget's count, else tsqd's netns' sockets'.", queued, U64),
#undef F
};

static unsigned long long value(const struct tsq_cgrp_report *e, const struct family *fm)
{
	const char *p = (const char *)e + fm->off;

	switch (fm->kind) {
	case S64:
		return *(const long long *)p < 0 ? 0 : *(const long long *)p;
	case U32:
		return *(const unsigned int *)p;
	default:
		return *(const unsigned long long *)p;
	}
}

/* One family a policy field, from the table the parser uses. */
static void policy_family(FILE *f, const struct tsq_report *r,
			  const struct tsq_policy_field *pf)
{
	fprintf(f, "# HELP %s %s\n# TYPE %s gauge\n", pf->metric, pf->help, pf->metric);
	for (size_t i = 0; i < r->nr; i++) {
		const struct tsq_cgrp_report *e = &r->v[i];

		if (!(e->policy.flags & pf->flag))
			continue;
		fprintf(f, "%s{cgroup=", pf->metric);
		tsq_prom_label(f, e->path);
		if (pf->usec)	/* Prometheus' base unit */
			fprintf(f, "} %.6f\n", tsq_policy_value(&e->policy, pf) / 1e6);
		else
			fprintf(f, "} %u\n", tsq_policy_value(&e->policy, pf));
	}
}

/* One family a modifier: 1 or 0 for each cgroup with its field. */
static void mod_family(FILE *f, const struct tsq_report *r, const struct tsq_policy_mod *m)
{
	fprintf(f, "# HELP %s %s\n# TYPE %s gauge\n", m->metric, m->help, m->metric);
	for (size_t i = 0; i < r->nr; i++) {
		const struct tsq_cgrp_report *e = &r->v[i];

		if (!(e->policy.flags & m->field))
			continue;
		fprintf(f, "%s{cgroup=", m->metric);
		tsq_prom_label(f, e->path);
		fprintf(f, "} %d\n", !!(e->policy.flags & m->flag));
	}
}

void metrics_write(FILE *f, const struct tsq_report *r, size_t policies,
		   size_t pending)
{
	fprintf(f, "# HELP tsq_policies Entries of the policy files.\n"
		"# TYPE tsq_policies gauge\n"
		"tsq_policies{state=\"applied\"} %zu\ntsq_policies{state=\"pending\"} %zu\n",
		policies - pending, pending);
	for (size_t k = 0; k < sizeof(families) / sizeof(families[0]); k++) {
		const struct family *fm = &families[k];

		if (fm->type)
			fprintf(f, "# HELP %s %s\n# TYPE %s %s\n", fm->name, fm->help,
				fm->name, fm->type);
		for (size_t i = 0; i < r->nr; i++) {
			fprintf(f, "%s%s{cgroup=", fm->name, fm->suffix);
			tsq_prom_label(f, r->v[i].path);
			fprintf(f, "} %llu\n", value(&r->v[i], fm));
		}
	}
	for (size_t k = 0; k < TSQ_POLICY_NR_FIELDS; k++)
		policy_family(f, r, &tsq_policy_fields[k]);
	for (size_t k = 0; k < TSQ_POLICY_NR_MODS; k++)
		mod_family(f, r, &tsq_policy_mods[k]);
	fprintf(f, "# HELP tsq_map_full_total Inserts the per-cgroup maps refused (full or out "
		"of memory); those cgroups' statistics are incomplete.\n"
		"# TYPE tsq_map_full_total counter\n"
		"tsq_map_full_total{map=\"stats\"} %llu\n"
		"tsq_map_full_total{map=\"socks\"} %llu\n", (unsigned long long)r->full.stats,
		(unsigned long long)r->full.socks);
	fprintf(f, "# HELP tsq_cgroups_unreadable Cgroups tsqd could not open or read; their "
		"subtrees are missing here.\n# TYPE tsq_cgroups_unreadable gauge\n"
		"tsq_cgroups_unreadable %zu\n", r->unreadable);
}

// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Keyword-value policy arguments, tc style: exact keywords, no prefixes. */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "policy.h"
#include "print.h"
#include "errmsg.h"
#include "quote.h"
#include "size.h"

#define FIELD(n, k, m, h, fl, member, us, lo, hi) \
	{ n, k, m, h, fl, offsetof(struct tsq_policy, member), us, lo, hi }

/* Also the order every output lists them in. */
const struct tsq_policy_field tsq_policy_fields[TSQ_POLICY_NR_FIELDS] = {
	FIELD("limit", "limit", "tsq_policy_limit_bytes", "Policy: TSQ limit per socket.",
	      TSQ_POLICY_LIMIT, limit, false, 1, TSQ_MAX_BYTES),
	FIELD("limit-us", "limit_us", "tsq_policy_limit_seconds",
	      "Policy: pacing (or delivery) rate x this many seconds.",
	      TSQ_POLICY_LIMIT_US, limit_us, true, 1, TSQ_MAX_LIMIT_US),
	FIELD("tso", "tso", "tsq_policy_tso_bytes", "Policy: TSO packet cap.",
	      TSQ_POLICY_TSO, tso, false, TSQ_MIN_TSO, TSQ_MAX_TSO),
	FIELD("budget", "budget", "tsq_policy_budget_bytes",
	      "Policy: bytes in queues, whole cgroup.",
	      TSQ_POLICY_BUDGET, budget, false, 1, TSQ_MAX_BYTES),
};
#undef FIELD

const struct tsq_policy_mod tsq_policy_mods[TSQ_POLICY_NR_MODS] = {
	{ "rate", "pacing", "delivered", "tsq_policy_rate_delivered",
	  "Policy: 1 if limit-us takes the lower of the pacing and the delivery rate, "
	  "0 if the pacing rate.",
	  TSQ_POLICY_RATE_DELIVERED, TSQ_POLICY_LIMIT_US },
};

#define NR_FIELDS	TSQ_POLICY_NR_FIELDS
#define NR_MODS		TSQ_POLICY_NR_MODS

static __u32 *field_ptr(struct tsq_policy *p, const struct tsq_policy_field *f)
{
	return (__u32 *)((char *)p + f->off);
}

__u32 tsq_policy_value(const struct tsq_policy *p, const struct tsq_policy_field *f)
{
	return *(const __u32 *)((const char *)p + f->off);
}

/* The value as the user would write it: "1g" for a size, "10000000" for µs. */
static void format_val(const struct tsq_policy_field *f, __u32 v, char *buf, size_t len)
{
	if (f->usec)
		snprintf(buf, len, "%u", v);
	else
		tsq_format_size(buf, len, v);
}

static int parse_val(const struct tsq_policy_field *f, const char *arg, __u32 *out,
		     char *err, size_t errlen)
{
	char max[TSQ_SIZE_BUFSZ], min[TSQ_SIZE_BUFSZ], q[TSQ_QUOTE_BUFSZ];
	__u64 v64;
	__u32 v;
	int ret;

	if (f->usec) {
		ret = tsq_parse_usec(arg, f->max, &v);
	} else {
		ret = tsq_parse_size(arg, f->max, &v64);
		v = ret ? 0 : v64;
	}
	tsq_quote(q, sizeof(q), arg);
	format_val(f, f->max, max, sizeof(max));
	if (ret == -ERANGE)
		return tsq_errf(err, errlen, "%s \"%s\" is too large (max %s)",
			    f->name, q, max);
	if (ret)
		return tsq_errf(err, errlen, "invalid %s \"%s\": expected %s",
			    f->name, q, f->usec ?
			    "microseconds like 500, 500us, 2ms" :
			    "a size like 65536, 64k, 1m");
	if (!v)
		return tsq_errf(err, errlen, "%s must be positive", f->name);
	if (v < f->min) {
		format_val(f, f->min, min, sizeof(min));
		return tsq_errf(err, errlen, "%s \"%s\" is too small (min %s)",
			    f->name, q, min);
	}
	*out = v;
	return 0;
}

static const struct tsq_policy_field *find_field(const char *name)
{
	size_t i;

	for (i = 0; i < NR_FIELDS; i++)
		if (!strcmp(name, tsq_policy_fields[i].name))
			return &tsq_policy_fields[i];
	return NULL;
}

static const struct tsq_policy_mod *find_mod(const char *name)
{
	size_t i;

	for (i = 0; i < NR_MODS; i++)
		if (!strcmp(name, tsq_policy_mods[i].name))
			return &tsq_policy_mods[i];
	return NULL;
}

/* The name of the field a modifier needs: "limit-us". */
static const char *field_name(__u32 flag)
{
	size_t i;

	for (i = 0; i < NR_FIELDS; i++)
		if (tsq_policy_fields[i].flag == flag)
			return tsq_policy_fields[i].name;
	return "?";
}

static int parse_mod(const struct tsq_policy_mod *m, const char *arg, struct tsq_policy *p,
		     char *err, size_t errlen)
{
	char q[TSQ_QUOTE_BUFSZ];

	if (!strcmp(arg, m->on))
		p->flags |= m->flag;
	else if (strcmp(arg, m->off))
		return tsq_errf(err, errlen, "invalid %s \"%s\": expected %s or %s",
				m->name, tsq_quote(q, sizeof(q), arg), m->off, m->on);
	return 0;
}

/* "limit, limit-us, tso or budget", from the table. */
static const char *keywords(void)
{
	static char buf[128];
	size_t off = 0;

	if (buf[0])
		return buf;
	for (size_t i = 0; i < NR_FIELDS && off < sizeof(buf); i++)
		off += snprintf(buf + off, sizeof(buf) - off, "%s%s",
				!i ? "" : i + 1 < NR_FIELDS ? ", " : " or ",
				tsq_policy_fields[i].name);
	return buf;
}

int tsq_policy_parse_args(int argc, char **argv, struct tsq_policy *p,
			  char *err, size_t errlen)
{
	char q[TSQ_QUOTE_BUFSZ];
	const struct tsq_policy_field *f;
	const struct tsq_policy_mod *m;
	unsigned int mods = 0, bit;	/* modifiers given, by index */
	const char *name;
	int i, ret = 0;

	memset(p, 0, sizeof(*p));
	if (argc <= 0) {
		ret = tsq_errf(err, errlen, "no policy: expected %s", keywords());
		goto out;
	}
	for (i = 0; i < argc; i += 2) {
		f = find_field(argv[i]);
		m = f ? NULL : find_mod(argv[i]);
		if (!f && !m) {
			ret = tsq_errf(err, errlen, "What is \"%s\"?",
				   tsq_quote(q, sizeof(q), argv[i]));
			goto out;
		}
		name = f ? f->name : m->name;
		bit = m ? 1U << (m - tsq_policy_mods) : 0;
		if (i + 1 == argc) {
			ret = tsq_errf(err, errlen, "\"%s\" needs a value", name);
			goto out;
		}
		/* iproute2's duparg() wording. */
		if (f ? p->flags & f->flag : mods & bit) {
			ret = tsq_errf(err, errlen,
				   "duplicate \"%s\": \"%s\" is the second value",
				   name, tsq_quote(q, sizeof(q), argv[i + 1]));
			goto out;
		}
		if (m) {
			ret = parse_mod(m, argv[i + 1], p, err, errlen);
			mods |= bit;
		} else {
			ret = parse_val(f, argv[i + 1], field_ptr(p, f), err, errlen);
			p->flags |= f->flag;
		}
		if (ret)
			goto out;
	}
	/* Once all words are read: a modifier may come before its field. */
	for (m = tsq_policy_mods; m < tsq_policy_mods + NR_MODS; m++) {
		if ((mods & 1U << (m - tsq_policy_mods)) && !(p->flags & m->field)) {
			ret = tsq_errf(err, errlen, "\"%s\" needs %s", m->name,
				       field_name(m->field));
			goto out;
		}
	}
out:
	if (ret)
		memset(p, 0, sizeof(*p));
	return ret;
}

int tsq_policy_validate(const struct tsq_policy *p, char *err, size_t errlen)
{
	const struct tsq_policy_field *f;
	const struct tsq_policy_mod *m;
	__u32 v;

	if (p->flags & ~TSQ_POLICY_KNOWN)
		return tsq_errf(err, errlen, "unknown policy flags 0x%x",
			    p->flags & ~TSQ_POLICY_KNOWN);
	for (m = tsq_policy_mods; m < tsq_policy_mods + NR_MODS; m++)
		if ((p->flags & m->flag) && !(p->flags & m->field))
			return tsq_errf(err, errlen, "%s %s without %s", m->name, m->on,
					field_name(m->field));
	for (f = tsq_policy_fields; f < tsq_policy_fields + NR_FIELDS; f++) {
		if (!(p->flags & f->flag))
			continue;
		v = tsq_policy_value(p, f);
		if (v < f->min || v > f->max)
			return tsq_errf(err, errlen, "%s %u is out of range [%u, %u]",
				    f->name, v, f->min, f->max);
	}
	return 0;
}

/* " KEYWORD VALUE" at *off, without the space at the start. */
static int append(char *buf, size_t len, size_t *off, const char *kw, const char *val)
{
	int n = snprintf(buf + *off, len - *off, "%s%s %s", *off ? " " : "", kw, val);

	if (n < 0 || (size_t)n >= len - *off)
		return -ENOSPC;
	*off += n;
	return 0;
}

int tsq_policy_format(const struct tsq_policy *p, char *buf, size_t len)
{
	char val[TSQ_SIZE_BUFSZ];
	const struct tsq_policy_field *f;
	const struct tsq_policy_mod *m;
	size_t off = 0;

	if (!len)
		return -ENOSPC;
	buf[0] = '\0';
	for (f = tsq_policy_fields; f < tsq_policy_fields + NR_FIELDS; f++) {
		if (!(p->flags & f->flag))
			continue;
		format_val(f, tsq_policy_value(p, f), val, sizeof(val));
		if (append(buf, len, &off, f->name, val))
			return -ENOSPC;
		for (m = tsq_policy_mods; m < tsq_policy_mods + NR_MODS; m++)
			if (m->field == f->flag && (p->flags & m->flag) &&
			    append(buf, len, &off, m->name, m->on))
				return -ENOSPC;
	}
	return off;
}

void tsq_policy_print(const struct tsq_policy *p)
{
	char val[TSQ_SIZE_BUFSZ];
	const struct tsq_policy_field *f;
	const struct tsq_policy_mod *m;

	for (f = tsq_policy_fields; f < tsq_policy_fields + NR_FIELDS; f++) {
		if (!(p->flags & f->flag))
			continue;
		format_val(f, tsq_policy_value(p, f), val, sizeof(val));
		print_string(PRINT_FP, NULL, " %s", f->name);
		print_string(PRINT_FP, NULL, " %s", val);
		print_uint(PRINT_JSON, f->key, NULL, tsq_policy_value(p, f));
		for (m = tsq_policy_mods; m < tsq_policy_mods + NR_MODS; m++) {
			if (m->field != f->flag)
				continue;
			/* Text as the files write it; JSON says the default too. */
			if (p->flags & m->flag) {
				print_string(PRINT_FP, NULL, " %s", m->name);
				print_string(PRINT_FP, NULL, " %s", m->on);
			}
			print_string(PRINT_JSON, m->name, NULL,
				     p->flags & m->flag ? m->on : m->off);
		}
	}
}

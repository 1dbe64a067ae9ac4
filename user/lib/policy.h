/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* A struct tsq_policy as keyword-value words: "limit 64k tso 16k". */
#ifndef __TSQ_POLICY_H
#define __TSQ_POLICY_H

#include <stdbool.h>
#include <stddef.h>

#include "tsq.h"

/* Below about one 1500-byte MSS a TSO packet is no longer an aggregate. */
#define TSQ_MIN_TSO	1024U

/* Largest accepted values: a TSQ limit or budget past 1 GiB, a TSO packet
 * past the 64 KiB GSO maximum's big-TCP bound, or a time cap past 10 s
 * is a typo, not a policy. Only user space checks them; the BPF side
 * takes what the map holds.
 */
#define TSQ_MAX_BYTES		(1U << 30)
#define TSQ_MAX_TSO		(512U << 10)
#define TSQ_MAX_LIMIT_US	10000000U

/* One policy field: the parser, the text, JSON and Prometheus outputs
 * all walk tsq_policy_fields[], so a new field is one more entry.
 */
struct tsq_policy_field {
	const char *name;	/* keyword and text: "limit-us" */
	const char *key;	/* JSON key: "limit_us" */
	const char *metric;	/* Prometheus family, in seconds if usec */
	const char *help;	/* its HELP text */
	__u32 flag;		/* TSQ_POLICY_* */
	size_t off;		/* of the __u32 in struct tsq_policy */
	bool usec;		/* a time, not a size */
	__u32 min, max;
};

#define TSQ_POLICY_NR_FIELDS	4
extern const struct tsq_policy_field tsq_policy_fields[TSQ_POLICY_NR_FIELDS];

/* A modifier of one field: a keyword whose value, one of two words, is
 * a flag: "limit-us 1000 rate delivered". Only with its field. Text and
 * tsq_policy_format() write it only with its flag, the default being
 * the same as no keyword; JSON and Prometheus write it with its field.
 */
struct tsq_policy_mod {
	const char *name;	/* keyword, text and JSON key: "rate" */
	const char *off, *on;	/* values: without the flag (default), with it */
	const char *metric;	/* Prometheus family: 1 with the flag, else 0 */
	const char *help;	/* its HELP text */
	__u32 flag;		/* TSQ_POLICY_* set by the value on */
	__u32 field;		/* TSQ_POLICY_* of the field it modifies */
};

#define TSQ_POLICY_NR_MODS	1
extern const struct tsq_policy_mod tsq_policy_mods[TSQ_POLICY_NR_MODS];

/* Every flag user space knows: the fields' and the modifiers'. */
#define TSQ_POLICY_KNOWN	(TSQ_POLICY_ALL | TSQ_POLICY_RATE_DELIVERED)

__u32 tsq_policy_value(const struct tsq_policy *p, const struct tsq_policy_field *f);

/* The flagged fields through the print layer: " limit 8k tso 8k" in
 * text, "limit":8192,"tso":8192 in JSON (bytes and microseconds). A
 * modifier follows its field: " limit-us 1000 rate delivered" in text
 * (nothing for the default), "limit_us":1000,"rate":"delivered" (or
 * "pacing") in JSON.
 */
void tsq_policy_print(const struct tsq_policy *p);

/*
 * Parse "limit SIZE limit-us USEC tso SIZE budget SIZE" and "rate pacing"
 * or "rate delivered" (with limit-us only), in any order, each keyword
 * at most once, at least one field. On error *p is zeroed, err holds one
 * line without a trailing newline (if errlen) and -EINVAL is returned.
 */
int tsq_policy_parse_args(int argc, char **argv, struct tsq_policy *p,
			  char *err, size_t errlen);

/* 0 if every flagged field is within bounds, each modifier's flag comes
 * with its field's and no unknown flag is set.
 */
int tsq_policy_validate(const struct tsq_policy *p, char *err, size_t errlen);

/*
 * The keyword form tsq_policy_parse_args() reads back to the same policy,
 * fields in a fixed order, each modifier after its field:
 * "limit 64k limit-us 2000 rate delivered tso 16k budget 1m".
 * Returns the length, or -ENOSPC. TSQ_POLICY_FMT_BUFSZ always suffices.
 */
#define TSQ_POLICY_FMT_BUFSZ	128
int tsq_policy_format(const struct tsq_policy *p, char *buf, size_t len);

#endif /* __TSQ_POLICY_H */

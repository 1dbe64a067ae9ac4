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
	const char *metric;	/* Prometheus family */
	const char *help;	/* its HELP text */
	__u32 flag;		/* TSQ_POLICY_* */
	size_t off;		/* of the __u32 in struct tsq_policy */
	bool usec;		/* a time, not a size */
	__u32 min, max;
};

#define TSQ_POLICY_NR_FIELDS	4
extern const struct tsq_policy_field tsq_policy_fields[TSQ_POLICY_NR_FIELDS];

__u32 tsq_policy_value(const struct tsq_policy *p, const struct tsq_policy_field *f);

/* The flagged fields through the print layer: " limit 8k tso 8k" in
 * text, "limit":8192,"tso":8192 in JSON (bytes and microseconds).
 */
void tsq_policy_print(const struct tsq_policy *p);

/*
 * Parse "limit SIZE limit-us USEC tso SIZE budget SIZE", in any order,
 * each keyword at most once, at least one of them. On error *p is
 * zeroed, err holds one line without a trailing newline (if errlen) and
 * -EINVAL is returned.
 */
int tsq_policy_parse_args(int argc, char **argv, struct tsq_policy *p,
			  char *err, size_t errlen);

/* 0 if every flagged field is within bounds and no unknown flag is set. */
int tsq_policy_validate(const struct tsq_policy *p, char *err, size_t errlen);

/*
 * The keyword form tsq_policy_parse_args() reads back to the same policy,
 * fields in a fixed order: "limit 64k limit-us 2ms tso 16k budget 1m".
 * Returns the length, or -ENOSPC. TSQ_POLICY_FMT_BUFSZ always suffices.
 */
#define TSQ_POLICY_FMT_BUFSZ	128
int tsq_policy_format(const struct tsq_policy *p, char *buf, size_t len);

#endif /* __TSQ_POLICY_H */

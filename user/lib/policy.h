/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* A struct tsq_policy as keyword-value words: "limit 64k tso 16k". */
#ifndef __TSQ_POLICY_H
#define __TSQ_POLICY_H

#include <stddef.h>

#include "tsq.h"

/* Below about one 1500-byte MSS a TSO packet is no longer an aggregate. */
#define TSQ_MIN_TSO	1024U

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

// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Exact parsing of sizes and times. tc parses these with strtod(), which
 * also takes " 5", "-1", "inf", "0x10", "1e9" and rounds "11gb" into a
 * __u32 without a word; here the syntax is digits [. digits] [suffix]
 * and all arithmetic is integer.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>

#include "size.h"

struct suffix {
	const char *name;
	unsigned int exp;	/* sizes: power of 2, times: power of 10 */
};

/* tc's get_size(): kbit is 1024/8 bytes, not 1000/8. */
static const struct suffix size_suffixes[] = {
	{ "", 0 }, { "b", 0 },
	{ "k", 10 }, { "kb", 10 }, { "kib", 10 },
	{ "m", 20 }, { "mb", 20 }, { "mib", 20 },
	{ "g", 30 }, { "gb", 30 }, { "gib", 30 },
	{ "kbit", 7 }, { "mbit", 17 }, { "gbit", 27 },
};

/* tc's get_time(). */
static const struct suffix usec_suffixes[] = {
	{ "", 0 }, { "us", 0 }, { "usec", 0 }, { "usecs", 0 },
	{ "ms", 3 }, { "msec", 3 }, { "msecs", 3 },
	{ "s", 6 }, { "sec", 6 }, { "secs", 6 },
};

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

/* The most significant fraction digits any suffix can make whole. */
#define MAX_FRAC_DIGITS	30

struct number {
	__u64 whole;		/* the digits before the dot */
	bool overflow;		/* ... did not fit in whole */
	const char *frac;	/* the digits after it, */
	unsigned int frac_len;	/* trailing zeros dropped */
	const struct suffix *suffix;
};

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* ASCII only: strcasecmp() follows the locale (Turkish dotless i). */
static char lower(char c)
{
	return c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c;
}

static bool suffix_eq(const char *s, const char *name)
{
	while (*s && lower(*s) == *name)
		s++, name++;
	return !*s && !*name;
}

static int scan(const char *s, const struct suffix *tab, size_t n,
		struct number *num)
{
	const char *p = s;
	size_t i;

	num->whole = 0;
	num->overflow = false;
	for (; is_digit(*p); p++) {
		unsigned int d = *p - '0';

		if (num->whole > (~0ULL - d) / 10)
			num->overflow = true;
		else
			num->whole = num->whole * 10 + d;
	}
	if (p == s)
		return -EINVAL;
	/* "010" is 8 to tc's get_u32() and 10 to its get_size(): refuse. */
	if (p - s > 1 && s[0] == '0')
		return -EINVAL;

	num->frac = NULL;
	num->frac_len = 0;
	if (*p == '.') {
		const char *f = ++p, *last = NULL;

		for (; is_digit(*p); p++)
			if (*p != '0')
				last = p;
		if (p == f)
			return -EINVAL;
		if (last) {
			if (last - f + 1 > MAX_FRAC_DIGITS)
				return -EINVAL;
			num->frac = f;
			num->frac_len = last - f + 1;
		}
	}

	for (i = 0; i < n; i++) {
		if (suffix_eq(p, tab[i].name)) {
			num->suffix = &tab[i];
			return 0;
		}
	}
	return -EINVAL;
}

/*
 * frac * 2^shift, if that is whole. Doubling a decimal fraction pushes
 * one bit out of it; after shift doublings what is left must be zero.
 * A fraction with more than shift significant digits is never whole,
 * as k / 2^shift = k * 5^shift / 10^shift has at most shift of them.
 */
static int frac_pow2(const struct number *num, unsigned int shift, __u64 *out)
{
	unsigned char d[MAX_FRAC_DIGITS];
	unsigned int n = num->frac_len, i, j;
	__u64 v = 0;

	if (n > shift)
		return -EINVAL;
	for (j = 0; j < n; j++)
		d[j] = num->frac[j] - '0';
	for (i = 0; i < shift; i++) {
		unsigned int carry = 0;

		for (j = n; j-- > 0;) {
			unsigned int x = d[j] * 2 + carry;

			d[j] = x % 10;
			carry = x / 10;
		}
		v = v * 2 + carry;
	}
	for (j = 0; j < n; j++)
		if (d[j])
			return -EINVAL;
	*out = v;
	return 0;
}

int tsq_parse_size(const char *s, __u64 max, __u64 *out)
{
	unsigned int shift;
	struct number num;
	__u64 frac;
	int err;

	err = scan(s, size_suffixes, ARRAY_SIZE(size_suffixes), &num);
	if (err)
		return err;
	shift = num.suffix->exp;
	err = frac_pow2(&num, shift, &frac);
	if (err)
		return err;
	if (num.overflow || num.whole > (~0ULL - frac) >> shift)
		return -ERANGE;
	num.whole = (num.whole << shift) + frac;
	if (num.whole > max)
		return -ERANGE;
	*out = num.whole;
	return 0;
}

int tsq_parse_usec(const char *s, __u32 max, __u32 *out)
{
	__u64 mult = 1, frac = 0;
	struct number num;
	unsigned int i;
	int err;

	err = scan(s, usec_suffixes, ARRAY_SIZE(usec_suffixes), &num);
	if (err)
		return err;
	if (num.frac_len > num.suffix->exp)
		return -EINVAL;
	for (i = 0; i < num.suffix->exp; i++)
		mult *= 10;
	/* "1.5" of a suffix worth 10^exp is 15 * 10^(exp - 1). */
	for (i = 0; i < num.suffix->exp; i++)
		frac = frac * 10 + (i < num.frac_len ? num.frac[i] - '0' : 0);
	if (num.overflow || num.whole > (~0ULL - frac) / mult)
		return -ERANGE;
	num.whole = num.whole * mult + frac;
	if (num.whole > max)
		return -ERANGE;
	*out = num.whole;
	return 0;
}

static int fmt(char *buf, size_t len, __u64 v, const char *suffix)
{
	int n;

	n = snprintf(buf, len, "%llu%s", (unsigned long long)v, suffix);
	if (n < 0 || (size_t)n >= len)
		return -ENOSPC;
	return n;
}

/* The largest suffix that divides evenly gives the fewest digits. */
int tsq_format_size(char *buf, size_t len, __u64 bytes)
{
	static const struct suffix units[] = { { "g", 30 }, { "m", 20 }, { "k", 10 } };
	size_t i;

	for (i = 0; bytes && i < ARRAY_SIZE(units); i++) {
		__u64 mask = (1ULL << units[i].exp) - 1;

		if (!(bytes & mask))
			return fmt(buf, len, bytes >> units[i].exp, units[i].name);
	}
	return fmt(buf, len, bytes, "");
}

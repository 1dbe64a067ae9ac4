// SPDX-License-Identifier: GPL-2.0
/* tsq_parse_size(), tsq_parse_usec(), tsq_format_size(). */
#include <errno.h>
#include <stdint.h>

#include "size.h"
#include "test.h"

#define U64_MAX	UINT64_MAX
#define U32_MAX	UINT32_MAX
#define K	1024ULL
#define M	(K * K)
#define G	(K * M)

static const struct size_case {
	const char *in;
	__u64 max;
	int ret;
	__u64 val;
} size_cases[] = {
	/* What people type and iproute2 prints ("64Kb", "1Mb", "100b"). */
	{ "0", U64_MAX, 0, 0 },
	{ "1", U64_MAX, 0, 1 },
	{ "65536", U64_MAX, 0, 65536 },
	{ "64k", U64_MAX, 0, 64 * K },
	{ "64K", U64_MAX, 0, 64 * K },
	{ "64kb", U64_MAX, 0, 64 * K },
	{ "64KB", U64_MAX, 0, 64 * K },
	{ "64Kb", U64_MAX, 0, 64 * K },
	{ "64KiB", U64_MAX, 0, 64 * K },
	{ "64kib", U64_MAX, 0, 64 * K },
	{ "1m", U64_MAX, 0, M },
	{ "1M", U64_MAX, 0, M },
	{ "1mb", U64_MAX, 0, M },
	{ "1Mb", U64_MAX, 0, M },
	{ "1MiB", U64_MAX, 0, M },
	{ "1g", U64_MAX, 0, G },
	{ "1gb", U64_MAX, 0, G },
	{ "1GB", U64_MAX, 0, G },
	{ "1GiB", U64_MAX, 0, G },
	{ "100b", U64_MAX, 0, 100 },
	{ "100B", U64_MAX, 0, 100 },
	{ "0k", U64_MAX, 0, 0 },
	/* tc's get_size(): kbit is 1024 / 8 bytes. */
	{ "1kbit", U64_MAX, 0, 128 },
	{ "8kbit", U64_MAX, 0, 1024 },
	{ "1mbit", U64_MAX, 0, M / 8 },
	{ "1Mbit", U64_MAX, 0, M / 8 },
	{ "1gbit", U64_MAX, 0, G / 8 },
	{ "1GBIT", U64_MAX, 0, G / 8 },
	/* Fractions that come out whole. */
	{ "1.5k", U64_MAX, 0, 1536 },
	{ "0.5k", U64_MAX, 0, 512 },
	{ "0.25k", U64_MAX, 0, 256 },
	{ "1.5m", U64_MAX, 0, M + M / 2 },
	{ "1.000k", U64_MAX, 0, K },
	{ "1.0", U64_MAX, 0, 1 },
	{ "0.0", U64_MAX, 0, 0 },
	{ "0.0009765625m", U64_MAX, 0, K },
	{ "0.5kbit", U64_MAX, 0, 64 },
	{ "0.000000000931322574615478515625g", U64_MAX, 0, 1 },
	{ "0.0000000009313225746154785156250g", U64_MAX, 0, 1 },
	/* ... and those that do not. */
	{ "0.5", U64_MAX, -EINVAL, 0 },
	{ "1.5", U64_MAX, -EINVAL, 0 },
	{ "1.1b", U64_MAX, -EINVAL, 0 },
	{ "1.0001k", U64_MAX, -EINVAL, 0 },
	{ "0.00048828125k", U64_MAX, -EINVAL, 0 },
	{ "0.0000000004656612873077392578125g", U64_MAX, -EINVAL, 0 },
	{ "1.000000000000000000000000000000001k", U64_MAX, -EINVAL, 0 },
	/* What strtod()/strtoul() take and we do not. */
	{ "", U64_MAX, -EINVAL, 0 },
	{ " 1", U64_MAX, -EINVAL, 0 },
	{ "1 ", U64_MAX, -EINVAL, 0 },
	{ "\t1", U64_MAX, -EINVAL, 0 },
	{ "1\n", U64_MAX, -EINVAL, 0 },
	{ "1 k", U64_MAX, -EINVAL, 0 },
	{ "-1", U64_MAX, -EINVAL, 0 },
	{ "-0", U64_MAX, -EINVAL, 0 },
	{ "+5", U64_MAX, -EINVAL, 0 },
	{ "inf", U64_MAX, -EINVAL, 0 },
	{ "INF", U64_MAX, -EINVAL, 0 },
	{ "infinity", U64_MAX, -EINVAL, 0 },
	{ "nan", U64_MAX, -EINVAL, 0 },
	{ "0x10", U64_MAX, -EINVAL, 0 },
	{ "0X10", U64_MAX, -EINVAL, 0 },
	{ "0x1p20", U64_MAX, -EINVAL, 0 },
	{ "1e9", U64_MAX, -EINVAL, 0 },
	{ "1E3", U64_MAX, -EINVAL, 0 },
	{ "1.5e3", U64_MAX, -EINVAL, 0 },
	{ "k", U64_MAX, -EINVAL, 0 },
	{ "kb", U64_MAX, -EINVAL, 0 },
	{ ".", U64_MAX, -EINVAL, 0 },
	{ "..", U64_MAX, -EINVAL, 0 },
	{ ".5k", U64_MAX, -EINVAL, 0 },
	{ "5.", U64_MAX, -EINVAL, 0 },
	{ "5.k", U64_MAX, -EINVAL, 0 },
	{ "1..5", U64_MAX, -EINVAL, 0 },
	{ "1.2.3", U64_MAX, -EINVAL, 0 },
	{ "1.5.k", U64_MAX, -EINVAL, 0 },
	{ "1,5k", U64_MAX, -EINVAL, 0 },
	{ "1_000", U64_MAX, -EINVAL, 0 },
	{ "11gbx", U64_MAX, -EINVAL, 0 },
	{ "1kk", U64_MAX, -EINVAL, 0 },
	{ "1ki", U64_MAX, -EINVAL, 0 },
	{ "1kbits", U64_MAX, -EINVAL, 0 },
	{ "1bit", U64_MAX, -EINVAL, 0 },
	{ "1t", U64_MAX, -EINVAL, 0 },
	{ "1tb", U64_MAX, -EINVAL, 0 },
	{ "1kB ", U64_MAX, -EINVAL, 0 },
	{ "01", U64_MAX, -EINVAL, 0 },
	{ "00", U64_MAX, -EINVAL, 0 },
	{ "010k", U64_MAX, -EINVAL, 0 },
	{ "\xd9\xa1", U64_MAX, -EINVAL, 0 },		/* Arabic-Indic one */
	{ "\xef\xbc\x91k", U64_MAX, -EINVAL, 0 },	/* fullwidth one */
	{ "1\xc4\xb0" "b", U64_MAX, -EINVAL, 0 },
	/* Range: the iproute2 bug that made 11gb 3 GB on a __u32. */
	{ "11gb", U32_MAX, -ERANGE, 0 },
	{ "4g", U32_MAX, -ERANGE, 0 },
	{ "4294967295", U32_MAX, 0, U32_MAX },
	{ "4294967296", U32_MAX, -ERANGE, 0 },
	{ "1g", G, 0, G },
	{ "1073741825", G, -ERANGE, 0 },
	{ "1.5k", 1000, -ERANGE, 0 },
	{ "1", 0, -ERANGE, 0 },
	{ "18446744073709551615", U64_MAX, 0, U64_MAX },
	{ "18446744073709551616", U64_MAX, -ERANGE, 0 },
	{ "99999999999999999999999", U64_MAX, -ERANGE, 0 },
	{ "17179869183g", U64_MAX, 0, U64_MAX - G + 1 },
	{ "17179869184g", U64_MAX, -ERANGE, 0 },
	{ "17179869183.5g", U64_MAX, 0, U64_MAX - G / 2 + 1 },
	{ "17179869183.9999999990686774253845214843750g", U64_MAX, 0, U64_MAX },
	/* Syntax is judged before range. */
	{ "99999999999999999999999x", U64_MAX, -EINVAL, 0 },
	{ "99999999999999999999999.3", U64_MAX, -EINVAL, 0 },
};

static const struct usec_case {
	const char *in;
	__u32 max;
	int ret;
	__u32 val;
} usec_cases[] = {
	{ "0", U32_MAX, 0, 0 },
	{ "1500", U32_MAX, 0, 1500 },
	{ "1500us", U32_MAX, 0, 1500 },
	{ "1500usec", U32_MAX, 0, 1500 },
	{ "1500usecs", U32_MAX, 0, 1500 },
	{ "2ms", U32_MAX, 0, 2000 },
	{ "2MS", U32_MAX, 0, 2000 },
	{ "2msec", U32_MAX, 0, 2000 },
	{ "2msecs", U32_MAX, 0, 2000 },
	{ "1.5ms", U32_MAX, 0, 1500 },
	{ "1s", U32_MAX, 0, 1000000 },
	{ "1sec", U32_MAX, 0, 1000000 },
	{ "1secs", U32_MAX, 0, 1000000 },
	{ "2.0s", U32_MAX, 0, 2000000 },	/* tc's sprint_time() */
	{ "1.5s", U32_MAX, 0, 1500000 },
	{ "0.000001s", U32_MAX, 0, 1 },
	{ "10000000", 10000000, 0, 10000000 },
	{ "10s", 10000000, 0, 10000000 },
	{ "10000001", 10000000, -ERANGE, 0 },
	{ "4294967295", U32_MAX, 0, U32_MAX },
	{ "4294967296", U32_MAX, -ERANGE, 0 },
	{ "4295s", U32_MAX, -ERANGE, 0 },
	{ "99999999999999999999s", U32_MAX, -ERANGE, 0 },
	{ "1.5us", U32_MAX, -EINVAL, 0 },
	{ "1.5", U32_MAX, -EINVAL, 0 },
	{ "1.0001ms", U32_MAX, -EINVAL, 0 },
	{ "0.0000001s", U32_MAX, -EINVAL, 0 },
	{ "", U32_MAX, -EINVAL, 0 },
	{ "ms", U32_MAX, -EINVAL, 0 },
	{ "-1", U32_MAX, -EINVAL, 0 },
	{ "+1", U32_MAX, -EINVAL, 0 },
	{ " 1", U32_MAX, -EINVAL, 0 },
	{ "1 ", U32_MAX, -EINVAL, 0 },
	{ "1e3", U32_MAX, -EINVAL, 0 },
	{ "0x10", U32_MAX, -EINVAL, 0 },
	{ "inf", U32_MAX, -EINVAL, 0 },
	{ "1m", U32_MAX, -EINVAL, 0 },
	{ "1min", U32_MAX, -EINVAL, 0 },
	{ "1ns", U32_MAX, -EINVAL, 0 },
	{ "01", U32_MAX, -EINVAL, 0 },
	{ "1..5ms", U32_MAX, -EINVAL, 0 },
};

static const struct fmt_case {
	__u64 val;
	const char *out;
} fmt_cases[] = {
	{ 0, "0" },
	{ 1, "1" },
	{ 1023, "1023" },
	{ 1024, "1k" },
	{ 1025, "1025" },
	{ 1536, "1536" },
	{ 2048, "2k" },
	{ 64 * K, "64k" },
	{ 1023 * K, "1023k" },
	{ M, "1m" },
	{ M + K, "1025k" },
	{ 3 * G, "3g" },
	{ 1ULL << 63, "8589934592g" },
	{ U64_MAX, "18446744073709551615" },
};

static void test_parse_size(void)
{
	const struct size_case *c;
	__u64 v;
	int ret;

	for (c = size_cases; c < size_cases + ARRAY_SIZE(size_cases); c++) {
		v = 0xdeadbeef;
		ret = tsq_parse_size(c->in, c->max, &v);
		check(ret == c->ret && (ret || v == c->val) &&
		      (!ret || v == 0xdeadbeef),
		      tname("size \"%s\" max %llu", esc(c->in),
			    (unsigned long long)c->max),
		      "got %d %llu, want %d %llu", ret, (unsigned long long)v,
		      c->ret, (unsigned long long)c->val);
	}
}

static void test_parse_usec(void)
{
	const struct usec_case *c;
	__u32 v;
	int ret;

	for (c = usec_cases; c < usec_cases + ARRAY_SIZE(usec_cases); c++) {
		v = 0xdeadbeef;
		ret = tsq_parse_usec(c->in, c->max, &v);
		check(ret == c->ret && (ret || v == c->val) &&
		      (!ret || v == 0xdeadbeef),
		      tname("usec \"%s\" max %u", esc(c->in), c->max),
		      "got %d %u, want %d %u", ret, v, c->ret, c->val);
	}
}

static void test_format_size(void)
{
	char buf[TSQ_SIZE_BUFSZ];
	const struct fmt_case *c;
	int n;

	for (c = fmt_cases; c < fmt_cases + ARRAY_SIZE(fmt_cases); c++) {
		n = tsq_format_size(buf, sizeof(buf), c->val);
		check(n == (int)strlen(c->out) && !strcmp(buf, c->out),
		      tname("format %llu", (unsigned long long)c->val),
		      "got %d \"%s\", want \"%s\"", n, n > 0 ? buf : "",
		      c->out);
	}
	ASSERT(tsq_format_size(buf, 3, 64 * K) == -ENOSPC,
	       "format 64k into 3 bytes: -ENOSPC");
	ASSERT(tsq_format_size(buf, 4, 64 * K) == 3 && !strcmp(buf, "64k"),
	       "format 64k into 4 bytes");
	ASSERT(tsq_format_size(buf, 0, 1) == -ENOSPC,
	       "format into 0 bytes: -ENOSPC");
}

/* Every value the formatter writes, the parser reads back the same. */
static void test_round_trip(void)
{
	char buf[TSQ_SIZE_BUFSZ];
	__u64 v, x = 1, back;
	unsigned int i, n = 0, bad = 0;

	for (i = 0; i < 64; i++) {
		__u64 vals[] = { 1ULL << i, (1ULL << i) - 1, (1ULL << i) + 1,
				 3ULL << i, (1ULL << i) * 1000 };

		for (unsigned int j = 0; j < ARRAY_SIZE(vals); j++, n++) {
			v = vals[j];
			if (tsq_format_size(buf, sizeof(buf), v) < 0 ||
			    tsq_parse_size(buf, U64_MAX, &back) || back != v)
				bad++;
		}
	}
	for (i = 0; i < 100000; i++, n++) {
		x = x * 6364136223846793005ULL + 1442695040888963407ULL;
		v = x >> (x & 63);
		if (tsq_format_size(buf, sizeof(buf), v) < 0 ||
		    tsq_parse_size(buf, U64_MAX, &back) || back != v)
			bad++;
	}
	check(!bad, tname("format -> parse round trip, %u values", n),
	      "%u differ", bad);
}

int main(void)
{
	test_parse_size();
	test_parse_usec();
	test_format_size();
	test_round_trip();
	return test_done();
}

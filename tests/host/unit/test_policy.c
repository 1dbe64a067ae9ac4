// SPDX-License-Identifier: GPL-2.0
/* tsq_policy_parse_args(), tsq_policy_validate(), tsq_policy_format(). */
#include <errno.h>
#include <stdlib.h>

#include "policy.h"
#include "test.h"

#define MAX_ARGS	16

/* Split on spaces: what the shell hands tsqctl. */
static int split(const char *s, char *buf, size_t len, char **argv)
{
	int argc = 0;
	char *p;

	snprintf(buf, len, "%s", s);
	for (p = strtok(buf, " "); p && argc < MAX_ARGS; p = strtok(NULL, " "))
		argv[argc++] = p;
	return argc;
}

static const struct ok_case {
	const char *args;
	struct tsq_policy want;
	const char *formatted;
} ok_cases[] = {
	{ "limit 64k", { TSQ_POLICY_LIMIT, 65536, 0, 0, 0 }, "limit 64k" },
	{ "limit 65536", { TSQ_POLICY_LIMIT, 65536, 0, 0, 0 }, "limit 64k" },
	{ "limit 1", { TSQ_POLICY_LIMIT, 1, 0, 0, 0 }, "limit 1" },
	{ "limit 1g", { TSQ_POLICY_LIMIT, 1U << 30, 0, 0, 0 }, "limit 1g" },
	{ "limit-us 2000", { TSQ_POLICY_LIMIT_US, 0, 2000, 0, 0 },
	  "limit-us 2000" },
	{ "limit-us 2ms", { TSQ_POLICY_LIMIT_US, 0, 2000, 0, 0 },
	  "limit-us 2000" },
	{ "limit-us 10s", { TSQ_POLICY_LIMIT_US, 0, 10000000, 0, 0 },
	  "limit-us 10000000" },
	{ "limit-us 1", { TSQ_POLICY_LIMIT_US, 0, 1, 0, 0 }, "limit-us 1" },
	{ "tso 16k", { TSQ_POLICY_TSO, 0, 0, 16384, 0 }, "tso 16k" },
	{ "tso 1024", { TSQ_POLICY_TSO, 0, 0, 1024, 0 }, "tso 1k" },
	{ "tso 1500", { TSQ_POLICY_TSO, 0, 0, 1500, 0 }, "tso 1500" },
	{ "tso 512k", { TSQ_POLICY_TSO, 0, 0, 512 << 10, 0 }, "tso 512k" },
	{ "budget 1m", { TSQ_POLICY_BUDGET, 0, 0, 0, 1 << 20 }, "budget 1m" },
	{ "budget 1.5m", { TSQ_POLICY_BUDGET, 0, 0, 0, 3 << 19 },
	  "budget 1536k" },
	{ "limit 64k limit-us 2ms tso 16k budget 1m",
	  { TSQ_POLICY_ALL, 65536, 2000, 16384, 1 << 20 },
	  "limit 64k limit-us 2000 tso 16k budget 1m" },
	{ "budget 1m tso 16k limit-us 2ms limit 64k",
	  { TSQ_POLICY_ALL, 65536, 2000, 16384, 1 << 20 },
	  "limit 64k limit-us 2000 tso 16k budget 1m" },
	{ "tso 8k limit 8k", { TSQ_POLICY_LIMIT | TSQ_POLICY_TSO, 8192, 0, 8192, 0 },
	  "limit 8k tso 8k" },
};

static const struct bad_case {
	const char *args;
	const char *msg;
} bad_cases[] = {
	{ "", "no policy: expected limit, limit-us, tso or budget" },
	{ "foo 1", "What is \"foo\"?" },
	{ "lim 64k", "What is \"lim\"?" },
	{ "LIMIT 64k", "What is \"LIMIT\"?" },
	{ "limit_us 5", "What is \"limit_us\"?" },
	{ "64k", "What is \"64k\"?" },
	{ "limit 64k 32k", "What is \"32k\"?" },
	{ "limit", "\"limit\" needs a value" },
	{ "limit 64k tso", "\"tso\" needs a value" },
	{ "limit 64k limit 32k",
	  "duplicate \"limit\": \"32k\" is the second value" },
	{ "tso 8k limit 8k tso 8k",
	  "duplicate \"tso\": \"8k\" is the second value" },
	{ "limit 0", "limit must be positive" },
	{ "limit 0k", "limit must be positive" },
	{ "tso 0", "tso must be positive" },
	{ "budget 0", "budget must be positive" },
	{ "limit-us 0", "limit-us must be positive" },
	{ "tso 1023", "tso \"1023\" is too small (min 1k)" },
	{ "tso 513k", "tso \"513k\" is too large (max 512k)" },
	{ "limit 1073741825", "limit \"1073741825\" is too large (max 1g)" },
	{ "limit 11gb", "limit \"11gb\" is too large (max 1g)" },
	{ "limit 18446744073709551616",
	  "limit \"18446744073709551616\" is too large (max 1g)" },
	{ "budget 2g", "budget \"2g\" is too large (max 1g)" },
	{ "limit-us 10000001",
	  "limit-us \"10000001\" is too large (max 10000000)" },
	{ "limit-us 11s", "limit-us \"11s\" is too large (max 10000000)" },
	{ "limit abc", "invalid limit \"abc\": expected a size like 65536, 64k, 1m" },
	{ "limit -1", "invalid limit \"-1\"" },
	{ "limit 0x100", "invalid limit \"0x100\"" },
	{ "limit 1.5", "invalid limit \"1.5\"" },
	{ "limit tso", "invalid limit \"tso\"" },
	{ "limit-us 1.5us", "invalid limit-us \"1.5us\": expected microseconds" },
	{ "limit-us 1e3", "invalid limit-us \"1e3\"" },
	{ "limit 64k foo 1", "What is \"foo\"?" },
	/* Found by fuzz_policy: a newline split the message in two. */
	{ "budget 2\n\nm", "invalid budget \"2\\x0a\\x0am\"" },
	{ "foo\nbar 1", "What is \"foo\\x0abar\"?" },
	{ "limit 1 limit \x1b[2J", "duplicate \"limit\": \"\\x1b[2J\" is the second value" },
};

static void test_ok(void)
{
	char buf[64], fmt[TSQ_POLICY_FMT_BUFSZ], err[256], *argv[MAX_ARGS];
	const struct ok_case *c;
	struct tsq_policy p, back;
	int argc, ret, n;

	for (c = ok_cases; c < ok_cases + ARRAY_SIZE(ok_cases); c++) {
		argc = split(c->args, buf, sizeof(buf), argv);
		err[0] = '\0';
		ret = tsq_policy_parse_args(argc, argv, &p, err, sizeof(err));
		if (!check(!ret && !memcmp(&p, &c->want, sizeof(p)),
			   tname("policy \"%s\"", c->args),
			   "ret %d \"%s\", flags 0x%x %u %u %u %u", ret, err,
			   p.flags, p.limit, p.limit_us, p.tso, p.budget))
			continue;
		ASSERT(!tsq_policy_validate(&p, err, sizeof(err)),
		       tname("policy \"%s\" validates", c->args));

		n = tsq_policy_format(&p, fmt, sizeof(fmt));
		check(n == (int)strlen(c->formatted) &&
		      !strcmp(fmt, c->formatted),
		      tname("policy \"%s\" formats", c->args),
		      "got %d \"%s\", want \"%s\"", n, n >= 0 ? fmt : "",
		      c->formatted);

		argc = split(fmt, buf, sizeof(buf), argv);
		ret = tsq_policy_parse_args(argc, argv, &back, err, sizeof(err));
		check(!ret && !memcmp(&p, &back, sizeof(p)),
		      tname("policy \"%s\" round trip", c->args),
		      "ret %d \"%s\"", ret, err);
	}
}

static void test_bad(void)
{
	char buf[64], err[256], *argv[MAX_ARGS];
	const struct bad_case *c;
	struct tsq_policy p, zero = { 0 };
	int argc, ret;

	for (c = bad_cases; c < bad_cases + ARRAY_SIZE(bad_cases); c++) {
		argc = split(c->args, buf, sizeof(buf), argv);
		memset(&p, 0xff, sizeof(p));
		err[0] = '\0';
		ret = tsq_policy_parse_args(argc, argv, &p, err, sizeof(err));
		check(ret == -EINVAL && !strncmp(err, c->msg, strlen(c->msg)) &&
		      !memcmp(&p, &zero, sizeof(p)),
		      tname("policy \"%s\" refused", esc(c->args)),
		      "ret %d, message \"%s\", want \"%s...\"", ret, err, c->msg);
	}
}

static void test_err_buffer(void)
{
	char *argv[] = { "limit", "0" }, err[8];
	struct tsq_policy p;

	ASSERT(tsq_policy_parse_args(2, argv, &p, NULL, 0) == -EINVAL,
	       "policy error with no message buffer");
	memset(err, 'x', sizeof(err));
	ASSERT(tsq_policy_parse_args(2, argv, &p, err, 4) == -EINVAL &&
	       !strcmp(err, "lim") && err[4] == 'x',
	       "policy error message truncated to errlen");
}

static void test_validate(void)
{
	struct tsq_policy p;
	char err[128];

	p = (struct tsq_policy){ .flags = 1U << 7 };
	ASSERT(tsq_policy_validate(&p, err, sizeof(err)) == -EINVAL,
	       "validate: unknown flag");
	p = (struct tsq_policy){ .flags = TSQ_POLICY_TSO, .tso = 512 };
	ASSERT(tsq_policy_validate(&p, err, sizeof(err)) == -EINVAL,
	       "validate: tso below 1k");
	p = (struct tsq_policy){ .flags = TSQ_POLICY_LIMIT, .limit = 0 };
	ASSERT(tsq_policy_validate(&p, err, sizeof(err)) == -EINVAL,
	       "validate: limit 0");
	p = (struct tsq_policy){ .flags = TSQ_POLICY_LIMIT_US,
				 .limit_us = TSQ_MAX_LIMIT_US + 1 };
	ASSERT(tsq_policy_validate(&p, err, sizeof(err)) == -EINVAL,
	       "validate: limit-us past the max");
	p = (struct tsq_policy){ .flags = TSQ_POLICY_LIMIT, .tso = 7 };
	ASSERT(tsq_policy_validate(&p, NULL, 0) == -EINVAL,
	       "validate: no message buffer");
	p = (struct tsq_policy){ .flags = TSQ_POLICY_LIMIT, .limit = 1,
				 .tso = 7 };
	ASSERT(!tsq_policy_validate(&p, err, sizeof(err)),
	       "validate: unflagged fields do not count");
}

static void test_format(void)
{
	struct tsq_policy p = { TSQ_POLICY_ALL, 65536, 2000, 16384, 1 << 20 };
	char buf[TSQ_POLICY_FMT_BUFSZ];
	const char *want = "limit 64k limit-us 2000 tso 16k budget 1m";
	struct tsq_policy worst = { TSQ_POLICY_ALL, 1023, 4294967295U,
				    1025, 1073741823 };

	ASSERT(tsq_policy_format(&p, buf, strlen(want)) == -ENOSPC,
	       "format: one byte short is -ENOSPC");
	ASSERT(tsq_policy_format(&p, buf, strlen(want) + 1) == (int)strlen(want),
	       "format: exact fit");
	ASSERT(tsq_policy_format(&p, buf, 0) == -ENOSPC,
	       "format: 0 bytes is -ENOSPC");
	p.flags = 0;
	ASSERT(tsq_policy_format(&p, buf, sizeof(buf)) == 0 && !buf[0],
	       "format: no flags, empty string");
	ASSERT(tsq_policy_format(&worst, buf, sizeof(buf)) > 0,
	       "format: longest values fit TSQ_POLICY_FMT_BUFSZ");
}

int main(void)
{
	test_ok();
	test_bad();
	test_err_buffer();
	test_validate();
	test_format();
	return test_done();
}

// SPDX-License-Identifier: GPL-2.0
/* tsq_policy_parse_args(), tsq_policy_validate(), tsq_policy_format(),
 * tsq_policy_print().
 */
#include <errno.h>
#include <stdlib.h>

#include "policy.h"
#include "print.h"
#include "test.h"

#define RATE_US		(TSQ_POLICY_LIMIT_US | TSQ_POLICY_RATE_DELIVERED)

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
	/* rate: a flag of limit-us; pacing, the default, is no flag. */
	{ "limit-us 1000 rate delivered", { RATE_US, 0, 1000, 0, 0 },
	  "limit-us 1000 rate delivered" },
	{ "rate delivered limit-us 2ms", { RATE_US, 0, 2000, 0, 0 },
	  "limit-us 2000 rate delivered" },
	{ "limit-us 1000 rate pacing", { TSQ_POLICY_LIMIT_US, 0, 1000, 0, 0 },
	  "limit-us 1000" },
	{ "rate pacing limit 8k limit-us 500", { TSQ_POLICY_LIMIT | TSQ_POLICY_LIMIT_US, 8192, 500, 0, 0 },
	  "limit 8k limit-us 500" },
	{ "budget 1m rate delivered tso 16k limit-us 2ms limit 64k",
	  { TSQ_POLICY_ALL | TSQ_POLICY_RATE_DELIVERED, 65536, 2000, 16384, 1 << 20 },
	  "limit 64k limit-us 2000 rate delivered tso 16k budget 1m" },
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
	/* rate only with limit-us, one of two words, once. */
	{ "rate delivered", "\"rate\" needs limit-us" },
	{ "rate pacing", "\"rate\" needs limit-us" },
	{ "limit 64k rate delivered", "\"rate\" needs limit-us" },
	{ "tso 8k budget 1m rate pacing", "\"rate\" needs limit-us" },
	{ "limit-us 1000 rate", "\"rate\" needs a value" },
	{ "limit-us 1000 rate fast",
	  "invalid rate \"fast\": expected pacing or delivered" },
	{ "limit-us 1000 rate Delivered", "invalid rate \"Delivered\"" },
	{ "limit-us 1000 rate deliver", "invalid rate \"deliver\"" },
	{ "limit-us 1000 rate 1", "invalid rate \"1\"" },
	{ "limit-us 1000 rate \x1b[2J", "invalid rate \"\\x1b[2J\"" },
	{ "limit-us 1000 rate pacing rate delivered",
	  "duplicate \"rate\": \"delivered\" is the second value" },
	{ "rate delivered limit-us 1000 rate delivered",
	  "duplicate \"rate\": \"delivered\" is the second value" },
	{ "rate delivered limit-us 0", "limit-us must be positive" },
	{ "Rate delivered limit-us 1000", "What is \"Rate\"?" },
	{ "limit-us 1000 delivered", "What is \"delivered\"?" },
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

	p = (struct tsq_policy){ .flags = RATE_US, .limit_us = 1000 };
	ASSERT(!tsq_policy_validate(&p, err, sizeof(err)),
	       "validate: rate delivered with limit-us");
	p = (struct tsq_policy){ .flags = TSQ_POLICY_RATE_DELIVERED };
	ASSERT(tsq_policy_validate(&p, err, sizeof(err)) == -EINVAL &&
	       !strcmp(err, "rate delivered without limit-us"),
	       "validate: rate delivered alone");
	p = (struct tsq_policy){ .flags = TSQ_POLICY_LIMIT | TSQ_POLICY_RATE_DELIVERED,
				 .limit = 8192, .limit_us = 1000 };
	ASSERT(tsq_policy_validate(&p, err, sizeof(err)) == -EINVAL &&
	       !strcmp(err, "rate delivered without limit-us"),
	       "validate: rate delivered with limit, not limit-us");
	p = (struct tsq_policy){ .flags = RATE_US | 1U << 5, .limit_us = 1000 };
	ASSERT(tsq_policy_validate(&p, err, sizeof(err)) == -EINVAL &&
	       !strcmp(err, "unknown policy flags 0x20"),
	       "validate: the flag after rate's is unknown");
}

static void test_format(void)
{
	struct tsq_policy p = { TSQ_POLICY_ALL, 65536, 2000, 16384, 1 << 20 };
	char buf[TSQ_POLICY_FMT_BUFSZ];
	const char *want = "limit 64k limit-us 2000 tso 16k budget 1m";
	struct tsq_policy worst = { TSQ_POLICY_ALL | TSQ_POLICY_RATE_DELIVERED, 1023,
				    4294967295U, 1025, 1073741823 };
	struct tsq_policy rate = { RATE_US, 0, 1000, 0, 0 };
	const char *want_rate = "limit-us 1000 rate delivered";

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
	ASSERT(tsq_policy_format(&rate, buf, strlen("limit-us 1000 rate")) == -ENOSPC,
	       "format: no room for rate's value is -ENOSPC");
	ASSERT(tsq_policy_format(&rate, buf, strlen(want_rate) + 1) == (int)strlen(want_rate) &&
	       !strcmp(buf, want_rate), "format: rate delivered, exact fit");
	/* Not a policy the parser makes: the flag without its field. */
	rate.flags = TSQ_POLICY_LIMIT | TSQ_POLICY_RATE_DELIVERED;
	rate.limit = 8192;
	ASSERT(tsq_policy_format(&rate, buf, sizeof(buf)) > 0 && !strcmp(buf, "limit 8k"),
	       "format: rate only after limit-us");
}

/* What tsqctl show prints for p, in text or JSON. */
static char *shown(const struct tsq_policy *p, bool json)
{
	char *buf = NULL;
	size_t len;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return NULL;
	if (!print_start(f, json, false)) {
		open_json_object(NULL);
		tsq_policy_print(p);
		close_json_object();
		print_end();
	}
	fclose(f);
	return buf;
}

static const struct print_case {
	struct tsq_policy p;
	const char *text, *json;
} print_cases[] = {
	{ { RATE_US, 0, 1000, 0, 0 }, " limit-us 1000 rate delivered",
	  "{\"limit_us\":1000,\"rate\":\"delivered\"}\n" },
	/* The default: not in text (as the files write it), said in JSON. */
	{ { TSQ_POLICY_LIMIT_US, 0, 1000, 0, 0 }, " limit-us 1000",
	  "{\"limit_us\":1000,\"rate\":\"pacing\"}\n" },
	{ { TSQ_POLICY_ALL | TSQ_POLICY_RATE_DELIVERED, 65536, 2000, 16384, 1 << 20 },
	  " limit 64k limit-us 2000 rate delivered tso 16k budget 1m",
	  "{\"limit\":65536,\"limit_us\":2000,\"rate\":\"delivered\",\"tso\":16384,"
	  "\"budget\":1048576}\n" },
	/* Without limit-us there is no rate, flag or not. */
	{ { TSQ_POLICY_LIMIT | TSQ_POLICY_RATE_DELIVERED, 8192, 1000, 0, 0 }, " limit 8k",
	  "{\"limit\":8192}\n" },
};

static void test_print(void)
{
	for (size_t i = 0; i < ARRAY_SIZE(print_cases); i++) {
		const struct print_case *c = &print_cases[i];
		char *text = shown(&c->p, false), *json = shown(&c->p, true);

		check(text && !strcmp(text, c->text), tname("print text \"%s\"", c->text),
		      "got \"%s\"", text ? esc(text) : "(none)");
		check(json && !strcmp(json, c->json), tname("print JSON of \"%s\"", c->text),
		      "got %s, want %s", json ? esc(json) : "(none)", esc(c->json));
		free(text);
		free(json);
	}
}

int main(void)
{
	test_ok();
	test_bad();
	test_err_buffer();
	test_validate();
	test_format();
	test_print();
	return test_done();
}

// SPDX-License-Identifier: GPL-2.0
/* tsq_quote(): user input made safe for a one-line message; tsq_prom_label(). */
#include "quote.h"
#include "test.h"

static const struct quote_case {
	const char *in;
	size_t len;
	const char *out;
} cases[] = {
	{ "limit", 80, "limit" },
	{ "", 80, "" },
	{ "a\nb", 80, "a\\x0ab" },
	{ "\x1b[31mred", 80, "\\x1b[31mred" },
	{ "a\"b\\c", 80, "a\\\"b\\\\c" },
	{ "\x7f", 80, "\\x7f" },
	{ "caf\xc3\xa9", 80, "caf\xc3\xa9" },
	{ "a\xff" "b", 80, "a\\xffb" },
	{ "\xc2\x9b" "31m", 80, "\\xc2\\x9b31m" },
	{ "abcdefgh", 9, "abcdefgh" },
	{ "abcdefghi", 9, "abcde..." },
	{ "abc\ndefg", 9, "abc..." },
	{ "abcdef", 4, "" },
	{ "abc", 4, "abc" },
	{ "abcdef", 5, "a..." },
	{ "abcdef", 1, "" },
};

struct str_case {
	const char *in, *out;
};

static const struct str_case prom_cases[] = {
	{ "/bulk", "\"/bulk\"" },
	{ "/q\"x", "\"/q\\\"x\"" },
	{ "a\\b", "\"a\\\\b\"" },
	{ "a\nb", "\"a\\nb\"" },
	{ "t\tb", "\"t\\\\x09b\"" },
	/* The label's value is the text \x1b: its backslash doubled. */
	{ "\x1b[31m\r\x01", "\"\\\\x1b[31m\\\\x0d\\\\x01\"" },
	{ "a\xff\xc3", "\"a\\\\xff\\\\xc3\"" },
	{ "\xc2\x85", "\"\\\\xc2\\\\x85\"" },
	{ "caf\xc3\xa9", "\"caf\xc3\xa9\"" },
};

/* For a terminal: escapes only where a byte would act or is not UTF-8. */
static const struct str_case safe_cases[] = {
	{ "/system.slice/a\\x2db.service", "/system.slice/a\\x2db.service" },
	{ "\x1b]0;pwned\a", "\\x1b]0;pwned\\x07" },
	{ "a\rb\x7f", "a\\x0db\\x7f" },
	{ "\xff\xfe", "\\xff\\xfe" },
	{ "\xc2\x9b" "2J", "\\xc2\\x9b2J" },
	{ "caf\xc3\xa9 \xe2\x82\xac", "caf\xc3\xa9 \xe2\x82\xac" },
	{ "\"q\"", "\"q\"" },
};

/* A writer of quoted strings against its table. */
static void test_writer(const char *what, void (*fn)(FILE *, const char *),
			const struct str_case *cases, size_t n)
{
	char buf[128];

	for (size_t i = 0; i < n; i++) {
		FILE *f = fmemopen(buf, sizeof(buf), "w");

		fn(f, cases[i].in);
		fclose(f);
		check(!strcmp(buf, cases[i].out), tname("%s \"%s\"", what, esc(cases[i].in)),
		      "got %s, want %s", esc(buf), esc(cases[i].out));
	}
}

int main(void)
{
	const struct quote_case *c;
	char buf[128];

	for (c = cases; c < cases + ARRAY_SIZE(cases); c++) {
		memset(buf, 'x', sizeof(buf));
		tsq_quote(buf, c->len, c->in);
		check(!strcmp(buf, c->out) && buf[c->len] == 'x',
		      tname("quote \"%s\" in %zu bytes", esc(c->in), c->len),
		      "got \"%s\", want \"%s\"", esc(buf), esc(c->out));
	}
	ASSERT(!strcmp(tsq_quote(buf, 0, "a"), ""), "quote into 0 bytes");
	test_writer("prometheus label", tsq_prom_label, prom_cases, ARRAY_SIZE(prom_cases));
	test_writer("safe", tsq_put_safe, safe_cases, ARRAY_SIZE(safe_cases));
	return test_done();
}

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
	/* U+202E, right-to-left override: its 3 bytes, never cut in two. */
	{ "a\xe2\x80\xae" "b", 80, "a\\xe2\\x80\\xaeb" },
	{ "ab\xe2\x80\xae", 12, "ab..." },
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
	{ "gpj.\xe2\x80\xae" "exe", "\"gpj.\\\\xe2\\\\x80\\\\xaeexe\"" },
};

/* For a terminal: escapes only where a byte would act or is not UTF-8. */
static const struct str_case safe_cases[] = {
	/* A backslash doubled: the text \x1b is not ESC's escape. */
	{ "/system.slice/a\\x2db.service", "/system.slice/a\\\\x2db.service" },
	{ "lit\\x1b[31m", "lit\\\\x1b[31m" },
	{ "\\", "\\\\" },
	{ "\x1b]0;pwned\a", "\\x1b]0;pwned\\x07" },
	{ "a\rb\x7f", "a\\x0db\\x7f" },
	{ "\xff\xfe", "\\xff\\xfe" },
	{ "\xc2\x9b" "2J", "\\xc2\\x9b2J" },
	{ "caf\xc3\xa9 \xe2\x82\xac", "caf\xc3\xa9 \xe2\x82\xac" },
	{ "\"q\"", "\"q\"" },
	/* Every bidi control, a byte at a time; U+2028, U+200D and U+061B are text. */
	{ "\xe2\x80\xaa\xe2\x80\xab\xe2\x80\xac\xe2\x80\xad\xe2\x80\xae",
	  "\\xe2\\x80\\xaa\\xe2\\x80\\xab\\xe2\\x80\\xac\\xe2\\x80\\xad\\xe2\\x80\\xae" },
	{ "\xe2\x81\xa6\xe2\x81\xa7\xe2\x81\xa8\xe2\x81\xa9",
	  "\\xe2\\x81\\xa6\\xe2\\x81\\xa7\\xe2\\x81\\xa8\\xe2\\x81\\xa9" },
	{ "\xe2\x80\x8e\xe2\x80\x8f\xd8\x9c", "\\xe2\\x80\\x8e\\xe2\\x80\\x8f\\xd8\\x9c" },
	{ "\xe2\x80\xa8\xe2\x80\x8d\xd8\x9b", "\xe2\x80\xa8\xe2\x80\x8d\xd8\x9b" },
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

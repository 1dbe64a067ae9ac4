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
	{ "t\tb", "\"t\tb\"" },
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
	return test_done();
}

// SPDX-License-Identifier: GPL-2.0
/* tsq_quote(): user input made safe for a one-line message; tsq_json_str(). */
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

static const struct { const char *in, *out; } json_cases[] = {
	{ "/bulk", "\"/bulk\"" },
	{ "", "\"\"" },
	{ "/q\"x", "\"/q\\\"x\"" },
	{ "a\\b", "\"a\\\\b\"" },
	{ "\n\x1f", "\"\\u000a\\u001f\"" },
	{ "caf\xc3\xa9", "\"caf\xc3\xa9\"" },
};

static void test_json(void)
{
	char buf[128];

	for (size_t i = 0; i < ARRAY_SIZE(json_cases); i++) {
		FILE *f = fmemopen(buf, sizeof(buf), "w");

		tsq_json_str(f, json_cases[i].in);
		fclose(f);
		check(!strcmp(buf, json_cases[i].out),
		      tname("json \"%s\"", esc(json_cases[i].in)),
		      "got %s, want %s", esc(buf), esc(json_cases[i].out));
	}
}

static const struct { const char *in, *out; } prom_cases[] = {
	{ "/bulk", "\"/bulk\"" },
	{ "/q\"x", "\"/q\\\"x\"" },
	{ "a\\b", "\"a\\\\b\"" },
	{ "a\nb", "\"a\\nb\"" },
	{ "t\tb", "\"t\tb\"" },
};

static void test_prom(void)
{
	char buf[128];

	for (size_t i = 0; i < ARRAY_SIZE(prom_cases); i++) {
		FILE *f = fmemopen(buf, sizeof(buf), "w");

		tsq_prom_label(f, prom_cases[i].in);
		fclose(f);
		check(!strcmp(buf, prom_cases[i].out),
		      tname("prometheus label \"%s\"", esc(prom_cases[i].in)),
		      "got %s, want %s", esc(buf), esc(prom_cases[i].out));
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
	test_json();
	test_prom();
	return test_done();
}

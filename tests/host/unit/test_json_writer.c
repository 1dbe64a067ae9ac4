// SPDX-License-Identifier: GPL-2.0
/* json_writer and the print layer over it: escaping, nesting, limits. */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "json_writer.h"
#include "print.h"
#include "test.h"

/* What fn wrote with a fresh writer; the caller frees it. */
static char *written(void (*fn)(struct json_writer *jw), bool pretty)
{
	struct json_writer *jw;
	size_t len;
	char *buf;
	FILE *f;

	f = open_memstream(&buf, &len);
	if (!f)
		return strdup("");
	jw = jsonw_new(f, pretty);
	if (jw)
		fn(jw);
	jsonw_destroy(&jw);
	fclose(f);
	return buf;
}

static void expect(void (*fn)(struct json_writer *jw), bool pretty, const char *want,
		   const char *name)
{
	char *got = written(fn, pretty);

	check(!strcmp(got, want), name, "got \"%s\", want \"%s\"", esc(got), esc(want));
	free(got);
}

static void w_escapes(struct json_writer *jw)
{
	jsonw_string(jw, "q\"b\\s/\n\t\x01\x1f\x7f caf\xc3\xa9");
}

static void w_empty(struct json_writer *jw)
{
	jsonw_start_object(jw);
	jsonw_name(jw, "a");
	jsonw_start_array(jw);
	jsonw_end_array(jw);
	jsonw_name(jw, "o");
	jsonw_start_object(jw);
	jsonw_end_object(jw);
	jsonw_end_object(jw);
}

static void w_nested(struct json_writer *jw)
{
	jsonw_start_array(jw);
	for (int i = 0; i < 2; i++) {
		jsonw_start_object(jw);
		jsonw_name(jw, "id");
		jsonw_uint(jw, i);
		jsonw_name(jw, "l");
		jsonw_start_array(jw);
		jsonw_bool(jw, i);
		jsonw_null(jw);
		jsonw_end_array(jw);
		jsonw_end_object(jw);
	}
	jsonw_end_array(jw);
}

static void w_limits(struct json_writer *jw)
{
	jsonw_start_array(jw);
	jsonw_u64(jw, UINT64_MAX);
	jsonw_s64(jw, INT64_MIN);
	jsonw_s64(jw, INT64_MAX);
	jsonw_uint(jw, UINT32_MAX);
	jsonw_u64(jw, 0);
	jsonw_float(jw, 0.25);
	jsonw_float(jw, 1733357712.123);
	jsonw_float(jw, NAN);
	jsonw_float(jw, INFINITY);
	jsonw_float(jw, -DBL_MAX);
	jsonw_end_array(jw);
}

static void w_key_escaped(struct json_writer *jw)
{
	jsonw_start_object(jw);
	jsonw_name(jw, "tx-0\"");
	jsonw_string(jw, NULL);
	jsonw_end_object(jw);
}

static void w_two_values(struct json_writer *jw)
{
	jsonw_start_array(jw);
	jsonw_end_array(jw);
	jsonw_uint(jw, 1);
}

/* Cgroup names are the user's: each byte that JSON forbids is escaped. */
static const struct {
	const char *in, *out;
} strings[] = {
	{ "/bulk", "\"/bulk\"\n" },
	{ "", "\"\"\n" },
	{ "/q\"x", "\"/q\\\"x\"\n" },
	{ "a\\b", "\"a\\\\b\"\n" },
	{ "\n\x1f", "\"\\u000a\\u001f\"\n" },
	{ "caf\xc3\xa9", "\"caf\xc3\xa9\"\n" },
	/* Not UTF-8: strict decoders refuse the whole text; the byte as \xNN. */
	{ "a\xff\xfe" "b", "\"a\\\\xff\\\\xfeb\"\n" },
	{ "\xc3(", "\"\\\\xc3(\"\n" },
	{ "\xe0\x80\x80", "\"\\\\xe0\\\\x80\\\\x80\"\n" },		/* overlong */
	{ "\xed\xa0\x80", "\"\\\\xed\\\\xa0\\\\x80\"\n" },		/* surrogate */
	{ "\xf4\x90\x80\x80", "\"\\\\xf4\\\\x90\\\\x80\\\\x80\"\n" },	/* > U+10FFFF */
	{ "\xf0\x9f\x98\x80", "\"\xf0\x9f\x98\x80\"\n" },		/* U+1F600 */
	/* ESC, CR, C1 (CSI): escapes, not bytes a terminal acts on. */
	{ "\x1b]0;t\a\r\xc2\x9b", "\"\\u001b]0;t\\u0007\\u000d\\u009b\"\n" },
	/* Bidi controls (RLO, LRI, PDI, RLM, ALM): \u, so a dump reads in order. */
	{ "a\xe2\x80\xae" "b\xe2\x81\xa6\xe2\x81\xa9\xe2\x80\x8f\xd8\x9c",
	  "\"a\\u202eb\\u2066\\u2069\\u200f\\u061c\"\n" },
	/* Their neighbours are text. */
	{ "\xe2\x80\xa9\xe2\x80\xaf\xe2\x81\xaa\xd8\x9b", "\"\xe2\x80\xa9\xe2\x80\xaf\xe2\x81\xaa\xd8\x9b\"\n" },
};

static void test_strings(void)
{
	for (size_t i = 0; i < ARRAY_SIZE(strings); i++) {
		struct json_writer *jw;
		char *buf = NULL;
		size_t len;
		FILE *f = open_memstream(&buf, &len);

		if (!f)
			continue;
		jw = jsonw_new(f, false);
		if (jw)
			jsonw_string(jw, strings[i].in);
		jsonw_destroy(&jw);
		fclose(f);
		check(buf && !strcmp(buf, strings[i].out),
		      tname("string \"%s\"", esc(strings[i].in)), "got %s, want %s",
		      esc(buf ?: ""), esc(strings[i].out));
		free(buf);
	}
}

static void test_writer(void)
{
	expect(w_escapes, false,
	       "\"q\\\"b\\\\s/\\u000a\\u0009\\u0001\\u001f\\u007f caf\xc3\xa9\"\n",
	       "quotes, backslash and control bytes escaped, UTF-8 kept");
	expect(w_empty, false, "{\"a\":[],\"o\":{}}\n", "empty containers");
	expect(w_empty, true, "{\n    \"a\": [],\n    \"o\": {}\n}\n", "empty containers, pretty");
	expect(w_nested, false,
	       "[{\"id\":0,\"l\":[false,null]},{\"id\":1,\"l\":[true,null]}]\n",
	       "nesting: commas between elements only");
	expect(w_nested, true,
	       "[\n    {\n        \"id\": 0,\n        \"l\": [\n            false,\n"
	       "            null\n        ]\n    },\n    {\n        \"id\": 1,\n"
	       "        \"l\": [\n            true,\n            null\n        ]\n"
	       "    }\n]\n", "nesting, pretty");
	expect(w_limits, false,
	       "[18446744073709551615,-9223372036854775808,9223372036854775807,"
	       "4294967295,0,0.25,1733357712.123,null,null,-1.79769313486232e+308]\n",
	       "numbers at their limits; no NaN or infinity");
	expect(w_key_escaped, false, "{\"tx-0\\\"\":null}\n", "keys escaped; NULL string is null");
	expect(w_two_values, false, "[]\n1\n", "one top-level value a line");
}

/* What the print calls of fn wrote, in JSON or text mode. */
static char *printed(void (*fn)(void), bool json)
{
	size_t len;
	char *buf;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return strdup("");
	if (print_start(f, json, false)) {
		fclose(f);
		free(buf);
		return strdup("");
	}
	fn();
	print_end();
	fclose(f);
	return buf;
}

static void p_fields(void)
{
	open_json_object(NULL);
	print_string(PRINT_ANY, "cgroup", "%s", "/a\"b");
	print_uint(PRINT_ANY, "limit", " limit %u", 8192);
	print_string(PRINT_FP, NULL, " (%s)", "text only");
	print_u64(PRINT_JSON, "id", " id %llu", 7);
	print_bool(PRINT_ANY, "hook", " hook %s", false);
	print_null(PRINT_ANY, "pid", " pid %s", "-");
	print_s64(PRINT_ANY, "sockets", " sockets %lld", -1);
	open_json_array("bql");
	print_number_text(PRINT_ANY, NULL, " %s", "4096");
	print_number_text(PRINT_ANY, NULL, " %s", "-12");
	print_number_text(PRINT_ANY, NULL, " %s", "cubic\"\n");
	print_number_text(PRINT_ANY, NULL, " %s", "");
	print_number_text(PRINT_ANY, NULL, " %s", "+1");
	print_number_text(PRINT_ANY, NULL, " %s", " 1");
	print_number_text(PRINT_ANY, NULL, " %s", "99999999999999999999");
	print_number_text(PRINT_ANY, NULL, " %s", "-");
	close_json_array();
	close_json_object();
	print_nl();
}

static void test_print(void)
{
	char *got;
	const char *want;

	got = printed(p_fields, true);
	want = "{\"cgroup\":\"/a\\\"b\",\"limit\":8192,\"id\":7,\"hook\":false,\"pid\":null,"
	       "\"sockets\":-1,\"bql\":[4096,-12,\"cubic\\\"\\u000a\",null,\"+1\",\" 1\","
	       "\"99999999999999999999\",\"-\"]}\n";
	check(!strcmp(got, want), "print: JSON mode", "got \"%s\"", esc(got));
	free(got);
	got = printed(p_fields, false);
	want = "/a\"b limit 8192 (text only) hook false pid - sockets -1 4096 -12 cubic\"\n"
	       " - +1  1 99999999999999999999 -\n";
	check(!strcmp(got, want), "print: text mode", "got \"%s\"", esc(got));
	free(got);
}

int main(void)
{
	test_strings();
	test_writer();
	test_print();
	return test_done();
}

// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Text or JSON through one set of calls; see print.h. */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>

#include "json_writer.h"
#include "print.h"
#include "quote.h"

static FILE *out;
static struct json_writer *jw;	/* NULL: text mode */

int print_start(FILE *f, bool json, bool pretty)
{
	out = f;
	if (!json)
		return 0;
	jw = jsonw_new(f, pretty);
	return jw ? 0 : -ENOMEM;
}

void print_end(void)
{
	jsonw_destroy(&jw);
	if (out)
		fflush(out);
	out = NULL;	/* tsqd closes its stream after each request */
}

bool print_is_json(void)
{
	return jw;
}

static FILE *stream(void)
{
	return out ?: stdout;
}

/* In JSON mode: name the value, and say whether to write it. */
static bool json_field(enum output_type t, const char *key)
{
	if (!jw || !(t & PRINT_JSON))
		return false;
	if (key)
		jsonw_name(jw, key);
	return true;
}

void open_json_object(const char *key)
{
	if (json_field(PRINT_JSON, key))
		jsonw_start_object(jw);
}

void close_json_object(void)
{
	if (jw)
		jsonw_end_object(jw);
}

void open_json_array(const char *key)
{
	if (json_field(PRINT_JSON, key))
		jsonw_start_array(jw);
}

void close_json_array(void)
{
	if (jw)
		jsonw_end_array(jw);
}

__attribute__((format(printf, 2, 3)))
static void text(enum output_type t, const char *fmt, ...)
{
	va_list ap;

	if (jw || !(t & PRINT_FP) || !fmt)
		return;
	va_start(ap, fmt);
	vfprintf(stream(), fmt, ap);
	va_end(ap);
}

/* Escaped in text too (quote.h): a string may be a cgroup's name. */
void print_string(enum output_type t, const char *key, const char *fmt, const char *v)
{
	char *safe;

	if (json_field(t, key)) {
		jsonw_string(jw, v);
		return;
	}
	if (jw || !(t & PRINT_FP) || !fmt)
		return;
	safe = tsq_safe_dup(v ?: "");
	text(t, fmt, safe ?: "?");
	free(safe);
}

void print_u64(enum output_type t, const char *key, const char *fmt, uint64_t v)
{
	if (json_field(t, key))
		jsonw_u64(jw, v);
	else
		text(t, fmt, (unsigned long long)v);
}

void print_s64(enum output_type t, const char *key, const char *fmt, int64_t v)
{
	if (json_field(t, key))
		jsonw_s64(jw, v);
	else
		text(t, fmt, (long long)v);
}

void print_uint(enum output_type t, const char *key, const char *fmt, unsigned int v)
{
	if (json_field(t, key))
		jsonw_uint(jw, v);
	else
		text(t, fmt, v);
}

void print_float(enum output_type t, const char *key, const char *fmt, double v)
{
	if (json_field(t, key))
		jsonw_float(jw, v);
	else
		text(t, fmt, v);
}

void print_bool(enum output_type t, const char *key, const char *fmt, bool v)
{
	if (json_field(t, key))
		jsonw_bool(jw, v);
	else
		text(t, fmt, v ? "true" : "false");
}

void print_null(enum output_type t, const char *key, const char *fmt, const char *v)
{
	if (json_field(t, key))
		jsonw_null(jw);
	else
		text(t, fmt, v ?: "");
}

void print_number_text(enum output_type t, const char *key, const char *fmt,
		       const char *v)
{
	unsigned long long u;
	long long s;
	char *end;

	if (!v || !*v) {
		print_null(t, key, fmt, "-");
		return;
	}
	if (!json_field(t, key)) {
		text(t, fmt, v);
		return;
	}
	/* strtoll takes leading blanks and "+": JSON does not. */
	errno = 0;
	if (v[0] == '-') {
		s = strtoll(v, &end, 10);
		if (v[1] >= '0' && v[1] <= '9' && !*end && !errno) {
			jsonw_s64(jw, s);
			return;
		}
	} else if (v[0] >= '0' && v[0] <= '9') {
		u = strtoull(v, &end, 10);
		if (!*end && !errno) {
			jsonw_u64(jw, u);
			return;
		}
	}
	jsonw_string(jw, v);
}

void print_nl(void)
{
	if (!jw)
		fputc('\n', stream());
}

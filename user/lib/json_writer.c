// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * JSON out of printf-style code. Ours rather than json-c or jansson: those
 * build a tree in memory to serialise once, which a walk of 65,536 cgroups
 * does not need, and either would be one more library on every host for
 * about 150 lines.
 *
 * The writer keeps one bit of state per level it is in: whether the
 * container is still empty, which decides the comma. A value at level 0
 * ends with a newline, so that output made of several top-level values
 * (tsqctl -j stats --watch) reads as one a line.
 */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>

#include "json_writer.h"
#include "quote.h"

struct json_writer {
	FILE *f;
	bool pretty;
	bool first;		/* nothing written yet in the open container */
	bool named;		/* a key was written: its value follows */
	unsigned int depth;
};

struct json_writer *jsonw_new(FILE *f, bool pretty)
{
	struct json_writer *jw = calloc(1, sizeof(*jw));

	if (!jw)
		return NULL;
	jw->f = f;
	jw->pretty = pretty;
	jw->first = true;
	return jw;
}

void jsonw_destroy(struct json_writer **jw)
{
	if (!*jw)
		return;
	fflush((*jw)->f);
	free(*jw);
	*jw = NULL;
}

static void indent(struct json_writer *jw)
{
	if (!jw->pretty)
		return;
	fputc('\n', jw->f);
	for (unsigned int i = 0; i < jw->depth; i++)
		fputs("    ", jw->f);
}

/* Before a key, or a value that has none: the comma and the indent. */
static void element(struct json_writer *jw)
{
	if (jw->named) {
		jw->named = false;
		return;
	}
	if (!jw->depth)
		return;
	if (!jw->first)
		fputc(',', jw->f);
	indent(jw);
	jw->first = false;
}

/* After a whole value: the line ends where the top level does. */
static void value_done(struct json_writer *jw)
{
	jw->first = false;
	if (!jw->depth)
		fputc('\n', jw->f);
}

/*
 * JSON text is UTF-8 (RFC 8259), and a cgroup's name is any bytes but
 * '/' and NUL: a byte that is not part of valid UTF-8 becomes the text
 * \xNN (quote.h), so that strict decoders take the whole output.
 * Control characters, C1 included, and bidi controls are \u escapes.
 */
static void put_string(FILE *f, const char *s)
{
	fputc('"', f);
	while (*s) {
		size_t n = tsq_utf8_char(s);

		if (!n) {
			fprintf(f, "\\\\x%02x", (unsigned char)*s);
			n = 1;
		} else if (tsq_utf8_control(s, n)) {
			fprintf(f, "\\u%04x", n == 1 ? (unsigned char)s[0] :
				(unsigned char)s[1]);
		} else if (tsq_utf8_bidi(s, n)) {
			/* The same character, but a raw dump cannot reorder a line. */
			const unsigned char *u = (const unsigned char *)s;

			fprintf(f, "\\u%04x", n == 2 ? (u[0] & 0x1f) << 6 | (u[1] & 0x3f) :
				(u[0] & 0x0f) << 12 | (u[1] & 0x3f) << 6 | (u[2] & 0x3f));
		} else if (*s == '"' || *s == '\\') {
			fprintf(f, "\\%c", *s);
		} else {
			fwrite(s, 1, n, f);
		}
		s += n;
	}
	fputc('"', f);
}

void jsonw_name(struct json_writer *jw, const char *name)
{
	element(jw);
	put_string(jw->f, name);
	fputs(jw->pretty ? ": " : ":", jw->f);
	jw->named = true;
}

static void start(struct json_writer *jw, char open)
{
	element(jw);
	fputc(open, jw->f);
	jw->depth++;
	jw->first = true;
}

static void end(struct json_writer *jw, char close)
{
	jw->depth--;
	if (!jw->first)
		indent(jw);
	fputc(close, jw->f);
	value_done(jw);
}

void jsonw_start_object(struct json_writer *jw)
{
	start(jw, '{');
}

void jsonw_end_object(struct json_writer *jw)
{
	end(jw, '}');
}

void jsonw_start_array(struct json_writer *jw)
{
	start(jw, '[');
}

void jsonw_end_array(struct json_writer *jw)
{
	end(jw, ']');
}

void jsonw_string(struct json_writer *jw, const char *s)
{
	if (!s) {
		jsonw_null(jw);
		return;
	}
	element(jw);
	put_string(jw->f, s);
	value_done(jw);
}

void jsonw_u64(struct json_writer *jw, uint64_t v)
{
	element(jw);
	fprintf(jw->f, "%" PRIu64, v);
	value_done(jw);
}

void jsonw_s64(struct json_writer *jw, int64_t v)
{
	element(jw);
	fprintf(jw->f, "%" PRId64, v);
	value_done(jw);
}

void jsonw_uint(struct json_writer *jw, unsigned int v)
{
	jsonw_u64(jw, v);
}

void jsonw_float(struct json_writer *jw, double v)
{
	if (!isfinite(v)) {
		jsonw_null(jw);
		return;
	}
	element(jw);
	/* 15 digits: what a double holds exactly in decimal. */
	fprintf(jw->f, "%.15g", v);
	value_done(jw);
}

void jsonw_bool(struct json_writer *jw, bool v)
{
	element(jw);
	fputs(v ? "true" : "false", jw->f);
	value_done(jw);
}

void jsonw_null(struct json_writer *jw)
{
	element(jw);
	fputs("null", jw->f);
	value_done(jw);
}

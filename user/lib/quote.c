// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Names that come from users (cgroup names, policy file words) reach a
 * terminal, a log line, a Prometheus label and JSON. Anyone who can make
 * a cgroup picks its name's bytes: an escape sequence must not reach the
 * terminal, a newline must not split a line, and a byte that is not
 * UTF-8 must not make a strict parser (Prometheus, Python's json)
 * refuse the whole output, and a bidirectional control (U+202E, right-to-
 * left override) must not make a name read as another. One rule
 * everywhere: a control character (C0, DEL, C1), a bidi control and a
 * byte that is not part of valid UTF-8 is written as \xNN, a byte at a
 * time; everything else as it is. Where the text is read by a person,
 * a backslash is \\ too, so that the text \x1b in a name is not taken
 * for an escaped ESC.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "quote.h"

/* RFC 3629: no overlong forms, no surrogates, nothing past U+10FFFF. */
size_t tsq_utf8_char(const char *str)
{
	const unsigned char *s = (const unsigned char *)str;
	unsigned char lo = 0x80, hi = 0xbf;
	size_t n;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		n = 2;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		n = 3;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		n = 4;
	else
		return 0;
	if (s[0] == 0xe0)
		lo = 0xa0;
	else if (s[0] == 0xed)
		hi = 0x9f;
	else if (s[0] == 0xf0)
		lo = 0x90;
	else if (s[0] == 0xf4)
		hi = 0x8f;
	if (s[1] < lo || s[1] > hi)
		return 0;
	for (size_t i = 2; i < n; i++)
		if (s[i] < 0x80 || s[i] > 0xbf)
			return 0;
	return n;
}

bool tsq_utf8_control(const char *str, size_t n)
{
	const unsigned char *s = (const unsigned char *)str;

	if (n == 1)
		return s[0] < 0x20 || s[0] == 0x7f;
	return n == 2 && s[0] == 0xc2 && s[1] < 0xa0;	/* C1: U+0080-U+009F */
}

bool tsq_utf8_bidi(const char *str, size_t n)
{
	const unsigned char *s = (const unsigned char *)str;

	if (n == 2)				/* U+061C arabic letter mark */
		return s[0] == 0xd8 && s[1] == 0x9c;
	if (n != 3 || s[0] != 0xe2)
		return false;
	if (s[1] == 0x80)			/* U+200E-F, U+202A-E */
		return s[2] == 0x8e || s[2] == 0x8f || (s[2] >= 0xaa && s[2] <= 0xae);
	return s[1] == 0x81 && s[2] >= 0xa6 && s[2] <= 0xa9;	/* U+2066-9 */
}

/*
 * The next piece of s: *n bytes to copy as they are (a character that
 * is safe) or, returning true, one byte to write as \xNN.
 */
static bool next_unsafe(const char *s, size_t *n)
{
	size_t len = tsq_utf8_char(s);

	if (!len) {
		*n = 1;
		return true;
	}
	*n = len;
	return tsq_utf8_control(s, len) || tsq_utf8_bidi(s, len);
}

void tsq_put_safe(FILE *f, const char *s)
{
	size_t n;

	while (*s) {
		if (next_unsafe(s, &n)) {
			/* A character of 2 or 3 bytes (C1, bidi) is as many escapes. */
			for (size_t i = 0; i < n; i++)
				fprintf(f, "\\x%02x", (unsigned char)s[i]);
		} else if (*s == '\\') {
			fputs("\\\\", f);
		} else {
			fwrite(s, 1, n, f);
		}
		s += n;
	}
}

char *tsq_safe_dup(const char *s)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return NULL;
	tsq_put_safe(f, s);
	if (fclose(f)) {
		free(buf);
		return NULL;
	}
	return buf;
}

/* Into out, one piece of s as tsq_quote() writes it; its bytes in s. */
#define ESC_MAX		(4 * 3 + 1)	/* a bidi control, 3 escapes */
static size_t escape(const char *s, char out[ESC_MAX], size_t *len)
{
	size_t n, o = 0;

	if (next_unsafe(s, &n)) {
		*len = n;
		for (size_t i = 0; i < n; i++)
			o += snprintf(out + o, ESC_MAX - o, "\\x%02x", (unsigned char)s[i]);
		return o;
	}
	*len = n;
	if (n == 1 && (s[0] == '"' || s[0] == '\\'))
		return snprintf(out, ESC_MAX, "\\%c", s[0]);
	memcpy(out, s, n);
	return n;
}

const char *tsq_quote(char *buf, size_t len, const char *s)
{
	size_t o = 0, total = 0, room, n, used;
	const char *p;
	char esc[ESC_MAX];
	bool cut;

	if (!len)
		return "";
	for (p = s; *p; p += used)
		total += escape(p, esc, &used);
	cut = total >= len;
	room = !cut ? len - 1 : len > 4 ? len - 4 : 0;
	for (p = s; *p; p += used) {
		n = escape(p, esc, &used);
		if (o + n > room)
			break;
		memcpy(buf + o, esc, n);
		o += n;
	}
	strcpy(buf + o, cut && len > 4 ? "..." : "");
	return buf;
}

void tsq_prom_label(FILE *f, const char *s)
{
	size_t n;

	fputc('"', f);
	while (*s) {
		if (*s == '"' || *s == '\\') {
			fprintf(f, "\\%c", *s);
			n = 1;
		} else if (*s == '\n') {
			fputs("\\n", f);
			n = 1;
		} else if (next_unsafe(s, &n)) {
			/* The label's value is the text \xNN: its backslash escaped. */
			for (size_t i = 0; i < n; i++)
				fprintf(f, "\\\\x%02x", (unsigned char)s[i]);
		} else {
			fwrite(s, 1, n, f);
		}
		s += n;
	}
	fputc('"', f);
}

// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Error messages repeat what the user wrote. A newline in an argument
 * must not split a "FILE:LINE: reason" line in two, and an escape
 * sequence must not reach the terminal.
 */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "quote.h"

static size_t escape(unsigned char c, char out[5])
{
	if (c < 0x20 || c == 0x7f)
		return snprintf(out, 5, "\\x%02x", c);
	if (c == '"' || c == '\\')
		return snprintf(out, 5, "\\%c", c);
	out[0] = c;
	return 1;
}

const char *tsq_quote(char *buf, size_t len, const char *s)
{
	size_t o = 0, total = 0, room, n;
	const char *p;
	char esc[5];
	bool cut;

	if (!len)
		return "";
	for (p = s; *p; p++)
		total += escape(*p, esc);
	cut = total >= len;
	room = !cut ? len - 1 : len > 4 ? len - 4 : 0;
	for (p = s; *p; p++) {
		n = escape(*p, esc);
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
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			fprintf(f, "\\%c", *s);
		else if (*s == '\n')
			fputs("\\n", f);
		else
			fputc(*s, f);
	}
	fputc('"', f);
}

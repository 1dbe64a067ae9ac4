/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * User input inside error messages, text output, Prometheus labels (and
 * JSON strings: json_writer.c). A control character (C0, DEL, C1) and a
 * byte that is not valid UTF-8 come out as the text \xNN everywhere, and
 * so does a bidi control (U+061C, U+200E-F, U+202A-E, U+2066-9) but in
 * JSON, where it is a \u escape of the same character.
 */
#ifndef __TSQ_QUOTE_H
#define __TSQ_QUOTE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* Enough for a word of 64 bytes, or a shortened longer one. */
#define TSQ_QUOTE_BUFSZ	80

/*
 * s, safe to print between double quotes on one line: control bytes,
 * bytes that are not UTF-8, '"' and '\' as C escapes; cut with "..." to
 * fit len. Returns buf.
 */
const char *tsq_quote(char *buf, size_t len, const char *s);

/*
 * s for a terminal or a log line, as it is but for \xNN escapes and a
 * backslash doubled (so that \xNN in the output is always an escape).
 */
void tsq_put_safe(FILE *f, const char *s);
/* The same in a malloc()ed string; NULL when out of memory. */
char *tsq_safe_dup(const char *s);

/*
 * s as a Prometheus label value, quotes included: '\\', '"' and newline
 * as the text format escapes them, the rest as tsq_put_safe() does (so
 * the label is valid UTF-8, and one line).
 */
void tsq_prom_label(FILE *f, const char *s);

/* Bytes of the UTF-8 character s starts (1-4), 0 if it starts none. */
size_t tsq_utf8_char(const char *s);
/* Whether that character, n bytes, is a control character (C0, DEL, C1). */
bool tsq_utf8_control(const char *s, size_t n);
/* Whether it is a bidirectional control, which reorders what follows. */
bool tsq_utf8_bidi(const char *s, size_t n);

#endif /* __TSQ_QUOTE_H */

/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* User input inside error messages and Prometheus labels (JSON: json_writer.h). */
#ifndef __TSQ_QUOTE_H
#define __TSQ_QUOTE_H

#include <stddef.h>
#include <stdio.h>

/* Enough for a word of 64 bytes, or a shortened longer one. */
#define TSQ_QUOTE_BUFSZ	80

/*
 * s, safe to print between double quotes on one line: control bytes,
 * '"' and '\' as C escapes; cut with "..." to fit len. Returns buf.
 */
const char *tsq_quote(char *buf, size_t len, const char *s);

/*
 * s as a Prometheus label value, quotes included: the text format
 * escapes '\\', '"' and newline, and takes every other byte as it is.
 */
void tsq_prom_label(FILE *f, const char *s);

#endif /* __TSQ_QUOTE_H */

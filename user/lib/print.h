/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * One printer for text and JSON, as iproute2 prints: each field is named
 * once, with its JSON key and its text format, and the mode picks which
 * of the two is written:
 *
 *	print_uint(PRINT_ANY, "limit", " limit %u", p->limit);
 *
 * PRINT_FP writes only in text mode, PRINT_JSON only in JSON mode. A
 * NULL fmt writes nothing in text mode. One output at a time: the state
 * is global, for single-threaded programs. Text formats take the value
 * as printf does: %llu for print_u64, %lld for print_s64, %u, %f, %s.
 */
#ifndef __TSQ_PRINT_H
#define __TSQ_PRINT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

enum output_type {
	PRINT_FP = 1,
	PRINT_JSON = 2,
	PRINT_ANY = PRINT_FP | PRINT_JSON,
};

/* Start writing to f, as JSON or text. 0, or -ENOMEM. */
int print_start(FILE *f, bool json, bool pretty);
/* Flush; JSON output ends with a newline after each top-level value. */
void print_end(void);
bool print_is_json(void);

/* JSON only: key NULL for an array element or a top-level value. */
void open_json_object(const char *key);
void close_json_object(void);
void open_json_array(const char *key);
void close_json_array(void);

/* v is escaped in either mode (quote.h): a newline goes in fmt, not in v. */
void print_string(enum output_type t, const char *key, const char *fmt, const char *v);
void print_u64(enum output_type t, const char *key, const char *fmt, uint64_t v);
void print_s64(enum output_type t, const char *key, const char *fmt, int64_t v);
void print_uint(enum output_type t, const char *key, const char *fmt, unsigned int v);
void print_float(enum output_type t, const char *key, const char *fmt, double v);
/* Text: fmt takes "true" or "false" as %s. */
void print_bool(enum output_type t, const char *key, const char *fmt, bool v);
/* JSON null; text: fmt with v as %s ("-", "none"). */
void print_null(enum output_type t, const char *key, const char *fmt, const char *v);

/*
 * Text a file or sysctl gave, as a number if it is one (an integer that
 * fits 64 bits), else as a string; NULL or "" is null. Text: fmt with
 * v as %s, or with "-" for NULL or "".
 */
void print_number_text(enum output_type t, const char *key, const char *fmt,
		       const char *v);

/* Text mode: a newline. */
void print_nl(void);

#endif /* __TSQ_PRINT_H */

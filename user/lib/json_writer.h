/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* A streaming JSON writer: the caller says what comes, it adds the commas,
 * the quotes and the escapes.
 */
#ifndef __TSQ_JSON_WRITER_H
#define __TSQ_JSON_WRITER_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

struct json_writer;

/* NULL on ENOMEM. Compact output unless pretty (4-space indent). */
struct json_writer *jsonw_new(FILE *f, bool pretty);
void jsonw_destroy(struct json_writer **jw);

/* Inside an object, the key of the value that follows. */
void jsonw_name(struct json_writer *jw, const char *name);

void jsonw_start_object(struct json_writer *jw);
void jsonw_end_object(struct json_writer *jw);
void jsonw_start_array(struct json_writer *jw);
void jsonw_end_array(struct json_writer *jw);

/* s with '"', '\' and control bytes escaped; NULL writes null. Bytes of
 * 0x80 and above pass as they are: cgroup names are the kernel's bytes.
 */
void jsonw_string(struct json_writer *jw, const char *s);
void jsonw_u64(struct json_writer *jw, uint64_t v);
void jsonw_s64(struct json_writer *jw, int64_t v);
void jsonw_uint(struct json_writer *jw, unsigned int v);
/* null if v is not finite: JSON has no NaN or infinity. */
void jsonw_float(struct json_writer *jw, double v);
void jsonw_bool(struct json_writer *jw, bool v);
void jsonw_null(struct json_writer *jw);

#endif /* __TSQ_JSON_WRITER_H */

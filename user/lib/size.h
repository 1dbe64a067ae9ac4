/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Byte sizes and microsecond times as iproute2 writes them, parsed exactly. */
#ifndef __TSQ_SIZE_H
#define __TSQ_SIZE_H

#include <stddef.h>
#include <linux/types.h>

/* Room for any __u64 with its suffix and the NUL. */
#define TSQ_SIZE_BUFSZ	24

/*
 * "65536", "64k", "64kb", "64KiB", "1.5m", "1g", "8kbit", "100b".
 * k, m, g are binary (1024); kbit, mbit, gbit are those divided by 8,
 * as in tc's get_size(). Suffixes are case-insensitive. A fraction is
 * accepted only when the result is a whole number of bytes.
 *
 * Returns 0, -EINVAL for anything malformed, -ERANGE past max.
 */
int tsq_parse_size(const char *s, __u64 max, __u64 *out);

/* "1500", "1500us", "1.5ms", "2s" (also usec, msec, sec, secs, ...). */
int tsq_parse_usec(const char *s, __u32 max, __u32 *out);

/*
 * The shortest exact text tsq_parse_size() reads back to the same value:
 * "64k", "1536", "1g". Returns the length, or -ENOSPC if buf is too small.
 */
int tsq_format_size(char *buf, size_t len, __u64 bytes);

#endif /* __TSQ_SIZE_H */

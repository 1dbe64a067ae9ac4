/* SPDX-License-Identifier: GPL-2.0 */
/* The fuzzers' input as the C string the parsers take. */
#ifndef __TSQ_FUZZ_INPUT_H
#define __TSQ_FUZZ_INPUT_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* @data as a NUL-terminated copy, to free(); NULL without memory. A NUL
 * inside @data ends the string there, as it would for the parsers.
 */
static inline char *fuzz_cstr(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);

	if (s) {
		memcpy(s, data, size);
		s[size] = '\0';
	}
	return s;
}

#endif

// SPDX-License-Identifier: GPL-2.0
/*
 * tsq_safe_dup() and tsq_quote() on arbitrary names: the output is valid
 * UTF-8 with no control or bidi character, and it decodes back to the
 * name, so two names never print alike (the text \x1b and ESC least of
 * all). tsq_quote() also fits its buffer, cut or not.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "quote.h"
#include "fuzz_input.h"

static int hex(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

/* Every character is text, neither control nor bidi. */
static bool clean(const char *s)
{
	while (*s) {
		size_t n = tsq_utf8_char(s);

		if (!n || tsq_utf8_control(s, n) || tsq_utf8_bidi(s, n))
			return false;
		s += n;
	}
	return true;
}

/* Undo the escapes into out; false where the text is no escape's. */
static bool decode(const char *s, char *out, bool quoted)
{
	while (*s) {
		if (*s != '\\') {
			if (quoted && *s == '"')
				return false;	/* a bare quote would end the string */
			*out++ = *s++;
			continue;
		}
		if (s[1] == '\\' || (quoted && s[1] == '"')) {
			*out++ = s[1];
			s += 2;
		} else if (s[1] == 'x' && hex(s[2]) >= 0 && hex(s[3]) >= 0) {
			*out++ = hex(s[2]) << 4 | hex(s[3]);
			s += 4;
		} else {
			return false;
		}
	}
	*out = '\0';
	return true;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *name, *safe, *back, small[17];
	size_t len;

	name = fuzz_cstr(data, size);
	if (!name)
		return 0;
	len = strlen(name);

	safe = tsq_safe_dup(name);
	back = malloc(len + 1);
	if (!safe || !back)
		abort();
	if (!clean(safe) || !decode(safe, back, false) || strcmp(back, name))
		abort();
	free(safe);

	safe = malloc(4 * len + 1);
	if (!safe)
		abort();
	tsq_quote(safe, 4 * len + 1, name);
	if (!clean(safe) || !decode(safe, back, true) || strcmp(back, name))
		abort();
	/* Cut: a prefix of the whole, then "...", in the buffer. */
	memset(small, 'x', sizeof(small));
	tsq_quote(small, sizeof(small) - 1, name);
	if (small[sizeof(small) - 1] != 'x' || strlen(small) >= sizeof(small) - 1 ||
	    !clean(small))
		abort();
	if (strcmp(small, safe)) {
		size_t n = strlen(small);

		if (n < 3 || strcmp(small + n - 3, "...") || strncmp(small, safe, n - 3))
			abort();
	}
	free(safe);
	free(back);
	free(name);
	return 0;
}

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A minimal harness: one "PASS: name" or "FAIL: name: detail" line per
 * check (tests/host/run counts them), a closing "N passed, N failed" and
 * the number of failures as the exit code.
 */
#ifndef __TSQ_TEST_H
#define __TSQ_TEST_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

static int tests_passed, tests_failed;

/* A check's name, printf-style; valid until the next call. */
__attribute__((format(printf, 1, 2), unused))
static const char *tname(const char *fmt, ...)
{
	static char buf[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	return buf;
}

/* s in C escapes, for names: rotates among 4 buffers. */
__attribute__((unused))
static const char *esc(const char *s)
{
	static char bufs[4][256];
	static unsigned int next;
	char *b = bufs[next++ % 4];
	size_t o = 0;

	for (; *s && o < sizeof(bufs[0]) - 5; s++) {
		unsigned char c = *s;

		if (c >= 0x20 && c < 0x7f && c != '\\' && c != '"')
			b[o++] = c;
		else
			o += sprintf(b + o, "\\x%02x", c);
	}
	b[o] = '\0';
	return b;
}

/* Report one check; fmt explains a failure. Returns ok. */
__attribute__((format(printf, 3, 4), unused))
static bool check(bool ok, const char *name, const char *fmt, ...)
{
	va_list ap;

	if (ok) {
		printf("PASS: %s\n", name);
		tests_passed++;
		return true;
	}
	printf("FAIL: %s: ", name);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	tests_failed++;
	return false;
}

#define ASSERT(cond, name)	check(!!(cond), name, "%s (%s:%d)", \
				      #cond, __FILE__, __LINE__)

/* An error message starts with want. */
#define ASSERT_MSG(got, want, name)					\
	check(!strncmp(got, want, strlen(want)), name,			\
	      "message \"%s\", want \"%s...\"", got, want)

__attribute__((unused))
static int test_done(void)
{
	printf("%d passed, %d failed\n", tests_passed, tests_failed);
	fflush(stdout);
	return tests_failed > 255 ? 255 : tests_failed;
}

#endif /* __TSQ_TEST_H */

// SPDX-License-Identifier: GPL-2.0
/*
 * tsq_parse_size() and tsq_parse_usec() on arbitrary bytes: only 0,
 * -EINVAL or -ERANGE, and what parses formats back to itself.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "size.h"
#include "fuzz_input.h"

static const char accepted[] = "0123456789.abcdefgiklmnstuABCDEFGIKLMNSTU";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s, buf[TSQ_SIZE_BUFSZ];
	__u64 v, back;
	__u32 us;
	int ret;

	s = fuzz_cstr(data, size);
	if (!s)
		return 0;

	ret = tsq_parse_size(s, UINT64_MAX, &v);
	if (ret && ret != -EINVAL && ret != -ERANGE)
		abort();
	if (!ret) {
		/* No sign, space, exponent or hex got through. */
		if (strspn(s, accepted) != strlen(s) || s[0] < '0' || s[0] > '9')
			abort();
		if (tsq_format_size(buf, sizeof(buf), v) <= 0 ||
		    tsq_parse_size(buf, UINT64_MAX, &back) || back != v)
			abort();
		/* max is inclusive, and one less is out of range. */
		if (tsq_parse_size(s, v, &back) || back != v)
			abort();
		if (v && tsq_parse_size(s, v - 1, &back) != -ERANGE)
			abort();
		/* A plain number is what strtoull() says it is. */
		if (strspn(s, "0123456789") == strlen(s) &&
		    strtoull(s, NULL, 10) != v)
			abort();
	}
	if (ret == -ERANGE && tsq_parse_size(s, UINT64_MAX, &v) != -ERANGE)
		abort();

	ret = tsq_parse_usec(s, UINT32_MAX, &us);
	if (ret && ret != -EINVAL && ret != -ERANGE)
		abort();
	if (!ret && us && tsq_parse_usec(s, us - 1, &us) != -ERANGE)
		abort();

	free(s);
	return 0;
}

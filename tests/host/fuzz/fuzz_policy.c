// SPDX-License-Identifier: GPL-2.0
/*
 * tsq_policy_parse_args() on input split at spaces, as a shell would
 * hand it over: a policy that parses validates and survives
 * format -> parse unchanged; a refusal zeroes it and says why in a line.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "policy.h"
#include "fuzz_input.h"

#define MAX_ARGS	64

static int split(char *s, char **argv)
{
	int argc = 0;
	char *p;

	for (p = strtok(s, " "); p && argc < MAX_ARGS; p = strtok(NULL, " "))
		argv[argc++] = p;
	return argc;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s, *argv[MAX_ARGS], err[256], fmt[TSQ_POLICY_FMT_BUFSZ];
	struct tsq_policy p, back, zero = { 0 };
	int argc, ret, n;

	s = fuzz_cstr(data, size);
	if (!s)
		return 0;
	argc = split(s, argv);

	err[0] = '\0';
	ret = tsq_policy_parse_args(argc, argv, &p, err, sizeof(err));
	if (ret) {
		if (memcmp(&p, &zero, sizeof(p)) || !err[0] ||
		    strchr(err, '\n') || strlen(err) >= sizeof(err))
			abort();
		goto out;
	}
	if (!p.flags || tsq_policy_validate(&p, err, sizeof(err)))
		abort();
	n = tsq_policy_format(&p, fmt, sizeof(fmt));
	if (n <= 0 || (size_t)n != strlen(fmt))
		abort();
	argc = split(fmt, argv);
	if (tsq_policy_parse_args(argc, argv, &back, err, sizeof(err)) ||
	    memcmp(&p, &back, sizeof(p)))
		abort();
out:
	free(s);
	return 0;
}

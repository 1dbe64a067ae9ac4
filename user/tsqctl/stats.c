// SPDX-License-Identifier: GPL-2.0
/* tsqctl stats: per-cgroup counters, once or every interval. */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "tsqctl.h"
#include "tsq_report.h"
#include "print.h"

static int stats_once(const struct tsqctl_ctx *c)
{
	struct tsq_report r;
	int err = tsq_report_collect(c->mount, &r);

	if (err)
		return tsqctl_failed(err, "stats");
	tsq_report_print(&r);
	tsq_report_free(&r);
	return fflush(stdout) ? 1 : 0;
}

/* --watch [SECONDS]: again every interval; -j makes it a JSON array a line. */
int tsqctl_stats(const struct tsqctl_ctx *c, int argc, char **argv)
{
	unsigned long secs = 0;
	char *end;
	int ret;

	if (argc && !strcmp(argv[0], "--watch")) {
		secs = 1;
		if (argc == 2) {
			errno = 0;
			secs = strtoul(argv[1], &end, 10);
			if (errno || *end || !isdigit((unsigned char)argv[1][0]) ||
			    !secs || secs > 3600)
				return usage_error("stats --watch: interval %s: want 1 to 3600 seconds",
						   argv[1]);
		}
		argc -= argc == 2 ? 2 : 1;
	}
	if (argc)
		return usage_error("usage: tsqctl [-j] stats [--watch [SECONDS]]");
	for (;;) {
		if (secs && !print_is_json()) {
			time_t now = time(NULL);
			char stamp[32];

			strftime(stamp, sizeof(stamp), "%F %T", localtime(&now));
			printf("--- %s\n", stamp);
		}
		ret = stats_once(c);
		if (ret || !secs)
			return ret;
		sleep(secs);
	}
}

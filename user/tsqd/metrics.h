/* SPDX-License-Identifier: GPL-2.0 */
#ifndef __TSQD_METRICS_H
#define __TSQD_METRICS_H

#include <stdio.h>

#include "tsq_report.h"

/* The report in the Prometheus text exposition format (version 0.0.4). */
void metrics_write(FILE *f, const struct tsq_report *r, size_t policies,
		   size_t pending);

#endif

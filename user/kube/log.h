/* SPDX-License-Identifier: GPL-2.0 */
/* One line a message on stderr, "tsq-kube: " first: the journal's and
 * kubectl logs' format. Verbose lines only with -v.
 */
#ifndef __KUBE_LOG_H
#define __KUBE_LOG_H

#include <stdbool.h>
#include <stdio.h>

extern bool kube_verbose;

#define log_info(fmt, ...) fprintf(stderr, "tsq-kube: " fmt "\n", ##__VA_ARGS__)
#define log_debug(fmt, ...) \
	do { if (kube_verbose) log_info(fmt, ##__VA_ARGS__); } while (0)

#endif

/* SPDX-License-Identifier: GPL-2.0 */
/* One line a message on stderr, "tsqd: " first: the journal's format. */
#ifndef __TSQD_LOG_H
#define __TSQD_LOG_H

#include <stdio.h>

#define log_info(fmt, ...) fprintf(stderr, "tsqd: " fmt "\n", ##__VA_ARGS__)

#endif

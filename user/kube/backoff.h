/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TSQ_KUBE_BACKOFF_H
#define TSQ_KUBE_BACKOFF_H

#define BACKOFF_MIN_MS		200
#define BACKOFF_MAX_MS		30000	/* no wait is longer: tsq-kube(8) */

/* The wait after a failure, from @base_ms (0: none failed since the last
 * good watch), which it advances, and @rnd, any random number.
 */
unsigned int backoff_next(unsigned int *base_ms, unsigned int rnd);

#endif

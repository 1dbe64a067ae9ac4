// SPDX-License-Identifier: GPL-2.0
/* tsq-kube's back-off: exponential, with a quarter of jitter either way
 * so that a thousand agents whose API server restarted do not come back
 * in step, and capped after the jitter, so that the ceiling it states is
 * the longest wait there is.
 */
#include "backoff.h"

unsigned int backoff_next(unsigned int *base_ms, unsigned int rnd)
{
	unsigned int ms = *base_ms ? *base_ms : BACKOFF_MIN_MS;
	unsigned int wait = ms - ms / 4 + rnd % (ms / 2 + 1);

	*base_ms = ms * 2 > BACKOFF_MAX_MS ? BACKOFF_MAX_MS : ms * 2;
	return wait > BACKOFF_MAX_MS ? BACKOFF_MAX_MS : wait;
}

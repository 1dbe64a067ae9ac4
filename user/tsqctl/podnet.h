/* SPDX-License-Identifier: GPL-2.0 */
/* tsqctl doctor: which network set-up the node's pods have (podnet.c). */
#ifndef __TSQCTL_PODNET_H
#define __TSQCTL_PODNET_H

#include <stdbool.h>

enum podnet_kind {
	PODNET_HOST,
	PODNET_MACVLAN,
	PODNET_IPVLAN,
	PODNET_BPF,
	PODNET_BRIDGED,
	PODNET_BRIDGED_NF,
	PODNET_ROUTED,
	PODNET_UNKNOWN,
	PODNET_NR,
};

/* The pod's skbs reach the NIC with their socket: tsq sees the queue. */
bool podnet_helps(enum podnet_kind k);

/* Print a section on the pods' and containers' network namespaces, and
 * advise (printf-like, to ctx) where their set-up defeats tsq.
 */
typedef void (*podnet_advise_fn)(void *ctx, const char *fmt, ...);
void podnet_print(const char *mount, podnet_advise_fn advise, void *ctx);

#endif

/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* tsq_fixed (tests/bpf/tsq_fixed.bpf.c) and hook_test, its loader: the
 * test program's maps. Not tsq's ABI: only the tests load it.
 */
#ifndef __TSQ_FIXED_H
#define __TSQ_FIXED_H

#ifndef __bpf__
#include <linux/types.h>
#endif

/* One policy for every TCP socket. 0 keeps the kernel's value. */
struct tsq_fixed_cfg {
	__u32 limit;		/* TSQ limit, bytes of sk_wmem_alloc */
	__u32 tso_bytes;	/* cap on TSO packet payload, bytes */
	__u32 budget;		/* all the sockets together, one group */
	__u32 pad;
};

/* The group id of tsq_fixed's budget. */
#define TSQ_FIXED_GROUP		0x7473710000000001ULL

/* Per-CPU counters in the tsq_fixed_stats map, indexed by this enum. */
enum tsq_fixed_stat {
	TSQ_FIXED_SET,		/* bpf_tcp_tsq_set() that succeeded */
	TSQ_FIXED_SET_ERR,	/* ... that failed */
	TSQ_FIXED_NR_STATS,
};

#endif /* __TSQ_FIXED_H */

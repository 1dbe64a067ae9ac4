// SPDX-License-Identifier: GPL-2.0
/* tsq_optin: opt every TCP socket of a cgroup subtree in to the
 * tcp_tsq_ops hook when it is established. The tests attach it at the
 * cgroup2 root beside tsq_fixed or tsq_misbehave, which hold every socket
 * to one rule; tsq_cgroup has its own, per-policy opt-in.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

char _license[] SEC("license") = "GPL";

__u64 opted_in;

SEC("sockops")
int optin_all(struct bpf_sock_ops *skops)
{
	if (skops->op != BPF_SOCK_OPS_ACTIVE_ESTABLISHED_CB &&
	    skops->op != BPF_SOCK_OPS_PASSIVE_ESTABLISHED_CB)
		return 1;
	if (!bpf_sock_ops_cb_flags_set(skops, skops->bpf_sock_ops_cb_flags |
				       BPF_SOCK_OPS_TSQ_CB_FLAG))
		__sync_fetch_and_add(&opted_in, 1);
	return 1;
}

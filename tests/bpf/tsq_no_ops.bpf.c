// SPDX-License-Identifier: GPL-2.0
/* An ops table with no callback at all: validate() must refuse it. */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

char _license[] SEC("license") = "GPL";

SEC(".struct_ops.link")
struct tcp_tsq_ops no_ops = {};

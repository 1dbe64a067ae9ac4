// SPDX-License-Identifier: GPL-2.0
/* tsqctl attach and reset: the hook in place, or gone. */
#include <errno.h>

#include "tsqctl.h"
#include "tsq_bpf.h"

int tsqctl_attach(const struct tsqctl_ctx *c, int argc, char **argv)
{
	int err;

	if (argc)
		return usage_error("attach takes no arguments");
	if (!tsq_hook_present())
		return runtime_error("this kernel has no tcp_tsq_ops hook (see kernel/README.md)");
	err = tsq_attach();
	if (err == -EEXIST)
		return runtime_error("already attached (%s)", TSQ_PIN_DIR);
	return err ? tsqctl_failed(err, "attach") : 0;
}

int tsqctl_reset(const struct tsqctl_ctx *c, int argc, char **argv)
{
	int err;

	if (argc)
		return usage_error("reset takes no arguments");
	err = tsq_reset();
	return err ? tsqctl_failed(err, "reset") : 0;
}

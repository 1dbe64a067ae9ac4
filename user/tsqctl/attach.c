// SPDX-License-Identifier: GPL-2.0
/* tsqctl attach and reset: the hook in place, or gone. */
#include <errno.h>

#include "tsqctl.h"
#include "tsq_bpf.h"

int tsqctl_attach(const struct tsqctl_ctx *c, int argc, char **argv)
{
	enum tsq_hook hook;
	int err;

	if (argc)
		return usage_error("attach takes no arguments");
	hook = tsq_hook_probe();
	if (hook != TSQ_HOOK_TSQ_OPS)
		return runtime_error("cannot attach: %s", tsq_hook_str(hook));
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

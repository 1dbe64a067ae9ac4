/* SPDX-License-Identifier: GPL-2.0 */
/* rtnetlink requests for doctor, in the netns of the calling thread. */
#ifndef __TSQCTL_NETLINK_H
#define __TSQCTL_NETLINK_H

#include <stddef.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>

/*
 * Send req (a struct nlmsghdr with its payload, len bytes; the flags
 * get NLM_F_REQUEST and the caller's) and call fn for each message of
 * the answer, a dump's or a single reply's. 0, or -errno.
 */
typedef void (*nl_msg_fn)(struct nlmsghdr *h, void *ctx);
int nl_request(void *req, size_t len, nl_msg_fn fn, void *ctx);

/* An attribute's payload as a string or a u32, NULL/0 if short. */
const char *nl_str(const struct rtattr *a);
__u32 nl_u32(const struct rtattr *a);

#endif

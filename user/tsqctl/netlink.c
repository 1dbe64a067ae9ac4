// SPDX-License-Identifier: GPL-2.0
/* One rtnetlink request and its answer, as ip(8) makes them. */
#include <errno.h>
#include <stdbool.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>

#include "netlink.h"

int nl_request(void *req, size_t len, nl_msg_fn fn, void *ctx)
{
	static char buf[32768] __attribute__((aligned(4)));
	struct nlmsghdr *r = req;
	int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE), err = 0;
	bool dump = r->nlmsg_flags & NLM_F_DUMP, done = false;

	if (fd < 0)
		return -errno;
	r->nlmsg_len = len;
	r->nlmsg_flags |= NLM_F_REQUEST | (dump ? 0 : NLM_F_ACK);
	r->nlmsg_seq = 1;
	if (send(fd, req, len, 0) < 0)
		err = -errno;
	while (!err && !done) {
		ssize_t n = recv(fd, buf, sizeof(buf), 0);
		struct nlmsghdr *h = (struct nlmsghdr *)buf;

		if (n < 0) {
			err = -errno;
			break;
		}
		for (; NLMSG_OK(h, (size_t)n); h = NLMSG_NEXT(h, n)) {
			if (h->nlmsg_type == NLMSG_DONE) {
				done = true;
				break;
			}
			if (h->nlmsg_type == NLMSG_ERROR) {
				/* An ACK is an error message with error 0. */
				err = ((struct nlmsgerr *)NLMSG_DATA(h))->error;
				done = true;
				break;
			}
			fn(h, ctx);
		}
	}
	close(fd);
	return err;
}

const char *nl_str(const struct rtattr *a)
{
	const char *s = RTA_DATA(a);
	size_t n = RTA_PAYLOAD(a);

	return n && s[n - 1] == '\0' ? s : NULL;
}

__u32 nl_u32(const struct rtattr *a)
{
	__u32 v = 0;

	if (RTA_PAYLOAD(a) >= sizeof(v))
		memcpy(&v, RTA_DATA(a), sizeof(v));
	return v;
}

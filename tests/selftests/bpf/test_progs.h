/* SPDX-License-Identifier: GPL-2.0 */
/* The part of selftests/bpf's test_progs.h and network_helpers.h that
 * prog_tests/tcp_tsq_ops.c uses, so that the file builds here as it would
 * in tools/testing/selftests/bpf. Each subtest prints PASS: or FAIL:.
 */
#ifndef __TSQ_TEST_PROGS_H
#define __TSQ_TEST_PROGS_H

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

extern int env_subtest_failed;

bool test__start_subtest(const char *name);

#define ASSERT_COND(cond, name, fmt, ...) ({				\
	bool ___ok = (cond);						\
	if (!___ok) {							\
		fprintf(stdout, "# %s:%d: %s: " fmt "\n", __func__,	\
			__LINE__, name, ##__VA_ARGS__);			\
		env_subtest_failed = 1;					\
	}								\
	___ok;								\
})
#define ASSERT_OK(res, name) ({ long long ___r = (res);		\
	ASSERT_COND(___r == 0, name, "unexpected error: %lld (errno %d)", \
		    ___r, errno); })
#define ASSERT_EQ(a, b, name) ({ long long ___a = (a), ___b = (b);	\
	ASSERT_COND(___a == ___b, name, "%lld != %lld", ___a, ___b); })
#define ASSERT_GT(a, b, name) ({ long long ___a = (a), ___b = (b);	\
	ASSERT_COND(___a > ___b, name, "%lld <= %lld", ___a, ___b); })
#define ASSERT_OK_PTR(p, name) ({ const void *___p = (p);		\
	ASSERT_COND(___p != NULL, name, "NULL (errno %d: %s)", errno,	\
		    strerror(errno)); })
#define ASSERT_ERR_PTR(p, name) ({ const void *___p = (p);		\
	ASSERT_COND(___p == NULL, name, "unexpected pointer"); })
#define ASSERT_HAS_SUBSTR(s, sub, name) ({				\
	const char *___s = (s), *___sub = (sub);			\
	ASSERT_COND(___s && strstr(___s, ___sub), name,		\
		    "\"%s\" not found", ___sub); })

/* Run a shell command; on failure the subtest fails and we goto fail. */
#define SYS(label, fmt, ...) ({						\
	char ___cmd[1024];						\
	snprintf(___cmd, sizeof(___cmd), fmt, ##__VA_ARGS__);		\
	if (!ASSERT_OK(system(___cmd), ___cmd))				\
		goto label;						\
})
#define SYS_NOFAIL(fmt, ...) ({						\
	char ___cmd[1024];						\
	snprintf(___cmd, sizeof(___cmd), fmt, ##__VA_ARGS__);		\
	system(___cmd);							\
})

/* network_helpers.h */
struct nstoken;
struct nstoken *open_netns(const char *name);
void close_netns(struct nstoken *token);
int start_server_addr4(const char *addr, unsigned short port);
int connect_to_addr4(const char *addr, unsigned short port);

#endif /* __TSQ_TEST_PROGS_H */

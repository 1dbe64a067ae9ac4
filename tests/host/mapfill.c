// SPDX-License-Identifier: GPL-2.0
/* mapfill: fill a BPF hash map keyed by cgroup id with ids of no cgroup,
 * so that tests reach "the map is full" without making tens of thousands
 * of cgroups: what happens to the next real cgroup is then what happens
 * on a host that has that many.
 *
 * usage: mapfill MAP [N]   MAP: a map id, or a pinned path
 *   Inserts zero values under keys 2^62, 2^62 + 1, ... until N are in or
 *   the map refuses (E2BIG: full); prints "inserted N, full" or
 *   "inserted N". Exit 0, 1 on another error.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

int main(int argc, char **argv)
{
	struct bpf_map_info info = {};
	__u32 len = sizeof(info);
	unsigned long long want = ~0ULL, n = 0;
	size_t vsize;
	char *end;
	void *val;
	int fd;

	if (argc < 2 || argc > 3) {
		fprintf(stderr, "usage: mapfill MAP_ID|PINNED_PATH [N]\n");
		return 2;
	}
	if (argv[1][0] == '/')
		fd = bpf_obj_get(argv[1]);
	else
		fd = bpf_map_get_fd_by_id(strtoul(argv[1], &end, 10));
	if (argc == 3)
		want = strtoull(argv[2], &end, 10);
	if (fd < 0 || bpf_map_get_info_by_fd(fd, &info, &len)) {
		fprintf(stderr, "mapfill: %s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	if (info.key_size != sizeof(__u64)) {
		fprintf(stderr, "mapfill: %s: key of %u bytes, not a cgroup id\n", argv[1],
			info.key_size);
		return 1;
	}
	vsize = info.value_size;
	if (info.type == BPF_MAP_TYPE_PERCPU_HASH)
		vsize = ((vsize + 7) & ~7UL) * libbpf_num_possible_cpus();
	val = calloc(1, vsize);
	if (!val)
		return 1;
	for (; n < want; n++) {
		__u64 key = (1ULL << 62) + n;

		if (!bpf_map_update_elem(fd, &key, val, BPF_NOEXIST))
			continue;
		if (errno == EEXIST)
			continue;
		if (errno == E2BIG) {
			printf("inserted %llu, full\n", n);
			return 0;
		}
		fprintf(stderr, "mapfill: insert %llu: %s\n", n, strerror(errno));
		return 1;
	}
	printf("inserted %llu\n", n);
	return 0;
}

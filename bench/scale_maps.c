// SPDX-License-Identifier: GPL-2.0
/* scale_maps: tsq's pinned maps on a kernel without the hook, filled for
 * N cgroups, so that tsqctl show and stats can be timed natively on the
 * host (bench/scale.sh) instead of under TCG.
 *
 * usage: scale_maps setup CGROUP_DIR N [MAX]
 *                                  pin the maps under /sys/fs/bpf/tsq and
 *                                  give CGROUP_DIR/c1..cN a policy and
 *                                  statistics each; MAX: the per-cgroup
 *                                  maps' size (TSQ_MAX_CGROUPS), so that
 *                                  tests can fill them
 *        scale_maps teardown       unpin them
 *
 * The struct_ops map and every program stay unloaded: only the maps, with
 * the types and sizes tsqd creates, are made. Every cgroup gets entries in
 * all three statistics maps, more than traffic in one of them would make:
 * the walk's worst case.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "tsq.h"
#include "tsq_bpf.h"
#include "cgroup.h"
#include "tsq_cgroup.skel.h"

static int die(const char *what, int err)
{
	fprintf(stderr, "scale_maps: %s: %s\n", what, strerror(err < 0 ? -err : err));
	return 1;
}

static int fill(struct tsq_cgroup *skel, const char *dir, long n)
{
	struct tsq_policy pol = { .flags = TSQ_POLICY_LIMIT, .limit = 16384 };
	struct tsq_cgrp_socks socks = { .established = 1 };
	int ncpu = libbpf_num_possible_cpus(), err = 0;
	struct tsq_stats *percpu;

	percpu = calloc(ncpu, sizeof(*percpu));
	if (!percpu)
		return -ENOMEM;
	for (int c = 0; c < ncpu; c++)
		percpu[c] = (struct tsq_stats){ 1, 16384, 1, 1 };
	for (long i = 1; i <= n && !err; i++) {
		char path[4096];
		__u64 id;
		int fd;

		snprintf(path, sizeof(path), "%s/c%ld", dir, i);
		fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (fd < 0) {
			err = -errno;
			break;
		}
		id = tsq_cgroup_id(fd);
		if (bpf_map_update_elem(bpf_map__fd(skel->maps.tsq_cgrp_policy), &fd, &pol, 0) ||
		    bpf_map_update_elem(bpf_map__fd(skel->maps.tsq_stats), &id, percpu, 0) ||
		    bpf_map_update_elem(bpf_map__fd(skel->maps.tsq_cgrp_socks), &id, &socks, 0))
			err = -errno;
		close(fd);
	}
	free(percpu);
	return err;
}

int main(int argc, char **argv)
{
	struct tsq_cgroup *skel;
	struct bpf_program *p;
	long n, max = TSQ_MAX_CGROUPS;
	char *end;
	int err;

	if (argc == 2 && !strcmp(argv[1], "teardown")) {
		tsq_unpin_all();
		return 0;
	}
	if ((argc != 4 && argc != 5) || strcmp(argv[1], "setup")) {
		fprintf(stderr, "usage: scale_maps setup CGROUP_DIR N [MAX] | teardown\n");
		return 2;
	}
	n = strtol(argv[3], &end, 10);
	if (*end || n < 1 || n > 60000) {
		fprintf(stderr, "scale_maps: N: want 1 to 60000, not %s\n", argv[3]);
		return 2;
	}
	if (argc == 5) {
		max = strtol(argv[4], &end, 10);
		if (*end || max < n || max > TSQ_MAX_CGROUPS) {
			fprintf(stderr, "scale_maps: MAX: want N to %d, not %s\n",
				TSQ_MAX_CGROUPS, argv[4]);
			return 2;
		}
	}
	/* Never on top of a real tsq: its maps would be replaced. */
	if (mkdir(TSQ_PIN_DIR, 0700))
		return die(TSQ_PIN_DIR, errno);
	skel = tsq_cgroup__open();
	if (!skel) {
		err = -errno;
		tsq_unpin_all();
		return die("open", err);
	}
	bpf_map__set_autocreate(skel->maps.tsq_policy, false);
	bpf_map__set_max_entries(skel->maps.tsq_stats, max);
	bpf_map__set_max_entries(skel->maps.tsq_cgrp_socks, max);
	bpf_object__for_each_program(p, skel->obj)
		bpf_program__set_autoload(p, false);
	err = tsq_cgroup__load(skel) ?: tsq_pin_maps(skel) ?: fill(skel, argv[2], n);
	tsq_cgroup__destroy(skel);
	if (err) {
		tsq_unpin_all();
		return die("setup", err);
	}
	return 0;
}

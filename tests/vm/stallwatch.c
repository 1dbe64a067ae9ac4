// SPDX-License-Identifier: GPL-2.0
/* stallwatch: how long TCP sockets to the given ports held data they did
 * not send, sampled every 100 ms from a tcp iterator until SIGINT.
 *
 * usage: stallwatch PORT_LO PORT_HI
 *
 * A socket counts as waiting when it has unsent data and the peer's window
 * has room for a segment: then only TCP itself (cwnd, TSQ, pacing, loss
 * recovery) holds it back. Its wait is the time since TCP last sent new
 * data, or since the last sample that did not see it waiting if that is
 * later (stall_track.h): an idle socket caught with a byte it is about
 * to send has not waited since its last send. On exit it prints the
 * longest wait seen, with the socket's state at that sample:
 *   stallwatch: SAMPLES samples, longest wait MS ms (port P: notsent N
 *   inflight I snd_wnd W cwnd C packets_out O tsq_flags F wmem_alloc A;
 *   HZ H)
 * SAMPLES is 0 if it ran too short to learn HZ (under 200 ms).
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "stall_track.h"
#include "tsq_stallwatch.skel.h"

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	stop = 1;
}

struct sample {
	unsigned int lport, dport, notsent, inflight, wnd, cwnd, pkts, age, wait;
	unsigned long tsq;
	int wmem;
	unsigned int mss;
};

/* HZ from two "T jiffies ns" lines at least 200 ms apart: 100, 250, 300
 * or 1000, whichever is nearest.
 */
static unsigned int hz_from(unsigned long long j0, unsigned long long t0,
			    unsigned long long j1, unsigned long long t1)
{
	static const unsigned int hzs[] = { 100, 250, 300, 1000 };
	double hz = (double)(j1 - j0) * 1e9 / (double)(t1 - t0);
	unsigned int best = hzs[0];

	for (size_t i = 1; i < sizeof(hzs) / sizeof(hzs[0]); i++)
		if (abs((int)hzs[i] - (int)hz) < abs((int)best - (int)hz))
			best = hzs[i];
	return best;
}

int main(int argc, char **argv)
{
	static struct sample waiting[STALL_TRACK_MAX];
	static struct stall_track track;
	struct tsq_stallwatch *skel;
	struct bpf_link *link = NULL;
	unsigned long long j, t, j0 = 0, t0 = 0;
	struct sample worst = {}, s;
	unsigned int hz = 0;
	long samples = 0;
	char line[256];

	if (argc != 3) {
		fprintf(stderr, "usage: stallwatch PORT_LO PORT_HI\n");
		return 2;
	}
	skel = tsq_stallwatch__open();
	if (!skel) {
		perror("stallwatch: open");
		return 1;
	}
	skel->rodata->port_lo = atoi(argv[1]);
	skel->rodata->port_hi = atoi(argv[2]);
	if (tsq_stallwatch__load(skel) ||
	    !(link = bpf_program__attach_iter(skel->progs.stall_scan, NULL))) {
		fprintf(stderr, "stallwatch: load/attach: %s\n", strerror(errno));
		tsq_stallwatch__destroy(skel);
		return 1;
	}
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	while (!stop) {
		int fd = bpf_iter_create(bpf_link__fd(link));
		FILE *f = fd < 0 ? NULL : fdopen(fd, "r");
		unsigned int nwaiting = 0;

		if (!f) {
			perror("stallwatch: iter");
			break;
		}
		while (fgets(line, sizeof(line), f)) {
			if (sscanf(line, "T %llu %llu", &j, &t) == 2) {
				/* The scan's end: its time, for the waits. */
				stall_track_scan(&track, j);
				for (unsigned int i = 0; i < nwaiting; i++) {
					s = waiting[i];
					s.wait = stall_track_wait(&track, s.lport, s.dport, s.age);
					if (s.wait > worst.wait)
						worst = s;
				}
				if (!t0) {
					j0 = j;
					t0 = t;
				} else if (!hz && t - t0 >= 200000000ULL) {
					hz = hz_from(j0, t0, j, t);
				}
				continue;
			}
			if (sscanf(line, "%u %u %u %u %u %u %u %u %lu %d %u", &s.lport, &s.dport,
				   &s.notsent, &s.inflight, &s.wnd, &s.cwnd, &s.pkts,
				   &s.age, &s.tsq, &s.wmem, &s.mss) != 11)
				continue;
			if (s.notsent && s.wnd >= s.inflight + s.mss &&
			    nwaiting < STALL_TRACK_MAX)
				waiting[nwaiting++] = s;
		}
		fclose(f);
		samples++;
		usleep(100000);
	}
	if (!hz) {
		fprintf(stderr, "stallwatch: ran too short to learn HZ\n");
		hz = 1000;
		samples = 0;
	}
	printf("stallwatch: %ld samples, longest wait %llu ms (port %u: notsent %u inflight %u "
	       "snd_wnd %u cwnd %u packets_out %u tsq_flags %lx wmem_alloc %d; HZ %u)\n",
	       samples, worst.wait * 1000ULL / hz, worst.lport, worst.notsent, worst.inflight, worst.wnd,
	       worst.cwnd, worst.pkts, worst.tsq, worst.wmem, hz);
	bpf_link__destroy(link);
	tsq_stallwatch__destroy(skel);
	return 0;
}

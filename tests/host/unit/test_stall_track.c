// SPDX-License-Identifier: GPL-2.0
/* stall_track: waits measured from scans 100 units apart (jiffies at
 * HZ 1000 in these cases, so ms).
 */
#include "stall_track.h"
#include "test.h"

static struct stall_track t;

/* Scans from @from to @to, every 100: @lport waits in each with @age at
 * @from growing with the scans; returns the last wait.
 */
static uint64_t wait_through(uint64_t from, uint64_t to, uint16_t lport, uint64_t age)
{
	uint64_t w = 0;

	for (uint64_t now = from; now <= to; now += 100) {
		stall_track_scan(&t, now);
		w = stall_track_wait(&t, lport, 5201, age + now - from);
	}
	return w;
}

int main(void)
{
	uint64_t w;

	/* The first scan knows only the last send. */
	stall_track_scan(&t, 1000);
	w = stall_track_wait(&t, 40000, 5201, 700);
	check(w == 700, "first scan: the wait is the age", "got %llu", (unsigned long long)w);

	/* CI's false stall: iperf3's control socket sent nothing for 7.7 s,
	 * then one sample caught its last byte unsent. It waited 100 at
	 * most, since the scan before, which did not see it.
	 */
	memset(&t, 0, sizeof(t));
	for (uint64_t now = 0; now <= 7700; now += 100)
		stall_track_scan(&t, now);
	stall_track_scan(&t, 7744);
	w = stall_track_wait(&t, 53318, 5201, 7744);
	check(w == 44, "an idle socket seen waiting once waited since the scan before",
	      "got %llu, want 44", (unsigned long long)w);

	/* A blackhole: seen waiting in every scan for 3 s, no send. */
	memset(&t, 0, sizeof(t));
	stall_track_scan(&t, 0);
	w = wait_through(100, 3100, 48242, 50);
	check(w == 3050, "a socket waiting in every scan: the age", "got %llu, want 3050",
	      (unsigned long long)w);

	/* Not seen waiting in one scan: the wait starts over. */
	stall_track_scan(&t, 3200);
	w = wait_through(3300, 3500, 48242, 3400);
	check(w == 300, "a wait that broke off counts from the scan where it was not seen",
	      "got %llu, want 300", (unsigned long long)w);

	/* Waiting in every scan but sending in between: since the send. */
	memset(&t, 0, sizeof(t));
	stall_track_scan(&t, 0);
	for (uint64_t now = 100; now <= 1000; now += 100) {
		stall_track_scan(&t, now);
		w = stall_track_wait(&t, 40001, 5201, 30);
	}
	check(w == 30, "a waiting socket that sends between scans: since its last send",
	      "got %llu, want 30", (unsigned long long)w);

	/* Two sockets, each its own wait. */
	memset(&t, 0, sizeof(t));
	stall_track_scan(&t, 0);
	for (uint64_t now = 100; now <= 2000; now += 100) {
		stall_track_scan(&t, now);
		w = stall_track_wait(&t, 40002, 5202, now);
		if (now >= 1500)
			stall_track_wait(&t, 40003, 5203, 5000);
	}
	check(w == 2000, "two sockets: the one waiting throughout", "got %llu",
	      (unsigned long long)w);
	stall_track_scan(&t, 2100);
	w = stall_track_wait(&t, 40003, 5203, 5100);
	check(w == 700, "two sockets: the other since the scan before it was seen",
	      "got %llu, want 700", (unsigned long long)w);

	/* More sockets than entries: the rest get their age, never less. */
	memset(&t, 0, sizeof(t));
	stall_track_scan(&t, 0);
	stall_track_scan(&t, 100);
	for (unsigned int i = 0; i < STALL_TRACK_MAX; i++)
		stall_track_wait(&t, 1000 + i, 5201, 50);
	stall_track_scan(&t, 200);
	w = stall_track_wait(&t, 9999, 5201, 5000);
	check(w == 100, "a full table: a new socket waited since the scan before",
	      "got %llu, want 100", (unsigned long long)w);
	return test_done();
}

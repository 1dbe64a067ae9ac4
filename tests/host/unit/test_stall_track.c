// SPDX-License-Identifier: GPL-2.0
/* stall_track: waits measured from scans 100 units apart (jiffies at
 * HZ 1000 in these cases, so ms).
 */
#include "stall_track.h"
#include "test.h"

static struct stall_track t;

/* A new tracker whose first scan was at @at. */
static void fresh(uint64_t at)
{
	memset(&t, 0, sizeof(t));
	stall_track_scan(&t, at);
}

static void expect(uint64_t got, uint64_t want, const char *name)
{
	check(got == want, name, "got %llu, want %llu", (unsigned long long)got,
	      (unsigned long long)want);
}

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
	fresh(1000);
	w = stall_track_wait(&t, 40000, 5201, 700);
	expect(w, 700, "first scan: the wait is the age");

	/* CI's false stall: iperf3's control socket sent nothing for 7.7 s,
	 * then one sample caught its last byte unsent. It waited 100 at
	 * most, since the scan before, which did not see it.
	 */
	fresh(0);
	for (uint64_t now = 100; now <= 7700; now += 100)
		stall_track_scan(&t, now);
	stall_track_scan(&t, 7744);
	w = stall_track_wait(&t, 53318, 5201, 7744);
	expect(w, 44, "an idle socket seen waiting once waited since the scan before");

	/* A blackhole: seen waiting in every scan for 3 s, no send. */
	fresh(0);
	w = wait_through(100, 3100, 48242, 50);
	expect(w, 3050, "a socket waiting in every scan: the age");

	/* Not seen waiting in one scan: the wait starts over. */
	stall_track_scan(&t, 3200);
	w = wait_through(3300, 3500, 48242, 3400);
	expect(w, 300, "a wait that broke off counts from the scan where it was not seen");

	/* Waiting in every scan but sending in between: since the send. */
	fresh(0);
	for (uint64_t now = 100; now <= 1000; now += 100) {
		stall_track_scan(&t, now);
		w = stall_track_wait(&t, 40001, 5201, 30);
	}
	expect(w, 30, "a waiting socket that sends between scans: since its last send");

	/* Two sockets, each its own wait. */
	fresh(0);
	for (uint64_t now = 100; now <= 2000; now += 100) {
		stall_track_scan(&t, now);
		w = stall_track_wait(&t, 40002, 5202, now);
		if (now >= 1500)
			stall_track_wait(&t, 40003, 5203, 5000);
	}
	expect(w, 2000, "two sockets: the one waiting throughout");
	stall_track_scan(&t, 2100);
	w = stall_track_wait(&t, 40003, 5203, 5100);
	expect(w, 700, "two sockets: the other since the scan before it was seen");

	/* More sockets than entries: the rest get their age, never less. */
	fresh(0);
	stall_track_scan(&t, 100);
	for (unsigned int i = 0; i < STALL_TRACK_MAX; i++)
		stall_track_wait(&t, 1000 + i, 5201, 50);
	stall_track_scan(&t, 200);
	w = stall_track_wait(&t, 9999, 5201, 5000);
	expect(w, 100, "a full table: a new socket waited since the scan before");
	return test_done();
}

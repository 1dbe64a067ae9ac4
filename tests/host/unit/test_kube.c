// SPDX-License-Identifier: GPL-2.0
/* tsq-kube's pure parts: a pod's uid, cgroup and drop-in from a Pod
 * object, hostile values refused; the JSON stream split however the
 * bytes arrive; the pod table against a plain array under churn.
 */
#include <errno.h>
#include <stdlib.h>

#include "backoff.h"
#include "jsonstream.h"
#include "pod.h"
#include "podtable.h"
#include "test.h"

#define UID	"0b1c2d3e-4f50-4617-8293-a4b5c6d7e8f9"
#define UID_	"0b1c2d3e_4f50_4617_8293_a4b5c6d7e8f9"

/* A static pod's mirror: its config.source says where the kubelet read it. */
#define STATIC_SRC	"\",\"kubernetes.io/config.source\":\"file"

static struct json_object *pod_json(const char *uid, const char *qos, const char *policy,
				    const char *mirror)
{
	char buf[2048], ann[1024] = "";

	if (policy)
		snprintf(ann, sizeof(ann), "\"tsq.io/policy\":\"%s\"", policy);
	if (mirror)
		snprintf(ann + strlen(ann), sizeof(ann) - strlen(ann),
			 "%s\"kubernetes.io/config.mirror\":\"%s\"", policy ? "," : "", mirror);
	snprintf(buf, sizeof(buf),
		 "{\"kind\":\"Pod\",\"metadata\":{\"name\":\"web-0\",\"namespace\":\"default\","
		 "\"uid\":\"%s\",\"annotations\":{%s}},\"spec\":{\"nodeName\":\"n1\"},"
		 "\"status\":{\"qosClass\":\"%s\",\"phase\":\"Running\"}}", uid, ann, qos);
	return json_tokener_parse(buf);
}

static const struct {
	const char *qos;
	enum kube_driver driver;
	const char *target;
} targets[] = {
	{ "Burstable", KUBE_DRIVER_SYSTEMD, "kubepods-burstable-pod" UID_ ".slice" },
	{ "BestEffort", KUBE_DRIVER_SYSTEMD, "kubepods-besteffort-pod" UID_ ".slice" },
	{ "Guaranteed", KUBE_DRIVER_SYSTEMD, "kubepods-pod" UID_ ".slice" },
	{ "Burstable", KUBE_DRIVER_CGROUPFS, "/kubepods/burstable/pod" UID },
	{ "BestEffort", KUBE_DRIVER_CGROUPFS, "/kubepods/besteffort/pod" UID },
	{ "Guaranteed", KUBE_DRIVER_CGROUPFS, "/kubepods/pod" UID },
};

static void test_targets(void)
{
	char buf[256], err[256];
	struct kube_pod p;

	for (size_t i = 0; i < ARRAY_SIZE(targets); i++) {
		struct json_object *o = pod_json(UID, targets[i].qos, NULL, NULL);
		int ret = kube_pod_read(o, "tsq.io/policy", "n1", &p, err, sizeof(err)) ?:
			  kube_pod_target(&p, targets[i].driver, buf, sizeof(buf), err, sizeof(err));

		check(!ret && !strcmp(buf, targets[i].target),
		      tname("target: %s, %s driver", targets[i].qos,
			    targets[i].driver == KUBE_DRIVER_SYSTEMD ? "systemd" : "cgroupfs"),
		      "got %d \"%s\" (%s), want \"%s\"", ret, buf, err, targets[i].target);
		json_object_put(o);
	}
}

static const struct {
	const char *uid, *mirror, *qos, *policy;
	int ret;		/* of kube_pod_read(), then of kube_pod_dropin() */
	const char *want;	/* the drop-in's policy line, or the error's start */
} dropins[] = {
	{ UID, NULL, "Burstable", "budget 65536", 0,
	  "kubepods-burstable-pod" UID_ ".slice budget 64k\n" },
	{ UID, NULL, "Guaranteed", "  limit 16k\\ttso   8192 ", 0,
	  "kubepods-pod" UID_ ".slice limit 16k tso 8k\n" },
	{ UID, "6f1e0c3b9a8d7e6f5a4b3c2d1e0f9a8b" STATIC_SRC, "BestEffort", "limit 8k", 0,
	  "kubepods-besteffort-pod6f1e0c3b9a8d7e6f5a4b3c2d1e0f9a8b.slice limit 8k\n" },
	/* Not a static pod: the mirror names no cgroup but its own. */
	{ UID, "6f1e0c3b9a8d7e6f5a4b3c2d1e0f9a8b", "BestEffort", "limit 8k", 0,
	  "kubepods-besteffort-pod" UID_ ".slice limit 8k\n" },
	{ UID, "6f1e0c3b9a8d7e6f5a4b3c2d1e0f9a8b\",\"kubernetes.io/config.source\":\"api", "Burstable",
	  "limit 8k", 0, "kubepods-burstable-pod" UID_ ".slice limit 8k\n" },
	{ UID, NULL, "Burstable", "rate delivered limit-us 1ms", 0,
	  "kubepods-burstable-pod" UID_ ".slice limit-us 1000 rate delivered\n" },
	{ UID, NULL, "Burstable", "limit-us 1ms rate pacing", 0,
	  "kubepods-burstable-pod" UID_ ".slice limit-us 1000\n" },
	{ UID, NULL, "Burstable", "budget 64k rate delivered", -EINVAL,
	  "annotation tsq.io/policy: \"rate\" needs limit-us" },
	{ "../../etc/x", NULL, "Burstable", "limit 8k", -EINVAL, "uid \"../../etc/x\" is not" },
	{ "0B1C", NULL, "Burstable", "limit 8k", -EINVAL, "uid \"0B1C\" is not" },
	{ "", NULL, "Burstable", "limit 8k", -EINVAL, "uid \"\" is not" },
	{ UID, "../x" STATIC_SRC, "Burstable", "limit 8k", -EINVAL,
	  "kubernetes.io/config.mirror \"../x\" is not" },
	/* A forged config.source: still no other API pod's uid. */
	{ UID, "1b1c2d3e-4f50-4617-8293-a4b5c6d7e8f9" STATIC_SRC, "Burstable", "limit 8k",
	  -EINVAL, "kubernetes.io/config.mirror \"1b1c2d3e-4f50-4617-8293-a4b5c6d7e8f9\" is "
	  "not a static pod's uid" },
	{ UID, NULL, "Platinum", "limit 8k", -EINVAL, "no QoS class known" },
	{ UID, NULL, "Burstable", "limit 8k\\nkubepods.slice limit 1k", -EINVAL,
	  "annotation tsq.io/policy: \"limit 8k\\x0akubepods.slice" },
	{ UID, NULL, "Burstable", "budget 64q", -EINVAL, "annotation tsq.io/policy: " },
	{ UID, NULL, "Burstable", "", -EINVAL, "annotation tsq.io/policy: no policy" },
	{ UID, NULL, "Burstable", "limit 8k # x.slice limit 1k", -EINVAL,
	  "annotation tsq.io/policy: What is \"#\"?" },
	{ UID, NULL, "Burstable",
	  "limit 8k limit 8k limit 8k limit 8k limit 8k limit 8k limit 8k limit 8k limit 8k "
	  "limit 8k limit 8k limit 8k limit 8k limit 8k limit 8k limit 8k limit 8k limit 8k "
	  "limit 8k limit 8k limit 8k limit 8k limit 8k limit 8k limit 8k limit 8k limit 8k "
	  "limit 8k limit 8k limit 8k", -EINVAL, "annotation tsq.io/policy: longer than 256 bytes" },
};

static void test_dropins(void)
{
	char buf[KUBE_DROPIN_MAX], err[512];
	struct kube_pod p;

	for (size_t i = 0; i < ARRAY_SIZE(dropins); i++) {
		struct json_object *o = pod_json(dropins[i].uid, dropins[i].qos, dropins[i].policy,
						 dropins[i].mirror);
		int ret;

		strcpy(buf, "unchanged");
		err[0] = '\0';
		ret = kube_pod_read(o, "tsq.io/policy", "n1", &p, err, sizeof(err)) ?:
		      kube_pod_dropin(&p, KUBE_DRIVER_SYSTEMD, "/sys/fs/cgroup", "tsq.io/policy",
				      buf, sizeof(buf), err, sizeof(err));
		if (!dropins[i].ret)
			check(!ret && strchr(buf, '\n') &&
			      !strcmp(strchr(buf, '\n') + 1, dropins[i].want),
			      tname("drop-in for \"%s\"", esc(dropins[i].policy)),
			      "got %d \"%s\" (%s)", ret, esc(buf), err);
		else
			check(ret == dropins[i].ret && !strcmp(buf, "unchanged") &&
			      !strncmp(err, dropins[i].want, strlen(dropins[i].want)),
			      tname("refused: uid \"%s\", qos %s, \"%s\"", esc(dropins[i].uid),
				    dropins[i].qos, esc(dropins[i].policy)),
			      "got %d \"%s\", buffer \"%s\"", ret, err, esc(buf));
		json_object_put(o);
	}
}

/* A static pod of another node: the kubelet here made no such cgroup. */
static void test_mirror_node(void)
{
	struct json_object *o = pod_json(UID, "Burstable", "limit 8k",
					 "6f1e0c3b9a8d7e6f5a4b3c2d1e0f9a8b" STATIC_SRC);
	struct kube_pod p;
	char err[256] = "";
	int ret;

	ret = kube_pod_read(o, "tsq.io/policy", "n1", &p, err, sizeof(err));
	check(!ret && !strcmp(p.uid, "6f1e0c3b9a8d7e6f5a4b3c2d1e0f9a8b"),
	      "mirror: a static pod of this node is named by its mirror uid", "%d %s %s", ret,
	      p.uid, err);
	ret = kube_pod_read(o, "tsq.io/policy", "n2", &p, err, sizeof(err));
	check(!ret && !strcmp(p.uid, UID), "mirror: a static pod of another node by its own uid",
	      "%d %s %s", ret, p.uid, err);
	json_object_put(o);
}

struct collect {
	int n, items;
	char first_type[32];
	size_t bytes, kept_len;
	bool null_seen;
	char item_uids[64];
};

static int on_value(struct json_object *v, size_t bytes, void *ctx)
{
	struct collect *c = ctx;
	const char *t = json_get_str(v, "type"), *x = json_get_str(json_get(v, "object"), "a");

	if (!v)
		c->null_seen = true;
	if (!c->n++ && t)
		snprintf(c->first_type, sizeof(c->first_type), "%s", t);
	c->bytes = bytes;
	c->kept_len = x ? strlen(x) : 0;
	return 0;
}

static int on_item(struct json_object *v, size_t bytes, void *ctx)
{
	struct collect *c = ctx;
	const char *uid = json_get_str(json_get(v, "metadata"), "uid");

	c->items++;
	snprintf(c->item_uids + strlen(c->item_uids), sizeof(c->item_uids) - strlen(c->item_uids),
		 "%s,", uid ? uid : "-");
	return 0;
}

static const struct json_keep obj_keep[] = { { .key = "a" }, {} };
static const struct json_keep ev_keep[] = { { .key = "type" },
					    { .key = "object", .sub = obj_keep }, {} };
static const struct json_keep meta_keep[] = { { .key = "uid" }, {} };
static const struct json_keep item_keep[] = { { .key = "metadata", .sub = meta_keep }, {} };
static const struct json_keep page_keep[] = { { .key = "items", .sub = item_keep, .each = true },
					      {} };

/* feed in pieces of step bytes; returns the feed's error. */
static int feed_keep(const struct json_keep *keep, const char *text, size_t len, size_t step,
		     struct collect *c, int *partial)
{
	struct json_stream js;
	char err[256];
	int ret = 0;

	memset(c, 0, sizeof(*c));
	if (json_stream_init(&js, keep, on_value, on_item, c))
		return -ENOMEM;
	for (size_t o = 0; o < len && !ret; o += step)
		ret = json_stream_feed(&js, text + o, len - o < step ? len - o : step, err,
				       sizeof(err));
	*partial = json_stream_partial(&js);
	json_stream_free(&js);
	return ret;
}

static int feed(const char *text, size_t step, struct collect *c, int *partial)
{
	return feed_keep(ev_keep, text, strlen(text), step, c, partial);
}

static void test_stream(void)
{
	const char *compact = "{\"type\":\"ADDED\",\"object\":{}}\n{\"type\":\"DELETED\","
			      "\"object\":{}}\n";
	const char *joined = "{\"type\":\"ADDED\"}{\"type\":\"DELETED\"}";
	const char *pretty = "{\n    \"type\": \"MODIFIED\",\n    \"object\": {\n"
			     "        \"a\": [1, 2]\n    }\n}\n\n  {\"type\":\"BOOKMARK\"}";
	const char *page = "{\"kind\":\"PodList\",\"items\":[{\"spec\":{\"x\":[1,{}]},"
			   "\"metadata\":{\"name\":\"n\",\"uid\":\"u1\"}}, {}, 7, \"s\", null,"
			   "{\"metadata\":{\"u\\u0069d\":\"u2\"}}],\"x\":true}";
	struct collect c;
	int partial, ret;
	size_t o;
	char *big;

	for (size_t step = 1; step <= 64; step *= 4) {
		ret = feed(compact, step, &c, &partial);
		check(!ret && c.n == 2 && !strcmp(c.first_type, "ADDED") && !partial,
		      tname("stream: two events a line, fed %zu bytes at a time", step),
		      "ret %d, %d values, first %s", ret, c.n, c.first_type);
		ret = feed(joined, step, &c, &partial);
		check(!ret && c.n == 2 && !strcmp(c.first_type, "ADDED") && !partial,
		      tname("stream: two events without a blank between, fed %zu bytes at a time",
			    step), "ret %d, %d values, first %s", ret, c.n, c.first_type);
		ret = feed(pretty, step, &c, &partial);
		check(!ret && c.n == 2 && !strcmp(c.first_type, "MODIFIED") && !partial,
		      tname("stream: pretty-printed, fed %zu bytes at a time", step),
		      "ret %d, %d values, first %s", ret, c.n, c.first_type);
		ret = feed_keep(page_keep, page, strlen(page), step, &c, &partial);
		check(!ret && c.n == 1 && c.items == 6 && !strcmp(c.item_uids, "u1,-,-,-,-,u2,") &&
		      !partial, tname("stream: a list's items one by one, fed %zu bytes at a time",
				      step), "ret %d, %d values, %d items: %s", ret, c.n, c.items,
		      c.item_uids);
	}
	ret = feed("{\"type\":\"ADDED\",\"obj", 7, &c, &partial);
	ASSERT(!ret && !c.n && partial, "stream: a cut value is partial, not delivered");
	ret = feed("{\"type\":\"ADDED\"}\n{\"type\":}", 5, &c, &partial);
	ASSERT(ret == -EBADMSG && c.n == 1, "stream: bytes that are no JSON stop it after the good value");
	ret = feed("{\"type\":\"ADDED\"},{\"type\":\"ADDED\"}", 64, &c, &partial);
	ASSERT(ret == -EBADMSG && c.n == 1, "stream: a comma between events is no JSON stream");
	ret = feed("{\"type\":\"ADDED\",}", 64, &c, &partial);
	ASSERT(ret == -EBADMSG && !c.n, "stream: a trailing comma is no JSON");
	ret = feed("{\"type\":\"A\x01\"}", 64, &c, &partial);
	ASSERT(ret == -EBADMSG && !c.n, "stream: a raw control byte in a string is no JSON");
	ret = feed("{\"type\":\"\\x41\"}", 64, &c, &partial);
	ASSERT(ret == -EBADMSG && !c.n, "stream: an unknown escape is no JSON");
	ret = feed("[1,2]", 64, &c, &partial);
	ASSERT(!ret && c.n == 1 && !c.first_type[0], "stream: a value that is no object is kept as {}");

	/* What is not kept costs nothing: 4 MiB of {} in a member not read. */
	big = malloc(5 << 20);
	if (!big)
		return;
	o = sprintf(big, "{\"type\":\"ADDED\",\"pad\":[");
	for (; o < (4 << 20); o += 3)
		memcpy(big + o, "{},", 3);
	strcpy(big + o, "{}],\"object\":{\"a\":\"x\"}}");
	ret = feed(big, 65536, &c, &partial);
	check(!ret && c.n == 1 && !strcmp(c.first_type, "ADDED") && c.bytes > (4 << 20) &&
	      c.kept_len == 1, "stream: 4 MiB of {} not kept, the value's size told",
	      "ret %d, %d values, %zu bytes", ret, c.n, c.bytes);

	/* A kept string is cut, still JSON, longer than any field read. */
	o = sprintf(big, "{\"type\":\"ADDED\",\"object\":{\"a\":\"");
	memset(big + o, 'x', 100000);
	strcpy(big + o + 100000, "\"}}");
	ret = feed(big, 4096, &c, &partial);
	check(!ret && c.n == 1 && c.kept_len == JSON_KEEP_STR, "stream: a long string kept cut",
	      "ret %d, %d values, kept %zu", ret, c.n, c.kept_len);

	/* A member repeated past JSON_KEEP_MAX: the value is passed as NULL. */
	o = sprintf(big, "{\"type\":\"ADDED\"");
	for (int i = 0; i < 10000; i++)
		o += sprintf(big + o, ",\"type\":\"ADDED\"");
	strcpy(big + o, "}");
	ret = feed(big, 4096, &c, &partial);
	check(!ret && c.n == 1 && c.null_seen, "stream: more kept than JSON_KEEP_MAX: no value",
	      "ret %d, %d values, null %d", ret, c.n, c.null_seen);

	/* Nesting: 64 levels are read, 65 are no stream. */
	memset(big, '[', 64);
	memset(big + 64, ']', 64);
	ret = feed_keep(ev_keep, big, 128, 7, &c, &partial);
	ASSERT(!ret && c.n == 1, "stream: 64 levels read");
	memset(big, '[', 65);
	memset(big + 65, ']', 65);
	ret = feed_keep(ev_keep, big, 130, 7, &c, &partial);
	ASSERT(ret == -EBADMSG && !c.n, "stream: 65 levels refused");
	free(big);
}

/* The table against a plain array: inserts, lookups and deletions in a
 * table small enough for long probe chains and wrap-around.
 */
static void test_table(void)
{
	enum { N = 3000, OPS = 60000 };
	static bool in[N];
	struct pod_table t = {};
	char uid[32];
	int bad = 0, present = 0;

	srandom(1);
	for (int op = 0; op < OPS; op++) {
		int k = random() % N;
		struct pod_entry *e;

		snprintf(uid, sizeof(uid), "%x", k * 2654435761u);
		e = pod_table_get(&t, uid, false);
		if (!!e != in[k])
			bad++;
		if (random() % 3) {
			e = pod_table_get(&t, uid, true);
			if (!e || strcmp(e->uid, uid))
				bad++;
			present += !in[k];
			in[k] = true;
		} else if (e) {
			pod_table_del(&t, e);
			in[k] = false;
			present--;
		}
	}
	for (int k = 0; k < N; k++) {
		snprintf(uid, sizeof(uid), "%x", k * 2654435761u);
		bad += !!pod_table_get(&t, uid, false) != in[k];
	}
	check(!bad && t.nr == (size_t)present, tname("table: %d operations agree with an array", OPS),
	      "%d disagreements, %zu entries, want %d", bad, t.nr, present);
	pod_table_free(&t);
}

static void count_swept(struct pod_entry *e, void *ctx)
{
	(*(int *)ctx)++;
}

static void test_sweep(void)
{
	struct pod_table t = {};
	char uid[32];
	int swept = 0, left = 0;

	for (int k = 0; k < 1000; k++) {
		snprintf(uid, sizeof(uid), "%x", k * 40503u);
		pod_table_get(&t, uid, true)->gen = k % 3 ? 2 : 1;
	}
	pod_table_sweep(&t, 2, count_swept, &swept);
	for (int k = 0; k < 1000; k++) {
		snprintf(uid, sizeof(uid), "%x", k * 40503u);
		left += !!pod_table_get(&t, uid, false);
	}
	check(swept == 334 && left == 666 && t.nr == 666, "table: a sweep removes exactly the stale",
	      "swept %d, %d found, %zu entries", swept, left, t.nr);
	pod_table_free(&t);
}

/* Back-off after failures in a row: 200 ms, doubling, jittered by a
 * quarter either way, never past the 30 s that tsq-kube(8) states, with
 * the lowest and the highest jitter.
 */
static void test_backoff(void)
{
	const unsigned int rnds[] = { 0, 12345, 15000, 0xffffffff };

	for (size_t i = 0; i < ARRAY_SIZE(rnds); i++) {
		unsigned int base = 0, first, longest = 0, least_capped = ~0u, w;

		first = backoff_next(&base, rnds[i]);
		for (int k = 1; k < 40; k++) {
			w = backoff_next(&base, rnds[i]);
			longest = w > longest ? w : longest;
			if (k >= 20 && w < least_capped)
				least_capped = w;
		}
		check(first >= 150 && first <= 250 && longest <= BACKOFF_MAX_MS &&
		      least_capped >= BACKOFF_MAX_MS * 3 / 4,
		      tname("backoff: jitter %#x: from 200 ms, never past 30 s", rnds[i]),
		      "first %u ms, longest %u ms, least at the ceiling %u ms", first, longest,
		      least_capped);
	}
}

int main(void)
{
	test_targets();
	test_dropins();
	test_mirror_node();
	test_stream();
	test_table();
	test_sweep();
	test_backoff();
	return test_done();
}

// SPDX-License-Identifier: GPL-2.0
/* tsq-kube: per-pod TCP Small Queues policy from a pod annotation.
 *
 * Watches the pods of its node (list, then watch from the list's
 * resourceVersion; 410 Gone lists again) and keeps one drop-in in
 * tsqd's directory per pod whose annotation (tsq.io/policy: "budget
 * 64k") holds a valid policy, naming the pod's cgroup as the kubelet
 * makes it. tsqd applies the files. A value the policy parser refuses is
 * a log line, and the pod's drop-in stays as it was. Drop-ins of pods
 * that went while tsq-kube was not running go at the next list. See
 * tsq-kube(8).
 *
 * Neither the server nor the pods' owners are trusted to be kind: a pod
 * over KUBE_MAX_ITEM bytes is skipped, pods past --max-pods get no file,
 * every failure backs off (doubling to BACKOFF_MAX_MS, with jitter, and
 * only a watch that brought pod events starts it over), lines about
 * skipped input are at most SAY_MAX a list or watch, and what the
 * server wrote reaches the log quoted. Each is counted in the log, and
 * with --metrics-file in a Prometheus text file too.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <curl/curl.h>

#include "apiclient.h"
#include "backoff.h"
#include "cgroup.h"
#include "dropin.h"
#include "log.h"
#include "jsonstream.h"
#include "metrics.h"
#include "pod.h"
#include "podtable.h"
#include "quote.h"

#ifndef TSQ_VERSION
#define TSQ_VERSION "unknown"
#endif

#define DEFAULT_ANNOTATION	"tsq.io/policy"
#define DEFAULT_DROPIN_DIR	"/etc/tsq/tsq.conf.d"
#define DEFAULT_MAX_PODS	1024	/* kubelet's --max-pods is 110 by default */
#define LIST_PER_POD		8	/* finished pods stay listed until collected */
#define SHORT_WATCH_MS		10000	/* a watch that ends sooner, cleanly, failed */
#define SAY_MAX			10	/* lines on skipped input a list or watch */
#define RVQ_SZ			(KUBE_RV_MAX * 4 + 8)

bool kube_verbose;
static volatile int stopping;

struct agent {
	struct kube_api api;
	struct pod_table pods;
	enum kube_driver driver;
	const char *node, *annotation, *dir;
	char mount[PATH_MAX];
	int dfd;
	unsigned int gen;		/* of the list in progress or done last */
	char rv[KUBE_RV_MAX];		/* where a watch resumes */
	unsigned int backoff_ms;
	unsigned int wait_ms;		/* the back-off wait chosen last */
	size_t max_pods;		/* pods with a policy (or a refused one) kept */
	unsigned int said;		/* lines on skipped input this list or watch */
	size_t pod_events;		/* ADDED, MODIFIED, DELETED of this watch */
	bool error_event;		/* this watch ended with an ERROR event */
	/* Counted since start, and in the list in progress. */
	struct counts {
		unsigned long skipped;		/* no pod that can be read */
		unsigned long oversized;	/* over KUBE_MAX_ITEM bytes */
		unsigned long refused;		/* past max_pods */
		unsigned long pods;		/* read, with a uid */
	} total, in_list;
	unsigned long failures, lists;
	struct kube_metrics_file metrics;
};

/* The resourceVersion, as it may stand in a log line. */
static const char *rvq(const struct agent *a, char *buf)
{
	return tsq_quote(buf, RVQ_SZ, a->rv);
}

/* Whether one more line on skipped input may go to the log now. */
static bool say(struct agent *a)
{
	if (a->said == SAY_MAX)
		log_info("more skipped input: counted, not logged, until the next list or watch");
	return a->said++ < SAY_MAX;
}

/* One more of what field of struct counts counts, since start and in this list. */
#define count(a, field)	((a)->total.field++, (a)->in_list.field++)

static unsigned long hash_str(const char *s)
{
	unsigned long h = 5381;

	while (*s)
		h = h * 33 + (unsigned char)*s++;
	return h | 1;	/* never 0: 0 means "nothing refused" */
}

static void remove_dropin(struct agent *a, struct pod_entry *e, const char *who,
			  const char *why)
{
	int err;

	if (!e->dropin)
		return;
	err = dropin_remove(a->dfd, e->uid);
	if (err) {
		log_info("%s: removing its drop-in: %s", who, strerror(-err));
		return;
	}
	log_info("%s: policy removed (%s)", who, why);
	free(e->dropin);
	e->dropin = NULL;
}

/* One pod as the API has it now, of bytes in the stream; deleted: it is
 * gone.
 */
static void pod_update(struct agent *a, struct json_object *obj, size_t bytes, bool deleted)
{
	char err[512], text[KUBE_DROPIN_MAX], who[2 * KUBE_NAME_MAX + 8], q[TSQ_QUOTE_BUFSZ];
	const char *gone = NULL;
	struct pod_entry *e;
	struct kube_pod p;
	unsigned long bad;
	int ret;

	if (!obj) {
		count(a, skipped);
		if (say(a))
			log_info("a pod skipped: more than %d bytes of the fields read",
				 JSON_KEEP_MAX);
		return;
	}
	if (kube_pod_read(obj, a->annotation, a->node, &p, err, sizeof(err))) {
		count(a, skipped);
		if (bytes > KUBE_MAX_ITEM)
			count(a, oversized);
		if (say(a))
			log_info("a pod skipped: %s", err);
		return;
	}
	kube_pod_label(&p, who, sizeof(who));
	count(a, pods);
	if (bytes > KUBE_MAX_ITEM) {
		/* Nothing changes for it; a list does not take its file away. */
		count(a, skipped);
		count(a, oversized);
		e = pod_table_get(&a->pods, p.uid, false);
		if (e)
			e->gen = a->gen;
		if (say(a))
			log_info("%s: a pod of %zu bytes, over the limit of %d: skipped, %s", who,
				 bytes, KUBE_MAX_ITEM,
				 e && e->dropin ? "its policy stays as it was" : "no policy");
		return;
	}
	if (deleted)
		gone = "pod deleted";
	else if (p.terminal)
		gone = "pod finished";
	else if (strcmp(p.node, a->node))
		gone = "pod not on this node";	/* a field selector the server ignored */
	else if (!p.policy)
		gone = "no annotation";
	e = pod_table_get(&a->pods, p.uid, false);
	if (!e && !gone && a->pods.nr >= a->max_pods) {
		count(a, refused);
		if (say(a))
			log_info("%s: refused: %zu pods with a policy already (--max-pods %zu)", who,
				 a->pods.nr, a->max_pods);
		return;
	}
	if (!e && !gone)
		e = pod_table_get(&a->pods, p.uid, true);
	if (!e) {
		if (!gone)
			log_info("%s: out of memory", who);
		return;
	}
	e->gen = a->gen;
	if (gone) {
		remove_dropin(a, e, who, gone);
		pod_table_del(&a->pods, e);
		return;
	}
	if (kube_pod_dropin(&p, a->driver, a->mount, a->annotation, text, sizeof(text),
			    err, sizeof(err))) {
		/* Once per value, not at every status update of the pod. */
		bad = hash_str(p.policy) ^ p.qos;
		if (e->bad != bad)
			log_info("%s: %s; %s", who, err,
				 e->dropin ? "its policy stays as it was" : "no policy");
		e->bad = bad;
		return;
	}
	e->bad = 0;
	if (e->dropin && !strcmp(e->dropin, text))
		return;
	ret = dropin_write(a->dfd, p.uid, text);
	if (ret) {
		log_info("%s: writing its drop-in: %s", who, strerror(-ret));
		return;
	}
	free(e->dropin);
	e->dropin = strdup(text);
	log_info("%s: %s", who, tsq_quote(q, sizeof(q), strchr(text, '\n') + 1));
}

static void set_rv(struct agent *a, const char *rv)
{
	char q[TSQ_QUOTE_BUFSZ], rq[RVQ_SZ];

	if (!rv || !*rv || strlen(rv) >= sizeof(a->rv)) {
		if (say(a))
			log_info("an event without a usable resourceVersion (\"%s\"): kept \"%s\"",
				 tsq_quote(q, sizeof(q), rv ? rv : ""), rvq(a, rq));
		return;
	}
	strcpy(a->rv, rv);
}

static int on_event(struct json_object *ev, size_t bytes, void *ctx)
{
	struct agent *a = ctx;
	struct json_object *obj = json_get(ev, "object"), *code;
	const char *type = json_get_str(ev, "type"), *msg;
	char q[TSQ_QUOTE_BUFSZ], rq[RVQ_SZ];

	if (!type || !obj || !json_object_is_type(obj, json_type_object)) {
		if (say(a))
			log_info("an event without type or object skipped");
		return 0;
	}
	if (!strcmp(type, "ERROR")) {
		code = json_get(obj, "code");
		msg = json_get_str(obj, "message");
		log_info("watch: error event, code %d: \"%s\"",
			 code ? json_object_get_int(code) : 0,
			 tsq_quote(q, sizeof(q), msg ? msg : ""));
		a->error_event = true;
		return code && json_object_get_int(code) == 410 ? KUBE_GONE : -EPROTO;
	}
	if (!strcmp(type, "ADDED") || !strcmp(type, "MODIFIED") || !strcmp(type, "DELETED")) {
		a->pod_events++;
		pod_update(a, obj, bytes, type[0] == 'D');
	} else if (strcmp(type, "BOOKMARK")) {
		if (say(a))
			log_info("an event of type \"%s\" skipped", tsq_quote(q, sizeof(q), type));
		return 0;
	}
	set_rv(a, json_get_str(json_get(obj, "metadata"), "resourceVersion"));
	log_debug("%s, at resourceVersion %s", type, rvq(a, rq));
	return 0;
}

/* A list's pod. Endless pages (a hostile server's continue tokens) end
 * at max_list pods that have a uid; what has none costs no memory.
 */
static int on_item(struct json_object *pod, size_t bytes, void *ctx)
{
	struct agent *a = ctx;

	pod_update(a, pod, bytes, false);
	return a->in_list.pods > a->api.max_list ? -E2BIG : 0;
}

static void swept(struct pod_entry *e, void *ctx)
{
	char who[KUBE_UID_MAX + 8];

	snprintf(who, sizeof(who), "uid %s", e->uid);
	remove_dropin(ctx, e, who, "pod no longer listed");
}

/* The drop-ins a previous run left: known, so a list can remove them. */
static void found(const char *uid, const char *text, void *ctx)
{
	struct agent *a = ctx;
	struct pod_entry *e = pod_table_get(&a->pods, uid, true);

	if (e && !e->dropin)
		e->dropin = strdup(text);
}

/* Not pods.nr: the table keeps pods whose value was refused too. */
static unsigned long dropins(const struct pod_table *t)
{
	unsigned long n = 0;

	for (size_t i = 0; i < t->size; i++)
		n += t->v[i].uid[0] && t->v[i].dropin;
	return n;
}

/* The counters to --metrics-file, if there is one. */
static void publish(struct agent *a)
{
	struct kube_metrics m = {
		.failures = a->failures, .lists = a->lists,
		.backoff_ms = a->wait_ms, .backoff_max_ms = BACKOFF_MAX_MS,
		.skipped = a->total.skipped, .oversized = a->total.oversized,
		.refused = a->total.refused,
	};

	if (!a->metrics.path)
		return;
	m.dropins = dropins(&a->pods);
	kube_metrics_write(&a->metrics, &m);
}

static void on_signal(int sig)
{
	stopping = 1;
}

/* Sleep ms, or less if a signal comes. */
static void pause_ms(unsigned int ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (!stopping && nanosleep(&ts, &ts) && errno == EINTR)
		;
}

/* Whatever failed, the next try waits: a 410 too, and an ERROR event
 * never starts the back-off over.
 */
static void failed(struct agent *a, const char *what)
{
	unsigned int ms = backoff_next(&a->backoff_ms, (unsigned int)random());
	char rq[RVQ_SZ];

	a->failures++;
	a->wait_ms = ms;
	log_info("%s; again from resourceVersion \"%s\" in %u ms (failure %lu, back-off up "
		 "to %d s)", what, rvq(a, rq), ms, a->failures, BACKOFF_MAX_MS / 1000);
	publish(a);
	pause_ms(ms);
}

static long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000L + ts.tv_nsec / 1000000;
}

static int list(struct agent *a)
{
	char err[512] = "", rq[RVQ_SZ];
	size_t before;
	int ret;

	a->gen++;
	a->lists++;
	a->said = 0;
	memset(&a->in_list, 0, sizeof(a->in_list));
	ret = kube_api_list(&a->api, on_item, a, a->rv, sizeof(a->rv), err, sizeof(err));
	if (ret) {
		log_info("list: %s", ret == KUBE_GONE ? "410 Gone (a continue token expired)" : err);
		return ret;
	}
	before = a->pods.nr;
	pod_table_sweep(&a->pods, a->gen, swept, a);
	log_info("listed the pods of node %s at resourceVersion %s: %zu with a policy or a "
		 "refused one, %zu removed; %lu skipped (%lu over %d bytes), %lu refused "
		 "(--max-pods); list %lu", a->node, rvq(a, rq), a->pods.nr, before - a->pods.nr,
		 a->in_list.skipped, a->in_list.oversized, KUBE_MAX_ITEM, a->in_list.refused,
		 a->lists);
	publish(a);
	return 0;
}

static int run(struct agent *a)
{
	bool listed = false;
	char err[512], what[700], rq[RVQ_SZ];
	size_t events;
	long t0, ms;
	int ret;

	while (!stopping) {
		if (!listed) {
			if (list(a)) {
				if (!stopping)
					failed(a, "list failed");
				continue;
			}
			listed = true;
		}
		err[0] = '\0';
		events = 0;
		a->pod_events = 0;
		a->error_event = false;
		a->said = 0;
		t0 = now_ms();
		ret = kube_api_watch(&a->api, a->rv, on_event, a, &events, err, sizeof(err));
		ms = now_ms() - t0;
		if (stopping)
			break;
		/* Only pod events start the back-off over: not a bookmark, not
		 * a list, never a watch that ended in an ERROR event.
		 */
		if (a->pod_events && !a->error_event && ret != KUBE_GONE)
			a->backoff_ms = a->wait_ms = 0;
		if (ret == KUBE_GONE) {
			listed = false;
			snprintf(what, sizeof(what), "watch: resourceVersion \"%s\" is too old: "
				 "listing again", rvq(a, rq));
		} else if (!ret && ms >= SHORT_WATCH_MS) {
			log_debug("watch: ended by the server after %zu events", events);
			continue;
		} else if (!ret) {
			snprintf(what, sizeof(what), "watch: ended by the server after %ld ms, %zu "
				 "pod events", ms, a->pod_events);
		} else if (a->error_event) {
			snprintf(what, sizeof(what), "watch: ended by an error event");
		} else {
			snprintf(what, sizeof(what), "watch: %s", err);
		}
		failed(a, what);
	}
	log_info("exiting after %lu lists and %lu failures; %lu pods skipped (%lu over %d "
		 "bytes), %lu refused (--max-pods %zu); the drop-ins stay, as tsqd keeps "
		 "policies in force", a->lists, a->failures, a->total.skipped, a->total.oversized,
		 KUBE_MAX_ITEM, a->total.refused, a->max_pods);
	publish(a);
	return 0;
}

static enum kube_driver detect_driver(const char *mount, const char *opt)
{
	char path[PATH_MAX];

	if (!strcmp(opt, "systemd"))
		return KUBE_DRIVER_SYSTEMD;
	if (!strcmp(opt, "cgroupfs"))
		return KUBE_DRIVER_CGROUPFS;
	if (strcmp(opt, "auto")) {
		fprintf(stderr, "tsq-kube: --cgroup-driver \"%s\": want systemd, cgroupfs or auto\n",
			opt);
		exit(2);
	}
	snprintf(path, sizeof(path), "%s/kubepods.slice", mount);
	if (!access(path, F_OK))
		return KUBE_DRIVER_SYSTEMD;
	snprintf(path, sizeof(path), "%s/kubepods", mount);
	if (!access(path, F_OK))
		return KUBE_DRIVER_CGROUPFS;
	fprintf(stderr, "tsq-kube: neither %s/kubepods.slice nor %s/kubepods exists: give "
		"--cgroup-driver systemd or cgroupfs\n", mount, mount);
	exit(1);
}

static void usage(FILE *f, int rc)
{
	fprintf(f,
		"Usage: tsq-kube [OPTIONS]\n"
		"Keep a tsq.conf drop-in per pod of this node from its policy annotation.\n"
		"  -n, --node NAME            this node ($NODE_NAME)\n"
		"  -a, --annotation KEY       the annotation read (%s)\n"
		"  -d, --dropin-dir DIR       tsqd's drop-in directory (%s)\n"
		"  -g, --cgroup-driver DRIVER systemd, cgroupfs or auto (auto)\n"
		"  -s, --server URL           API server (in a pod: $KUBERNETES_SERVICE_HOST)\n"
		"      --ca FILE              its CA (%s/ca.crt)\n"
		"      --token FILE           bearer token (%s/token)\n"
		"      --max-pods N           pods with a policy given a drop-in, at most (%d)\n"
		"      --metrics-file FILE    counters for node_exporter's textfile collector\n"
		"  -v, --verbose              a line per event\n"
		"  -h, --help, -V, --version\n"
		"See tsq-kube(8).\n",
		DEFAULT_ANNOTATION, DEFAULT_DROPIN_DIR, KUBE_SA_DIR, KUBE_SA_DIR, DEFAULT_MAX_PODS);
	exit(rc);
}

/* A qualified annotation key: [prefix/]name of [A-Za-z0-9._-]. */
static bool annotation_valid(const char *k)
{
	size_t n = strlen(k);

	return n && n <= 316 && strspn(k, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
				       "0123456789._-/") == n;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "node", required_argument, NULL, 'n' },
		{ "annotation", required_argument, NULL, 'a' },
		{ "dropin-dir", required_argument, NULL, 'd' },
		{ "cgroup-driver", required_argument, NULL, 'g' },
		{ "server", required_argument, NULL, 's' },
		{ "ca", required_argument, NULL, 'C' },
		{ "token", required_argument, NULL, 'T' },
		{ "max-pods", required_argument, NULL, 'M' },
		{ "metrics-file", required_argument, NULL, 'P' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{}
	};
	struct agent a = { .annotation = DEFAULT_ANNOTATION, .dir = DEFAULT_DROPIN_DIR,
			   .max_pods = DEFAULT_MAX_PODS };
	const char *driver = "auto", *server = NULL, *ca = NULL, *token = NULL;
	const char *metrics = NULL;
	struct sigaction sa = { .sa_handler = on_signal };
	char err[512], *end;
	unsigned long n;
	int c, ret;

	setvbuf(stderr, NULL, _IOLBF, 0);
	a.node = getenv("NODE_NAME");
	while ((c = getopt_long(argc, argv, "n:a:d:g:s:vhV", opts, NULL)) != -1) {
		switch (c) {
		case 'n': a.node = optarg; break;
		case 'a': a.annotation = optarg; break;
		case 'd': a.dir = optarg; break;
		case 'g': driver = optarg; break;
		case 's': server = optarg; break;
		case 'C': ca = optarg; break;
		case 'T': token = optarg; break;
		case 'M':
			errno = 0;
			n = strtoul(optarg, &end, 10);
			if (errno || *end || !*optarg || optarg[0] == '-' || !n || n > 1000000) {
				fprintf(stderr, "tsq-kube: --max-pods: want 1 to 1000000\n");
				return 2;
			}
			a.max_pods = n;
			break;
		case 'P': metrics = optarg; break;
		case 'v': kube_verbose = true; break;
		case 'h': usage(stdout, 0); break;
		case 'V': printf("tsq-kube %s\n", TSQ_VERSION); return 0;
		default: usage(stderr, 2);
		}
	}
	if (optind < argc) {
		fprintf(stderr, "tsq-kube: unexpected argument %s\n", argv[optind]);
		return 2;
	}
	if (!a.node || !*a.node || strlen(a.node) > KUBE_NAME_MAX ||
	    strspn(a.node, "abcdefghijklmnopqrstuvwxyz0123456789-.") != strlen(a.node)) {
		fprintf(stderr, "tsq-kube: %s: want a node name (--node or $NODE_NAME)\n",
			a.node && *a.node ? "not a node name" : "no node");
		return 2;
	}
	if (!annotation_valid(a.annotation)) {
		fprintf(stderr, "tsq-kube: --annotation: not an annotation key\n");
		return 2;
	}
	ret = metrics ? kube_metrics_open(&a.metrics, metrics) : 0;
	if (ret) {
		fprintf(stderr, "tsq-kube: --metrics-file \"%s\": %s\n", metrics,
			ret == -EINVAL ? "want a file's path" : strerror(-ret));
		return 2;
	}
	if (tsq_cgroup_mount(a.mount, sizeof(a.mount)))
		strcpy(a.mount, "/sys/fs/cgroup");
	a.driver = detect_driver(a.mount, driver);

	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	srandom(getpid() ^ time(NULL));
	if (curl_global_init(CURL_GLOBAL_DEFAULT)) {
		fprintf(stderr, "tsq-kube: libcurl failed to initialise\n");
		return 1;
	}
	ret = kube_api_init(&a.api, server, ca, token, a.node, a.annotation, err, sizeof(err));
	if (ret) {
		fprintf(stderr, "tsq-kube: %s\n", err);
		return 1;
	}
	a.api.max_list = a.max_pods * LIST_PER_POD;
	a.api.stop = &stopping;
	a.dfd = dropin_dir_open(a.dir);
	if (a.dfd < 0) {
		fprintf(stderr, "tsq-kube: %s: %s\n", a.dir, strerror(-a.dfd));
		return 1;
	}
	ret = dropin_scan(a.dfd, KUBE_DROPIN_MAX, found, &a);
	if (ret) {
		fprintf(stderr, "tsq-kube: %s: %s\n", a.dir, strerror(-ret));
		return 1;
	}
	log_info("node %s, %s driver, annotation %s, drop-ins in %s (%zu found, at most %zu), "
		 "API %s", a.node, a.driver == KUBE_DRIVER_SYSTEMD ? "systemd" : "cgroupfs",
		 a.annotation, a.dir, a.pods.nr, a.max_pods, a.api.server);
	ret = run(&a);
	kube_api_free(&a.api);
	pod_table_free(&a.pods);
	kube_metrics_close(&a.metrics);
	close(a.dfd);
	curl_global_cleanup();
	return ret;
}

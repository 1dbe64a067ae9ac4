// SPDX-License-Identifier: GPL-2.0
/* tsqd: keep the per-cgroup TSQ policy of /etc/tsq in force.
 *
 * Attaches tsq_cgroup (or adopts what an earlier tsqd pinned), applies the
 * policy files to the cgroups that exist and to those that appear later,
 * reloads on SIGHUP and on file changes, serves statistics on loopback and
 * logs a summary line now and then. Stopping tsqd leaves the policy in
 * force, as a sysctl would stay: `tsqctl reset` is the way back to stock.
 * See tsqd(8).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <libgen.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <linux/capability.h>
#include <sys/epoll.h>
#include <sys/mount.h>
#include <sys/inotify.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/timerfd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "tsq_bpf.h"
#include "tsq_netns.h"
#include "tsq_scope.h"
#include "tsq_report.h"
#include "tsq_observe.h"
#include "cgroup.h"
#include "conffile.h"
#include "http.h"
#include "log.h"
#include "metrics.h"
#include "notify.h"
#include "pidfile.h"
#include "print.h"
#include "policies.h"

#ifndef BPF_FS_MAGIC
#define BPF_FS_MAGIC		0xcafe4a11
#endif
#define CONF_SETTLE_MS		200	/* editors write files in steps */
#define CGROUP_SETTLE_MS	20	/* systemd makes a unit's tree at once */
#define SETTLE_MAX_MS		250	/* from the first event: a tree that keeps
					 * changing does not postpone for ever */

static const char *conf_file = TSQ_CONF_FILE, *conf_dir = TSQ_CONF_DIR;
static const char *listen_spec = TSQD_LISTEN_DEFAULT;
static const char *token_file;	/* --metrics-token */
static unsigned int log_interval = 60;
static char mount_point[PATH_MAX];
/* Why there is no bpffs at /sys/fs/bpf to pin in; "": there is one. */
static char no_bpffs[256];
/* No tcp_tsq_ops in this kernel: no policy, tsq_observe's statistics. */
static struct tsq_obs *observer;

enum { EV_SIGNAL, EV_CONF, EV_CGROUP, EV_SOON, EV_TICK, EV_HTTP, EV_LINK, EV_ASK };

struct daemon {
	int ep, sig, conf_in, cg_in, soon, tick, link, policy;
	bool reload, sync;
	int scope_err;		/* the last tsq_scope_begin() said */
	long long settle_end;	/* CLOCK_MONOTONIC ms; 0: nothing waits */
	struct http_server *http;
	struct policies ps;
	unsigned long long last_throttles;
	time_t last_log;
};

static int die(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int die(const char *fmt, ...)
{
	va_list ap;

	fputs("tsqd: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

static bool has_cap(unsigned int cap)
{
	struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct d[2] = {};

	if (syscall(SYS_capget, &h, d))
		return false;
	return d[cap / 32].effective & 1U << (cap % 32);
}

static bool has_caps(void)
{
	return has_cap(CAP_BPF) && has_cap(CAP_PERFMON);
}

/*
 * What the privilege tsqd runs with leaves off, said once at start
 * (tsqctl doctor says it too). Entering its own netns again tries what
 * the sync of other namespaces does, seccomp's RestrictNamespaces=
 * included, and changes nothing.
 */
static void features_off(void)
{
	int fd = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	int err = fd < 0 || setns(fd, CLONE_NEWNET) ? errno : 0;

	if (fd >= 0)
		close(fd);
	if (observer)
		;	/* no policy to sync */
	else if (err)
		log_info("policy changes reach established connections in other network namespaces "
			 "(pods, containers) only when they reconnect: entering one: %s (needs "
			 "CAP_SYS_ADMIN, and RestrictNamespaces=net under systemd; tsqd(8))",
			 strerror(err));
	else if (!has_cap(CAP_SYS_PTRACE))
		log_info("without CAP_SYS_PTRACE, policy changes reach established connections in "
			 "other users' network namespaces only when they reconnect");
	if (!has_cap(CAP_DAC_READ_SEARCH) && !has_cap(CAP_DAC_OVERRIDE))
		log_info("without CAP_DAC_READ_SEARCH, cgroups their owners made unreadable are "
			 "counted (tsq_cgroups_unreadable) but not named");
}

/* Everything that can be checked before touching the kernel's state. */
static void preflight(void)
{
	struct statfs sfs;
	char why[512];
	int err, fd;

	if (!has_caps())
		die("needs CAP_BPF and CAP_PERFMON (run as root, or see tsqd.service)");
	if (access("/sys/kernel/btf/vmlinux", R_OK))
		die("no kernel BTF at /sys/kernel/btf/vmlinux (CONFIG_DEBUG_INFO_BTF=y needed)");
	/* As bpftool does where it is missing; mode 0700, not bpffs' 1777,
	 * so that nobody else can take TSQ_PIN_DIR's name first. Observation
	 * mode pins nothing: only an attach needs it (attach_or_adopt()).
	 */
	if (statfs("/sys/fs/bpf", &sfs) || sfs.f_type != BPF_FS_MAGIC) {
		if (mount("bpf", "/sys/fs/bpf", "bpf", 0, "mode=0700"))
			snprintf(no_bpffs, sizeof(no_bpffs), "no bpffs at /sys/fs/bpf, and "
				 "mounting one failed: %s", strerror(errno));
		else
			log_info("mounted bpffs at /sys/fs/bpf, mode 0700");
	}
	err = tsq_cgroup_mount(mount_point, sizeof(mount_point));
	if (err)
		die("no cgroup2 hierarchy mounted: %s", strerror(-err));
	/* The pid file is taken once attached; what is there is judged now. */
	err = tsq_run_dir_check(TSQ_RUN_DIR, false, why, sizeof(why));
	if (err && err != -ENOENT)
		die("%s", why);
	fd = tsq_run_file_open(TSQ_PIDFILE, O_RDONLY, why, sizeof(why));
	if (fd >= 0)
		close(fd);
	else if (fd != -ENOENT)
		die("%s", why);
}

/* Adopt the pinned link if there is one, else attach. Returns its fd,
 * or -1 in observation mode (a kernel without the hook).
 */
static int attach_or_adopt(void)
{
	char why[256] = "";
	enum tsq_hook hook;
	int fd, err;

	err = no_bpffs[0] ? -ENOENT : tsq_pin_dir_check(why, sizeof(why));
	fd = err ? err : tsq_pinned(TSQ_PIN_LINK);
	if (fd >= 0) {
		log_info("adopted pinned state in %s, link id %u", TSQ_PIN_DIR, tsq_link_id(fd));
		return fd;
	}
	/* Only now: parsing the kernel's BTF is the slow part of a start. */
	hook = tsq_hook_probe();
	if (hook != TSQ_HOOK_TSQ_OPS) {
		observer = tsq_obs_open();
		if (!observer)
			die("observation mode: loading tsq_observe: %s", strerror(errno));
		log_info("observation mode: hook: %s; policies are not applied, per-cgroup "
			 "queues and delays are served", tsq_hook_str(hook));
		/* Nothing is pinned in this mode: whatever is there is no matter. */
		if (no_bpffs[0])
			log_info("%s; observation mode pins nothing", no_bpffs);
		else if (err && err != -ENOENT)
			log_info("ignoring %s: observation mode pins nothing", TSQ_PIN_DIR);
		return -1;
	}
	if (no_bpffs[0])
		die("%s", no_bpffs);
	if (err && err != -ENOENT)
		die("%s", why);
	err = tsq_attach();
	/* Another tsqd or tsqctl attached since the look above. */
	if (err == -EEXIST) {
		fd = tsq_pinned(TSQ_PIN_LINK);
		if (fd >= 0) {
			log_info("adopted pinned state in %s, link id %u (attached meanwhile)",
				 TSQ_PIN_DIR, tsq_link_id(fd));
			return fd;
		}
		err = fd;
	}
	why[0] = '\0';
	if ((err == -EPERM || err == -ENOTDIR) && tsq_pin_dir_check(why, sizeof(why)) &&
	    why[0])
		die("attach: %s", why);
	if (err)
		die("attach: %s", strerror(-err));
	fd = tsq_pinned(TSQ_PIN_LINK);
	if (fd < 0)
		die("attach: link not pinned: %s", strerror(-fd));
	log_info("attached, link id %u, pinned in %s", tsq_link_id(fd), TSQ_PIN_DIR);
	return fd;
}

static void add_fd(struct daemon *d, int fd, int tag, __u32 events)
{
	struct epoll_event ev = { .events = events, .data.u32 = tag };

	if (fd >= 0 && epoll_ctl(d->ep, EPOLL_CTL_ADD, fd, &ev))
		die("epoll: %s", strerror(errno));
}

static void arm(int tfd, unsigned int ms, unsigned int every_ms)
{
	struct itimerspec its = {
		.it_value = { ms / 1000, (ms % 1000) * 1000000L },
		.it_interval = { every_ms / 1000, (every_ms % 1000) * 1000000L },
	};

	timerfd_settime(tfd, 0, &its, NULL);
}

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

/* Act ms after the latest event, but no later than SETTLE_MAX_MS after
 * the first one that is still waiting.
 */
static void settle(struct daemon *d, unsigned int ms)
{
	long long now = now_ms();

	if (!d->settle_end)
		d->settle_end = now + SETTLE_MAX_MS;
	if (now + ms > d->settle_end)
		ms = d->settle_end > now ? d->settle_end - now : 1;
	arm(d->soon, ms, 0);
}

static void watch_conf(struct daemon *d)
{
	const __u32 ev = IN_CLOSE_WRITE | IN_MOVED_TO | IN_MOVED_FROM | IN_CREATE |
			 IN_DELETE | IN_ONLYDIR;
	char *copy = strdup(conf_file);

	if (copy) {
		inotify_add_watch(d->conf_in, dirname(copy), ev);
		free(copy);
	}
	inotify_add_watch(d->conf_in, conf_dir, ev);
}

/* Once per batch of map changes: the established sockets of tsqd's
 * netns in the changed cgroups' subtrees resolve their policy again, and
 * so do those of the changed cgroups' own network namespaces (pods). A
 * batch whose every change was noted with its cgroup is scoped to those
 * cgroups (tsq_scope.h); any other visits every socket.
 */
static void changed(struct daemon *d, int n)
{
	struct tsq_netns_sync st;
	long long t0;
	int err;

	if (n <= 0)
		goto out;
	err = d->ps.changed_lost || d->ps.nr_changed < (size_t)n ? -EINVAL :
	      tsq_scope_begin(d->ps.changed_ids, d->ps.nr_changed);
	/* Many cgroups at once is no news; anything else is, once. */
	if (err && err != -E2BIG && err != -EINVAL && err != d->scope_err)
		log_info("policy syncs visit every socket: %s", tsq_scope_why(err));
	if (err != -E2BIG && err != -EINVAL)
		d->scope_err = err;
	if (tsq_bump_gen())
		log_info("could not bump the policy generation: sockets keep their cached policy");
	if (!d->ps.nr_changed)
		goto out;
	t0 = now_ms();
	err = tsq_sync_cgroup_netns(mount_point, d->ps.changed, d->ps.nr_changed, &st);
	if (err)
		log_info("established connections in other network namespaces: %s",
			 strerror(-err));
	else if (st.netns || st.failed || st.skipped)
		log_info("synced the established connections of %u network namespaces of %zu "
			 "changed cgroups in %lld ms%s%s%s", st.netns, d->ps.nr_changed, now_ms() - t0,
			 st.failed ? "; could not enter some: " : "",
			 st.failed ? strerror(-st.err) : "",
			 st.skipped ? "; more than the limit skipped" : "");
out:
	tsq_scope_end();
	policies_changed_clear(&d->ps);
}

/* Observation mode has no policy map: the files are read, not applied. */
static void sync_cgroups(struct daemon *d)
{
	if (!observer)
		changed(d, policies_sync(&d->ps));
}

static void status_line(const struct daemon *d, char *buf, size_t len)
{
	if (observer)
		snprintf(buf, len, "READY=1\nSTATUS=observation mode (no tcp_tsq_ops hook), "
			 "%zu policies read", d->ps.nr);
	else
		snprintf(buf, len, "READY=1\nSTATUS=%zu policies, %zu pending",
			 d->ps.nr, d->ps.pending);
}

/* A systemctl show that a sync started joins the loop; its fd leaves
 * the epoll set by itself when policies.c closes it.
 */
static void watch_ask(struct daemon *d)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.u32 = EV_ASK };
	int fd = policies_ask_fd(&d->ps);

	if (fd >= 0 && epoll_ctl(d->ep, EPOLL_CTL_ADD, fd, &ev) && errno != EEXIST) {
		log_info("epoll: %s: systemctl show abandoned", strerror(errno));
		policies_ask_done(&d->ps, -errno);
	}
}

/* Its answer: the units it found get their policies. */
static void ask_input(struct daemon *d)
{
	if (policies_ask_input(&d->ps))
		sync_cgroups(d);
}

/* Observation mode: the files are read and checked, so that their
 * errors show before the hook arrives, but nothing is applied and no
 * cgroup is watched: there is no policy map to apply to.
 */
static void check_files(struct daemon *d, bool starting)
{
	struct tsq_conf conf;
	char err[1024];
	int ret;

	tsq_conf_init(&conf, mount_point);
	ret = tsq_conf_load(&conf, conf_file, conf_dir, err, sizeof(err));
	if (ret < 0)
		log_info("%s; observation mode: nothing is applied anyway",
			 err[0] ? err : strerror(-ret));
	else
		log_info("%s %zu policies; observation mode: not applied",
			 starting ? "read" : "reread", conf.nr);
	tsq_conf_free(&conf);
	watch_conf(d);
	if (!starting)
		notify("READY=1\nSTATUS=observation mode (no tcp_tsq_ops hook)");
}

static int reload(struct daemon *d, bool starting)
{
	char err[1024];
	int ret;

	if (!starting)
		notify_reloading();
	if (observer) {
		check_files(d, starting);
		return 0;
	}
	ret = policies_load(&d->ps, conf_file, conf_dir, err, sizeof(err));
	if (ret < 0) {
		log_info("%s; %s", err[0] ? err : strerror(-ret),
			 !starting ? "keeping the policy in force" :
			 observer ? "observing without it" : "not starting");
		if (!starting)
			notify("READY=1\nSTATUS=policy files refused, see the log");
		return ret;
	}
	/* Removals and new applications: one bump for both. */
	if (!observer)
		changed(d, ret + policies_sync(&d->ps));
	watch_conf(d);
	if (observer)
		log_info("%s %zu policies, not applied: observation mode",
			 starting ? "read" : "reread", d->ps.nr);
	else
		log_info("%s %zu policies (%zu pending)", starting ? "loaded" : "reloaded",
			 d->ps.nr, d->ps.pending);
	if (!starting) {
		char st[128];

		status_line(d, st, sizeof(st));
		notify(st);
	}
	return 0;
}

/*
 * The bearer token scrapers must send (--metrics-token): the file's one
 * line, 16 to TOKEN_MAX printable ASCII characters. A Kubernetes Secret
 * mounts it behind a symbolic link, so links are followed. 0, or -errno
 * with why in err; the token in force is changed only on success.
 */
#define TOKEN_MAX	4096
static int load_token(struct http_server *http, char *err, size_t errlen)
{
	char buf[TOKEN_MAX + 2];
	struct stat st;
	ssize_t n = -1;
	size_t len = 0;
	bool ok;
	int fd, ret;

	fd = open(token_file, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd >= 0 && !fstat(fd, &st) && S_ISREG(st.st_mode))
		n = read(fd, buf, sizeof(buf) - 1);
	else if (fd >= 0)
		errno = EINVAL;
	ret = n < 0 ? -errno : 0;
	if (fd >= 0)
		close(fd);
	if (ret) {
		snprintf(err, errlen, "--metrics-token %s: %s", token_file,
			 ret == -EINVAL ? "not a regular file" : strerror(-ret));
		return ret;
	}
	len = n;
	while (len && (buf[len - 1] == '\n' || buf[len - 1] == '\r'))
		len--;
	ok = len >= 16 && len <= TOKEN_MAX;
	for (size_t i = 0; i < len && ok; i++)
		ok = buf[i] > ' ' && buf[i] <= '~';
	ret = ok ? http_set_token(http, buf, len) : -EINVAL;
	explicit_bzero(buf, sizeof(buf));
	if (ret == -EINVAL)
		snprintf(err, errlen, "--metrics-token %s: want one line of 16 to %d printable "
			 "ASCII characters", token_file, TOKEN_MAX);
	else if (ret)
		snprintf(err, errlen, "--metrics-token %s: %s", token_file, strerror(-ret));
	return ret;
}

static const char *serve(const char *path, FILE *body, void *ctx)
{
	struct daemon *d = ctx;
	struct tsq_report r;
	bool json = !strcmp(path, "/stats.json"), attached;
	const char *type;

	if (json)
		type = "application/json";
	else if (!strcmp(path, "/metrics"))
		type = "text/plain; version=0.0.4";
	else
		return NULL;
	if (observer)
		return tsq_obs_serve(observer, mount_point, body, json) ? NULL : type;
	/* Not attached: an empty report, "[]" in JSON. */
	attached = !tsq_report_collect(mount_point, &r);
	if (json && !print_start(body, true, false)) {
		tsq_report_print(&r);
		print_end();
	} else if (json) {
		type = NULL;
	} else if (attached) {
		metrics_write(body, &r, d->ps.nr, d->ps.pending);
	} else {
		fputs("# tsq is not attached\n", body);
	}
	tsq_report_free(&r);
	return type;
}

static void log_summary(struct daemon *d)
{
	unsigned long long thr = 0;
	long long socks = 0;
	struct tsq_report r;

	if (tsq_report_collect(mount_point, &r))
		return;
	for (size_t i = 0; i < r.nr; i++) {
		thr += r.v[i].sum.throttles;
		socks += r.v[i].sockets;
	}
	log_info("%zu policies (%zu pending), %llu throttles (+%llu), %lld sockets under a policy%s",
		 d->ps.nr, d->ps.pending, thr, thr - d->last_throttles, socks,
		 r.full.stats || r.full.socks ?
		 "; per-cgroup maps full (tsq_map_full_total)" : "");
	d->last_throttles = thr;
	tsq_report_free(&r);
}

static void drain(int fd)
{
	char buf[4096] __attribute__((aligned(8)));

	while (read(fd, buf, sizeof(buf)) > 0)
		;
}

/* Returns the exit code once a signal or a detach ends the loop. */
static int run(struct daemon *d)
{
	struct epoll_event evs[8];

	for (;;) {
		int n;

		watch_ask(d);
		n = epoll_wait(d->ep, evs, 8, -1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			die("epoll_wait: %s", strerror(errno));
		for (int i = 0; i < n; i++) {
			struct signalfd_siginfo si;

			switch (evs[i].data.u32) {
			case EV_SIGNAL:
				if (read(d->sig, &si, sizeof(si)) != sizeof(si))
					break;
				if (si.ssi_signo == SIGHUP) {
					char why[256];

					if (token_file && load_token(d->http, why, sizeof(why)))
						log_info("%s; keeping the token in force", why);
					d->reload = true;
					arm(d->soon, 1, 0);
					break;
				}
				log_info("signal %u: exiting, the policy stays in force", si.ssi_signo);
				notify("STOPPING=1");
				return 0;
			case EV_CONF:
				drain(d->conf_in);
				d->reload = true;
				settle(d, CONF_SETTLE_MS);
				break;
			case EV_CGROUP:
				drain(d->cg_in);
				d->sync = true;
				if (!d->reload)
					settle(d, CGROUP_SETTLE_MS);
				break;
			case EV_SOON:
				drain(d->soon);
				d->settle_end = 0;
				if (d->reload)
					reload(d, false);
				else if (d->sync && !observer)
					sync_cgroups(d);
				d->reload = d->sync = false;
				break;
			case EV_TICK:
				drain(d->tick);
				ask_input(d);	/* its timeout */
				if (!observer && policies_pending_units(&d->ps))
					sync_cgroups(d);
				if (log_interval && time(NULL) - d->last_log >= log_interval) {
					d->last_log = time(NULL);
					log_summary(d);
				}
				break;
			case EV_HTTP:
				http_process(d->http);
				break;
			case EV_LINK:
				log_info("the link was detached (tsqctl reset?): exiting");
				notify("STOPPING=1");
				return 0;
			case EV_ASK:
				ask_input(d);
				break;
			}
		}
	}
}

static void usage(FILE *f, int rc)
{
	fprintf(f,
		"Usage: tsqd [OPTIONS]\n"
		"Keep the TCP Small Queues policy of the policy files in force.\n"
		"  -c, --config FILE        main policy file (%s)\n"
		"  -d, --config-dir DIR     *.conf read after it (%s)\n"
		"  -l, --listen ADDR:PORT   statistics endpoint (%s), or none\n"
		"  -t, --metrics-token FILE answer only requests bearing the token in FILE;\n"
		"                           needed to listen on other than loopback\n"
		"  -i, --log-interval SECS  summary line every SECS (60), 0: never\n"
		"  -h, --help, -V, --version\n"
		"See tsqd(8) and tsq.conf(5).\n",
		TSQ_CONF_FILE, TSQ_CONF_DIR, TSQD_LISTEN_DEFAULT);
	exit(rc);
}

static void parse_args(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "config", required_argument, NULL, 'c' },
		{ "config-dir", required_argument, NULL, 'd' },
		{ "listen", required_argument, NULL, 'l' },
		{ "metrics-token", required_argument, NULL, 't' },
		{ "log-interval", required_argument, NULL, 'i' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{}
	};
	unsigned long v;
	char *end;
	int c;

	while ((c = getopt_long(argc, argv, "c:d:l:t:i:hV", opts, NULL)) != -1) {
		switch (c) {
		case 'c':
			conf_file = optarg;
			break;
		case 'd':
			conf_dir = optarg;
			break;
		case 'l':
			listen_spec = optarg;
			break;
		case 't':
			token_file = optarg;
			break;
		case 'i':
			errno = 0;
			v = strtoul(optarg, &end, 10);
			if (errno || *end || optarg[0] < '0' || optarg[0] > '9' || v > 86400) {
				fprintf(stderr, "tsqd: --log-interval %s: want 0 to 86400 seconds\n",
					optarg);
				exit(2);
			}
			log_interval = v;
			break;
		case 'h':
			usage(stdout, 0);
			break;
		case 'V':
			printf("tsqd %s\n", TSQ_VERSION);
			exit(0);
		default:
			usage(stderr, 2);
		}
	}
	if (optind < argc) {
		fprintf(stderr, "tsqd: unexpected argument %s\n", argv[optind]);
		exit(2);
	}
}

/* libbpf's warnings only: its info and debug lines are for -v tools. */
static int libbpf_warnings(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	return level == LIBBPF_WARN ? vfprintf(stderr, fmt, ap) : 0;
}

int main(int argc, char **argv)
{
	struct daemon d = {};
	char err[256];
	sigset_t mask;
	pid_t other = 0;
	int ret;

	setvbuf(stderr, NULL, _IOLBF, 0);
	parse_args(argc, argv);
	libbpf_set_print(libbpf_warnings);
	if (strcmp(listen_spec, "none")) {
		d.http = http_open(listen_spec, serve, &d, &ret, err, sizeof(err));
		if (!d.http && ret == -EINVAL) {
			fprintf(stderr, "tsqd: %s\n", err);
			return 2;
		}
		if (!d.http)
			die("%s", err);
		/* Cgroup paths name pods and users, and each scrape walks
		 * every socket: off loopback, only for those with the token.
		 */
		if (!token_file && !http_loopback(d.http)) {
			fprintf(stderr, "tsqd: --listen %s is not a loopback address: anyone who "
				"reaches it would read every cgroup's path; give --metrics-token "
				"FILE too (tsqd(8))\n", listen_spec);
			return 2;
		}
		if (token_file && load_token(d.http, err, sizeof(err)))
			die("%s", err);
	} else if (token_file) {
		fprintf(stderr, "tsqd: --metrics-token without an endpoint (--listen none)\n");
		return 2;
	}
	preflight();

	sigemptyset(&mask);
	sigaddset(&mask, SIGHUP);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGINT);
	sigprocmask(SIG_BLOCK, &mask, NULL);
	signal(SIGPIPE, SIG_IGN);
	d.sig = signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK);
	d.conf_in = inotify_init1(IN_CLOEXEC | IN_NONBLOCK);
	d.cg_in = inotify_init1(IN_CLOEXEC | IN_NONBLOCK);
	d.soon = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
	d.tick = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
	d.ep = epoll_create1(EPOLL_CLOEXEC);
	if (d.sig < 0 || d.conf_in < 0 || d.cg_in < 0 || d.soon < 0 || d.tick < 0 || d.ep < 0)
		die("setting up the event loop: %s", strerror(errno));

	d.link = attach_or_adopt();
	/* Held open until exit: the lock says tsqd runs (tsqctl status).
	 * Only now, so that a start that failed leaves no file behind; a
	 * second tsqd may have adopted the link by then, harmlessly.
	 */
	ret = tsq_pidfile_take(TSQ_PIDFILE, &other, err, sizeof(err));
	if (ret == -EBUSY)
		die("another tsqd is running (pid %d, %s)", (int)other, TSQ_PIDFILE);
	if (ret < 0)
		die("%s", err);
	features_off();
	if (observer) {
		reload(&d, true);
		goto loop;
	}
	d.policy = tsq_pinned(TSQ_PIN_POLICY);
	if (d.policy < 0)
		die("policy map: %s", strerror(-d.policy));
	policies_init(&d.ps, mount_point, d.policy, d.cg_in);
	if (reload(&d, true))
		return 1;
loop:
	add_fd(&d, d.sig, EV_SIGNAL, EPOLLIN);
	add_fd(&d, d.conf_in, EV_CONF, EPOLLIN);
	add_fd(&d, d.cg_in, EV_CGROUP, EPOLLIN);
	add_fd(&d, d.soon, EV_SOON, EPOLLIN);
	add_fd(&d, d.tick, EV_TICK, EPOLLIN);
	if (d.http)
		add_fd(&d, http_fd(d.http), EV_HTTP, EPOLLIN);
	/* A struct_ops link reports its detach as EPOLLHUP. */
	add_fd(&d, d.link, EV_LINK, EPOLLHUP);
	arm(d.tick, 1000, 1000);
	d.last_log = time(NULL);

	status_line(&d, err, sizeof(err));
	notify(err);
	if (d.http)
		log_info("statistics on http://%s/metrics and /stats.json%s", listen_spec,
			 token_file ? ", for bearers of the token" : "");
	return run(&d);
}

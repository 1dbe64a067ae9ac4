// SPDX-License-Identifier: GPL-2.0
/* tsq.conf parsing: buffers, files, the conf.d directory. */
#include <errno.h>
#include <stdlib.h>
#include <unistd.h>
#include <sys/stat.h>

#include "conffile.h"
#include "test.h"

#define MNT	"/sys/fs/cgroup"

static char err[1024];

static int parse(struct tsq_conf *conf, const char *name, const char *text)
{
	err[0] = '\0';
	return tsq_conf_parse_buf(conf, name, text, strlen(text), err,
				  sizeof(err));
}

static void test_good_file(void)
{
	const char *text =
		"# tsq.conf\n"
		"\n"
		"backup.service limit 64k tso 16k\n"
		"   \t/system.slice/rsync.scope\tlimit-us 2ms   # trailing\n"
		"/sys/fs/cgroup/bulk budget 1m\r\n"
		"\t# indented comment\n"
		"bulk.slice limit 8k\n"
		"/a#b limit 1\n"
		"  \n"
		"/ tso 64k";
	const struct tsq_conf_entry *e;
	struct tsq_conf conf;
	int ret;

	tsq_conf_init(&conf, MNT);
	ret = parse(&conf, "tsq.conf", text);
	if (!check(!ret && conf.nr == 6, "conf: good file parses",
		   "ret %d nr %zu: %s", ret, conf.nr, err))
		goto out;
	e = conf.entries;
	ASSERT(e[0].type == TSQ_TARGET_UNIT &&
	       !strcmp(e[0].target, "backup.service") &&
	       e[0].policy.flags == (TSQ_POLICY_LIMIT | TSQ_POLICY_TSO) &&
	       e[0].policy.limit == 65536 && e[0].policy.tso == 16384 &&
	       e[0].line == 3 && !strcmp(e[0].file, "tsq.conf"),
	       "conf: unit entry");
	ASSERT(e[1].type == TSQ_TARGET_CGROUP &&
	       !strcmp(e[1].target, "/system.slice/rsync.scope") &&
	       e[1].policy.flags == TSQ_POLICY_LIMIT_US &&
	       e[1].policy.limit_us == 2000 && e[1].line == 4,
	       "conf: leading blanks, tab separator, trailing comment");
	ASSERT(!strcmp(e[2].target, "/bulk") && e[2].policy.budget == 1 << 20 &&
	       e[2].line == 5, "conf: mount point stripped, CRLF");
	ASSERT(e[3].type == TSQ_TARGET_UNIT && e[3].line == 7,
	       "conf: slice entry after an indented comment");
	ASSERT(!strcmp(e[4].target, "/a#b"), "conf: # inside a word is kept");
	ASSERT(!strcmp(e[5].target, "/") && e[5].policy.tso == 65536 &&
	       e[5].line == 10, "conf: root cgroup, no final newline");
out:
	tsq_conf_free(&conf);
}

static const struct bad_case {
	const char *text;
	const char *msg;
} bad_cases[] = {
	{ "a.service limit 64k\nb.service foo 1\n",
	  "t.conf:2: What is \"foo\"?" },
	{ "a.service\n", "t.conf:1: \"a.service\" has no policy" },
	{ "  a.service   # nothing\n", "t.conf:1: \"a.service\" has no policy" },
	{ "a.service limit\n", "t.conf:1: \"limit\" needs a value" },
	{ "a.service limit 0\n", "t.conf:1: limit must be positive" },
	{ "a.service tso 0\n", "t.conf:1: tso must be positive" },
	{ "a.service budget 0\n", "t.conf:1: budget must be positive" },
	{ "a.service limit 1 limit 2\n",
	  "t.conf:1: duplicate \"limit\": \"2\" is the second value" },
	{ "a.service limit 11gb\n", "t.conf:1: limit \"11gb\" is too large" },
	{ "/a limit 1\n/b limit 1\n/a limit 2\n",
	  "t.conf:3: duplicate target \"/a\", first at t.conf:1" },
	{ "/a limit 1\n//a/ limit 2\n",
	  "t.conf:2: duplicate target \"/a\", first at t.conf:1" },
	{ "/a limit 1\n/sys/fs/cgroup/a limit 2\n",
	  "t.conf:2: duplicate target \"/a\", first at t.conf:1" },
	{ "x.service limit 1\n\n# c\nx.service tso 4k\n",
	  "t.conf:4: duplicate target \"x.service\", first at t.conf:1" },
	{ "bulk limit 1\n", "t.conf:1: \"bulk\" is neither a cgroup path" },
	{ "a.timer limit 1\n", "t.conf:1: \"a.timer\" is neither" },
	{ "system.slice/a.service limit 1\n",
	  "t.conf:1: cgroup path \"system.slice/a.service\" must start with \"/\"" },
	{ "/a/../b limit 1\n", "t.conf:1: cgroup path \"/a/../b\"" },
	{ "/sys/fs/cgroupv1/a limit 1\n",
	  "t.conf:1: \"/sys/fs/cgroupv1/a\" is not under the cgroup2 mount /sys/fs/cgroup" },
	{ "/a limit 1\x01\n", "t.conf:1: control character 0x01" },
	{ "# \x1b[31m\n", "t.conf:1: control character 0x1b" },
	{ "/a\vb limit 1\n", "t.conf:1: control character 0x0b" },
	{ "\n\n\n/a limit -1\n", "t.conf:4: invalid limit \"-1\"" },
	{ "/a limit-us 1000\n/b limit 1 rate delivered\n", "t.conf:2: \"rate\" needs limit-us" },
	{ "/a limit-us 1000 rate\n", "t.conf:1: \"rate\" needs a value" },
	{ "/a limit-us 1000 rate fast # x\n",
	  "t.conf:1: invalid rate \"fast\": expected pacing or delivered" },
	{ "/a limit-us 1000 rate pacing rate pacing\n",
	  "t.conf:1: duplicate \"rate\": \"pacing\" is the second value" },
};

static void test_bad_files(void)
{
	const struct bad_case *c;
	struct tsq_conf conf;
	int ret;

	for (c = bad_cases; c < bad_cases + ARRAY_SIZE(bad_cases); c++) {
		tsq_conf_init(&conf, MNT);
		ret = parse(&conf, "t.conf", c->text);
		check(ret == -EINVAL && conf.nr == 0 && conf.nr_files == 0 &&
		      !strncmp(err, c->msg, strlen(c->msg)) &&
		      !strchr(err, '\n'),
		      tname("conf \"%s\" refused", esc(c->text)),
		      "ret %d nr %zu, message \"%s\", want \"%s...\"", ret,
		      conf.nr, err, c->msg);
		tsq_conf_free(&conf);
	}
}

static void test_nul_and_lengths(void)
{
	static char big[3 * TSQ_CONF_MAX_LINE];
	struct tsq_conf conf;
	size_t n;
	int ret;

	tsq_conf_init(&conf, MNT);
	ret = tsq_conf_parse_buf(&conf, "t.conf", "/a limit 1\n/b\0 limit 1\n",
				 23, err, sizeof(err));
	ASSERT(ret == -EINVAL && !strcmp(err, "t.conf:2: NUL byte"),
	       "conf: NUL byte refused");

	/* A comment of exactly TSQ_CONF_MAX_LINE bytes, then one more. */
	n = TSQ_CONF_MAX_LINE;
	memset(big, ' ', n);
	big[0] = '#';
	strcpy(big + n, "\n/a limit 1\n");
	ret = parse(&conf, "t.conf", big);
	ASSERT(!ret && conf.nr == 1 && conf.entries[0].line == 2,
	       "conf: line of 4096 bytes");
	tsq_conf_free(&conf);
	memset(big, ' ', n + 1);
	big[0] = '#';
	strcpy(big + n + 1, "\n/a limit 1\n");
	ret = parse(&conf, "t.conf", big);
	ASSERT(ret == -EINVAL && conf.nr == 0 &&
	       !strcmp(err, "t.conf:1: line longer than 4096 bytes"),
	       "conf: line of 4097 bytes refused");
	/* ... also as the last line without a newline. */
	big[n + 1] = '\0';
	ret = parse(&conf, "t.conf", big);
	ASSERT(ret == -EINVAL, "conf: last line of 4097 bytes refused");
	ret = parse(&conf, "t.conf", "");
	ASSERT(!ret && conf.nr == 0, "conf: empty buffer");
	tsq_conf_free(&conf);
}

static void test_max_entries(void)
{
	size_t len = (TSQ_CONF_MAX_ENTRIES + 1) * 20, off = 0;
	struct tsq_conf conf;
	char want[256];
	char *buf;
	int ret, i;

	buf = malloc(len);
	if (!check(buf, "conf: entry limit", "malloc"))
		return;
	for (i = 0; i < TSQ_CONF_MAX_ENTRIES; i++)
		off += sprintf(buf + off, "/c%d limit 1\n", i);
	tsq_conf_init(&conf, MNT);
	ret = tsq_conf_parse_buf(&conf, "t.conf", buf, off, err, sizeof(err));
	check(!ret && conf.nr == TSQ_CONF_MAX_ENTRIES && TSQ_CONF_MAX_ENTRIES == TSQ_MAX_CGROUPS,
	      tname("conf: %u entries, as many as the maps hold", TSQ_MAX_CGROUPS),
	      "ret %d nr %zu: %s", ret, conf.nr, err);
	tsq_conf_free(&conf);

	off += sprintf(buf + off, "/c%d limit 1\n", i);
	ret = tsq_conf_parse_buf(&conf, "t.conf", buf, off, err, sizeof(err));
	snprintf(want, sizeof(want), "t.conf:%u: more than %u entries, the most tsq's maps hold",
		 TSQ_MAX_CGROUPS + 1, TSQ_MAX_CGROUPS);
	check(ret == -EINVAL && conf.nr == 0 && !strcmp(err, want),
	      "conf: one entry more than the maps hold refused", "\"%s\"", err);
	tsq_conf_free(&conf);

	/* The limit counts all files together. */
	ret = parse(&conf, "a.conf", "/x limit 1\n");
	ret = ret ?: tsq_conf_parse_buf(&conf, "b.conf", buf, off - 14, err,
					sizeof(err));
	snprintf(want, sizeof(want), "b.conf:%u: more than %u entries",
		 TSQ_MAX_CGROUPS, TSQ_MAX_CGROUPS);
	ASSERT(ret == -EINVAL && conf.nr == 1 && !strncmp(err, want, strlen(want)),
	       "conf: entry limit across files");
	tsq_conf_free(&conf);
	free(buf);
}

/* A failed buffer leaves the set as it was, duplicate lookup included. */
static void test_all_or_nothing(void)
{
	struct tsq_conf conf;
	int ret;

	tsq_conf_init(&conf, MNT);
	ret = parse(&conf, "a.conf", "/a limit 1\nb.service tso 4k\n");
	ASSERT(!ret && conf.nr == 2, "conf: first buffer");
	ret = parse(&conf, "b.conf", "/c limit 1\n/d limit 1\n/a limit 2\n");
	ASSERT(ret == -EINVAL && conf.nr == 2 && conf.nr_files == 1 &&
	       !strcmp(err, "b.conf:3: duplicate target \"/a\", first at a.conf:1"),
	       "conf: duplicate across files names both, set unchanged");
	ret = parse(&conf, "c.conf", "/c limit 3\n");
	ASSERT(!ret && conf.nr == 3 && !strcmp(conf.entries[2].file, "c.conf"),
	       "conf: entries of a refused buffer are gone");
	ret = parse(&conf, "d.conf", "  b.service limit 1\n");
	ASSERT(ret == -EINVAL &&
	       !strcmp(err, "d.conf:1: duplicate target \"b.service\", first at a.conf:2"),
	       "conf: duplicate unit after a rollback");
	ret = parse(&conf, "e.conf", "/b.service limit 1\n");
	ASSERT(!ret, "conf: cgroup /b.service is not unit b.service");
	ret = parse(&conf, "f.conf", "x.slice limit 1\n/x.slice limit 2\n");
	ASSERT(ret == -EINVAL && !strcmp(err, "f.conf:2: duplicate target: \"/x.slice\" "
					 "and \"x.slice\" at f.conf:1 name the same cgroup"),
	       "conf: x.slice and /x.slice are one cgroup");
	ret = parse(&conf, "g.conf", "/a.slice/a-b.slice limit 1\n a-b.slice limit 2\n");
	ASSERT(ret == -EINVAL && strstr(err, "g.conf:2: duplicate target"),
	       "conf: a-b.slice and /a.slice/a-b.slice are one cgroup");
	ret = parse(&conf, "h.conf", "-.slice limit 1\n/ limit 2\n");
	ASSERT(ret == -EINVAL && strstr(err, "h.conf:2: duplicate target"),
	       "conf: -.slice and / are one cgroup");
	tsq_conf_free(&conf);
	ASSERT(conf.nr == 0 && !conf.entries && conf.mount, "conf: free resets");
}

static char tmpdir[] = "/tmp/tsq-conf-XXXXXX";

static void put(const char *rel, const char *text)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", tmpdir, rel);
	f = fopen(path, "w");
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

/* Owner, mode, symbolic links, FIFOs: what a local user could plant. */
static void test_files_trusted(const char *file, const char *dir)
{
	char path[128], msg[1024];
	struct tsq_conf conf;
	int ret;

	tsq_conf_init(&conf, MNT);
	put("tsq.conf", "/main limit 1\n");
	ret = tsq_conf_load(&conf, file, dir, err, sizeof(err));
	if (!check(!ret, "trust: the set loads before any change", "%d %s", ret, err))
		return;
	tsq_conf_free(&conf);

	chmod(file, 0666);
	ret = tsq_conf_load(&conf, file, dir, err, sizeof(err));
	snprintf(msg, sizeof(msg), "%s: writable by group or others (mode 0666)", file);
	check(ret == -EPERM && conf.nr == 0 && !strncmp(err, msg, strlen(msg)),
	      "trust: world-writable main file refused", "ret %d \"%s\"", ret, err);
	chmod(file, 0620);
	ret = tsq_conf_load(&conf, file, dir, err, sizeof(err));
	ASSERT(ret == -EPERM, "trust: group-writable main file refused");
	chmod(file, 0644);

	if (!geteuid()) {
		ret = chown(file, 65534, 65534);
		ret = ret ? -errno : tsq_conf_load(&conf, file, dir, err, sizeof(err));
		snprintf(msg, sizeof(msg), "%s: owned by uid 65534, not root", file);
		check(ret == -EPERM && !strcmp(err, msg),
		      "trust: main file owned by nobody refused", "ret %d \"%s\"", ret, err);
		ret = chown(file, 0, 0);
		snprintf(path, sizeof(path), "%s/20-b.conf", dir);
		ret = chown(path, 65534, 65534);
		ret = ret ? -errno : tsq_conf_load(&conf, file, dir, err, sizeof(err));
		ASSERT(ret == -EPERM && strstr(err, "20-b.conf: owned by uid 65534"),
		       "trust: drop-in owned by nobody refused");
		ret = chown(path, 0, 0);
	} else {
		printf("# SKIP: ownership checks: need root\n");
	}

	chmod(dir, 0777);
	ret = tsq_conf_load(&conf, file, dir, err, sizeof(err));
	snprintf(msg, sizeof(msg), "%s: writable by group or others (mode 0777)", dir);
	check(ret == -EPERM && !strncmp(err, msg, strlen(msg)),
	      "trust: world-writable drop-in directory refused", "ret %d \"%s\"", ret, err);
	chmod(dir, 0755);

	/* A FIFO would block a plain open() until a writer came. */
	snprintf(path, sizeof(path), "%s/50-fifo.conf", dir);
	mkfifo(path, 0644);
	ret = tsq_conf_load(&conf, file, dir, err, sizeof(err));
	ASSERT(ret == -EINVAL && strstr(err, "50-fifo.conf: not a regular file"),
	       "trust: a FIFO named *.conf is refused without blocking");
	unlink(path);

	snprintf(path, sizeof(path), "%s/60-link.conf", dir);
	ret = symlink(file, path);
	ret = ret ? -errno : tsq_conf_load(&conf, file, dir, err, sizeof(err));
	ASSERT(ret == -ELOOP && strstr(err, "60-link.conf: a symbolic link, not followed"),
	       "trust: a symbolic link is not followed");
	unlink(path);

	ret = tsq_conf_load(&conf, file, dir, err, sizeof(err));
	ASSERT(!ret && conf.nr == 5, "trust: the set loads again once fixed");
	tsq_conf_free(&conf);
}

static void test_load(void)
{
	char file[64], dir[64], msg[1024];
	struct tsq_conf conf;
	int ret;

	if (!check(mkdtemp(tmpdir), "conf: mkdtemp", "%s", strerror(errno)))
		return;
	snprintf(file, sizeof(file), "%s/tsq.conf", tmpdir);
	snprintf(dir, sizeof(dir), "%s/tsq.conf.d", tmpdir);
	tsq_conf_init(&conf, MNT);

	ret = tsq_conf_load(&conf, file, dir, err, sizeof(err));
	snprintf(msg, sizeof(msg), "%s: No such file or directory", file);
	check(ret == -ENOENT && conf.nr == 0 && !strcmp(err, msg),
	      "load: a missing main file is an error", "ret %d \"%s\"", ret, err);
	ret = tsq_conf_load(&conf, NULL, dir, err, sizeof(err));
	ASSERT(!ret && conf.nr == 0, "load: no main file given, no dir: empty set");

	put("tsq.conf", "/main limit 1\n");
	mkdir(dir, 0755);
	put("tsq.conf.d/20-b.conf", "/b limit 1\n");
	put("tsq.conf.d/10-a.conf", "/a limit 1\n");
	put("tsq.conf.d/B.conf", "/upper limit 1\n");
	put("tsq.conf.d/README", "not a conf file\n");
	put("tsq.conf.d/.hidden.conf", "garbage\n");
	put("tsq.conf.d/x.conf~", "garbage\n");
	put("tsq.conf.d/.conf", "garbage\n");
	ret = tsq_conf_load(&conf, file, dir, err, sizeof(err));
	ASSERT(!ret && conf.nr == 4 && !strcmp(conf.entries[0].target, "/main") &&
	       !strcmp(conf.entries[1].target, "/a") &&
	       !strcmp(conf.entries[2].target, "/b") &&
	       !strcmp(conf.entries[3].target, "/upper"),
	       "load: main file, then *.conf in byte order");
	ASSERT(conf.nr == 4 && strstr(conf.entries[2].file, "/tsq.conf.d/20-b.conf"),
	       "load: entries know their file");
	tsq_conf_free(&conf);

	put("tsq.conf.d/30-c.conf", "/c limit 1\n/a tso 4k\n");
	ret = tsq_conf_load(&conf, file, dir, err, sizeof(err));
	snprintf(msg, sizeof(msg),
		 "%s/30-c.conf:2: duplicate target \"/a\", first at %s/10-a.conf:1",
		 dir, dir);
	check(ret == -EINVAL && conf.nr == 0 && conf.nr_files == 0 &&
	      !strcmp(err, msg), "load: a bad drop-in rejects the whole set",
	      "ret %d nr %zu \"%s\"", ret, conf.nr, err);

	/* The set already in conf stays when a load fails. */
	parse(&conf, "kept.conf", "/kept limit 1\n");
	ret = tsq_conf_load(&conf, file, dir, err, sizeof(err));
	ASSERT(ret == -EINVAL && conf.nr == 1 && conf.nr_files == 1,
	       "load: failure keeps what conf held before");
	tsq_conf_free(&conf);
	put("tsq.conf.d/30-c.conf", "/c limit 1\n");

	ret = tsq_conf_load(&conf, NULL, dir, err, sizeof(err));
	ASSERT(!ret && conf.nr == 4, "load: no main file given");
	tsq_conf_free(&conf);

	/* rate in a drop-in: the main file's words, its errors. */
	put("tsq.conf.d/50-rate.conf", "/r limit-us 1ms rate delivered # min(pacing, delivery)\n"
	    "/p rate pacing limit-us 2000\n");
	ret = tsq_conf_load(&conf, file, dir, err, sizeof(err));
	ASSERT(!ret && conf.nr == 7 && !strcmp(conf.entries[4].target, "/r") &&
	       conf.entries[4].policy.flags == (TSQ_POLICY_LIMIT_US | TSQ_POLICY_RATE_DELIVERED) &&
	       conf.entries[4].policy.limit_us == 1000 && !strcmp(conf.entries[5].target, "/p") &&
	       conf.entries[5].policy.flags == TSQ_POLICY_LIMIT_US &&
	       conf.entries[5].policy.limit_us == 2000,
	       "load: a drop-in's rate delivered is a flag, rate pacing none");
	tsq_conf_free(&conf);
	put("tsq.conf.d/50-rate.conf", "/r limit 8k rate delivered\n");
	ret = tsq_conf_load(&conf, file, dir, err, sizeof(err));
	snprintf(msg, sizeof(msg), "%s/50-rate.conf:1: \"rate\" needs limit-us", dir);
	check(ret == -EINVAL && conf.nr == 0 && !strcmp(err, msg),
	      "load: a drop-in's rate without limit-us rejects the whole set",
	      "ret %d nr %zu \"%s\"", ret, conf.nr, err);
	tsq_conf_free(&conf);
	snprintf(msg, sizeof(msg), "%s/50-rate.conf", dir);
	unlink(msg);

	put("tsq.conf", "/b limit 1\n");
	ret = tsq_conf_load(&conf, file, dir, err, sizeof(err));
	snprintf(msg, sizeof(msg),
		 "%s/20-b.conf:1: duplicate target \"/b\", first at %s:1",
		 dir, file);
	ASSERT(ret == -EINVAL && !strcmp(err, msg),
	       "load: duplicate between main file and drop-in");
	tsq_conf_free(&conf);
	put("tsq.conf", "/main limit 1\n");

	snprintf(msg, sizeof(msg), "%s/40-d.conf", dir);
	mkdir(msg, 0755);
	ret = tsq_conf_load(&conf, file, dir, err, sizeof(err));
	ASSERT(ret == -EINVAL && strstr(err, "40-d.conf: not a regular file") &&
	       conf.nr == 0, "load: a directory named *.conf is an error");
	rmdir(msg);

	ret = tsq_conf_load(&conf, dir, NULL, err, sizeof(err));
	ASSERT(ret == -EINVAL && strstr(err, "not a regular file"),
	       "load: main file that is a directory");
	ret = tsq_conf_load(&conf, NULL, file, err, sizeof(err));
	ASSERT(ret == -ENOTDIR, "load: dir that is a file");
	ret = tsq_conf_parse_file(&conf, "/nonexistent/tsq.conf", err,
				  sizeof(err));
	ASSERT(ret == -ENOENT &&
	       !strcmp(err, "/nonexistent/tsq.conf: No such file or directory"),
	       "parse_file: missing file is -ENOENT with a message");
	tsq_conf_free(&conf);

	test_files_trusted(file, dir);

	snprintf(msg, sizeof(msg), "rm -rf '%s'", tmpdir);
	ASSERT(!system(msg), "conf: clean up");
}

int main(void)
{
	test_good_file();
	test_bad_files();
	test_nul_and_lengths();
	test_max_entries();
	test_all_or_nothing();
	test_load();
	return test_done();
}

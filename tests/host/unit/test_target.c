// SPDX-License-Identifier: GPL-2.0
/* TARGET words, unit names and slice paths: no file system needed. */
#include <errno.h>

#include "target.h"
#include "test.h"
#include "unit.h"

#define MNT	"/sys/fs/cgroup/unified"

static const struct target_case {
	const char *mount;
	const char *word;
	int ret;
	enum tsq_target_type type;
	const char *name;	/* canonical name, or the start of the error */
} target_cases[] = {
	{ MNT, "/", 0, TSQ_TARGET_CGROUP, "/" },
	{ MNT, "//", 0, TSQ_TARGET_CGROUP, "/" },
	{ MNT, "/bulk", 0, TSQ_TARGET_CGROUP, "/bulk" },
	{ MNT, "/bulk/", 0, TSQ_TARGET_CGROUP, "/bulk" },
	{ MNT, "//a///b//", 0, TSQ_TARGET_CGROUP, "/a/b" },
	{ MNT, "/system.slice/backup.service", 0, TSQ_TARGET_CGROUP,
	  "/system.slice/backup.service" },
	{ MNT, "/a..b/...", 0, TSQ_TARGET_CGROUP, "/a..b/..." },
	{ MNT, "/.hidden", 0, TSQ_TARGET_CGROUP, "/.hidden" },
	{ MNT, MNT "/bulk", 0, TSQ_TARGET_CGROUP, "/bulk" },
	{ MNT, MNT "//bulk/", 0, TSQ_TARGET_CGROUP, "/bulk" },
	{ MNT, MNT, 0, TSQ_TARGET_CGROUP, "/" },
	{ MNT, MNT "/", 0, TSQ_TARGET_CGROUP, "/" },
	{ MNT "/", MNT "/bulk", 0, TSQ_TARGET_CGROUP, "/bulk" },
	{ MNT, "/sys//fs/cgroup/unified/bulk", 0, TSQ_TARGET_CGROUP, "/bulk" },
	{ "/sys/fs/cgroup", "/sys/fs/cgroup/bulk", 0, TSQ_TARGET_CGROUP,
	  "/bulk" },
	{ "/sys/fs/cgroup", "/sys/fs/cgroupx/bulk", -EINVAL, 0,
	  "\"/sys/fs/cgroupx/bulk\" is not under the cgroup2 mount /sys/fs/cgroup" },
	{ MNT, "/sys/fs/cgroup/bulk", -EINVAL, 0,
	  "\"/sys/fs/cgroup/bulk\" is not under the cgroup2 mount " MNT },
	{ MNT, "/sys", -EINVAL, 0, "\"/sys\" is not under" },
	{ MNT, "/system.slice", 0, TSQ_TARGET_CGROUP, "/system.slice" },
	{ "/", "/sys/fs/cgroup/bulk", 0, TSQ_TARGET_CGROUP,
	  "/sys/fs/cgroup/bulk" },
	{ MNT, "/a/../b", -EINVAL, 0,
	  "cgroup path \"/a/../b\" \".\" and \"..\" are not allowed" },
	{ MNT, "/..", -EINVAL, 0, "cgroup path \"/..\"" },
	{ MNT, "/a/.", -EINVAL, 0, "cgroup path \"/a/.\"" },
	{ MNT, MNT "/../x", -EINVAL, 0, "cgroup path" },
	{ MNT, "system.slice/x.service", -EINVAL, 0,
	  "cgroup path \"system.slice/x.service\" must start with \"/\"" },
	{ MNT, "a\tb.service", -EINVAL, 0,
	  "target \"a\\x09b.service\" has a control character" },
	{ MNT, "/a\x7f", -EINVAL, 0, "target \"/a\\x7f\" has a control character" },
	{ MNT, "/a\nb", -EINVAL, 0, "target \"/a\\x0ab\" has a control character" },
	{ MNT, MNT "/sys/x", -EINVAL, 0,
	  "cgroup path \"" MNT "/sys/x\": a top-level cgroup named \"sys\" is not supported" },
	{ MNT, MNT "//sys", -EINVAL, 0, "cgroup path" },
	{ MNT, MNT "/system/x", 0, TSQ_TARGET_CGROUP, "/system/x" },
	{ "/", "/sys", 0, TSQ_TARGET_CGROUP, "/sys" },
	{ "", "/bulk", 0, TSQ_TARGET_CGROUP, "/bulk" },
	{ MNT, "backup.service", 0, TSQ_TARGET_UNIT, "backup.service" },
	{ MNT, "bulk.slice", 0, TSQ_TARGET_UNIT, "bulk.slice" },
	{ MNT, "session-3.scope", 0, TSQ_TARGET_UNIT, "session-3.scope" },
	{ MNT, "getty@tty1.service", 0, TSQ_TARGET_UNIT,
	  "getty@tty1.service" },
	{ MNT, "bulk", -EINVAL, 0,
	  "\"bulk\" is neither a cgroup path nor a unit name: it does not end in .service, .slice or .scope" },
	{ MNT, "a.socket", -EINVAL, 0, "\"a.socket\" is neither" },
	{ MNT, "getty@.service", -EINVAL, 0,
	  "\"getty@.service\" is neither a cgroup path nor a unit name: it is a template" },
	{ MNT, "", -EINVAL, 0, "\"\" is neither a cgroup path nor a unit name: it is empty" },
};

static const struct unit_case {
	const char *name;
	bool valid;
} unit_cases[] = {
	{ "a.service", true },
	{ "a.slice", true },
	{ "a.scope", true },
	{ "-.slice", true },
	{ "foo-bar.slice", true },
	{ "user-1000.slice", true },
	{ "user@1000.service", true },
	{ "a@b.scope", true },
	{ "sys-fs:x_y.service", true },
	{ "dev-disk-by\\x2duuid.service", true },
	{ "a.b.service", true },
	{ "", false },
	{ "a", false },
	{ "service", false },
	{ ".service", false },
	{ "a.timer", false },
	{ "a.socket", false },
	{ "a.mount", false },
	{ "a.target", false },
	{ "a.Service", false },
	{ "a.service.bak", false },
	{ "@a.service", false },
	{ "a@.service", false },
	{ "a@b.slice", false },
	{ "-a.slice", false },
	{ "a-.slice", false },
	{ "a--b.slice", false },
	{ "--.slice", false },
	{ "a b.service", false },
	{ "a/b.service", false },
	{ "a*.service", false },
	{ "\xc3\xa4.service", false },
};

static const struct slice_case {
	const char *slice;
	int ret;
	const char *path;
} slice_cases[] = {
	{ "a.slice", 0, "/a.slice" },
	{ "a-b.slice", 0, "/a.slice/a-b.slice" },
	{ "a-b-c.slice", 0, "/a.slice/a-b.slice/a-b-c.slice" },
	{ "user-1000.slice", 0, "/user.slice/user-1000.slice" },
	{ "a.b-c.slice", 0, "/a.b.slice/a.b-c.slice" },
	{ "-.slice", 0, "/" },
	{ "a.service", -EINVAL, NULL },
	{ "a--b.slice", -EINVAL, NULL },
};

static void test_targets(void)
{
	const struct target_case *c;
	struct tsq_target t;
	char err[256];
	int ret;

	for (c = target_cases; c < target_cases + ARRAY_SIZE(target_cases); c++) {
		err[0] = '\0';
		ret = tsq_target_parse(c->mount, c->word, &t, err, sizeof(err));
		if (!c->ret)
			check(!ret && t.type == c->type && !strcmp(t.name, c->name),
			      tname("target \"%s\" in %s", esc(c->word), c->mount),
			      "ret %d \"%s\", type %d \"%s\"", ret, err, t.type,
			      ret ? "" : t.name);
		else
			check(ret == c->ret &&
			      !strncmp(err, c->name, strlen(c->name)),
			      tname("target \"%s\" in %s refused", esc(c->word),
				    c->mount),
			      "ret %d, message \"%s\", want \"%s...\"", ret, err,
			      c->name);
	}
}

static void test_long_targets(void)
{
	char word[TSQ_TARGET_MAX + 16], err[1024];
	struct tsq_target t;
	size_t i;

	/* 4095 bytes of path: the most that fits with the NUL. */
	for (i = 0; i < TSQ_TARGET_MAX - 1; i++)
		word[i] = i % 200 ? 'a' : '/';
	word[i] = '\0';
	ASSERT(!tsq_target_parse(MNT, word, &t, err, sizeof(err)) &&
	       !strcmp(t.name, word), "target of 4095 bytes");
	strcpy(word + i, "a");
	ASSERT(tsq_target_parse(MNT, word, &t, err, sizeof(err)) == -EINVAL,
	       "target of 4096 bytes refused");

	memset(word, 'a', 257);
	word[0] = '/';
	word[257] = '\0';
	ASSERT(tsq_target_parse(MNT, word, &t, err, sizeof(err)) == -EINVAL &&
	       strstr(err, "longer than 255"),
	       "component of 256 bytes refused");

	memset(word, 'a', 251);
	strcpy(word + 251, ".service");
	ASSERT(tsq_target_parse(MNT, word, &t, err, sizeof(err)) == -EINVAL,
	       "unit name of 259 bytes refused");
	strcpy(word + 247, ".service");
	ASSERT(!tsq_target_parse(MNT, word, &t, err, sizeof(err)) &&
	       t.type == TSQ_TARGET_UNIT, "unit name of 255 bytes");
}

static void test_unit_names(void)
{
	const struct unit_case *c;
	const char *why;
	bool ok;

	for (c = unit_cases; c < unit_cases + ARRAY_SIZE(unit_cases); c++) {
		why = NULL;
		ok = tsq_unit_name_valid(c->name, &why);
		check(ok == c->valid && (ok || why),
		      tname("unit \"%s\" %s", esc(c->name),
			    c->valid ? "valid" : "invalid"),
		      "got %s (%s)", ok ? "valid" : "invalid", why ? why : "");
	}
}

static void test_slice_paths(void)
{
	const struct slice_case *c;
	char path[64];
	int ret;

	for (c = slice_cases; c < slice_cases + ARRAY_SIZE(slice_cases); c++) {
		ret = tsq_unit_slice_path(c->slice, path, sizeof(path));
		check(ret == c->ret && (ret || !strcmp(path, c->path)),
		      tname("slice path of %s", c->slice),
		      "ret %d \"%s\"", ret, ret ? "" : path);
	}
	ASSERT(tsq_unit_slice_path("a-b.slice", path, 18) == -ENAMETOOLONG,
	       "slice path: -ENAMETOOLONG one byte short");
	ASSERT(!tsq_unit_slice_path("a-b.slice", path, 19),
	       "slice path: exact fit");
	ASSERT(tsq_unit_slice_path("-.slice", path, 1) == -ENAMETOOLONG,
	       "slice path of -.slice: -ENAMETOOLONG");
}

/* Where tsqd watches for a target that has no cgroup yet. */
static void test_expected(void)
{
	static const struct {
		enum tsq_target_type type;
		const char *name, *want;
	} cases[] = {
		{ TSQ_TARGET_CGROUP, "/a/b", "/a/b" },
		{ TSQ_TARGET_UNIT, "backup.service", "/system.slice/backup.service" },
		{ TSQ_TARGET_UNIT, "x.scope", "/system.slice/x.scope" },
		{ TSQ_TARGET_UNIT, "a-b.slice", "/a.slice/a-b.slice" },
		{ TSQ_TARGET_UNIT, "-.slice", "/" },
	};
	char path[64];

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		int ret = tsq_target_expected(cases[i].type, cases[i].name, path,
					      sizeof(path));

		check(!ret && !strcmp(path, cases[i].want),
		      tname("expected cgroup of %s", cases[i].name),
		      "ret %d, got \"%s\", want \"%s\"", ret, ret ? "" : path,
		      cases[i].want);
	}
	ASSERT(tsq_target_expected(TSQ_TARGET_UNIT, "backup.service", path, 10) ==
	       -ENAMETOOLONG, "expected cgroup: too long for the buffer");
}

int main(void)
{
	test_expected();
	test_targets();
	test_long_targets();
	test_unit_names();
	test_slice_paths();
	return test_done();
}

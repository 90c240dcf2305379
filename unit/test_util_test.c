// SPDX-License-Identifier: GPL-2.0-only
/*
 * Host-only tests of the base library: sizes, the backing-source table,
 * time arithmetic, and what TEST_ASSERT, usage errors and skips print and
 * exit with (checked in child processes).
 */
#include "test_child.h"
#include "test_util.h"

struct child_result {
	int status;		/* exit status, or 128 + signal */
	char out[8192];
	char err[8192];
};

/* Run @fn(@arg) in a child; collect its stdout, stderr and exit status. */
static void run(void (*fn)(const void *), const void *arg, struct child_result *r)
{
	r->status = run_child(fn, arg, r->out, sizeof(r->out), r->err, sizeof(r->err));
}

#define EXPECT_CONTAINS(buf, s) \
	TEST_ASSERT(strstr(buf, s), "expected \"%s\" in:\n%s", s, buf)

/* @fn(@arg) in a child must exit @status with @text in its stdout or stderr (@in_err). */
static void expect_child(void (*fn)(const void *), const void *arg, int status, bool in_err,
			 const char *text)
{
	struct child_result r;

	run(fn, arg, &r);
	TEST_ASSERT(r.status == status, "%s: exit status %d, not %d", arg ? (const char *)arg : "-",
		    r.status, status);
	EXPECT_CONTAINS(in_err ? r.err : r.out, text);
}

static void test_sizes(void)
{
	static const struct { const char *in; uint64_t size; } good[] = {
		{ "4096", 4096 }, { "0x1000", 4096 }, { "1", 1 },
		{ "64K", 64 * KB }, { "64k", 64 * KB }, { "64M", 64 * MB },
		{ "3g", 3 * GB }, { "2T", 2ULL << 40 }, { "0x10M", 16 * MB },
	};
	static const char * const bad[] = {
		"", "abc", "12X", "64MB", "-1", "+5", " 5", "0", "0x0M", "1.5G",
		"99999999999999999999", "16777216T",
	};
	const char *why;
	uint64_t size;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(good); i++) {
		TEST_ASSERT(!try_parse_size(good[i].in, &size, &why),
			    "'%s' refused: %s", good[i].in, why);
		TEST_ASSERT(size == good[i].size, "'%s' gave %" PRIu64 ", expected %" PRIu64,
			    good[i].in, size, good[i].size);
	}
	for (i = 0; i < ARRAY_SIZE(bad); i++)
		TEST_ASSERT(try_parse_size(bad[i], &size, &why) && why,
			    "'%s' accepted as %" PRIu64, bad[i], size);
}

static void child_parse_size(const void *arg)
{
	parse_size(arg);
}

static void test_parse_size_exit(void)
{
	struct child_result r;

	run(child_parse_size, "12Q", &r);
	TEST_ASSERT(r.status == KSFT_FAIL, "exit status %d", r.status);
	EXPECT_CONTAINS(r.err, "Invalid size '12Q'");
}

static void test_backing_names(void)
{
	unsigned int i;

	for (i = 0; i < NUM_SRC_TYPES; i++) {
		const char *name = vm_mem_backing_src_alias(i)->name;

		TEST_ASSERT(try_parse_backing_src_type(name) == (int)i,
			    "'%s' does not parse back to %u", name, i);
	}
	TEST_ASSERT(try_parse_backing_src_type("anonymous_hugetlb_3mb") < 0, "bogus name");
	TEST_ASSERT(get_backing_src_pagesz(VM_MEM_SRC_ANONYMOUS) == (size_t)getpagesize(),
		    "anonymous page size");
	TEST_ASSERT(get_backing_src_pagesz(VM_MEM_SRC_ANONYMOUS_HUGETLB_2MB) == 2 * MB,
		    "2mb page size");
	TEST_ASSERT(get_backing_src_pagesz(VM_MEM_SRC_ANONYMOUS_HUGETLB_1GB) == GB,
		    "1gb page size");
	TEST_ASSERT(backing_src_is_shared(VM_MEM_SRC_SHMEM) &&
		    backing_src_is_shared(VM_MEM_SRC_SHARED_HUGETLB) &&
		    !backing_src_is_shared(VM_MEM_SRC_ANONYMOUS_THP), "shared kinds");
	TEST_ASSERT(backing_src_is_hugetlb(VM_MEM_SRC_SHARED_HUGETLB) &&
		    backing_src_is_hugetlb(VM_MEM_SRC_ANONYMOUS_HUGETLB_16KB) &&
		    !backing_src_is_hugetlb(VM_MEM_SRC_SHMEM), "hugetlb kinds");
}

static void child_parse_backing(const void *arg)
{
	parse_backing_src_type(arg);
}

static void test_backing_bad_name(void)
{
	struct child_result r;

	run(child_parse_backing, "anonymus", &r);
	TEST_ASSERT(r.status == KSFT_FAIL, "exit status %d", r.status);
	EXPECT_CONTAINS(r.err, "'anonymus'");
	EXPECT_CONTAINS(r.err, "anonymous_thp");
	EXPECT_CONTAINS(r.err, "shared_hugetlb");
}

static noinline void failing_function(const void *arg)
{
	errno = EINVAL;
	TEST_ASSERT(arg == NULL, "the message %d", 42);
}

static const int failing_line = __LINE__ - 3;

static void test_failure_block(void)
{
	struct child_result r;
	char where[64];

	run(failing_function, "x", &r);
	TEST_ASSERT(r.status == KSFT_FAIL, "exit status %d", r.status);
	snprintf(where, sizeof(where), "test_util_test.c:%d: arg == NULL", failing_line);
	EXPECT_CONTAINS(r.err, "==== Test Assertion Failure ====");
	EXPECT_CONTAINS(r.err, where);
	EXPECT_CONTAINS(r.err, "errno=22 - Invalid argument");
	EXPECT_CONTAINS(r.err, "pid=");
	EXPECT_CONTAINS(r.err, "Backtrace:");
	EXPECT_CONTAINS(r.err, "failing_function+0x");
	EXPECT_CONTAINS(r.err, "run_child+0x");
	EXPECT_CONTAINS(r.err, "the message 42");
}

static void child_require(const void *arg)
{
	TEST_REQUIRE(arg == NULL);
}

static void test_skip_exit(void)
{
	struct child_result r;

	run(child_require, "x", &r);
	TEST_ASSERT(r.status == KSFT_SKIP, "exit status %d", r.status);
	EXPECT_CONTAINS(r.out, "1..0 # SKIP");
	EXPECT_CONTAINS(r.out, "arg == NULL");
}

static void child_no_options(const void *arg)
{
	char prog[] = "prog", *argv[3];

	argv[0] = prog;
	argv[1] = (char *)arg;
	argv[2] = NULL;
	parse_no_options(2, argv, "What prog does.");
}

static void test_no_options(void)
{
	expect_child(child_no_options, "-x", KSFT_FAIL, true,
		     "prog: takes no options or arguments ('-x')");
	expect_child(child_no_options, "-h", KSFT_PASS, false, "What prog does.");
}

static void getopt_help(const char *name, const void *arg)
{
	printf("usage: %s %s\n", name, (const char *)arg);
}

/* "prog -a -b 5 @arg": what test_getopt() returned, one line each. */
static void child_getopt(const void *arg)
{
	char prog[] = "prog", a[] = "-a", b[] = "-b", five[] = "5", *argv[6];
	int opt;

	argv[0] = prog;
	argv[1] = a;
	argv[2] = b;
	argv[3] = five;
	argv[4] = (char *)arg;
	argv[5] = NULL;
	optind = 1;
	while ((opt = test_getopt(arg ? 5 : 4, argv, "ab:", getopt_help, "[-a] [-b n]")) != -1)
		printf("opt %d %s\n", opt, optarg ? optarg : "-");
	if (test_figures_wanted)
		printf("figures wanted\n");
}

static void test_getopt_loop(void)
{
	static const struct {
		const char *arg;
		int status;
		bool in_err;
		const char *text;
	} cases[] = {
		{ NULL, KSFT_PASS, false, "opt 97 -\nopt 98 5\n" },
		{ "--json=out.json", KSFT_PASS, false, "opt 256 out.json\n" },
		{ "-h", KSFT_PASS, false, "usage: prog [-a] [-b n]" },
		{ "--figures", KSFT_PASS, false, "opt 97 -\nopt 98 5\nfigures wanted\n" },
		{ "-z", KSFT_FAIL, true, "Invalid option '-z' (-h for help)\n" },
		{ "--bogus", KSFT_FAIL, true, "Invalid option '--bogus' (-h for help)\n" },
		{ "-b", KSFT_FAIL, true, "Option '-b' needs a value (-h for help)\n" },
		{ "stray", KSFT_FAIL, true, "Unexpected argument 'stray'" },
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(cases); i++)
		expect_child(child_getopt, cases[i].arg, cases[i].status, cases[i].in_err,
			     cases[i].text);
}

static void test_timespec(void)
{
	struct timespec a = { .tv_sec = 5, .tv_nsec = 100 };
	struct timespec b = { .tv_sec = 3, .tv_nsec = 999999999 };
	struct timespec d = timespec_sub(a, b);

	TEST_ASSERT(d.tv_sec == 1 && d.tv_nsec == 101, "sub: %ld.%09ld",
		    (long)d.tv_sec, d.tv_nsec);
	d = timespec_add_ns(b, 2);
	TEST_ASSERT(d.tv_sec == 4 && d.tv_nsec == 1, "add: %ld.%09ld",
		    (long)d.tv_sec, d.tv_nsec);
	TEST_ASSERT(timespec_to_ns(a) == 5000000100ULL, "to_ns");
	d = timespec_div(a, 4);
	TEST_ASSERT(d.tv_sec == 1 && d.tv_nsec == 250000025, "div: %ld.%09ld",
		    (long)d.tv_sec, d.tv_nsec);
}

static const struct {
	const char *name;
	void (*fn)(void);
} cases[] = {
	{ "sizes parse and bad sizes are refused", test_sizes },
	{ "parse_size exits 1 with the reason", test_parse_size_exit },
	{ "backing source names and page sizes", test_backing_names },
	{ "bad backing source lists the valid ones", test_backing_bad_name },
	{ "failure block fields", test_failure_block },
	{ "TEST_REQUIRE skips with exit 4", test_skip_exit },
	{ "tests without options refuse arguments", test_no_options },
	{ "test_getopt: options, -h, unknown option, stray argument", test_getopt_loop },
	{ "timespec arithmetic", test_timespec },
};

int main(int argc, char *argv[])
{
	unsigned int i;

	parse_no_options(argc, argv, "Host-only tests of sizes, backing sources, asserts and skips.");

	ksft_print_header();
	ksft_set_plan(ARRAY_SIZE(cases));
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		cases[i].fn();
		ksft_test_result_pass("%s\n", cases[i].name);
	}
	ksft_finished();
}

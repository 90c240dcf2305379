/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Base helpers shared by every test: assertions, skips, sizes, time and
 * the table of memory backing sources.
 */
#ifndef SELFTEST_KVM_TEST_UTIL_H
#define SELFTEST_KVM_TEST_UTIL_H

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "compiler.h"
#include "kselftest.h"

#define KB		(1UL << 10)
#define MB		(1UL << 20)
#define GB		(1UL << 30)
#define NSEC_PER_SEC	1000000000ULL

#define ALIGN_DOWN(x, a)	((x) & ~((__typeof__(x))(a) - 1))
#define ALIGN_UP(x, a)		ALIGN_DOWN((x) + (a) - 1, (a))
#define IS_ALIGNED(x, a)	(((x) & ((__typeof__(x))(a) - 1)) == 0)
#define DIV_ROUND_UP(n, d)	(((n) + (d) - 1) / (d))

__printf(4, 5) __noreturn
void test_assert_fail(const char *file, unsigned int line, const char *expr,
		      const char *fmt, ...);
__printf(1, 2) __noreturn void test_skip(const char *fmt, ...);
__printf(1, 2) __noreturn void test_usage_error(const char *fmt, ...);
void test_dump_stack(FILE *out);

/* Check @cond; on failure print file:line, errno, a backtrace, exit 1. */
#define TEST_ASSERT(cond, fmt, ...) do {				\
	if (!(cond))							\
		test_assert_fail(__FILE__, __LINE__, #cond,		\
				 fmt, ##__VA_ARGS__);			\
} while (0)

#define TEST_ASSERT_EQ(a, b) do {					\
	__typeof__(a) __a = (a);					\
	__typeof__(b) __b = (b);					\
	TEST_ASSERT(__a == __b, "%s == %s failed: 0x%llx != 0x%llx",	\
		    #a, #b, (unsigned long long)__a,			\
		    (unsigned long long)__b);				\
} while (0)

#define TEST_FAIL(fmt, ...) \
	test_assert_fail(__FILE__, __LINE__, "Failed", fmt, ##__VA_ARGS__)

/* A requirement the host lacks: a TAP skip with the reason, exit 4. */
#define TEST_REQUIRE(cond) do {						\
	if (!(cond))							\
		test_skip("Requirement not met: %s", #cond);		\
} while (0)

/* Sizes: "4096", "0x1000", "64K", "64M", "1G", "2T" (case-insensitive). */
int try_parse_size(const char *str, uint64_t *size, const char **why);
uint64_t parse_size(const char *str);
/*
 * An integer (decimal, 0x hex, 0 octal) in [min, max]; anything else is a
 * usage error naming @opt.  try_parse_long() is the core: 0, -EINVAL (not
 * a number) or -ERANGE (outside [min, max]), never exits.
 */
int try_parse_long(const char *str, long min, long max, long *val);
long parse_long(const char *opt, const char *str, long min, long max);
/*
 * For tests that take no options: -h prints @what and exits 0, anything
 * else is a usage error (exit 1).
 */
void parse_no_options(int argc, char *argv[], const char *what);

/*
 * Long options any test may take (getopt_long codes, not letters): --json
 * FILE (figures as JSON, perf_report.h) and --profile FILE (profile.h).
 * --figures is test_getopt()'s own: it sets test_figures_wanted, and a
 * perf test then lists its figures instead of running (perf_report.h).
 */
#define TEST_OPT_JSON		0x100
#define TEST_OPT_PROFILE	0x101
#define TEST_OPT_FIGURES	0x102
extern const struct option test_long_options[];
extern bool test_figures_wanted;

/*
 * The option loop of every test that takes options: getopt_long() over
 * -h, @optstring and the long options above.  -h prints @help(argv[0],
 * @arg) and exits 0; an unknown option, a missing argument or a stray
 * argument is a usage error (one line naming it, exit 1: KSFT_FAIL).
 * Returns the next option, -1 at the end.  A test
 * hands whatever it does not take (a long option too) to its help and
 * exit(KSFT_FAIL).
 */
typedef void (*test_help_fn)(const char *name, const void *arg);
int test_getopt(int argc, char *argv[], const char *optstring, test_help_fn help,
		const void *arg);

/* Time. */
struct timespec timespec_add_ns(struct timespec ts, uint64_t ns);
struct timespec timespec_sub(struct timespec a, struct timespec b);
struct timespec timespec_elapsed(struct timespec start);
struct timespec timespec_div(struct timespec ts, int divisor);
uint64_t timespec_to_ns(struct timespec ts);
double timespec_to_sec(struct timespec ts);
/* @n events in @ns nanoseconds, per second (0 if @ns is 0). */
double rate_per_sec(uint64_t n, uint64_t ns);
struct timespec timespec_now(void);

/* Read one unsigned number from a sysfs/procfs file; 0 if absent or unreadable. */
uint64_t read_sys_u64(const char *path);
/* Its first line into @buf (newline cut); false if absent or unreadable. */
bool read_sys_line(const char *path, char *buf, size_t len);
/* /proc/meminfo's @key ("MemAvailable") in kB; 0 if absent. */
uint64_t meminfo_kb(const char *key);

/* Memory backing sources for guest memory: one table, in test_util.c. */
enum vm_mem_backing_src_type {
	VM_MEM_SRC_ANONYMOUS,
	VM_MEM_SRC_ANONYMOUS_THP,
	VM_MEM_SRC_ANONYMOUS_HUGETLB,
	VM_MEM_SRC_ANONYMOUS_HUGETLB_16KB,
	VM_MEM_SRC_ANONYMOUS_HUGETLB_64KB,
	VM_MEM_SRC_ANONYMOUS_HUGETLB_512KB,
	VM_MEM_SRC_ANONYMOUS_HUGETLB_1MB,
	VM_MEM_SRC_ANONYMOUS_HUGETLB_2MB,
	VM_MEM_SRC_ANONYMOUS_HUGETLB_8MB,
	VM_MEM_SRC_ANONYMOUS_HUGETLB_16MB,
	VM_MEM_SRC_ANONYMOUS_HUGETLB_32MB,
	VM_MEM_SRC_ANONYMOUS_HUGETLB_256MB,
	VM_MEM_SRC_ANONYMOUS_HUGETLB_512MB,
	VM_MEM_SRC_ANONYMOUS_HUGETLB_1GB,
	VM_MEM_SRC_ANONYMOUS_HUGETLB_2GB,
	VM_MEM_SRC_ANONYMOUS_HUGETLB_16GB,
	VM_MEM_SRC_SHMEM,
	VM_MEM_SRC_SHARED_HUGETLB,
	VM_MEM_SRC_GUEST_MEMFD,
	VM_MEM_SRC_GUEST_MEMFD_PRIVATE,
	NUM_SRC_TYPES,
};

#define DEFAULT_VM_MEM_SRC VM_MEM_SRC_ANONYMOUS

struct vm_mem_backing_src_alias {
	const char *name;
	int flags;		/* MAP_* flags for mmap() */
	size_t hugepage_size;	/* explicit hugetlb size, 0 if none */
	bool guest_memfd;	/* a guest_memfd per slot (kvm_util's) */
	bool private_mem;	/* private memory: the host's mapping is the shared view only */
};

const struct vm_mem_backing_src_alias *vm_mem_backing_src_alias(uint32_t i);
size_t get_backing_src_pagesz(uint32_t i);
bool backing_src_is_shared(uint32_t i);
bool backing_src_is_hugetlb(uint32_t i);
bool backing_src_is_guest_memfd(uint32_t i);
bool backing_src_is_private(uint32_t i);
/*
 * Whether the host's mapping of a slot of @i shows what the guest reads
 * and writes: false for private memory, whose checks run in the guest.
 */
bool backing_src_host_readable(uint32_t i);
int try_parse_backing_src_type(const char *name);
enum vm_mem_backing_src_type parse_backing_src_type(const char *name);
/* The backing sources, for -h: @flag and the test's default, @dflt. */
void backing_src_help(FILE *out, const char *flag, uint32_t dflt);
/*
 * NULL if @size bytes of @type can be had on this host, else the reason
 * (in @why): an unsupported source or hugepage size, too few free
 * hugepages, transparent hugepages set to "never".
 */
const char *backing_src_unavailable(uint32_t type, uint64_t size, char *why, size_t len);
/*
 * The same as a requirement: @size not a multiple of the source's page
 * size is a usage error (exit 1), what is unavailable a skip (exit 4).
 */
void backing_src_require(uint32_t type, uint64_t size);
/* /proc/meminfo's @key (a "kB" line) in bytes; false if it has none. */
bool meminfo_read(const char *key, uint64_t *bytes);
/* Bytes of transparent huge pages in the mapping holding @addr (smaps). */
uint64_t backing_thp_bytes(const void *addr);

#endif /* SELFTEST_KVM_TEST_UTIL_H */

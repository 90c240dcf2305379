// SPDX-License-Identifier: GPL-2.0-only
/*
 * Option parsing and time helpers shared by all tests.
 */
#include <ctype.h>

#include "test_util.h"

int try_parse_size(const char *str, uint64_t *size, const char **why)
{
	static const char suffixes[] = "kmgt";
	unsigned long long base;
	const char *p;
	char *end;
	int shift;

	*why = NULL;
	if (!str || !*str || isspace((unsigned char)*str) || *str == '-' || *str == '+') {
		*why = "not a number";
		return -EINVAL;
	}
	errno = 0;
	base = strtoull(str, &end, 0);
	if (errno == ERANGE) {
		*why = "too large";
		return -ERANGE;
	}
	if (end == str) {
		*why = "not a number";
		return -EINVAL;
	}
	shift = 0;
	if (*end) {
		p = strchr(suffixes, tolower((unsigned char)*end));
		if (!p || end[1]) {
			*why = "unknown suffix (use K, M, G or T)";
			return -EINVAL;
		}
		shift = 10 * (int)(p - suffixes + 1);
	}
	if (base > (UINT64_MAX >> shift)) {
		*why = "too large";
		return -ERANGE;
	}
	if (!base) {
		*why = "must not be zero";
		return -EINVAL;
	}
	*size = (uint64_t)base << shift;
	return 0;
}

uint64_t parse_size(const char *str)
{
	const char *why;
	uint64_t size;

	if (try_parse_size(str, &size, &why))
		test_usage_error("Invalid size '%s': %s", str ? str : "", why);
	return size;
}

int try_parse_long(const char *str, long min, long max, long *val)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(str, &end, 0);
	if (!*str || *end || errno)
		return -EINVAL;
	if (v < min || v > max)
		return -ERANGE;
	*val = v;
	return 0;
}

long parse_long(const char *opt, const char *str, long min, long max)
{
	long v;
	int ret = try_parse_long(str, min, max, &v);

	if (ret == -EINVAL)
		test_usage_error("Invalid %s '%s': not a number", opt, str);
	if (ret)
		test_usage_error("Invalid %s '%s': must be in [%ld, %ld]",
				 opt, str, min, max);
	return v;
}

const struct option test_long_options[] = {
	{ "json", required_argument, NULL, TEST_OPT_JSON },
	{ "profile", required_argument, NULL, TEST_OPT_PROFILE },
	{ "figures", no_argument, NULL, TEST_OPT_FIGURES },
	{ NULL, 0, NULL, 0 },
};

bool test_figures_wanted;

int test_getopt(int argc, char *argv[], const char *optstring, test_help_fn help,
		const void *arg)
{
	char opts[128];
	int opt;

	TEST_ASSERT(snprintf(opts, sizeof(opts), "h%s", optstring) < (int)sizeof(opts),
		    "Option string too long");
	opterr = 0;
	do {
		opt = getopt_long(argc, argv, opts, test_long_options, NULL);
		if (opt == TEST_OPT_FIGURES)
			test_figures_wanted = true;
	} while (opt == TEST_OPT_FIGURES);
	if (opt == 'h') {
		help(argv[0], arg);
		exit(KSFT_PASS);
	}
	if (opt == '?' && optopt && strchr(opts, optopt))
		test_usage_error("Option '-%c' needs a value (-h for help)", optopt);
	if (opt == '?' && optopt)
		test_usage_error("Invalid option '-%c' (-h for help)", optopt);
	if (opt == '?')
		test_usage_error("Invalid option '%s' (-h for help)", argv[optind - 1]);
	if (opt == -1 && optind < argc)
		test_usage_error("Unexpected argument '%s'", argv[optind]);
	return opt;
}

void parse_no_options(int argc, char *argv[], const char *what)
{
	if (argc < 2)
		return;
	if (argc == 2 && !strcmp(argv[1], "-h")) {
		printf("usage: %s\n  %s\n  Takes no options.\n", argv[0], what);
		exit(KSFT_PASS);
	}
	test_usage_error("%s: takes no options or arguments ('%s'); -h for help",
			 argv[0], argv[1]);
}

struct timespec timespec_add_ns(struct timespec ts, uint64_t ns)
{
	uint64_t total = timespec_to_ns(ts) + ns;

	ts.tv_sec = total / NSEC_PER_SEC;
	ts.tv_nsec = total % NSEC_PER_SEC;
	return ts;
}

struct timespec timespec_sub(struct timespec a, struct timespec b)
{
	struct timespec r = {
		.tv_sec = a.tv_sec - b.tv_sec,
		.tv_nsec = a.tv_nsec - b.tv_nsec,
	};

	if (r.tv_nsec < 0) {
		r.tv_sec--;
		r.tv_nsec += NSEC_PER_SEC;
	}
	return r;
}

struct timespec timespec_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts;
}

struct timespec timespec_elapsed(struct timespec start)
{
	return timespec_sub(timespec_now(), start);
}

struct timespec timespec_div(struct timespec ts, int divisor)
{
	struct timespec zero = { 0 };

	return timespec_add_ns(zero, timespec_to_ns(ts) / divisor);
}

uint64_t timespec_to_ns(struct timespec ts)
{
	return (uint64_t)ts.tv_sec * NSEC_PER_SEC + ts.tv_nsec;
}

double timespec_to_sec(struct timespec ts)
{
	return (double)ts.tv_sec + (double)ts.tv_nsec / NSEC_PER_SEC;
}

double rate_per_sec(uint64_t n, uint64_t ns)
{
	return ns ? (double)n * NSEC_PER_SEC / ns : 0;
}

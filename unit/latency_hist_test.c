// SPDX-License-Identifier: GPL-2.0-only
/*
 * Host-only tests of the log-bucket latency histogram: exact small
 * values, buckets in order, percentiles within the promised 3%, merging.
 */
#include "latency_hist.h"
#include "test_util.h"

static struct latency_hist a, b;

static void test_buckets(void)
{
	uint64_t v;
	unsigned int i, idx;

	for (v = 0; v < 32; v++)
		TEST_ASSERT_EQ(latency_hist_bucket_low(latency_hist_bucket(v)), v);
	for (i = 1; i < LATENCY_HIST_BUCKETS; i++)
		TEST_ASSERT(latency_hist_bucket_low(i) > latency_hist_bucket_low(i - 1),
			    "bucket %u starts at or below bucket %u", i, i - 1);
	for (v = 1; v < (1ULL << 62); v = v * 3 + 1) {
		idx = latency_hist_bucket(v);
		TEST_ASSERT(latency_hist_bucket_low(idx) <= v &&
			    v < latency_hist_bucket_low(idx + 1),
			    "%lu not in its bucket %u", (unsigned long)v, idx);
	}
	TEST_ASSERT(latency_hist_bucket(UINT64_MAX) == LATENCY_HIST_BUCKETS - 1,
		    "UINT64_MAX not in the last bucket");
}

static void expect_near(uint64_t got, uint64_t want, const char *what)
{
	double err = got > want ? got - want : want - got;

	TEST_ASSERT(err <= want * 0.032, "%s: %lu, expected %lu +- 3.2%%", what,
		    (unsigned long)got, (unsigned long)want);
}

static void test_percentiles(void)
{
	uint64_t v;

	TEST_ASSERT_EQ(latency_hist_percentile(&a, 50), 0ULL);
	for (v = 1; v <= 100000; v++)
		latency_hist_add(v % 2 ? &a : &b, v * 10);
	latency_hist_merge(&a, &b);
	TEST_ASSERT_EQ(a.count, 100000ULL);
	TEST_ASSERT_EQ(a.max, 1000000ULL);
	expect_near(latency_hist_percentile(&a, 50), 500000, "p50");
	expect_near(latency_hist_percentile(&a, 99), 990000, "p99");
	TEST_ASSERT(latency_hist_percentile(&a, 100) <= a.max, "p100 above max");
}

int main(int argc, char *argv[])
{
	parse_no_options(argc, argv, "Host-only tests of the latency histogram.");

	ksft_print_header();
	ksft_set_plan(2);
	test_buckets();
	ksft_test_result_pass("buckets: exact below 32, ordered, each value in its own\n");
	test_percentiles();
	ksft_test_result_pass("percentiles within 3.2%%, merge, max\n");
	ksft_finished();
}

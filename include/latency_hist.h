/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Latency histograms with log-scale buckets: values below 16 are exact,
 * every power of two above is split into 16 buckets, so a percentile is
 * within about 3% of the true sample.  Fixed size, no allocation: one per
 * thread, merged at the end.
 */
#ifndef SELFTEST_KVM_LATENCY_HIST_H
#define SELFTEST_KVM_LATENCY_HIST_H

#include <stdint.h>

#define LATENCY_HIST_SUB_BITS	4
#define LATENCY_HIST_SUB	(1U << LATENCY_HIST_SUB_BITS)
/* Values below 16, then one group per bit position 4..63. */
#define LATENCY_HIST_BUCKETS	((64 - LATENCY_HIST_SUB_BITS + 1) * LATENCY_HIST_SUB)

struct latency_hist {
	uint64_t count;
	uint64_t sum;
	uint64_t max;
	uint64_t buckets[LATENCY_HIST_BUCKETS];
};

void latency_hist_add(struct latency_hist *h, uint64_t value);
void latency_hist_merge(struct latency_hist *dst, const struct latency_hist *src);
/* The value below which @pct percent of the samples lie (0 if none). */
uint64_t latency_hist_percentile(const struct latency_hist *h, double pct);

/* Bucket of @value and the smallest value in bucket @idx (for tests). */
unsigned int latency_hist_bucket(uint64_t value);
uint64_t latency_hist_bucket_low(unsigned int idx);

#endif /* SELFTEST_KVM_LATENCY_HIST_H */

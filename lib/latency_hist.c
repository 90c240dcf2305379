// SPDX-License-Identifier: GPL-2.0-only
/*
 * Log-bucket latency histograms: see latency_hist.h.
 */
#include "latency_hist.h"

unsigned int latency_hist_bucket(uint64_t value)
{
	unsigned int msb, sub;

	if (value < LATENCY_HIST_SUB)
		return value;
	msb = 63 - __builtin_clzll(value);
	sub = (value >> (msb - LATENCY_HIST_SUB_BITS)) & (LATENCY_HIST_SUB - 1);
	return (msb - LATENCY_HIST_SUB_BITS + 1) * LATENCY_HIST_SUB + sub;
}

uint64_t latency_hist_bucket_low(unsigned int idx)
{
	unsigned int group = idx / LATENCY_HIST_SUB, sub = idx % LATENCY_HIST_SUB;

	if (!group)
		return idx;
	return (uint64_t)(LATENCY_HIST_SUB + sub) << (group - 1);
}

void latency_hist_add(struct latency_hist *h, uint64_t value)
{
	h->buckets[latency_hist_bucket(value)]++;
	h->count++;
	h->sum += value;
	if (value > h->max)
		h->max = value;
}

void latency_hist_merge(struct latency_hist *dst, const struct latency_hist *src)
{
	unsigned int i;

	for (i = 0; i < LATENCY_HIST_BUCKETS; i++)
		dst->buckets[i] += src->buckets[i];
	dst->count += src->count;
	dst->sum += src->sum;
	if (src->max > dst->max)
		dst->max = src->max;
}

/* The middle of the bucket, but never above the largest sample. */
static uint64_t bucket_value(const struct latency_hist *h, unsigned int idx)
{
	uint64_t low = latency_hist_bucket_low(idx), high, mid;

	high = idx + 1 < LATENCY_HIST_BUCKETS ? latency_hist_bucket_low(idx + 1) : low;
	mid = low + (high - low) / 2;
	return mid > h->max ? h->max : mid;
}

uint64_t latency_hist_percentile(const struct latency_hist *h, double pct)
{
	uint64_t rank, seen = 0;
	unsigned int i;

	if (!h->count)
		return 0;
	rank = (uint64_t)(pct / 100.0 * h->count + 0.999999);
	if (rank < 1)
		rank = 1;
	if (rank > h->count)
		rank = h->count;
	for (i = 0; i < LATENCY_HIST_BUCKETS; i++) {
		seen += h->buckets[i];
		if (seen >= rank)
			return bucket_value(h, i);
	}
	return h->max;
}

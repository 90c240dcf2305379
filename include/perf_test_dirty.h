/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * perf_test_dirty: the dirty log of perf_test_util's test memory, read
 * from the per-slot bitmaps (KVM_GET_DIRTY_LOG / KVM_CLEAR_DIRTY_LOG) or
 * harvested from per-vCPU dirty rings, and checked against the pages the
 * guest writes in a pass (perf_test_page_written(): the same every pass).
 *
 * The __ functions are called while vCPU threads run: they return a
 * negative code with the reason recorded for the join (perf_test_fail()).
 */
#ifndef SELFTEST_KVM_PERF_TEST_DIRTY_H
#define SELFTEST_KVM_PERF_TEST_DIRTY_H

#include "dirty_ring.h"
#include "perf_test_util.h"

struct perf_test_dirty {
	struct kvm_vm *vm;
	uint32_t ring_bytes;		/* 0: bitmaps */
	uint64_t manual;		/* MANUAL_PROTECT2 flags enabled, 0: none */
	bool all_dirty;			/* INITIALLY_SET: the next log is all ones */
	int nr_slots;
	uint64_t slot_pages;		/* host pages in each slot */
	unsigned long **log;		/* per slot: what the log reported */
	unsigned long **expect;		/* per slot: what a pass writes */
	struct dirty_ring *rings;	/* per vCPU */
	uint64_t ring_full_exits;	/* handled KVM_EXIT_DIRTY_RING_FULL */
	uint64_t harvested;		/* ring entries harvested */
	uint64_t stray;			/* ring entries outside test memory */
	/*
	 * The profile phase (perf_report_phase()) the vCPU passes run in;
	 * if set, the timed steps below are phases of their own ("enable",
	 * "disable", "get", "clear") and the passes resume in this one.
	 */
	const char *phase;
};

struct perf_test_dirty_times {
	uint64_t get_ns;		/* reading the log */
	uint64_t clear_ns;		/* re-arming it; 0 if not needed */
};

struct perf_test_dirty_count {
	uint64_t reported;		/* pages the log reported */
	uint64_t expected;
	uint64_t missing;		/* written but not reported */
	uint64_t extra;			/* reported but not written */
};

/*
 * After perf_test_create_vm() (with o->dirty_ring_bytes for a ring) and
 * perf_test_set_write_percent(), before the vCPU threads start.  @manual:
 * enable KVM_CAP_MANUAL_DIRTY_LOG_PROTECT2 (bitmaps only; the caller has
 * checked the host has it).
 */
void perf_test_dirty_init(struct perf_test_dirty *d, struct kvm_vm *vm,
			  uint32_t ring_bytes, bool manual);
void perf_test_dirty_free(struct perf_test_dirty *d);

/* KVM_MEM_LOG_DIRTY_PAGES on (or off) for every test memslot. */
int __perf_test_dirty_enable(struct perf_test_dirty *d, bool on);
/* Read the log: KVM_GET_DIRTY_LOG of each slot, or harvest every ring. */
int __perf_test_dirty_get(struct perf_test_dirty *d);
/* Re-arm what was read: KVM_CLEAR_DIRTY_LOG (manual protect) or ring reset. */
int __perf_test_dirty_clear(struct perf_test_dirty *d);
bool perf_test_dirty_needs_clear(const struct perf_test_dirty *d);
/*
 * Compare what was read with what the pass wrote, count, and forget it;
 * negative if a written page was not reported or an unwritten one was.
 */
int __perf_test_dirty_check(struct perf_test_dirty *d, struct perf_test_dirty_count *c);
/* __perf_test_dirty_enable(), timed. */
int __perf_test_dirty_enable_timed(struct perf_test_dirty *d, bool on, uint64_t *ns);
/*
 * After a pass: read the log and re-arm it where needed, each timed (in
 * @t), then check it against the pass (in @c): the three steps a dirty
 * logging test repeats, with their failures as above.
 */
int __perf_test_dirty_harvest(struct perf_test_dirty *d, struct perf_test_dirty_times *t,
			      struct perf_test_dirty_count *c);
/* A vCPU thread's KVM_EXIT_DIRTY_RING_FULL: harvest its ring, reset. */
int __perf_test_dirty_ring_full(struct perf_test_dirty *d, uint32_t vcpu_idx);

#endif /* SELFTEST_KVM_PERF_TEST_DIRTY_H */

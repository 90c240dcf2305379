/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * memslot_perf: the memslot operations memslot_perf_test times, each a
 * loop over test memory spread over many memslots (perf_test_util's VM,
 * one vCPU running its own guest code), with the checks of what the
 * guest and the host read back.  See memslot_perf_test.c for what each
 * operation does.
 */
#ifndef SELFTEST_KVM_MEMSLOT_PERF_H
#define SELFTEST_KVM_MEMSLOT_PERF_H

#include "perf_test_util.h"

enum ms_op { OP_MAP, OP_UNMAP, OP_UNMAP_CHUNKED, OP_MOVE_ACTIVE, OP_MOVE_INACTIVE, OP_RW,
	     NR_OPS };

extern const char * const ms_op_names[NR_OPS];	/* as upstream prints them */
extern const char * const ms_op_keys[NR_OPS];	/* in RESULT keys */

struct ms_config {
	struct perf_test_options o;	/* one vCPU, nr_slots slots of test memory */
	int nr_slots;
	uint64_t slot_size;
	double seconds;		/* each run's length (at least one iteration) */
	bool check_all;		/* check every page, not each slot's first and last */
	bool no_zap_quirk;	/* disable KVM_X86_QUIRK_SLOT_ZAP_ALL for the moves */
};

struct ms_run {
	uint64_t iterations;
	uint64_t loop_ns;
	uint64_t iter_ns;
	uint64_t setup_ns;	/* adding the slots */
	uint64_t mmio_exits;	/* the move tests' */
};

bool ms_op_is_move(enum ms_op op);
/*
 * One run of @op in a new VM: its figures in @r; a failed check fails
 * the test with the reason.  Prints the VM's RESULT_STATS when done.
 */
void ms_run_once(enum vm_guest_mode mode, const struct ms_config *c, enum ms_op op,
		 struct ms_run *r);

#endif /* SELFTEST_KVM_MEMSLOT_PERF_H */

/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * eager_split: whether KVM splits huge mappings of a memslot when dirty
 * logging starts on it (eager page splitting) or only when the guest
 * writes (lazy), and turning it on and off where the test may.
 *
 * One interface, one mechanism a port (lib/<arch>/eager_split.c):
 *   x86_64: the kvm module's eager_page_split parameter (global; the TDP
 *           MMU is the one that splits), restored at exit;
 *   arm64:  KVM_CAP_ARM_EAGER_SPLIT_CHUNK_SIZE (6.5+), per VM, enabled on
 *           the empty VM before any memslot (off by default).
 */
#ifndef SELFTEST_KVM_EAGER_SPLIT_H
#define SELFTEST_KVM_EAGER_SPLIT_H

#include "kvm_util.h"

struct eager_split_info {
	bool available;		/* KVM has the mechanism at all */
	bool settable;		/* the test may choose on or off */
	bool current;		/* what new VMs get unless the test chooses */
	bool kvm_splits;	/* with it on, this KVM's MMU does split eagerly */
	char knob[64];		/* what it is, for messages */
	char why[160];		/* why not available, settable or splitting */
};

/* Probe (before any work); fills @e. */
void eager_split_probe(struct eager_split_info *e);
/*
 * Eager splitting on or off for the VMs made from now on; asserts if the
 * test may not choose.  x86: writes the parameter (put back at exit);
 * arm64: remembered for eager_split_vm_init().
 */
void eager_split_select(bool on);
/* On the new VM, before any memslot (perf_test_options.vm_init). */
void eager_split_vm_init(struct kvm_vm *vm);

#endif /* SELFTEST_KVM_EAGER_SPLIT_H */

/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Dirty rings (KVM_CAP_DIRTY_LOG_RING): one ring of struct kvm_dirty_gfn
 * per vCPU, mapped from the vCPU fd at KVM_DIRTY_LOG_PAGE_OFFSET.  KVM
 * pushes an entry (flags DIRTY) for each page a vCPU dirties; user space
 * harvests entries in order, marks each RESET, then KVM_RESET_DIRTY_RINGS
 * makes KVM write-protect those pages again and reuse the entries.
 *
 * The ring must be enabled (a power-of-two size in bytes) before the VM
 * has any vCPU.  It replaces the dirty bitmap: KVM_GET_DIRTY_LOG fails,
 * but where KVM has KVM_CAP_DIRTY_LOG_RING_WITH_BITMAP (arm64),
 * vm_enable_dirty_ring() also turns that on, which must be done before
 * the VM has any memslot: see vm_create_shape_empty().
 */
#ifndef SELFTEST_KVM_DIRTY_RING_H
#define SELFTEST_KVM_DIRTY_RING_H

#include "kvm_util.h"

#ifndef KVM_CAP_DIRTY_LOG_RING_WITH_BITMAP
#define KVM_CAP_DIRTY_LOG_RING_WITH_BITMAP 225
#endif

struct dirty_ring {
	struct kvm_dirty_gfn *gfns;
	uint32_t nr_entries;	/* a power of two */
	uint32_t next;		/* the next entry to harvest (free-running) */
};

/* The ring capability this host has (0: none) and its largest size in bytes. */
uint32_t kvm_dirty_ring_cap(uint32_t *max_bytes);
int __vm_enable_dirty_ring(struct kvm_vm *vm, uint32_t bytes);
void vm_enable_dirty_ring(struct kvm_vm *vm, uint32_t bytes);

void dirty_ring_map(struct dirty_ring *ring, struct kvm_vcpu *vcpu, uint32_t bytes);
void dirty_ring_unmap(struct dirty_ring *ring);

typedef void (*dirty_ring_fn)(uint32_t slot, uint64_t offset, void *arg);
/*
 * Call @fn for each dirty entry, in ring order, marking each harvested;
 * returns how many.  @slot is the entry's (as_id << 16 | slot id),
 * @offset the page (host PAGE_SIZE units) in that slot.
 */
uint32_t dirty_ring_harvest(struct dirty_ring *ring, dirty_ring_fn fn, void *arg);

/* KVM_RESET_DIRTY_RINGS: the number of entries reset, or -1 with errno. */
int __vm_reset_dirty_rings(struct kvm_vm *vm);

#endif /* SELFTEST_KVM_DIRTY_RING_H */

// SPDX-License-Identifier: GPL-2.0-only
/*
 * Dirty rings: enabling, mapping a vCPU's ring, harvesting and resetting.
 *
 * Entries' flags are read with acquire and written with release, as the
 * API asks on weakly ordered hosts (KVM_CAP_DIRTY_LOG_RING_ACQ_REL); on
 * x86 they cost nothing extra.
 */
#include <sys/mman.h>

#include "dirty_ring.h"

uint32_t kvm_dirty_ring_cap(uint32_t *max_bytes)
{
	static const uint32_t caps[] = {
		KVM_CAP_DIRTY_LOG_RING, KVM_CAP_DIRTY_LOG_RING_ACQ_REL,
	};
	unsigned int i;
	int ret;

	for (i = 0; i < ARRAY_SIZE(caps); i++) {
		ret = kvm_check_cap(caps[i]);
		if (ret > 0) {
			*max_bytes = ret;
			return caps[i];
		}
	}
	*max_bytes = 0;
	return 0;
}

int __vm_enable_dirty_ring(struct kvm_vm *vm, uint32_t bytes)
{
	uint32_t max, cap = kvm_dirty_ring_cap(&max);

	if (!cap) {
		errno = EOPNOTSUPP;
		return -1;
	}
	return __vm_enable_cap(vm, cap, bytes);
}

/*
 * Where KVM offers it, back the ring with per-slot bitmaps, as api.rst asks
 * of user space after enabling the ring: KVM arm64 tracks a slot page by
 * page only if it has a bitmap, and without one keeps huge mappings
 * writable, so that writes to the rest of a 2M block are never logged.
 * The bitmap itself takes only pages dirtied with no vCPU running (the
 * vGIC ITS tables), which these tests do not make.
 */
static void vm_enable_ring_bitmap(struct kvm_vm *vm)
{
	if (vm_check_cap(vm, KVM_CAP_DIRTY_LOG_RING_WITH_BITMAP) <= 0)
		return;
	TEST_ASSERT(!vm->regions,
		    "KVM_CAP_DIRTY_LOG_RING_WITH_BITMAP needs a VM without memslots");
	vm_enable_cap(vm, KVM_CAP_DIRTY_LOG_RING_WITH_BITMAP, 0);
	vm->dirty_ring_with_bitmap = true;
}

void vm_enable_dirty_ring(struct kvm_vm *vm, uint32_t bytes)
{
	int ret = __vm_enable_dirty_ring(vm, bytes);

	TEST_ASSERT(!ret, "Enabling a dirty ring of %u bytes failed on vm fd %d, errno: %d (%s)",
		    bytes, vm->fd, errno, strerror(errno));
	vm_enable_ring_bitmap(vm);
}

void dirty_ring_map(struct dirty_ring *ring, struct kvm_vcpu *vcpu, uint32_t bytes)
{
	long page_size = getpagesize();
	void *p;

	p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, vcpu->fd,
		 (off_t)KVM_DIRTY_LOG_PAGE_OFFSET * page_size);
	TEST_ASSERT(p != MAP_FAILED, "mmap(vCPU %u dirty ring, %u bytes) failed", vcpu->id, bytes);
	ring->gfns = p;
	ring->nr_entries = bytes / sizeof(struct kvm_dirty_gfn);
	ring->next = 0;
}

void dirty_ring_unmap(struct dirty_ring *ring)
{
	size_t bytes = (size_t)ring->nr_entries * sizeof(struct kvm_dirty_gfn);

	if (!ring->gfns)
		return;
	TEST_ASSERT(!munmap(ring->gfns, bytes), "munmap(dirty ring)");
	ring->gfns = NULL;
}

uint32_t dirty_ring_harvest(struct dirty_ring *ring, dirty_ring_fn fn, void *arg)
{
	struct kvm_dirty_gfn *e;
	uint32_t flags, n = 0;

	for (;;) {
		e = &ring->gfns[ring->next & (ring->nr_entries - 1)];
		flags = __atomic_load_n(&e->flags, __ATOMIC_ACQUIRE);
		if (!(flags & KVM_DIRTY_GFN_F_DIRTY))
			return n;
		fn(e->slot, e->offset, arg);
		__atomic_store_n(&e->flags, KVM_DIRTY_GFN_F_RESET, __ATOMIC_RELEASE);
		ring->next++;
		n++;
	}
}

int __vm_reset_dirty_rings(struct kvm_vm *vm)
{
	return __vm_ioctl(vm, KVM_RESET_DIRTY_RINGS, NULL);
}

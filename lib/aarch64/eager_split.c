// SPDX-License-Identifier: GPL-2.0-only
/*
 * arm64 eager page splitting: KVM_CAP_ARM_EAGER_SPLIT_CHUNK_SIZE (6.5+),
 * a per-VM chunk size (0: off, the default), settable only while the VM
 * has no memslot.  The chunk is a block size KVM supports
 * (KVM_CAP_ARM_SUPPORTED_BLOCK_SIZES): the smallest above the page size.
 */
#include "eager_split.h"

#ifdef KVM_CAP_ARM_EAGER_SPLIT_CHUNK_SIZE
static uint64_t chunk;		/* for new VMs; 0: off */

static uint64_t smallest_block(void)
{
	uint64_t sizes = kvm_check_cap(KVM_CAP_ARM_SUPPORTED_BLOCK_SIZES);

	sizes &= ~(uint64_t)(getpagesize() * 2 - 1);
	return sizes ? sizes & -sizes : 0;
}

void eager_split_probe(struct eager_split_info *e)
{
	uint64_t block = smallest_block();
	struct kvm_vm *vm;

	memset(e, 0, sizeof(*e));
	snprintf(e->knob, sizeof(e->knob), "KVM_CAP_ARM_EAGER_SPLIT_CHUNK_SIZE");
	if (!block) {
		snprintf(e->why, sizeof(e->why),
			 "KVM lacks KVM_CAP_ARM_EAGER_SPLIT_CHUNK_SIZE (no KVM_CAP_ARM_SUPPORTED_BLOCK_SIZES: before 6.5)");
		return;
	}
	/* Enabling it on an empty VM is the probe. */
	vm = vm_create_barebones();
	if (__vm_enable_cap(vm, KVM_CAP_ARM_EAGER_SPLIT_CHUNK_SIZE, block)) {
		snprintf(e->why, sizeof(e->why),
			 "KVM refuses KVM_CAP_ARM_EAGER_SPLIT_CHUNK_SIZE of 0x%lx: %s",
			 (unsigned long)block, strerror(errno));
	} else {
		e->available = e->settable = e->kvm_splits = true;
	}
	kvm_vm_free(vm);
}

void eager_split_select(bool on)
{
	chunk = on ? smallest_block() : 0;
	TEST_ASSERT(!on || chunk, "KVM lacks KVM_CAP_ARM_EAGER_SPLIT_CHUNK_SIZE");
}

void eager_split_vm_init(struct kvm_vm *vm)
{
	if (chunk)
		vm_enable_cap(vm, KVM_CAP_ARM_EAGER_SPLIT_CHUNK_SIZE, chunk);
}
#else
void eager_split_probe(struct eager_split_info *e)
{
	memset(e, 0, sizeof(*e));
	snprintf(e->knob, sizeof(e->knob), "KVM_CAP_ARM_EAGER_SPLIT_CHUNK_SIZE");
	snprintf(e->why, sizeof(e->why),
		 "built against uapi headers without KVM_CAP_ARM_EAGER_SPLIT_CHUNK_SIZE");
}

void eager_split_select(bool on)
{
	TEST_ASSERT(!on, "built against uapi headers without KVM_CAP_ARM_EAGER_SPLIT_CHUNK_SIZE");
}

void eager_split_vm_init(struct kvm_vm *vm)
{
}
#endif

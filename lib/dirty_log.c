// SPDX-License-Identifier: GPL-2.0-only
/*
 * Dirty logging: reading and clearing a memslot's dirty bitmap, and the
 * manual-protect mode.
 */
#include "kvm_util.h"

int __kvm_vm_get_dirty_log(struct kvm_vm *vm, uint32_t slot, void *bitmap)
{
	struct kvm_dirty_log args = { .slot = slot, .dirty_bitmap = bitmap };

	return __vm_ioctl(vm, KVM_GET_DIRTY_LOG, &args);
}

int __kvm_vm_clear_dirty_log(struct kvm_vm *vm, uint32_t slot, void *bitmap,
			     uint64_t first_page, uint32_t num_pages)
{
	struct kvm_clear_dirty_log args = {
		.slot = slot,
		.first_page = first_page,
		.num_pages = num_pages,
		.dirty_bitmap = bitmap,
	};

	return __vm_ioctl(vm, KVM_CLEAR_DIRTY_LOG, &args);
}

uint64_t vm_enable_manual_dirty_log_protect(struct kvm_vm *vm)
{
	uint64_t supported = kvm_check_cap(KVM_CAP_MANUAL_DIRTY_LOG_PROTECT2);
	uint64_t flags = KVM_DIRTY_LOG_MANUAL_PROTECT_ENABLE;

	if (!supported)
		return 0;
	if (supported & KVM_DIRTY_LOG_INITIALLY_SET)
		flags |= KVM_DIRTY_LOG_INITIALLY_SET;
	vm_enable_cap(vm, KVM_CAP_MANUAL_DIRTY_LOG_PROTECT2, flags);
	return flags;
}

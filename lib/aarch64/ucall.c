// SPDX-License-Identifier: GPL-2.0-only
/*
 * aarch64 ucall exit: a store of the ucall's GVA to the last page of the
 * IPA space, which no memslot holds.  KVM hands it to us as KVM_EXIT_MMIO.
 * That page is taken from the VM's usable GPAs (max_gfn stops below it).
 */
#include "processor.h"

/* Guest: where to store, written by ucall_arch_init(). */
static uint64_t *ucall_exit_mmio;

void ucall_arch_init(struct kvm_vm *vm)
{
	uint64_t gpa = ((1ULL << vm->pa_bits) - 1) & ~(uint64_t)(vm->page_size - 1);
	uint64_t gva = (1ULL << (vm->va_bits - 1)) - vm->page_size;

	TEST_ASSERT(!gpa2region(vm, gpa), "GPA 0x%lx for ucalls is in a memslot",
		    (unsigned long)gpa);
	vm_vaddr_reserve(vm, gva, vm->page_size);
	aarch64_pg_map_attr(vm, gva, gpa, vm->page_size, MT_DEVICE_nGnRE);
	vm->arch.ucall_mmio_gpa = gpa;
	vm->arch.ucall_mmio_gva = gva;
	vm->max_gfn = (gpa >> vm->page_shift) - 1;
	write_guest_global(vm, ucall_exit_mmio, (uint64_t *)gva);
}

/* One plain STR: KVM can decode it (ESR_EL2.ISV) without the guest's help. */
__guest_code void ucall_arch_do_ucall(uint64_t uc_gva)
{
	__asm__ __volatile__("str %0, [%1]" : : "r"(uc_gva), "r"(ucall_exit_mmio)
			     : "memory");
}

uint64_t ucall_arch_get_ucall(struct kvm_vcpu *vcpu)
{
	struct kvm_run *run = vcpu->run;
	uint64_t gva;

	if (run->exit_reason != KVM_EXIT_MMIO ||
	    run->mmio.phys_addr != vcpu->vm->arch.ucall_mmio_gpa)
		return 0;
	TEST_ASSERT(run->mmio.is_write && run->mmio.len == sizeof(gva),
		    "Bad ucall MMIO: write %u, len %u", run->mmio.is_write, run->mmio.len);
	memcpy(&gva, run->mmio.data, sizeof(gva));
	return gva;
}

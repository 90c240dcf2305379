// SPDX-License-Identifier: GPL-2.0-only
/*
 * x86_64 ucall exit: an OUT to a port no device claims, with the ucall's
 * GVA in RDI.  KVM hands it to us as KVM_EXIT_IO.
 */
#include "processor.h"

#define UCALL_PIO_PORT	((uint16_t)0x1000)

void ucall_arch_init(struct kvm_vm *vm)
{
}

__guest_code void ucall_arch_do_ucall(uint64_t uc_gva)
{
	__asm__ __volatile__("outb %%al, %%dx"
			     : : "a"(0), "d"(UCALL_PIO_PORT), "D"(uc_gva)
			     : "memory");
}

uint64_t ucall_arch_get_ucall(struct kvm_vcpu *vcpu)
{
	struct kvm_run *run = vcpu->run;
	struct kvm_regs regs;

	if (run->exit_reason != KVM_EXIT_IO || run->io.port != UCALL_PIO_PORT)
		return 0;
	TEST_ASSERT(run->io.direction == KVM_EXIT_IO_OUT && run->io.size == 1 &&
		    run->io.count == 1, "Bad ucall port I/O: dir %u size %u count %u",
		    run->io.direction, run->io.size, run->io.count);
	vcpu_regs_get(vcpu, &regs);
	return regs.rdi;
}

// SPDX-License-Identifier: GPL-2.0-only
/*
 * x86_64 vCPUs: CPUID, long mode (paging, flat segments, descriptor
 * tables), a stack, the entry point and arguments.
 */
#include "processor.h"

#define GUEST_STACK_VADDR_MIN	0x100000
/* CPUID 0x80000001 EDX bit 20: NX. */
#define CPUID_EXT_EDX_NX	(1U << 20)

static bool cpu_has_nx(void)
{
	const struct kvm_cpuid_entry2 *e = kvm_get_supported_cpuid_entry(0x80000001, 0);

	return e && (e->edx & CPUID_EXT_EDX_NX);
}

static void vcpu_setup_long_mode(struct kvm_vm *vm, struct kvm_vcpu *vcpu)
{
	struct kvm_sregs sregs;

	vcpu_sregs_get(vcpu, &sregs);
	x86_sregs_tables(vm, &sregs);
	sregs.cr0 = X86_CR0_PE | X86_CR0_MP | X86_CR0_ET | X86_CR0_NE |
		    X86_CR0_WP | X86_CR0_PG;
	sregs.cr4 = X86_CR4_PAE | X86_CR4_OSFXSR | X86_CR4_OSXMMEXCPT;
	sregs.efer = EFER_LME | EFER_LMA | (cpu_has_nx() ? EFER_NX : 0);
	sregs.cr3 = vm->pgd;
	x86_segment_code(&sregs.cs);
	x86_segment_data(&sregs.ds);
	sregs.es = sregs.fs = sregs.gs = sregs.ss = sregs.ds;
	x86_segment_tss(vm, &sregs.tr);
	vcpu_sregs_set(vcpu, &sregs);
}

uint64_t x86_guest_stack(struct kvm_vm *vm)
{
	uint64_t size = DEFAULT_STACK_PGS * vm->page_size;
	uint64_t rsp = vm_vaddr_alloc(vm, size, GUEST_STACK_VADDR_MIN) + size - 8;

	/* A return from guest_code lands in a stub that reports it. */
	*(uint64_t *)addr_gva2hva(vm, rsp) = (uint64_t)guest_code_return_stub;
	return rsp;
}

void vcpu_arch_add(struct kvm_vm *vm, struct kvm_vcpu *vcpu)
{
	struct kvm_regs regs = { 0 };

	vcpu_init_cpuid(vcpu, kvm_get_supported_cpuid());
	vcpu_setup_long_mode(vm, vcpu);
	regs.rsp = x86_guest_stack(vm);
	regs.rflags = X86_EFLAGS_FIXED;
	vcpu_regs_set(vcpu, &regs);
}

void vcpu_arch_set_entry(struct kvm_vcpu *vcpu, void *guest_code)
{
	struct kvm_regs regs;

	vcpu_regs_get(vcpu, &regs);
	regs.rip = (uint64_t)guest_code;
	vcpu_regs_set(vcpu, &regs);
}

void vcpu_args_set(struct kvm_vcpu *vcpu, unsigned int num, ...)
{
	struct kvm_regs regs;
	__u64 *slots[] = { &regs.rdi, &regs.rsi, &regs.rdx, &regs.rcx,
			   &regs.r8, &regs.r9 };
	va_list va;
	unsigned int i;

	TEST_ASSERT(num <= ARRAY_SIZE(slots), "At most %zu guest arguments, not %u",
		    ARRAY_SIZE(slots), num);
	vcpu_regs_get(vcpu, &regs);
	va_start(va, num);
	for (i = 0; i < num; i++)
		*slots[i] = va_arg(va, uint64_t);
	va_end(va);
	vcpu_regs_set(vcpu, &regs);
}

/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * x86_64 nested vCPUs: what lib/x86_64/nested.c (vendor-neutral: probing,
 * L1's 1:1 tables for L2, per-vCPU pages) shares with each vendor's file
 * (svm.c: VMCB, NPT, VMRUN; vmx.c: VMCS, EPT, VMLAUNCH).
 */
#ifndef SELFTEST_KVM_X86_NESTED_H
#define SELFTEST_KVM_X86_NESTED_H

#include "processor.h"

/* Per vCPU, in guest memory (one page): what L1 needs to run L2. */
struct nested_vcpu {
	uint64_t l2_arg;	/* L2's first argument (RDI) */
	uint64_t ctl_gva;	/* the vendor's control block (VMCB, VMCS) */
	uint64_t ctl_gpa;
	uint64_t host_gva;	/* the CPU's area for L1 (VM_HSAVE_PA, VMXON region) */
	uint64_t host_gpa;
	uint64_t bitmap_gpa;	/* a zeroed page (VMX: the MSR bitmaps, none set) */
	uint64_t vendor[];	/* the rest of the page: the vendor's own */
};

struct nested_vendor {
	const char *name;
	/* What offers it: a bit of KVM's guest CPUID, and the module. */
	uint32_t cpuid_function;
	uint32_t cpuid_ecx_bit;
	const char *module;
	/* Entry bits of L1's tables for L2: table entries and leaves. */
	uint64_t table_flags;
	uint64_t leaf_flags;
	/* Host: NULL, or why not (in @why) if KVM's guest CPUID lacks a need. */
	const char *(*unavailable)(char *why, size_t len);
	/* Host: the largest leaf L1's tables for L2 may use (1G, 2M). */
	uint64_t (*leaf_size)(struct kvm_vm *vm);
	/* Host: fill the control block: L2 starts at @rip, @rsp. */
	void (*vcpu_setup)(struct kvm_vm *vm, struct kvm_vcpu *vcpu,
			   const struct nested_vcpu *n, uint64_t root,
			   uint64_t rip, uint64_t rsp);
	/* Guest: L1's code, entered with @n's GVA. */
	void (*l1_code)(struct nested_vcpu *n);
};

/*
 * For L1's asm around a run of L2 (VMRUN, VMLAUNCH), which leaves L2's
 * registers: L1's callee-saved ones, kept on L1's stack.
 */
#define NESTED_PUSH_CALLEE_SAVED					\
	"	push %rbx\n	push %rbp\n	push %r12\n"			\
	"	push %r13\n	push %r14\n	push %r15\n"
#define NESTED_POP_CALLEE_SAVED						\
	"	pop %r15\n	pop %r14\n	pop %r13\n"			\
	"	pop %r12\n	pop %rbp\n	pop %rbx\n"

extern const struct nested_vendor nested_svm;
extern const struct nested_vendor nested_vmx;

#endif /* SELFTEST_KVM_X86_NESTED_H */

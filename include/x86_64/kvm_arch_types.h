/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * x86_64 per-VM state and constants the core needs (see kvm_arch.h).
 */
#ifndef SELFTEST_KVM_ARCH_TYPES_H
#define SELFTEST_KVM_ARCH_TYPES_H

#include <stdint.h>

struct kvm_vm_arch {
	uint64_t gdt;		/* GVAs of the descriptor tables */
	uint64_t idt;
	uint64_t tss;
	uint64_t handlers;	/* GVA of the exception handler table */
	uint64_t nested_root;	/* GPA of L1's tables for L2 (NPT), 0: none */
};

#define VM_MODE_DEFAULT			VM_MODE_PXXV48_4K
#define DEFAULT_STACK_PGS		8
#define KVM_GUEST_PAGE_TABLE_MIN_PADDR	0x180000

#endif /* SELFTEST_KVM_ARCH_TYPES_H */

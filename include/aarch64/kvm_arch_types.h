/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * aarch64 per-VM state and constants the core needs (see kvm_arch.h).
 */
#ifndef SELFTEST_KVM_ARCH_TYPES_H
#define SELFTEST_KVM_ARCH_TYPES_H

#include <stdint.h>

struct kvm_vm_arch {
	uint64_t handlers;	/* GVA of the exception handler table */
	uint64_t ucall_mmio_gpa;	/* the last page of the IPA space */
	uint64_t ucall_mmio_gva;
	uint64_t cpu_on_page;	/* HVA of the CPU_ON boot page, once made */
	int vgic_fd;		/* the vGICv3 device (gic_v3.c), 0: none */
};

/* A 40-bit IPA is what KVM gives a VM of type 0: every host has it. */
#define VM_MODE_DEFAULT			VM_MODE_P40V48_4K
#define DEFAULT_STACK_PGS		8
#define KVM_GUEST_PAGE_TABLE_MIN_PADDR	0x180000

#endif /* SELFTEST_KVM_ARCH_TYPES_H */

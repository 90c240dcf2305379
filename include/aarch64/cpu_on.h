/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The CPU_ON boot page (GPA 0, identity-mapped), shared by the host that
 * fills it and cpu_on_entry.S that reads it with the MMU off: the entry
 * code, then at CPU_ON_DATA the EL1 registers every vCPU gets and, per
 * vCPU added powered off, its MPIDR, stack and guest code.
 */
#ifndef SELFTEST_KVM_CPU_ON_H
#define SELFTEST_KVM_CPU_ON_H

#define CPU_ON_DATA		0x200
#define CPU_ON_MAIR		0
#define CPU_ON_TCR		8
#define CPU_ON_TTBR0		16
#define CPU_ON_SCTLR		24
#define CPU_ON_CPACR		32
#define CPU_ON_VBAR		40
#define CPU_ON_LR		48
#define CPU_ON_NR_CPUS		56
#define CPU_ON_CPUS		64
#define CPU_ON_CPU_SIZE		24	/* mpidr, sp, pc */

#endif /* SELFTEST_KVM_CPU_ON_H */

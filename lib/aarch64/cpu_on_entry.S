/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * PSCI CPU_ON entry for vCPUs added powered off.  CPU_ON resets the
 * target: it starts here at the copy of this code in the boot page (GPA 0,
 * also mapped at GVA 0) with its MMU off and the context id in x0.  Find
 * this vCPU by MPIDR in the boot page, load the EL1 registers, turn the
 * MMU on (the identity mapping keeps the next fetch valid) and branch to
 * its guest code with x0 untouched.  Position-independent: only ADR.
 */
#include "cpu_on.h"

	.text
	.balign 64
	.globl cpu_on_entry
cpu_on_entry:
	adr	x9, cpu_on_entry
	add	x9, x9, #CPU_ON_DATA
	mrs	x10, mpidr_el1
	ldr	x11, [x9, #CPU_ON_NR_CPUS]
	add	x12, x9, #CPU_ON_CPUS
1:	cbz	x11, 3f
	ldr	x13, [x12]
	cmp	x13, x10
	b.eq	2f
	add	x12, x12, #CPU_ON_CPU_SIZE
	sub	x11, x11, #1
	b	1b

2:	ldp	x13, x14, [x12, #8]	/* sp, pc */
	ldr	x1, [x9, #CPU_ON_MAIR]
	msr	mair_el1, x1
	ldr	x1, [x9, #CPU_ON_TCR]
	msr	tcr_el1, x1
	ldr	x1, [x9, #CPU_ON_TTBR0]
	msr	ttbr0_el1, x1
	ldr	x1, [x9, #CPU_ON_CPACR]
	msr	cpacr_el1, x1
	ldr	x1, [x9, #CPU_ON_VBAR]
	msr	vbar_el1, x1
	ldr	x30, [x9, #CPU_ON_LR]
	ldr	x1, [x9, #CPU_ON_SCTLR]
	mov	sp, x13
	isb
	tlbi	vmalle1
	dsb	nsh
	msr	sctlr_el1, x1
	isb
	br	x14

	/* Not in the table: nothing sensible to run. */
3:	wfi
	b	3b
	.globl cpu_on_entry_end
cpu_on_entry_end:

	.section .note.GNU-stack,"",@progbits

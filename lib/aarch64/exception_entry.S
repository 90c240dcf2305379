/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Guest exception vectors (VBAR_EL1): each of the 16 entries makes room
 * for a frame on the stack and passes its number to exception_common,
 * which saves x0-x30, the interrupted SP, ELR_EL1, SPSR_EL1 (a struct
 * ex_regs), then q0-q31, FPSR and FPCR, calls route_exception(regs,
 * vector) and returns with ERET to the (maybe changed) ELR.
 */
#define REGS_SIZE	272	/* struct ex_regs */
#define FP_SIZE		528	/* q0-q31, fpsr, fpcr */
#define FRAME_SIZE	(REGS_SIZE + FP_SIZE)

	.text

.macro VENTRY vector
	.balign 0x80
	sub	sp, sp, #FRAME_SIZE
	stp	x0, x1, [sp, #0]
	mov	x1, #\vector
	b	exception_common
.endm

	.balign 2048
	.globl exception_vectors
exception_vectors:
	.irp v, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15
	VENTRY \v
	.endr

.macro FP_REGS op
	\op	q0, q1, [x2, #0]
	\op	q2, q3, [x2, #32]
	\op	q4, q5, [x2, #64]
	\op	q6, q7, [x2, #96]
	\op	q8, q9, [x2, #128]
	\op	q10, q11, [x2, #160]
	\op	q12, q13, [x2, #192]
	\op	q14, q15, [x2, #224]
	\op	q16, q17, [x2, #256]
	\op	q18, q19, [x2, #288]
	\op	q20, q21, [x2, #320]
	\op	q22, q23, [x2, #352]
	\op	q24, q25, [x2, #384]
	\op	q26, q27, [x2, #416]
	\op	q28, q29, [x2, #448]
	\op	q30, q31, [x2, #480]
.endm

.macro GP_REGS op
	\op	x2, x3, [sp, #16]
	\op	x4, x5, [sp, #32]
	\op	x6, x7, [sp, #48]
	\op	x8, x9, [sp, #64]
	\op	x10, x11, [sp, #80]
	\op	x12, x13, [sp, #96]
	\op	x14, x15, [sp, #112]
	\op	x16, x17, [sp, #128]
	\op	x18, x19, [sp, #144]
	\op	x20, x21, [sp, #160]
	\op	x22, x23, [sp, #176]
	\op	x24, x25, [sp, #192]
	\op	x26, x27, [sp, #208]
	\op	x28, x29, [sp, #224]
.endm

exception_common:
	GP_REGS stp
	add	x2, sp, #FRAME_SIZE
	stp	x30, x2, [sp, #240]
	mrs	x2, elr_el1
	mrs	x3, spsr_el1
	stp	x2, x3, [sp, #256]
	add	x2, sp, #REGS_SIZE
	FP_REGS stp
	mrs	x3, fpsr
	mrs	x4, fpcr
	add	x2, x2, #512
	stp	x3, x4, [x2]

	mov	x0, sp
	bl	route_exception

	add	x2, sp, #REGS_SIZE
	FP_REGS ldp
	add	x2, x2, #512
	ldp	x3, x4, [x2]
	msr	fpsr, x3
	msr	fpcr, x4
	ldp	x2, x3, [sp, #256]
	msr	elr_el1, x2
	msr	spsr_el1, x3
	ldr	x30, [sp, #240]
	GP_REGS ldp
	ldp	x0, x1, [sp, #0]
	add	sp, sp, #FRAME_SIZE
	eret

/* Where guest_code returns to. */
	.globl guest_code_return_stub
guest_code_return_stub:
	bl	guest_code_returned
1:	wfi
	b	1b

	.section .note.GNU-stack,"",@progbits

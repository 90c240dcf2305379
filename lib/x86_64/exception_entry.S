/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Guest exception entry for vectors 0-31, and interrupt entry for vectors
 * 32-255: each stub makes the frame uniform (a 0 error code where the CPU
 * pushes none, then the vector), exception_common saves the GPRs as a
 * struct ex_regs, calls route_exception(regs) and returns with IRETQ to
 * the (maybe changed) RIP.
 */
#define NUM_EXCEPTION_VECTORS	32
#define NUM_IDT_VECTORS		256

	.text

/* Vectors for which the CPU pushes an error code: 8, 10-14, 17, 21, 29, 30. */
.macro STUB vector
	.align 16
stub_\vector:
	.if !(\vector == 8 || (\vector >= 10 && \vector <= 14) || \vector == 17 || \
	      \vector == 21 || \vector == 29 || \vector == 30)
	pushq $0
	.endif
	pushq $\vector
	jmp exception_common
.endm

#define VECTORS 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, \
		16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31

	.irp v, VECTORS
	STUB \v
	.endr

/* Vectors 32-255 (interrupts: no error code), 16 bytes each. */
	.align 16
	.globl irq_stubs
irq_stubs:
	vector = NUM_EXCEPTION_VECTORS
	.rept NUM_IDT_VECTORS - NUM_EXCEPTION_VECTORS
	.align 16
	pushq $0
	pushq $vector
	jmp exception_common
	vector = vector + 1
	.endr

exception_common:
	/* struct ex_regs: rax first, so push in reverse. */
	pushq %r15
	pushq %r14
	pushq %r13
	pushq %r12
	pushq %r11
	pushq %r10
	pushq %r9
	pushq %r8
	pushq %rdi
	pushq %rsi
	pushq %rbp
	pushq %rbx
	pushq %rdx
	pushq %rcx
	pushq %rax
	movq %rsp, %rdi
	call route_exception
	popq %rax
	popq %rcx
	popq %rdx
	popq %rbx
	popq %rbp
	popq %rsi
	popq %rdi
	popq %r8
	popq %r9
	popq %r10
	popq %r11
	popq %r12
	popq %r13
	popq %r14
	popq %r15
	/* vector and error code */
	addq $16, %rsp
	iretq

/* Where guest_code returns to: the stack is 16-aligned here, so call. */
	.globl guest_code_return_stub
guest_code_return_stub:
	call guest_code_returned
	ud2

	.section .rodata
	.align 8
	.globl idt_stubs
idt_stubs:
	.irp v, VECTORS
	.quad stub_\v
	.endr

	.section .note.GNU-stack,"",@progbits

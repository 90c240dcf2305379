/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * x86_64: control register bits, segment selectors, exception vectors,
 * guest helpers for privileged instructions and port I/O, and host
 * helpers for sregs, events and CPUID.
 */
#ifndef SELFTEST_KVM_PROCESSOR_H
#define SELFTEST_KVM_PROCESSOR_H

#include <stdint.h>

#include "kvm_util.h"

#define X86_CR0_PE	(1UL << 0)
#define X86_CR0_MP	(1UL << 1)
#define X86_CR0_EM	(1UL << 2)
#define X86_CR0_TS	(1UL << 3)
#define X86_CR0_ET	(1UL << 4)
#define X86_CR0_NE	(1UL << 5)
#define X86_CR0_WP	(1UL << 16)
#define X86_CR0_AM	(1UL << 18)
#define X86_CR0_NW	(1UL << 29)
#define X86_CR0_CD	(1UL << 30)
#define X86_CR0_PG	(1UL << 31)

#define X86_CR4_PSE		(1UL << 4)
#define X86_CR4_PAE		(1UL << 5)
#define X86_CR4_PGE		(1UL << 7)
#define X86_CR4_OSFXSR		(1UL << 9)
#define X86_CR4_OSXMMEXCPT	(1UL << 10)
#define X86_CR4_LA57		(1UL << 12)
#define X86_CR4_VMXE		(1UL << 13)
#define X86_CR4_OSXSAVE		(1UL << 18)

#define EFER_SCE	(1UL << 0)
#define EFER_LME	(1UL << 8)
#define EFER_LMA	(1UL << 10)
#define EFER_NX		(1UL << 11)
#define EFER_SVME	(1UL << 12)

#define MSR_EFER		0xc0000080
#define MSR_FS_BASE		0xc0000100
#define MSR_GS_BASE		0xc0000101
#define MSR_VM_HSAVE_PA		0xc0010117

#define X86_EFLAGS_FIXED	(1UL << 1)
#define X86_EFLAGS_IF		(1UL << 9)
#define X86_EFLAGS_AC		(1UL << 18)
#define X86_EFLAGS_ID		(1UL << 21)

#define KERNEL_CS	0x8
#define KERNEL_DS	0x10
#define KERNEL_TSS	0x18

/* DE_VECTOR ... VE_VECTOR come from <asm/kvm.h>. */
#define NMI_VECTOR		2
#define CP_VECTOR		21
#define NUM_EXCEPTION_VECTORS	32
#define NUM_IDT_VECTORS		256	/* 32-255: interrupts */

/* Page-fault error code bits. */
#define PFERR_PRESENT	(1UL << 0)
#define PFERR_WRITE	(1UL << 1)
#define PFERR_USER	(1UL << 2)
#define PFERR_FETCH	(1UL << 4)

/* What the exception entry saved; a handler may change it (e.g. rip). */
struct ex_regs {
	uint64_t rax, rcx, rdx, rbx;
	uint64_t rbp, rsi, rdi;
	uint64_t r8, r9, r10, r11;
	uint64_t r12, r13, r14, r15;
	uint64_t vector;
	uint64_t error_code;
	uint64_t rip;
	uint64_t cs;
	uint64_t rflags;
	uint64_t rsp;
	uint64_t ss;
};

typedef void (*exception_handler_t)(struct ex_regs *regs);

/* Run @handler in the guest for @vector (0-255); NULL restores the default. */
void vm_install_exception_handler(struct kvm_vm *vm, int vector,
				  exception_handler_t handler);
const char *exception_vector_name(unsigned int vector);

/* Guest helpers. */
static inline uint64_t get_cr0(void)
{
	uint64_t v;

	__asm__ __volatile__("mov %%cr0, %0" : "=r"(v));
	return v;
}

static inline uint64_t get_cr2(void)
{
	uint64_t v;

	__asm__ __volatile__("mov %%cr2, %0" : "=r"(v));
	return v;
}

static inline void set_cr2(uint64_t v)
{
	__asm__ __volatile__("mov %0, %%cr2" : : "r"(v) : "memory");
}

static inline uint64_t get_cr3(void)
{
	uint64_t v;

	__asm__ __volatile__("mov %%cr3, %0" : "=r"(v));
	return v;
}

static inline uint64_t get_cr4(void)
{
	uint64_t v;

	__asm__ __volatile__("mov %%cr4, %0" : "=r"(v));
	return v;
}

static inline void set_cr4(uint64_t v)
{
	__asm__ __volatile__("mov %0, %%cr4" : : "r"(v) : "memory");
}

static inline uint64_t read_rflags(void)
{
	uint64_t v;

	__asm__ __volatile__("pushfq; popq %0" : "=r"(v) : : "memory");
	return v;
}

static inline void write_rflags(uint64_t v)
{
	__asm__ __volatile__("pushq %0; popfq" : : "r"(v) : "memory", "cc");
}

/* One 32-bit store to device memory (MMIO): a plain MOV the host decodes. */
static inline void mmio_write32(uint64_t addr, uint32_t v)
{
	__asm__ __volatile__("movl %0, (%1)" : : "r"(v), "r"(addr) : "memory");
}

static inline void outb(uint16_t port, uint8_t v)
{
	__asm__ __volatile__("out %0, %1" : : "a"(v), "Nd"(port) : "memory");
}

static inline void outw(uint16_t port, uint16_t v)
{
	__asm__ __volatile__("out %0, %1" : : "a"(v), "Nd"(port) : "memory");
}

static inline void outl(uint16_t port, uint32_t v)
{
	__asm__ __volatile__("out %0, %1" : : "a"(v), "Nd"(port) : "memory");
}

static inline uint8_t inb(uint16_t port)
{
	uint8_t v;

	__asm__ __volatile__("in %1, %0" : "=a"(v) : "Nd"(port) : "memory");
	return v;
}

static inline uint16_t inw(uint16_t port)
{
	uint16_t v;

	__asm__ __volatile__("in %1, %0" : "=a"(v) : "Nd"(port) : "memory");
	return v;
}

static inline uint32_t inl(uint16_t port)
{
	uint32_t v;

	__asm__ __volatile__("in %1, %0" : "=a"(v) : "Nd"(port) : "memory");
	return v;
}

static inline uint64_t rdmsr(uint32_t msr)
{
	uint32_t lo, hi;

	__asm__ __volatile__("rdmsr" : "=a"(lo), "=d"(hi) : "c"(msr) : "memory");
	return lo | ((uint64_t)hi << 32);
}

static inline void wrmsr(uint32_t msr, uint64_t v)
{
	__asm__ __volatile__("wrmsr" : : "a"((uint32_t)v), "d"((uint32_t)(v >> 32)), "c"(msr)
			     : "memory");
}

/*
 * Load a byte with a 2-byte instruction (mov (%rdi), %al), so a #PF
 * handler can skip it with rip += 2, as for ud2().
 */
static inline uint8_t load_byte_2b(const void *p)
{
	uint8_t v;

	__asm__ __volatile__("movb (%1), %0" : "=a"(v) : "D"(p) : "memory");
	return v;
}

/* Raise #UD with a 2-byte instruction. */
static inline void ud2(void)
{
	__asm__ __volatile__("ud2" : : : "memory");
}

/* Host helpers. */
void vcpu_regs_get(struct kvm_vcpu *vcpu, struct kvm_regs *regs);
void vcpu_regs_set(struct kvm_vcpu *vcpu, struct kvm_regs *regs);
void vcpu_sregs_get(struct kvm_vcpu *vcpu, struct kvm_sregs *sregs);
void vcpu_sregs_set(struct kvm_vcpu *vcpu, struct kvm_sregs *sregs);
int __vcpu_sregs_set(struct kvm_vcpu *vcpu, struct kvm_sregs *sregs);
void vcpu_events_get(struct kvm_vcpu *vcpu, struct kvm_vcpu_events *events);

/* KVM_GET_SUPPORTED_CPUID, read once. */
const struct kvm_cpuid2 *kvm_get_supported_cpuid(void);
const struct kvm_cpuid_entry2 *kvm_get_supported_cpuid_entry(uint32_t function,
							     uint32_t index);
void vcpu_init_cpuid(struct kvm_vcpu *vcpu, const struct kvm_cpuid2 *cpuid);

/* Arch-internal: the flat segments and descriptor tables of a vCPU. */
extern const uint64_t idt_stubs[NUM_EXCEPTION_VECTORS];	/* exception_entry.S */
extern const char irq_stubs[];		/* vectors 32-255, 16 bytes each */
extern const char irq_wait_hlt[];	/* apic.c: the HLT of guest_irq_wait() */
void guest_code_return_stub(void);				/* exception_entry.S */
void route_exception(struct ex_regs *regs);			/* exceptions.c */
void guest_code_returned(void);
extern exception_handler_t *exception_handlers;	/* guest: the VM's handler table */
void x86_segment_code(struct kvm_segment *seg);
void x86_segment_data(struct kvm_segment *seg);
void x86_segment_tss(struct kvm_vm *vm, struct kvm_segment *seg);
void x86_sregs_tables(struct kvm_vm *vm, struct kvm_sregs *sregs);
/*
 * Map @va to @pa with one @size (4K, 2M, 1G) entry in the 4-level tables
 * at @root (guest page tables, or NPT/EPT for L2), allocating tables with
 * @table_flags; the leaf gets @leaf_flags (and the large-page bit).
 */
void x86_pt_map(struct kvm_vm *vm, uint64_t root, uint64_t va, uint64_t pa, uint64_t size,
		uint64_t table_flags, uint64_t leaf_flags);
/* A new guest stack: the RSP to start guest code with. */
uint64_t x86_guest_stack(struct kvm_vm *vm);
bool x86_pt_mapped(struct kvm_vm *vm, uint64_t root, uint64_t va);

#endif /* SELFTEST_KVM_PROCESSOR_H */

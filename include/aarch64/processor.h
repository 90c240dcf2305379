/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * aarch64: one-reg IDs of the core and system registers the library uses,
 * their bits, exception classes and vectors, guest helpers for system
 * registers and faulting instructions, and host helpers for vCPUs.
 */
#ifndef SELFTEST_KVM_PROCESSOR_H
#define SELFTEST_KVM_PROCESSOR_H

#include <stddef.h>
#include <stdint.h>

#include "kvm_util.h"

#ifndef GENMASK_ULL
#define GENMASK_ULL(h, l)	((~0ULL >> (63 - (h))) & ~((1ULL << (l)) - 1))
#endif

/* One-reg IDs: a field of struct kvm_regs, or a system register. */
#define ARM64_CORE_REG(x)	(KVM_REG_ARM64 | KVM_REG_SIZE_U64 |		\
				 KVM_REG_ARM_CORE | KVM_REG_ARM_CORE_REG(x))
#define ARM64_CORE_X(n)		ARM64_CORE_REG(regs.regs[n])
#define ARM64_CORE_SP_EL0	ARM64_CORE_REG(regs.sp)
#define ARM64_CORE_PC		ARM64_CORE_REG(regs.pc)
#define ARM64_CORE_PSTATE	ARM64_CORE_REG(regs.pstate)
#define ARM64_CORE_SP_EL1	ARM64_CORE_REG(sp_el1)
#define ARM64_CORE_ELR_EL1	ARM64_CORE_REG(elr_el1)
#define ARM64_CORE_SPSR_EL1	ARM64_CORE_REG(spsr[KVM_SPSR_EL1])

#define SYS_MPIDR_EL1		ARM64_SYS_REG(3, 0, 0, 0, 5)
#define SYS_ID_AA64PFR0_EL1	ARM64_SYS_REG(3, 0, 0, 4, 0)
#define SYS_ID_AA64MMFR0_EL1	ARM64_SYS_REG(3, 0, 0, 7, 0)
#define SYS_SCTLR_EL1		ARM64_SYS_REG(3, 0, 1, 0, 0)
#define SYS_CPACR_EL1		ARM64_SYS_REG(3, 0, 1, 0, 2)
#define SYS_TTBR0_EL1		ARM64_SYS_REG(3, 0, 2, 0, 0)
#define SYS_TTBR1_EL1		ARM64_SYS_REG(3, 0, 2, 0, 1)
#define SYS_TCR_EL1		ARM64_SYS_REG(3, 0, 2, 0, 2)
#define SYS_ESR_EL1		ARM64_SYS_REG(3, 0, 5, 2, 0)
#define SYS_FAR_EL1		ARM64_SYS_REG(3, 0, 6, 0, 0)
#define SYS_MAIR_EL1		ARM64_SYS_REG(3, 0, 10, 2, 0)
#define SYS_VBAR_EL1		ARM64_SYS_REG(3, 0, 12, 0, 0)
#define SYS_CONTEXTIDR_EL1	ARM64_SYS_REG(3, 0, 13, 0, 1)
#define SYS_TPIDR_EL1		ARM64_SYS_REG(3, 0, 13, 0, 4)
#define SYS_CNTKCTL_EL1		ARM64_SYS_REG(3, 0, 14, 1, 0)

/* MPIDR_EL1: the affinity fields, what PSCI calls take as a target. */
#define MPIDR_HWID_MASK		0xff00ffffffUL

/* SCTLR_EL1 */
#define SCTLR_M			(1UL << 0)
#define SCTLR_C			(1UL << 2)
#define SCTLR_I			(1UL << 12)

/* CPACR_EL1: no trap of FP/SIMD at EL0 or EL1. */
#define CPACR_FPEN		(3UL << 20)

/* TCR_EL1 */
#define TCR_T0SZ(va_bits)	(64UL - (va_bits))
#define TCR_IRGN0_WBWA		(1UL << 8)
#define TCR_ORGN0_WBWA		(1UL << 10)
#define TCR_SH0_INNER		(3UL << 12)
#define TCR_TG0_4K		(0UL << 14)
#define TCR_TG0_64K		(1UL << 14)
#define TCR_TG0_16K		(2UL << 14)
#define TCR_EPD1		(1UL << 23)
#define TCR_TG1_4K		(2UL << 30)
#define TCR_IPS_SHIFT		32

/* MAIR_EL1 attribute indexes and the attribute each one holds. */
#define MT_DEVICE_nGnRnE	0
#define MT_DEVICE_nGnRE		1
#define MT_NORMAL_NC		2
#define MT_NORMAL		3
#define MAIR_ATTR(idx, attr)	((uint64_t)(attr) << ((idx) * 8))
#define MAIR_EL1_VALUE		(MAIR_ATTR(MT_DEVICE_nGnRnE, 0x00) |		\
				 MAIR_ATTR(MT_DEVICE_nGnRE, 0x04) |		\
				 MAIR_ATTR(MT_NORMAL_NC, 0x44) |		\
				 MAIR_ATTR(MT_NORMAL, 0xff))

/* ID_AA64MMFR0_EL1 */
#define MMFR0_PARANGE(v)	((v) & 0xf)
#define MMFR0_TGRAN16(v)	(((v) >> 20) & 0xf)	/* 0: none */
#define MMFR0_TGRAN64(v)	(((v) >> 24) & 0xf)	/* 0xf: none */
#define MMFR0_TGRAN4(v)		(((v) >> 28) & 0xf)	/* 0xf: none */

/* PSTATE: EL1 using SP_EL1, D, A, I and F masked. */
#define PSTATE_EL1H		0x5UL
#define PSTATE_DAIF		(0xfUL << 6)

/* ESR_ELx */
#define ESR_EC_SHIFT		26
#define ESR_EC(esr)		(((esr) >> ESR_EC_SHIFT) & 0x3f)
#define ESR_EC_NUM		64
#define ESR_EC_UNKNOWN		0x00
#define ESR_EC_SVC64		0x15
#define ESR_EC_HVC64		0x16
#define ESR_EC_SYS64		0x18
#define ESR_EC_IABT_CUR		0x21
#define ESR_EC_PC_ALIGN		0x22
#define ESR_EC_DABT_CUR		0x25
#define ESR_EC_SP_ALIGN		0x26
#define ESR_EC_SERROR		0x2f
#define ESR_EC_BRK64		0x3c

/* VBAR_EL1 vectors: 4 kinds, for 4 sources of the exception. */
enum {
	VECTOR_SYNC_CURRENT_SP0,
	VECTOR_IRQ_CURRENT_SP0,
	VECTOR_FIQ_CURRENT_SP0,
	VECTOR_ERROR_CURRENT_SP0,
	VECTOR_SYNC_CURRENT,
	VECTOR_IRQ_CURRENT,
	VECTOR_FIQ_CURRENT,
	VECTOR_ERROR_CURRENT,
	VECTOR_SYNC_LOWER_64,
	VECTOR_IRQ_LOWER_64,
	VECTOR_FIQ_LOWER_64,
	VECTOR_ERROR_LOWER_64,
	VECTOR_SYNC_LOWER_32,
	VECTOR_IRQ_LOWER_32,
	VECTOR_FIQ_LOWER_32,
	VECTOR_ERROR_LOWER_32,
	VECTOR_NUM,
};

#define VECTOR_IS_SYNC(v)	((v) % 4 == 0)

/*
 * What the exception entry saved; a handler may change it (e.g. pc, to
 * skip the instruction).  x0-x30, the interrupted SP, ELR and SPSR.
 */
struct ex_regs {
	uint64_t regs[31];
	uint64_t sp;
	uint64_t pc;
	uint64_t pstate;
};

typedef void (*handler_fn)(struct ex_regs *regs);

/*
 * Run @handler in the guest for @vector; synchronous vectors take one
 * handler per exception class @ec.  NULL restores the default (report).
 */
void vm_install_exception_handler(struct kvm_vm *vm, int vector, handler_fn handler);
void vm_install_sync_handler(struct kvm_vm *vm, int vector, int ec, handler_fn handler);
const char *exception_vector_name(unsigned int vector);
const char *esr_ec_name(unsigned int ec);

/* Guest helpers. */
#define read_sysreg(r) ({						\
	uint64_t __v;							\
	__asm__ __volatile__("mrs %0, " #r : "=r"(__v));		\
	__v;								\
})

#define write_sysreg(v, r) ({						\
	uint64_t __v = (uint64_t)(v);					\
	__asm__ __volatile__("msr " #r ", %x0" : : "rZ"(__v) : "memory"); \
})

static inline void isb(void)
{
	__asm__ __volatile__("isb" : : : "memory");
}

/* Each helper faults with one 4-byte instruction: a handler skips it. */
static inline void guest_udf(void)
{
	__asm__ __volatile__("udf #0" : : : "memory");
}

static inline void guest_brk(void)
{
	__asm__ __volatile__("brk #0x7" : : : "memory");
}

static inline uint64_t guest_load(const void *p)
{
	uint64_t v = 0;

	__asm__ __volatile__("ldr %0, [%1]" : "+r"(v) : "r"(p) : "memory");
	return v;
}

/* SMCCC 1.1 call through HVC: x0 function id, x1-x3 arguments. */
struct smccc_res {
	uint64_t a0, a1, a2, a3;
};

void smccc_hvc(uint32_t fn, uint64_t a1, uint64_t a2, uint64_t a3,
	       struct smccc_res *res);
int64_t psci_version(void);
int64_t psci_cpu_on(uint64_t target_mpidr, uint64_t entry, uint64_t context_id);
int64_t psci_affinity_info(uint64_t target_mpidr, uint64_t lowest_level);
void psci_system_off(void);

/*
 * PSCI CPU_ON entry point for vCPUs added powered off: the target starts
 * with its MMU off at this GPA, which turns the MMU on and calls the
 * vCPU's guest code with CPU_ON's context id as its argument.
 */
#define CPU_ON_ENTRY_GPA	0

void vcpu_get_reg(struct kvm_vcpu *vcpu, uint64_t id, void *addr);
void vcpu_set_reg(struct kvm_vcpu *vcpu, uint64_t id, uint64_t val);
uint64_t vcpu_get_reg64(struct kvm_vcpu *vcpu, uint64_t id);
/* KVM_GET_REG_LIST, malloc'ed: free() it. */
struct kvm_reg_list *vcpu_get_reg_list(struct kvm_vcpu *vcpu);

/*
 * A vCPU with KVM_ARM_VCPU_* @features besides PSCI 0.2 (psci.c).  With
 * KVM_ARM_VCPU_POWER_OFF it waits for a PSCI CPU_ON to CPU_ON_ENTRY_GPA
 * and then runs @guest_code(context id).
 */
struct kvm_vcpu *aarch64_vcpu_add(struct kvm_vm *vm, uint32_t id, uint32_t features,
				  void *guest_code);

/* Arch-internal. */
extern const char exception_vectors[];		/* exception_entry.S */
extern const char cpu_on_entry[], cpu_on_entry_end[];	/* cpu_on_entry.S */
void guest_code_return_stub(void);		/* exception_entry.S */
void route_exception(struct ex_regs *regs, uint64_t vector);
void guest_code_returned(void);
uint64_t aarch64_tcr(struct kvm_vm *vm);
uint64_t aarch64_ttbr0(struct kvm_vm *vm);
void aarch64_pg_map_attr(struct kvm_vm *vm, uint64_t gva, uint64_t gpa,
			 uint64_t size, unsigned int attr);
/* Set up a new vCPU (KVM_ARM_VCPU_INIT with @features) at EL1; its stack top. */
uint64_t aarch64_vcpu_setup(struct kvm_vm *vm, struct kvm_vcpu *vcpu, uint32_t features);

#endif /* SELFTEST_KVM_PROCESSOR_H */

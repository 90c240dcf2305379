// SPDX-License-Identifier: GPL-2.0-only
/*
 * aarch64 vCPUs: KVM_ARM_VCPU_INIT, one-reg access, and the registers that
 * start guest code at EL1 with the MMU, caches and FP/SIMD on: MAIR, TCR,
 * TTBR0, SCTLR, CPACR, VBAR, a stack in SP_EL1, PC and PSTATE.
 */
#include "processor.h"

#define GUEST_STACK_VADDR_MIN	0x100000
#define NR_ARGS			8	/* x0-x7 */

void vcpu_get_reg(struct kvm_vcpu *vcpu, uint64_t id, void *addr)
{
	struct kvm_one_reg reg = { .id = id, .addr = (uintptr_t)addr };

	vcpu_ioctl(vcpu, KVM_GET_ONE_REG, &reg);
}

uint64_t vcpu_get_reg64(struct kvm_vcpu *vcpu, uint64_t id)
{
	uint64_t val;

	TEST_ASSERT((id & KVM_REG_SIZE_MASK) == KVM_REG_SIZE_U64,
		    "Register 0x%lx is not 64-bit", (unsigned long)id);
	vcpu_get_reg(vcpu, id, &val);
	return val;
}

void vcpu_set_reg(struct kvm_vcpu *vcpu, uint64_t id, uint64_t val)
{
	struct kvm_one_reg reg = { .id = id, .addr = (uintptr_t)&val };

	TEST_ASSERT((id & KVM_REG_SIZE_MASK) == KVM_REG_SIZE_U64,
		    "Register 0x%lx is not 64-bit", (unsigned long)id);
	vcpu_ioctl(vcpu, KVM_SET_ONE_REG, &reg);
}

struct kvm_reg_list *vcpu_get_reg_list(struct kvm_vcpu *vcpu)
{
	struct kvm_reg_list probe = { .n = 0 }, *list;
	int ret = __vcpu_ioctl(vcpu, KVM_GET_REG_LIST, &probe);

	TEST_ASSERT(ret == -1 && errno == E2BIG,
		    "KVM_GET_REG_LIST with n = 0 should fail with E2BIG, rc %d errno %d",
		    ret, errno);
	list = calloc(1, sizeof(*list) + probe.n * sizeof(list->reg[0]));
	TEST_ASSERT(list, "Out of memory");
	list->n = probe.n;
	vcpu_ioctl(vcpu, KVM_GET_REG_LIST, list);
	return list;
}

static void vcpu_init(struct kvm_vcpu *vcpu, uint32_t features)
{
	struct kvm_vcpu_init init;

	vm_ioctl(vcpu->vm, KVM_ARM_PREFERRED_TARGET, &init);
	init.features[0] |= (1U << KVM_ARM_VCPU_PSCI_0_2) | features;
	vcpu_ioctl(vcpu, KVM_ARM_VCPU_INIT, &init);
}

/* Translation regime, vectors and FP/SIMD: the same for every vCPU. */
static void vcpu_setup_el1(struct kvm_vm *vm, struct kvm_vcpu *vcpu)
{
	uint64_t sctlr = vcpu_get_reg64(vcpu, SYS_SCTLR_EL1);

	vcpu_set_reg(vcpu, SYS_CPACR_EL1, CPACR_FPEN);
	vcpu_set_reg(vcpu, SYS_MAIR_EL1, MAIR_EL1_VALUE);
	vcpu_set_reg(vcpu, SYS_TCR_EL1, aarch64_tcr(vm));
	vcpu_set_reg(vcpu, SYS_TTBR0_EL1, aarch64_ttbr0(vm));
	vcpu_set_reg(vcpu, SYS_VBAR_EL1, (uint64_t)exception_vectors);
	vcpu_set_reg(vcpu, SYS_SCTLR_EL1, sctlr | SCTLR_M | SCTLR_C | SCTLR_I);
}

/* Set up a new vCPU to run at EL1 on its own stack; returns the stack top. */
uint64_t aarch64_vcpu_setup(struct kvm_vm *vm, struct kvm_vcpu *vcpu, uint32_t features)
{
	uint64_t size = DEFAULT_STACK_PGS * vm->page_size;
	uint64_t stack = vm_vaddr_alloc(vm, size, GUEST_STACK_VADDR_MIN);

	vcpu_init(vcpu, features);
	vcpu_setup_el1(vm, vcpu);
	vcpu_set_reg(vcpu, ARM64_CORE_SP_EL1, stack + size);
	vcpu_set_reg(vcpu, ARM64_CORE_PSTATE, PSTATE_EL1H | PSTATE_DAIF);
	/* A return from guest_code lands in a stub that reports it. */
	vcpu_set_reg(vcpu, ARM64_CORE_X(30), (uint64_t)guest_code_return_stub);
	return stack + size;
}

void vcpu_arch_add(struct kvm_vm *vm, struct kvm_vcpu *vcpu)
{
	aarch64_vcpu_setup(vm, vcpu, 0);
}

void vcpu_arch_set_entry(struct kvm_vcpu *vcpu, void *guest_code)
{
	vcpu_set_reg(vcpu, ARM64_CORE_PC, (uint64_t)guest_code);
}

void vcpu_args_set(struct kvm_vcpu *vcpu, unsigned int num, ...)
{
	va_list va;
	unsigned int i;

	TEST_ASSERT(num <= NR_ARGS, "At most %u guest arguments, not %u", NR_ARGS, num);
	va_start(va, num);
	for (i = 0; i < num; i++)
		vcpu_set_reg(vcpu, ARM64_CORE_X(i), va_arg(va, uint64_t));
	va_end(va);
}

// SPDX-License-Identifier: GPL-2.0-only
/*
 * KVM_GET_REG_LIST of a vCPU as the library sets it up: every register the
 * library and the tests rely on must be listed (core registers, the EL1
 * system registers of the MMU, vectors and FP/SIMD, the timer and the PSCI
 * firmware registers), and the ones the library sets read back its values.
 */
#include "processor.h"

#define CORE_U128(x)	(KVM_REG_ARM64 | KVM_REG_SIZE_U128 | KVM_REG_ARM_CORE | \
			 KVM_REG_ARM_CORE_REG(x))
#define CORE_U32(x)	(KVM_REG_ARM64 | KVM_REG_SIZE_U32 | KVM_REG_ARM_CORE | \
			 KVM_REG_ARM_CORE_REG(x))
#define REG(id)		{ #id, id }

struct named_reg {
	const char *name;
	uint64_t id;
};

static const struct named_reg fixed_regs[] = {
	REG(ARM64_CORE_SP_EL0), REG(ARM64_CORE_PC), REG(ARM64_CORE_PSTATE),
	REG(ARM64_CORE_SP_EL1), REG(ARM64_CORE_ELR_EL1), REG(ARM64_CORE_SPSR_EL1),
	{ "fpsr", CORE_U32(fp_regs.fpsr) }, { "fpcr", CORE_U32(fp_regs.fpcr) },
	REG(SYS_MPIDR_EL1), REG(SYS_ID_AA64PFR0_EL1), REG(SYS_ID_AA64MMFR0_EL1),
	REG(SYS_SCTLR_EL1), REG(SYS_CPACR_EL1), REG(SYS_TTBR0_EL1),
	REG(SYS_TTBR1_EL1), REG(SYS_TCR_EL1), REG(SYS_ESR_EL1), REG(SYS_FAR_EL1),
	REG(SYS_MAIR_EL1), REG(SYS_VBAR_EL1), REG(SYS_CONTEXTIDR_EL1),
	REG(SYS_TPIDR_EL1), REG(SYS_CNTKCTL_EL1),
	REG(KVM_REG_ARM_TIMER_CTL), REG(KVM_REG_ARM_TIMER_CNT),
	REG(KVM_REG_ARM_TIMER_CVAL),
	REG(KVM_REG_ARM_PSCI_VERSION), REG(KVM_REG_ARM_SMCCC_ARCH_WORKAROUND_1),
	REG(KVM_REG_ARM_SMCCC_ARCH_WORKAROUND_2),
};

#define NR_EXPECTED	(31 + 32 + ARRAY_SIZE(fixed_regs))

/* x0-x30, v0-v31, then the fixed ones. */
static unsigned int expected_regs(struct named_reg *regs)
{
	static char names[63][8];
	unsigned int i, n = 0;

	for (i = 0; i < 31; i++) {
		snprintf(names[n], sizeof(names[n]), "x%u", i);
		regs[n] = (struct named_reg) { names[n], ARM64_CORE_X(i) };
		n++;
	}
	for (i = 0; i < 32; i++) {
		snprintf(names[n], sizeof(names[n]), "v%u", i);
		regs[n] = (struct named_reg) { names[n], CORE_U128(fp_regs.vregs[i]) };
		n++;
	}
	for (i = 0; i < ARRAY_SIZE(fixed_regs); i++)
		regs[n++] = fixed_regs[i];
	return n;
}

static bool listed(const struct kvm_reg_list *list, uint64_t id)
{
	uint64_t i;

	for (i = 0; i < list->n; i++)
		if (list->reg[i] == id)
			return true;
	return false;
}

static void check_listed(struct kvm_vcpu *vcpu)
{
	struct kvm_reg_list *list = vcpu_get_reg_list(vcpu);
	struct named_reg regs[NR_EXPECTED];
	unsigned int n = expected_regs(regs), i, missing = 0;

	for (i = 0; i < n; i++) {
		if (listed(list, regs[i].id))
			continue;
		ksft_print_msg("missing: %s (0x%llx)\n", regs[i].name,
			       (unsigned long long)regs[i].id);
		missing++;
	}
	TEST_ASSERT(!missing, "%u of %u expected registers not in KVM_GET_REG_LIST",
		    missing, n);
	ksft_test_result_pass("KVM_GET_REG_LIST: %llu registers, all %u expected ones listed\n",
			      (unsigned long long)list->n, n);
	free(list);
}

/* The registers the library sets hold what it set. */
static void check_values(struct kvm_vm *vm, struct kvm_vcpu *vcpu)
{
	const struct {
		const char *name;
		uint64_t id, mask, val;
	} vals[] = {
		{ "TCR_EL1", SYS_TCR_EL1, ~0UL, aarch64_tcr(vm) },
		{ "TTBR0_EL1", SYS_TTBR0_EL1, ~0UL, aarch64_ttbr0(vm) },
		{ "MAIR_EL1", SYS_MAIR_EL1, ~0UL, MAIR_EL1_VALUE },
		{ "VBAR_EL1", SYS_VBAR_EL1, ~0UL, (uint64_t)exception_vectors },
		{ "CPACR_EL1", SYS_CPACR_EL1, CPACR_FPEN, CPACR_FPEN },
		{ "SCTLR_EL1", SYS_SCTLR_EL1, SCTLR_M | SCTLR_C | SCTLR_I,
		  SCTLR_M | SCTLR_C | SCTLR_I },
		{ "PSTATE", ARM64_CORE_PSTATE, ~0UL, PSTATE_EL1H | PSTATE_DAIF },
	};
	unsigned int i;
	uint64_t v;

	for (i = 0; i < ARRAY_SIZE(vals); i++) {
		v = vcpu_get_reg64(vcpu, vals[i].id);
		TEST_ASSERT((v & vals[i].mask) == vals[i].val,
			    "%s is 0x%lx, expected 0x%lx under mask 0x%lx", vals[i].name,
			    (unsigned long)v, (unsigned long)vals[i].val,
			    (unsigned long)vals[i].mask);
	}
	ksft_test_result_pass("%zu registers the library sets read back its values\n",
			      ARRAY_SIZE(vals));
}

static __guest_code void guest_code(void)
{
	GUEST_DONE();
}

int main(int argc, char *argv[])
{
	struct kvm_vcpu *vcpu;
	struct kvm_vm *vm;

	parse_no_options(argc, argv, "KVM_GET_REG_LIST holds every register the library uses.");

	TEST_REQUIRE(kvm_has_cap(KVM_CAP_ONE_REG));
	ksft_print_header();
	ksft_set_plan(2);
	vm = vm_create_with_one_vcpu(&vcpu, guest_code);
	check_listed(vcpu);
	check_values(vm, vcpu);
	kvm_vm_free(vm);
	ksft_finished();
}

// SPDX-License-Identifier: GPL-2.0-only
/*
 * PSCI through KVM: the version the guest sees is KVM_REG_ARM_PSCI_VERSION;
 * CPU_ON from vCPU 0 starts vCPU 1 (created with KVM_ARM_VCPU_POWER_OFF),
 * which runs guest code with CPU_ON's context id; AFFINITY_INFO and a
 * second CPU_ON see it on; SYSTEM_OFF ends in KVM_EXIT_SYSTEM_EVENT with
 * KVM_SYSTEM_EVENT_SHUTDOWN.
 */
#include <linux/psci.h>

#include "processor.h"

#define CONTEXT_ID	0xc0ffee0042UL

#define STAGE_VERSION	1UL
#define STAGE_CPU_ON	2UL
#define STAGE_ON_AGAIN	3UL

static __guest_code void secondary_main(uint64_t context_id)
{
	GUEST_SYNC(context_id);
	GUEST_DONE();
}

static __guest_code void primary_main(uint64_t target)
{
	GUEST_SYNC_ARGS(STAGE_VERSION, psci_version(), 0, 0, 0);
	GUEST_ASSERT_EQ(psci_affinity_info(target, 0), PSCI_0_2_AFFINITY_LEVEL_OFF);
	GUEST_ASSERT_EQ(psci_cpu_on(target, CPU_ON_ENTRY_GPA, CONTEXT_ID), PSCI_RET_SUCCESS);
	GUEST_SYNC(STAGE_CPU_ON);
	GUEST_ASSERT_EQ(psci_affinity_info(target, 0), PSCI_0_2_AFFINITY_LEVEL_ON);
	GUEST_ASSERT_EQ(psci_cpu_on(target, CPU_ON_ENTRY_GPA, CONTEXT_ID),
			PSCI_RET_ALREADY_ON);
	GUEST_SYNC(STAGE_ON_AGAIN);
	psci_system_off();
	GUEST_FAIL("SYSTEM_OFF returned");
}

/* Run @vcpu to its next ucall, which must be a SYNC; returns args[1]. */
static uint64_t run_to_sync(struct kvm_vcpu *vcpu, struct ucall *uc)
{
	vcpu_run_expect(vcpu, UCALL_SYNC, uc);
	return uc->args[1];
}

static void check_version(struct kvm_vcpu *vcpu, struct ucall *uc)
{
	uint64_t reg = vcpu_get_reg64(vcpu, KVM_REG_ARM_PSCI_VERSION), seen = uc->args[2];

	TEST_ASSERT(seen == reg, "Guest sees PSCI version 0x%lx, the register says 0x%lx",
		    (unsigned long)seen, (unsigned long)reg);
	TEST_ASSERT(seen >= PSCI_VERSION(0, 2),
		    "PSCI version 0x%lx is older than 0.2", (unsigned long)seen);
	ksft_test_result_pass("PSCI_VERSION %lu.%lu, as KVM_REG_ARM_PSCI_VERSION says\n",
			      (unsigned long)PSCI_VERSION_MAJOR(seen),
			      (unsigned long)PSCI_VERSION_MINOR(seen));
}

static void check_shutdown(struct kvm_vcpu *vcpu)
{
	struct kvm_run *run = vcpu->run;
	struct ucall uc;

	vcpu_run_ucall(vcpu, &uc);
	TEST_ASSERT_KVM_EXIT_REASON(vcpu, KVM_EXIT_SYSTEM_EVENT);
	TEST_ASSERT(run->system_event.type == KVM_SYSTEM_EVENT_SHUTDOWN,
		    "System event type %u, expected SHUTDOWN (%u)", run->system_event.type,
		    KVM_SYSTEM_EVENT_SHUTDOWN);
	ksft_test_result_pass("SYSTEM_OFF: KVM_EXIT_SYSTEM_EVENT, KVM_SYSTEM_EVENT_SHUTDOWN\n");
}

int main(int argc, char *argv[])
{
	struct kvm_vcpu *primary, *secondary;
	struct kvm_vm *vm;
	struct ucall uc;
	uint64_t mpidr;

	parse_no_options(argc, argv, "PSCI version, CPU_ON of a second vCPU and SYSTEM_OFF.");

	TEST_REQUIRE(kvm_has_cap(KVM_CAP_ARM_PSCI_0_2));
	ksft_print_header();
	ksft_set_plan(4);

	vm = __vm_create(VM_MODE_DEFAULT, 2, 0);
	primary = aarch64_vcpu_add(vm, 0, 0, primary_main);
	secondary = aarch64_vcpu_add(vm, 1, 1U << KVM_ARM_VCPU_POWER_OFF, secondary_main);
	mpidr = vcpu_get_reg64(secondary, SYS_MPIDR_EL1) & MPIDR_HWID_MASK;
	vcpu_args_set(primary, 1, mpidr);

	TEST_ASSERT_EQ(run_to_sync(primary, &uc), STAGE_VERSION);
	check_version(primary, &uc);

	TEST_ASSERT_EQ(run_to_sync(primary, &uc), STAGE_CPU_ON);
	TEST_ASSERT_EQ(run_to_sync(secondary, &uc), CONTEXT_ID);
	ksft_test_result_pass("CPU_ON: vCPU 1 (MPIDR 0x%lx) ran with context id 0x%lx\n",
			      (unsigned long)mpidr, CONTEXT_ID);

	TEST_ASSERT_EQ(run_to_sync(primary, &uc), STAGE_ON_AGAIN);
	ksft_test_result_pass("AFFINITY_INFO: ON; CPU_ON again: ALREADY_ON\n");

	check_shutdown(primary);
	kvm_vm_free(vm);
	ksft_finished();
}

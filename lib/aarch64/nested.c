// SPDX-License-Identifier: GPL-2.0-only
/*
 * aarch64 nested vCPUs: not written.  A guest hypervisor would need the
 * vCPU started at EL2 (KVM_ARM_VCPU_HAS_EL2, FEAT_NV), which the KVMs
 * this suite runs on (6.1, 6.12) do not offer, so -n is a skip here.
 */
#include <stdio.h>

#include "processor.h"

const char *nested_arch_unavailable(char *why, size_t len)
{
	snprintf(why, len, "Nested vCPUs (-n): not on arm64 (no guest hypervisor at EL2 in this suite)");
	return why;
}

uint64_t nested_arch_extra_pages(uint32_t nr_vcpus, uint64_t bytes)
{
	return 0;
}

void nested_arch_vm_setup(struct kvm_vm *vm)
{
	TEST_FAIL("Nested vCPUs are not available on arm64");
}

void nested_arch_vcpu_setup(struct kvm_vm *vm, struct kvm_vcpu *vcpu, void *l2_code,
			    uint64_t arg)
{
	TEST_FAIL("Nested vCPUs are not available on arm64");
}

int nested_arch_vcpu_in_l2(struct kvm_vcpu *vcpu)
{
	return -1;
}

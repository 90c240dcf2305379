// SPDX-License-Identifier: GPL-2.0-only
/*
 * CPUID: what KVM supports (KVM_GET_SUPPORTED_CPUID), given to each vCPU.
 */
#include <fcntl.h>

#include "processor.h"

const struct kvm_cpuid2 *kvm_get_supported_cpuid(void)
{
	static struct kvm_cpuid2 *cpuid;
	int nent = 64, fd, ret;

	if (cpuid)
		return cpuid;
	fd = open_kvm_dev_path_or_exit(O_RDONLY);
	for (;;) {
		cpuid = calloc(1, sizeof(*cpuid) + nent * sizeof(cpuid->entries[0]));
		TEST_ASSERT(cpuid, "Out of memory");
		cpuid->nent = nent;
		ret = __kvm_ioctl(fd, KVM_GET_SUPPORTED_CPUID, cpuid);
		if (!ret)
			break;
		TEST_ASSERT(errno == E2BIG, __KVM_IOCTL_ERROR("KVM_GET_SUPPORTED_CPUID",
							      fd, ret));
		free(cpuid);
		nent *= 2;
	}
	close(fd);
	return cpuid;
}

const struct kvm_cpuid_entry2 *kvm_get_supported_cpuid_entry(uint32_t function,
							     uint32_t index)
{
	const struct kvm_cpuid2 *cpuid = kvm_get_supported_cpuid();
	uint32_t i;

	for (i = 0; i < cpuid->nent; i++)
		if (cpuid->entries[i].function == function &&
		    cpuid->entries[i].index == index)
			return &cpuid->entries[i];
	return NULL;
}

void vcpu_init_cpuid(struct kvm_vcpu *vcpu, const struct kvm_cpuid2 *cpuid)
{
	vcpu_ioctl(vcpu, KVM_SET_CPUID2, cpuid);
}

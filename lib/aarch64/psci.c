// SPDX-License-Identifier: GPL-2.0-only
/*
 * PSCI through SMCCC HVC calls (guest side), and the host side of CPU_ON:
 * the boot page where a vCPU reset by CPU_ON finds its way back to EL1
 * with the MMU on (see cpu_on_entry.S), and vCPUs created powered off.
 */
#include <linux/psci.h>

#include "cpu_on.h"
#include "processor.h"

__guest_code void smccc_hvc(uint32_t fn, uint64_t a1, uint64_t a2, uint64_t a3,
	       struct smccc_res *res)
{
	register uint64_t x0 __asm__("x0") = fn;
	register uint64_t x1 __asm__("x1") = a1;
	register uint64_t x2 __asm__("x2") = a2;
	register uint64_t x3 __asm__("x3") = a3;

	__asm__ __volatile__("hvc #0"
			     : "+r"(x0), "+r"(x1), "+r"(x2), "+r"(x3)
			     : : "x4", "x5", "x6", "x7", "x8", "x9", "x10", "x11",
			       "x12", "x13", "x14", "x15", "x16", "x17", "memory");
	if (res)
		*res = (struct smccc_res) { x0, x1, x2, x3 };
}

static __guest_code int64_t psci_call(uint32_t fn, uint64_t a1, uint64_t a2, uint64_t a3)
{
	struct smccc_res res;

	smccc_hvc(fn, a1, a2, a3, &res);
	return (int64_t)res.a0;
}

__guest_code int64_t psci_version(void)
{
	return psci_call(PSCI_0_2_FN_PSCI_VERSION, 0, 0, 0);
}

__guest_code int64_t psci_cpu_on(uint64_t target_mpidr, uint64_t entry, uint64_t context_id)
{
	return psci_call(PSCI_0_2_FN64_CPU_ON, target_mpidr, entry, context_id);
}

__guest_code int64_t psci_affinity_info(uint64_t target_mpidr, uint64_t lowest_level)
{
	return psci_call(PSCI_0_2_FN64_AFFINITY_INFO, target_mpidr, lowest_level, 0);
}

__guest_code void psci_system_off(void)
{
	psci_call(PSCI_0_2_FN_SYSTEM_OFF, 0, 0, 0);
}

/* The boot page at GPA 0, mapped at GVA 0, made on first use. */
static uint64_t *cpu_on_page(struct kvm_vcpu *vcpu)
{
	struct kvm_vm *vm = vcpu->vm;
	uint64_t code = cpu_on_entry_end - cpu_on_entry, *data;
	uint8_t *page;

	if (vm->arch.cpu_on_page)
		return (uint64_t *)(vm->arch.cpu_on_page + CPU_ON_DATA);
	TEST_ASSERT(code <= CPU_ON_DATA, "cpu_on_entry is %lu bytes", (unsigned long)code);
	TEST_ASSERT(vm_phy_page_alloc(vm, 0, 0) == 0, "GPA 0 is taken: no CPU_ON boot page");
	vm_vaddr_reserve(vm, 0, vm->page_size);
	virt_pg_map(vm, 0, 0);
	page = addr_gpa2hva(vm, 0);
	memset(page, 0, vm->page_size);
	memcpy(page, cpu_on_entry, code);
	vm->arch.cpu_on_page = (uint64_t)page;

	data = (uint64_t *)(page + CPU_ON_DATA);
	data[CPU_ON_MAIR / 8] = vcpu_get_reg64(vcpu, SYS_MAIR_EL1);
	data[CPU_ON_TCR / 8] = vcpu_get_reg64(vcpu, SYS_TCR_EL1);
	data[CPU_ON_TTBR0 / 8] = vcpu_get_reg64(vcpu, SYS_TTBR0_EL1);
	data[CPU_ON_SCTLR / 8] = vcpu_get_reg64(vcpu, SYS_SCTLR_EL1);
	data[CPU_ON_CPACR / 8] = vcpu_get_reg64(vcpu, SYS_CPACR_EL1);
	data[CPU_ON_VBAR / 8] = vcpu_get_reg64(vcpu, SYS_VBAR_EL1);
	data[CPU_ON_LR / 8] = (uint64_t)guest_code_return_stub;
	return data;
}

static void cpu_on_register(struct kvm_vcpu *vcpu, void *guest_code, uint64_t sp)
{
	uint64_t *data = cpu_on_page(vcpu), *cpu;
	uint64_t n = data[CPU_ON_NR_CPUS / 8];
	uint64_t max = (vcpu->vm->page_size - CPU_ON_DATA - CPU_ON_CPUS) / CPU_ON_CPU_SIZE;

	TEST_ASSERT(n < max, "More than %lu vCPUs waiting for CPU_ON", (unsigned long)max);
	cpu = data + (CPU_ON_CPUS + n * CPU_ON_CPU_SIZE) / 8;
	cpu[0] = vcpu_get_reg64(vcpu, SYS_MPIDR_EL1);
	cpu[1] = sp;
	cpu[2] = (uint64_t)guest_code;
	data[CPU_ON_NR_CPUS / 8] = n + 1;
}

struct kvm_vcpu *aarch64_vcpu_add(struct kvm_vm *vm, uint32_t id, uint32_t features,
				  void *guest_code)
{
	struct kvm_vcpu *vcpu = __vm_vcpu_add(vm, id);
	uint64_t sp = aarch64_vcpu_setup(vm, vcpu, features);

	vcpu_arch_set_entry(vcpu, guest_code);
	if (features & (1U << KVM_ARM_VCPU_POWER_OFF))
		cpu_on_register(vcpu, guest_code, sp);
	return vcpu;
}

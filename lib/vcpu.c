// SPDX-License-Identifier: GPL-2.0-only
/*
 * vCPUs: creation with the shared kvm_run area, KVM_RUN, and exit reasons
 * by name.
 */
#include <sys/mman.h>

#include "kvm_util.h"

struct kvm_vcpu *__vm_vcpu_add(struct kvm_vm *vm, uint32_t id)
{
	struct kvm_vcpu *vcpu = calloc(1, sizeof(*vcpu));
	int sz;

	TEST_ASSERT(vcpu, "Out of memory");
	vcpu->vm = vm;
	vcpu->id = id;
	vcpu->fd = vm_ioctl(vm, KVM_CREATE_VCPU, (unsigned long)id);
	sz = kvm_ioctl(vm->kvm_fd, KVM_GET_VCPU_MMAP_SIZE, NULL);
	TEST_ASSERT(sz >= (int)sizeof(*vcpu->run), "KVM_GET_VCPU_MMAP_SIZE %d too small", sz);
	vcpu->run = mmap(NULL, sz, PROT_READ | PROT_WRITE, MAP_SHARED, vcpu->fd, 0);
	TEST_ASSERT(vcpu->run != MAP_FAILED, "mmap(vCPU %u run area) failed", id);
	vcpu->next = vm->vcpus;
	vm->vcpus = vcpu;
	return vcpu;
}

struct kvm_vcpu *vm_vcpu_add(struct kvm_vm *vm, uint32_t id, void *guest_code)
{
	struct kvm_vcpu *vcpu = __vm_vcpu_add(vm, id);

	vcpu_arch_add(vm, vcpu);
	vcpu_arch_set_entry(vcpu, guest_code);
	return vcpu;
}

int __vcpu_run(struct kvm_vcpu *vcpu)
{
	int ret;

	do {
		ret = __vcpu_ioctl(vcpu, KVM_RUN, NULL);
	} while (ret == -1 && errno == EINTR);
	return ret;
}

void vcpu_run(struct kvm_vcpu *vcpu)
{
	int ret = __vcpu_run(vcpu);

	TEST_ASSERT(!ret, "KVM_RUN failed on vCPU %u, rc: %d errno: %d (%s), exit reason %u (%s)%s",
		    vcpu->id, ret, errno, strerror(errno), vcpu->run->exit_reason,
		    exit_reason_str(vcpu->run->exit_reason), kvm_vm_dead_note(vcpu->vm));
}

#define EXIT_REASON(r)	{ KVM_EXIT_##r, #r }

static const struct {
	unsigned int reason;
	const char *name;
} exit_reasons[] = {
	EXIT_REASON(UNKNOWN), EXIT_REASON(EXCEPTION), EXIT_REASON(IO),
	EXIT_REASON(HYPERCALL), EXIT_REASON(DEBUG), EXIT_REASON(HLT),
	EXIT_REASON(MMIO), EXIT_REASON(IRQ_WINDOW_OPEN), EXIT_REASON(SHUTDOWN),
	EXIT_REASON(FAIL_ENTRY), EXIT_REASON(INTR), EXIT_REASON(SET_TPR),
	EXIT_REASON(TPR_ACCESS), EXIT_REASON(S390_SIEIC), EXIT_REASON(S390_RESET),
	EXIT_REASON(DCR), EXIT_REASON(NMI), EXIT_REASON(INTERNAL_ERROR),
	EXIT_REASON(OSI), EXIT_REASON(PAPR_HCALL), EXIT_REASON(S390_UCONTROL),
	EXIT_REASON(WATCHDOG), EXIT_REASON(S390_TSCH), EXIT_REASON(EPR),
	EXIT_REASON(SYSTEM_EVENT), EXIT_REASON(S390_STSI), EXIT_REASON(IOAPIC_EOI),
	EXIT_REASON(HYPERV), EXIT_REASON(ARM_NISV), EXIT_REASON(X86_RDMSR),
	EXIT_REASON(X86_WRMSR), EXIT_REASON(DIRTY_RING_FULL),
	EXIT_REASON(AP_RESET_HOLD), EXIT_REASON(X86_BUS_LOCK), EXIT_REASON(XEN),
	EXIT_REASON(RISCV_SBI), EXIT_REASON(RISCV_CSR), EXIT_REASON(NOTIFY),
};

const char *exit_reason_str(unsigned int exit_reason)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(exit_reasons); i++)
		if (exit_reasons[i].reason == exit_reason)
			return exit_reasons[i].name;
	return "(unknown)";
}

// SPDX-License-Identifier: GPL-2.0-only
/*
 * ucall, arch-neutral host side: the per-VM pool of struct ucall in guest
 * memory (ucall_guest.c fills its slots), and copying a vCPU's ucall out.
 */
#include "kvm_util.h"

void ucall_init(struct kvm_vm *vm)
{
	uint64_t gva = vm_vaddr_alloc(vm, sizeof(struct ucall_header), KVM_UTIL_MIN_VADDR);
	struct ucall_header *hdr = addr_gva2hva(vm, gva);
	int i;

	memset(hdr, 0, sizeof(*hdr));
	for (i = 0; i < UCALL_POOL_SIZE; i++)
		hdr->ucalls[i].hva = &hdr->ucalls[i];
	vm->ucall_pool = gva;
	write_guest_global(vm, ucall_pool, (struct ucall_header *)gva);
	ucall_arch_init(vm);
}

uint64_t __get_ucall(struct kvm_vcpu *vcpu, struct ucall *uc)
{
	uint64_t gva = ucall_arch_get_ucall(vcpu);
	struct kvm_vm *vm = vcpu->vm;

	memset(uc, 0, sizeof(*uc));
	if (!gva)
		return UCALL_NONE;
	memcpy(uc, addr_gva2hva(vm, gva), sizeof(*uc));
	if (uc->cmd == UCALL_ABORT) {
		uc->args[GUEST_ERROR_FILE] =
			(uint64_t)addr_gva2hva(vm, uc->args[GUEST_ERROR_FILE]);
		uc->args[GUEST_ERROR_EXPR] =
			(uint64_t)addr_gva2hva(vm, uc->args[GUEST_ERROR_EXPR]);
	}
	uc->buffer[UCALL_BUFFER_LEN - 1] = 0;
	return uc->cmd;
}

uint64_t get_ucall(struct kvm_vcpu *vcpu, struct ucall *uc)
{
	struct ucall tmp;

	if (!uc)
		uc = &tmp;
	if (__get_ucall(vcpu, uc) == UCALL_UNHANDLED)
		ucall_arch_report_unhandled(uc);
	return uc->cmd;
}

void report_guest_assert(struct ucall *uc)
{
	test_assert_fail((const char *)uc->args[GUEST_ERROR_FILE],
			 uc->args[GUEST_ERROR_LINE],
			 (const char *)uc->args[GUEST_ERROR_EXPR], "%s", uc->buffer);
}

uint64_t vcpu_run_ucall(struct kvm_vcpu *vcpu, struct ucall *uc)
{
	vcpu_run(vcpu);
	if (get_ucall(vcpu, uc) == UCALL_ABORT)
		REPORT_GUEST_ASSERT(*uc);
	return uc->cmd;
}

void vcpu_run_expect(struct kvm_vcpu *vcpu, uint64_t cmd, struct ucall *uc)
{
	if (vcpu_run_ucall(vcpu, uc) == cmd)
		return;
	TEST_FAIL("vCPU %u: exit %u (%s), ucall %lu, expected ucall %lu", vcpu->id,
		  vcpu->run->exit_reason, exit_reason_str(vcpu->run->exit_reason),
		  (unsigned long)uc->cmd, (unsigned long)cmd);
}

void vcpu_run_expect_done(struct kvm_vcpu *vcpu)
{
	struct ucall uc;

	vcpu_run_expect(vcpu, UCALL_DONE, &uc);
}

uint64_t vcpu_run_expect_sync(struct kvm_vcpu *vcpu)
{
	struct ucall uc;

	vcpu_run_expect(vcpu, UCALL_SYNC, &uc);
	return uc.args[1];
}

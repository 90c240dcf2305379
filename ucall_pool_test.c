// SPDX-License-Identifier: GPL-2.0-only
/*
 * The ucall pool: every vCPU of a VM can hold a ucall at the same time (a
 * vCPU keeps its slot from its exit until it runs again), and a guest that
 * finds the pool full reports that as a guest assertion instead of
 * spinning.
 */
#include "bitmap.h"
#include "kvm_util.h"

#define MAX_HELD	100

static __guest_code void guest_code(uint64_t id)
{
	GUEST_SYNC(id);
	GUEST_DONE();
}

static void expect_ucall(struct kvm_vcpu *vcpu, uint64_t cmd, struct ucall *uc)
{
	vcpu_run(vcpu);
	if (get_ucall(vcpu, uc) == UCALL_ABORT && cmd != UCALL_ABORT)
		REPORT_GUEST_ASSERT(*uc);
	TEST_ASSERT(uc->cmd == cmd, "Expected ucall %lu, got %lu (exit %s)",
		    (unsigned long)cmd, (unsigned long)uc->cmd,
		    exit_reason_str(vcpu->run->exit_reason));
}

/* Every vCPU stops at GUEST_SYNC, holding a slot, before any runs on. */
static void test_all_vcpus_hold(void)
{
	int max = kvm_check_cap(KVM_CAP_MAX_VCPUS), n, i;
	struct kvm_vcpu *vcpus[MAX_HELD];
	struct kvm_vm *vm;
	struct ucall uc;

	n = max > 0 && max < MAX_HELD ? max : MAX_HELD;
	vm = __vm_create(VM_MODE_DEFAULT, n, 0);
	for (i = 0; i < n; i++) {
		vcpus[i] = vm_vcpu_add(vm, i, guest_code);
		vcpu_args_set(vcpus[i], 1, (uint64_t)i);
	}
	for (i = 0; i < n; i++) {
		expect_ucall(vcpus[i], UCALL_SYNC, &uc);
		TEST_ASSERT_EQ(uc.args[1], (uint64_t)i);
	}
	for (i = 0; i < n; i++)
		expect_ucall(vcpus[i], UCALL_DONE, &uc);
	kvm_vm_free(vm);
	ksft_test_result_pass("%d vCPUs hold a ucall at once\n", n);
}

/* Every slot marked in use by the host: the guest's ucall says so. */
static void test_pool_full(void)
{
	struct kvm_vcpu *vcpu;
	struct kvm_vm *vm = vm_create_with_one_vcpu(&vcpu, guest_code);
	unsigned long *in_use = addr_gva2hva(vm, vm->ucall_pool);
	struct ucall uc;
	int i;

	vcpu_args_set(vcpu, 1, 0UL);
	/* Not the default 64K scans of 512 slots: seconds under emulation. */
	write_guest_global(vm, ucall_pool_scans, 16);
	for (i = 0; i < UCALL_POOL_SIZE; i++)
		set_bit(i, in_use);
	expect_ucall(vcpu, UCALL_ABORT, &uc);
	TEST_ASSERT(strstr(uc.buffer, "ucall pool full"),
		    "Guest assertion, but not the full pool: %s", uc.buffer);
	ksft_print_msg("guest reported: %s\n", uc.buffer);
	kvm_vm_free(vm);
	ksft_test_result_pass("a full pool is a guest assertion\n");
}

int main(int argc, char *argv[])
{
	parse_no_options(argc, argv, "Every vCPU holds a ucall at once; a full ucall pool is a guest assertion.");

	kvm_require_dev();
	ksft_print_header();
	ksft_set_plan(2);
	test_all_vcpus_hold();
	test_pool_full();
	ksft_finished();
}

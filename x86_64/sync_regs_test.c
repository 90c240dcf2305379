// SPDX-License-Identifier: GPL-2.0-only
/*
 * KVM_CAP_SYNC_REGS: after an exit, kvm_run->s.regs holds what
 * KVM_GET_REGS/SREGS/VCPU_EVENTS would return; state the host writes there
 * (with kvm_dirty_regs) is what the guest runs with, and state the guest
 * changes shows up there; invalid field bits make KVM_RUN fail with EINVAL.
 */
#include "processor.h"

#define HOST_CR2	0xdead1000UL
#define GUEST_CR2	0xc0ffe000UL
#define ALL_SYNC	KVM_SYNC_X86_VALID_FIELDS

static uint64_t nmi_count;	/* bumped by the guest's NMI handler */

static __guest_code void nmi_handler(struct ex_regs *regs)
{
	WRITE_ONCE(nmi_count, READ_ONCE(nmi_count) + 1);
}

static __guest_code void guest_code(void)
{
	/* Host compares s.regs with the ioctls, then sets RFLAGS.ID and CR2. */
	GUEST_SYNC(1);
	GUEST_SYNC_ARGS(2, read_rflags() & X86_EFLAGS_ID, get_cr2(), 0, 0);
	write_rflags(read_rflags() & ~X86_EFLAGS_ID);
	set_cr2(GUEST_CR2);
	/* Host sees the guest's changes, then injects an NMI by events. */
	GUEST_SYNC(3);
	GUEST_SYNC_ARGS(4, READ_ONCE(nmi_count), 0, 0, 0);
	GUEST_DONE();
}

static void run_sync(struct kvm_vcpu *vcpu, uint64_t stage, struct ucall *uc)
{
	vcpu->run->kvm_valid_regs = ALL_SYNC;
	vcpu_run_expect(vcpu, UCALL_SYNC, uc);
	vcpu->run->kvm_dirty_regs = 0;
	TEST_ASSERT_EQ(uc->args[1], stage);
}

static void test_invalid_bits(struct kvm_vcpu *vcpu)
{
	struct kvm_run *run = vcpu->run;

	run->kvm_valid_regs = ~ALL_SYNC;
	TEST_ASSERT_IOCTL_ERRNO("KVM_RUN with invalid kvm_valid_regs", __vcpu_run(vcpu),
				EINVAL);
	run->kvm_valid_regs = 0;
	run->kvm_dirty_regs = ~ALL_SYNC;
	TEST_ASSERT_IOCTL_ERRNO("KVM_RUN with invalid kvm_dirty_regs", __vcpu_run(vcpu),
				EINVAL);
	run->kvm_dirty_regs = 0;
	ksft_test_result_pass("invalid sync field bits refused with EINVAL\n");
}

static void check_matches_ioctls(struct kvm_vcpu *vcpu)
{
	struct kvm_sync_regs *s = &vcpu->run->s.regs;
	struct kvm_vcpu_events events;
	struct kvm_sregs sregs;
	struct kvm_regs regs;

	vcpu_regs_get(vcpu, &regs);
	vcpu_sregs_get(vcpu, &sregs);
	vcpu_events_get(vcpu, &events);
	TEST_ASSERT(!memcmp(&regs, &s->regs, sizeof(regs)), "s.regs.regs != KVM_GET_REGS");
	TEST_ASSERT(!memcmp(&sregs, &s->sregs, sizeof(sregs)), "s.regs.sregs != KVM_GET_SREGS");
	TEST_ASSERT(!memcmp(&events, &s->events, sizeof(events)),
		    "s.regs.events != KVM_GET_VCPU_EVENTS");
	ksft_test_result_pass("synced REGS, SREGS, EVENTS match the ioctls\n");
}

static void test_host_to_guest(struct kvm_vcpu *vcpu, struct ucall *uc)
{
	struct kvm_sync_regs *s = &vcpu->run->s.regs;

	s->regs.rflags |= X86_EFLAGS_ID;
	s->sregs.cr2 = HOST_CR2;
	vcpu->run->kvm_dirty_regs = KVM_SYNC_X86_REGS | KVM_SYNC_X86_SREGS;
	run_sync(vcpu, 2, uc);
	TEST_ASSERT(uc->args[2], "Guest did not see RFLAGS.ID set through s.regs");
	TEST_ASSERT_EQ(uc->args[3], HOST_CR2);
	ksft_test_result_pass("guest sees RFLAGS and CR2 set through s.regs\n");
}

static void test_guest_to_host(struct kvm_vcpu *vcpu, struct ucall *uc)
{
	struct kvm_sync_regs *s = &vcpu->run->s.regs;

	run_sync(vcpu, 3, uc);
	TEST_ASSERT(!(s->regs.rflags & X86_EFLAGS_ID), "s.regs: RFLAGS.ID still set");
	TEST_ASSERT_EQ(s->sregs.cr2, (__u64)GUEST_CR2);
	ksft_test_result_pass("guest's RFLAGS and CR2 changes show in s.regs\n");
}

static void test_events(struct kvm_vcpu *vcpu, struct ucall *uc)
{
	struct kvm_sync_regs *s = &vcpu->run->s.regs;

	s->events.nmi.pending = 1;
	s->events.flags |= KVM_VCPUEVENT_VALID_NMI_PENDING;
	vcpu->run->kvm_dirty_regs = KVM_SYNC_X86_EVENTS;
	run_sync(vcpu, 4, uc);
	TEST_ASSERT_EQ(uc->args[2], 1UL);
	ksft_test_result_pass("NMI made pending through s.events reaches the guest\n");
}

int main(int argc, char *argv[])
{
	struct kvm_vcpu *vcpu;
	struct kvm_vm *vm;
	struct ucall uc;

	parse_no_options(argc, argv, "KVM_CAP_SYNC_REGS round trips of regs, sregs and events.");

	TEST_REQUIRE((kvm_check_cap(KVM_CAP_SYNC_REGS) & ALL_SYNC) == ALL_SYNC);
	ksft_print_header();
	ksft_set_plan(5);
	vm = vm_create_with_one_vcpu(&vcpu, guest_code);
	vm_install_exception_handler(vm, NMI_VECTOR, nmi_handler);

	test_invalid_bits(vcpu);
	run_sync(vcpu, 1, &uc);
	check_matches_ioctls(vcpu);
	test_host_to_guest(vcpu, &uc);
	test_guest_to_host(vcpu, &uc);
	test_events(vcpu, &uc);

	vcpu_run_expect_done(vcpu);
	kvm_vm_free(vm);
	ksft_finished();
}

// SPDX-License-Identifier: GPL-2.0-only
/*
 * Guest exceptions: #UD (ud2) and #PF (a read of an unmapped address) reach
 * the handlers the test installs, which record the vector and error code
 * and skip the 2-byte faulting instruction; an exception without a handler
 * (#DE) is reported to the host with its vector and RIP.
 */
#include "processor.h"

#define UNMAPPED_GVA	0x40000000000UL

/* Written by the guest's handlers, read by its main line: *_ONCE. */
static uint64_t seen_vector, seen_error, seen_cr2, seen_count;

static __guest_code void record_and_skip(struct ex_regs *regs)
{
	WRITE_ONCE(seen_vector, regs->vector);
	WRITE_ONCE(seen_error, regs->error_code);
	WRITE_ONCE(seen_count, READ_ONCE(seen_count) + 1);
	regs->rip += 2;
}

static __guest_code void pf_handler(struct ex_regs *regs)
{
	WRITE_ONCE(seen_cr2, get_cr2());
	record_and_skip(regs);
}

static __guest_code void guest_code(void)
{
	ud2();
	GUEST_SYNC_ARGS(UD_VECTOR, READ_ONCE(seen_vector), READ_ONCE(seen_error),
			READ_ONCE(seen_count), 0);
	load_byte_2b((void *)UNMAPPED_GVA);
	GUEST_SYNC_ARGS(PF_VECTOR, READ_ONCE(seen_vector), READ_ONCE(seen_error),
			READ_ONCE(seen_count), READ_ONCE(seen_cr2));
	GUEST_DONE();
}

/*
 * The host writes the divisor before the run: a compiler that sees a
 * static never stored to would fold the division (and drop it as UB).
 */
static int dividend = 100, divisor = 1;

static __guest_code void guest_divide_error(void)
{
	GUEST_SYNC(READ_ONCE(dividend) / READ_ONCE(divisor));
}

struct expected {
	uint64_t vector;
	uint64_t error_code;
	uint64_t cr2;
};

static const struct expected expected[] = {
	{ UD_VECTOR, 0, 0 },
	/* not present, read, supervisor */
	{ PF_VECTOR, 0, UNMAPPED_GVA },
};

static void check_sync(struct ucall *uc, const struct expected *e, uint64_t count)
{
	TEST_ASSERT(uc->args[1] == e->vector, "Expected vector %s, got stage %s",
		    exception_vector_name(e->vector), exception_vector_name(uc->args[1]));
	TEST_ASSERT_EQ(uc->args[2], e->vector);
	TEST_ASSERT_EQ(uc->args[3], e->error_code);
	TEST_ASSERT_EQ(uc->args[4], count);
	TEST_ASSERT_EQ(uc->args[5], e->cr2);
}

static void test_handled(void)
{
	struct kvm_vcpu *vcpu;
	struct kvm_vm *vm = vm_create_with_one_vcpu(&vcpu, guest_code);
	struct ucall uc;
	unsigned int i;

	vm_install_exception_handler(vm, UD_VECTOR, record_and_skip);
	vm_install_exception_handler(vm, PF_VECTOR, pf_handler);
	for (i = 0; i < ARRAY_SIZE(expected); i++) {
		vcpu_run_expect(vcpu, UCALL_SYNC, &uc);
		check_sync(&uc, &expected[i], i + 1);
		ksft_test_result_pass("%s reaches the guest handler\n",
				      exception_vector_name(expected[i].vector));
	}
	vcpu_run_expect_done(vcpu);
	kvm_vm_free(vm);
}

static void test_unhandled(void)
{
	uint64_t start = (uint64_t)guest_divide_error;
	struct kvm_vcpu *vcpu;
	struct kvm_vm *vm = vm_create_with_one_vcpu(&vcpu, guest_divide_error);
	struct ucall uc;

	write_guest_global(vm, divisor, 0);
	vcpu_run(vcpu);
	TEST_ASSERT(__get_ucall(vcpu, &uc) == UCALL_UNHANDLED,
		    "Expected UCALL_UNHANDLED, got %lu", (unsigned long)uc.cmd);
	TEST_ASSERT_EQ(uc.args[0], (uint64_t)DE_VECTOR);
	TEST_ASSERT(uc.args[2] >= start && uc.args[2] < start + 64,
		    "#DE at RIP 0x%lx, not in guest_divide_error (0x%lx)",
		    (unsigned long)uc.args[2], (unsigned long)start);
	ksft_test_result_pass("unhandled #DE reported at RIP 0x%lx\n",
			      (unsigned long)uc.args[2]);
	kvm_vm_free(vm);
}

int main(int argc, char *argv[])
{
	parse_no_options(argc, argv, "Guest #UD and #PF reach guest handlers; an unhandled one reaches the host.");

	kvm_require_dev();
	ksft_print_header();
	ksft_set_plan(ARRAY_SIZE(expected) + 1);
	test_handled();
	test_unhandled();
	ksft_finished();
}

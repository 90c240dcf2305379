// SPDX-License-Identifier: GPL-2.0-only
/*
 * Guest exceptions: an undefined instruction, a BRK and a data abort on an
 * unmapped VA reach the handlers the test installs per exception class,
 * which record ESR and FAR and skip the instruction; a data abort without
 * a handler is reported to the host with ESR, FAR and ELR (checked through
 * __get_ucall(), and through get_ucall()'s failure in a re-executed child).
 */
#include "processor.h"
#include "test_child.h"

#define UNMAPPED_GVA	0x400000000008UL
#define BRK_IMM		0x7	/* guest_brk() */
#define ESR_ISS(esr)	((esr) & 0x1ffffff)
#define FAIL_ARG	"--unhandled-child"

struct exc_case {
	const char *name;
	void (*trigger)(void);
	unsigned int ec;
	bool far_valid;
};

static uint64_t seen_esr, seen_far, seen_count;

static __guest_code void trigger_udf(void)
{
	guest_udf();
}

static __guest_code void trigger_brk(void)
{
	guest_brk();
}

static __guest_code void trigger_dabt(void)
{
	guest_load((void *)UNMAPPED_GVA);
}

static const struct exc_case cases[] = {
	{ "UDF (undefined instruction)", trigger_udf, ESR_EC_UNKNOWN, false },
	{ "BRK #7", trigger_brk, ESR_EC_BRK64, false },
	{ "load from unmapped VA", trigger_dabt, ESR_EC_DABT_CUR, true },
};

static __guest_code void record_and_skip(struct ex_regs *regs)
{
	seen_esr = read_sysreg(esr_el1);
	seen_far = read_sysreg(far_el1);
	seen_count++;
	regs->pc += 4;
}

static __guest_code void guest_code(void)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		cases[i].trigger();
		GUEST_SYNC_ARGS(i, seen_esr, seen_far, seen_count, 0);
	}
	GUEST_DONE();
}

static __guest_code void guest_unhandled(void)
{
	guest_load((void *)UNMAPPED_GVA);
	GUEST_FAIL("the unhandled data abort came back");
}

static void check_case(const struct exc_case *c, struct ucall *uc, uint64_t nr)
{
	uint64_t esr = uc->args[2], far = uc->args[3], count = uc->args[4];

	TEST_ASSERT(count == nr, "%s: %lu exceptions handled, expected %lu", c->name,
		    (unsigned long)count, (unsigned long)nr);
	TEST_ASSERT(ESR_EC(esr) == c->ec, "%s: ESR 0x%lx has EC 0x%x (%s), expected 0x%x",
		    c->name, (unsigned long)esr, (unsigned int)ESR_EC(esr),
		    esr_ec_name(ESR_EC(esr)), c->ec);
	if (c->ec == ESR_EC_BRK64)
		TEST_ASSERT(ESR_ISS(esr) == BRK_IMM, "BRK: ISS 0x%lx, expected 0x%x",
			    (unsigned long)ESR_ISS(esr), BRK_IMM);
	if (c->far_valid)
		TEST_ASSERT(far == UNMAPPED_GVA, "%s: FAR 0x%lx, expected 0x%lx", c->name,
			    (unsigned long)far, UNMAPPED_GVA);
}

static void test_handled(void)
{
	struct kvm_vcpu *vcpu;
	struct kvm_vm *vm = vm_create_with_one_vcpu(&vcpu, guest_code);
	unsigned int i;
	struct ucall uc;

	for (i = 0; i < ARRAY_SIZE(cases); i++)
		vm_install_sync_handler(vm, VECTOR_SYNC_CURRENT, cases[i].ec, record_and_skip);
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		vcpu_run_expect(vcpu, UCALL_SYNC, &uc);
		TEST_ASSERT_EQ(uc.args[1], (uint64_t)i);
		check_case(&cases[i], &uc, i + 1);
		ksft_test_result_pass("%s: handler saw EC 0x%x (%s) and skipped it\n",
				      cases[i].name, cases[i].ec, esr_ec_name(cases[i].ec));
	}
	vcpu_run_expect_done(vcpu);
	kvm_vm_free(vm);
}

/* Run the unhandled guest; returns the ucall as the host received it. */
static struct kvm_vm *run_unhandled(struct kvm_vcpu **vcpu, struct ucall *uc)
{
	struct kvm_vm *vm = vm_create_with_one_vcpu(vcpu, guest_unhandled);

	vcpu_run(*vcpu);
	__get_ucall(*vcpu, uc);
	return vm;
}

static void test_unhandled(void)
{
	uint64_t fn = (uint64_t)guest_unhandled;
	struct kvm_vcpu *vcpu;
	struct ucall uc;
	struct kvm_vm *vm = run_unhandled(&vcpu, &uc);

	TEST_ASSERT(uc.cmd == UCALL_UNHANDLED, "Expected UCALL_UNHANDLED, got %lu (exit %s)",
		    (unsigned long)uc.cmd, exit_reason_str(vcpu->run->exit_reason));
	TEST_ASSERT(uc.args[0] == VECTOR_SYNC_CURRENT, "Vector %lu (%s)",
		    (unsigned long)uc.args[0], exception_vector_name(uc.args[0]));
	TEST_ASSERT(ESR_EC(uc.args[1]) == ESR_EC_DABT_CUR, "ESR 0x%lx is no data abort",
		    (unsigned long)uc.args[1]);
	TEST_ASSERT(uc.args[2] == UNMAPPED_GVA, "FAR 0x%lx, expected 0x%lx",
		    (unsigned long)uc.args[2], UNMAPPED_GVA);
	TEST_ASSERT(uc.args[3] >= fn && uc.args[3] < fn + 64,
		    "ELR 0x%lx is not in guest_unhandled (0x%lx)", (unsigned long)uc.args[3],
		    (unsigned long)fn);
	kvm_vm_free(vm);
	ksft_test_result_pass("unhandled data abort: host got ESR 0x%lx, FAR 0x%lx, ELR 0x%lx\n",
			      (unsigned long)uc.args[1], (unsigned long)uc.args[2],
			      (unsigned long)uc.args[3]);
}

static void test_unhandled_report(void)
{
	char out[16384], far[64];
	int status = run_self(FAIL_ARG, out, sizeof(out));

	snprintf(far, sizeof(far), "FAR 0x%lx", UNMAPPED_GVA);
	TEST_ASSERT(status == KSFT_FAIL && strstr(out, "ESR 0x") && strstr(out, far) &&
		    strstr(out, "guest_unhandled+0x"),
		    "Child exit %d, expected %d with ESR, \"%s\" and the function in:\n%s",
		    status, KSFT_FAIL, far, out);
	ksft_test_result_pass("get_ucall() fails the test with ESR, FAR and ELR (symbolized)\n");
}

int main(int argc, char *argv[])
{
	struct kvm_vcpu *vcpu;
	struct ucall uc;

	if (argc > 1 && !strcmp(argv[1], FAIL_ARG)) {
		run_unhandled(&vcpu, &uc);
		get_ucall(vcpu, &uc);
		return 0;
	}
	parse_no_options(argc, argv,
			 "Synchronous exceptions reach guest handlers; an unhandled one reaches the host.");
	kvm_require_dev();
	ksft_print_header();
	ksft_set_plan(ARRAY_SIZE(cases) + 2);
	test_handled();
	test_unhandled();
	test_unhandled_report();
	ksft_finished();
}

// SPDX-License-Identifier: GPL-2.0-only
/*
 * GUEST_PRINTF reaches the host formatted as the host's snprintf would
 * format it, and a failing GUEST_ASSERT_EQ fails the host test at the
 * guest's file:line with both values (checked in a re-executed child).
 */
#include "kvm_util.h"
#include "test_child.h"

#define FAIL_ARG	"--assert-child"
#define VAL_A		0x1234abcdUL
#define VAL_B		0x5678ef01UL

struct print_case {
	const char *fmt;
	uint64_t arg;
};

static const char guest_str[] = "guest";

static const struct print_case cases[] = {
	{ "%d", (uint64_t)-42 }, { "%i", 17 }, { "%u", 4000000000U },
	{ "%x", 0xbeef }, { "%lx", 0x123456789abcdefUL },
	{ "%llx", 0xfedcba9876543210ULL }, { "%p", 0x7fff1000 },
	{ "%s", (uint64_t)guest_str }, { "%c", 'z' }, { "100%%", 0 },
	{ "[%5d]", 42 }, { "[%-5d]", 42 }, { "[%05x]", 0x1f },
	{ "[%08lx]", 0xabcUL }, { "[%ld]", (uint64_t)-1234567890123L },
	{ "[%10s]", (uint64_t)guest_str }, { "[%#x]", 0xff },
};

static __guest_code void guest_code(uint64_t a, uint64_t b)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(cases); i++)
		GUEST_PRINTF(cases[i].fmt, cases[i].arg);
	GUEST_SYNC(__LINE__ + 1);
	GUEST_ASSERT_EQ(a, b);
	GUEST_DONE();
}

/* Run until DONE; returns the line GUEST_SYNC reported. */
static unsigned int run_guest(uint64_t a, uint64_t b, bool check_prints)
{
	unsigned int i = 0, line = 0;
	struct kvm_vcpu *vcpu;
	struct kvm_vm *vm = vm_create_with_one_vcpu(&vcpu, guest_code);
	char expect[UCALL_BUFFER_LEN];
	struct ucall uc;

	vcpu_args_set(vcpu, 2, a, b);
	for (;;) {
		switch (vcpu_run_ucall(vcpu, &uc)) {
		case UCALL_PRINTF:
			TEST_ASSERT(i < ARRAY_SIZE(cases), "Too many prints");
			snprintf(expect, sizeof(expect), cases[i].fmt, cases[i].arg);
			if (check_prints)
				TEST_ASSERT(!strcmp(expect, uc.buffer),
					    "Guest printed \"%s\" for \"%s\", host \"%s\"",
					    uc.buffer, cases[i].fmt, expect);
			i++;
			break;
		case UCALL_SYNC:
			line = uc.args[1];
			break;
		case UCALL_DONE:
			TEST_ASSERT_EQ(i, ARRAY_SIZE(cases));
			kvm_vm_free(vm);
			return line;
		default:
			TEST_FAIL("Unexpected exit %s", exit_reason_str(vcpu->run->exit_reason));
		}
	}
}

int main(int argc, char *argv[])
{
	char out[16384], needle[64];
	unsigned int line;
	int status;

	if (argc > 1 && !strcmp(argv[1], FAIL_ARG)) {
		run_guest(VAL_A, VAL_B, false);
		return 0;
	}
	parse_no_options(argc, argv,
			 "GUEST_PRINTF reaches the host; a failing GUEST_ASSERT_EQ fails the host.");
	kvm_require_dev();
	ksft_print_header();
	ksft_set_plan(2);
	line = run_guest(VAL_A, VAL_A, true);
	ksft_test_result_pass("%zu GUEST_PRINTF formats match the host's\n",
			      ARRAY_SIZE(cases));

	status = run_self(FAIL_ARG, out, sizeof(out));
	snprintf(needle, sizeof(needle), "%s:%u", __FILE__, line);
	TEST_ASSERT(status == KSFT_FAIL && strstr(out, needle) &&
		    strstr(out, "0x1234abcd") && strstr(out, "0x5678ef01"),
		    "Child exit %d, expected %d with \"%s\" and both values in:\n%s",
		    status, KSFT_FAIL, needle, out);
	ksft_test_result_pass("GUEST_ASSERT_EQ fails the host at %s\n", needle);
	ksft_finished();
}

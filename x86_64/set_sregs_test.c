// SPDX-License-Identifier: GPL-2.0-only
/*
 * KVM_SET_SREGS: a valid state round-trips through KVM_GET_SREGS; invalid
 * ones (reserved CR4 bits, EFER.LMA outside long mode, long mode without
 * CR4.PAE) are refused with EINVAL and leave the state as it was.
 */
#include "processor.h"

struct sregs_case {
	const char *name;
	void (*change)(struct kvm_sregs *s);
};

static void change_cr2(struct kvm_sregs *s)
{
	s->cr2 = 0xdead0000;
}

static void cr4_reserved(struct kvm_sregs *s)
{
	s->cr4 |= 1ULL << 63;
}

static void lma_without_paging(struct kvm_sregs *s)
{
	s->cr0 &= ~X86_CR0_PG;
	s->efer |= EFER_LMA | EFER_LME;
}

static void long_mode_without_pae(struct kvm_sregs *s)
{
	s->cr4 &= ~X86_CR4_PAE;
}

static const struct sregs_case valid[] = {
	{ "unchanged sregs", NULL },
	{ "CR2 = 0xdead0000", change_cr2 },
};

static const struct sregs_case invalid[] = {
	{ "CR4 reserved bit 63", cr4_reserved },
	{ "EFER.LMA with CR0.PG clear", lma_without_paging },
	{ "long mode with CR4.PAE clear", long_mode_without_pae },
};

static void test_valid(struct kvm_vcpu *vcpu, const struct sregs_case *c)
{
	struct kvm_sregs s, got;

	vcpu_sregs_get(vcpu, &s);
	if (c->change)
		c->change(&s);
	vcpu_sregs_set(vcpu, &s);
	vcpu_sregs_get(vcpu, &got);
	TEST_ASSERT(!memcmp(&s, &got, sizeof(s)), "%s: sregs did not round-trip",
		    c->name);
	ksft_test_result_pass("valid: %s round-trips\n", c->name);
}

static void test_invalid(struct kvm_vcpu *vcpu, const struct sregs_case *c)
{
	struct kvm_sregs orig, s, got;

	vcpu_sregs_get(vcpu, &orig);
	s = orig;
	c->change(&s);
	TEST_ASSERT_IOCTL_ERRNO(c->name, __vcpu_sregs_set(vcpu, &s), EINVAL);
	vcpu_sregs_get(vcpu, &got);
	TEST_ASSERT(!memcmp(&orig, &got, sizeof(orig)), "%s: refused but state changed",
		    c->name);
	ksft_test_result_pass("invalid: %s refused, state kept\n", c->name);
}

int main(int argc, char *argv[])
{
	struct kvm_vcpu *vcpu;
	struct kvm_vm *vm;
	unsigned int i;

	parse_no_options(argc, argv, "KVM_SET_SREGS round trips; invalid values are refused.");

	kvm_require_dev();
	ksft_print_header();
	ksft_set_plan(ARRAY_SIZE(valid) + ARRAY_SIZE(invalid));
	/* A vCPU in long mode, as vm_vcpu_add() sets it up; never run. */
	vm = vm_create_with_one_vcpu(&vcpu, NULL);
	for (i = 0; i < ARRAY_SIZE(valid); i++)
		test_valid(vcpu, &valid[i]);
	for (i = 0; i < ARRAY_SIZE(invalid); i++)
		test_invalid(vcpu, &invalid[i]);
	kvm_vm_free(vm);
	ksft_finished();
}

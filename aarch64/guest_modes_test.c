// SPDX-License-Identifier: GPL-2.0-only
/*
 * Every guest mode the host supports (IPA size x granule, or -m N): the
 * guest writes a pattern through a GVA range mapped with a block (where a
 * block of at most 32M exists) and pages onto a second memslot at another
 * GPA; the host finds it at the GPAs the page tables name.
 */
#include "processor.h"

#define TEST_SLOT	1
#define TEST_GPA	(1ULL << 30)
#define TEST_GVA	(3ULL << 30)
#define MAX_BLOCK	(32 * MB)

static uint64_t pattern(uint64_t gva)
{
	return gva ^ 0xa5a5a5a500000000ULL;
}

static __guest_code void guest_code(uint64_t gva, uint64_t size, uint64_t page_size)
{
	uint64_t off;

	for (off = 0; off < size; off += page_size)
		*(uint64_t *)(gva + off) = pattern(gva + off);
	GUEST_DONE();
}

/* A block of at most MAX_BLOCK (if the mode has one) and two pages. */
static uint64_t test_size(struct kvm_vm *vm)
{
	uint64_t sizes[4], size = 2 * vm->page_size;
	int n = virt_arch_page_sizes(vm, sizes), i;

	for (i = 0; i < n - 1; i++) {
		if (sizes[i] <= MAX_BLOCK) {
			size += sizes[i];
			break;
		}
	}
	return size;
}

static void check_memory(struct kvm_vm *vm, uint64_t size)
{
	uint64_t off, *p;

	for (off = 0; off < size; off += vm->page_size) {
		TEST_ASSERT_EQ(addr_gva2gpa(vm, TEST_GVA + off), TEST_GPA + off);
		p = addr_gpa2hva(vm, TEST_GPA + off);
		TEST_ASSERT(*p == pattern(TEST_GVA + off), "GPA 0x%lx holds 0x%lx, expected 0x%lx",
			    (unsigned long)(TEST_GPA + off), (unsigned long)*p,
			    (unsigned long)pattern(TEST_GVA + off));
	}
}

static void run_mode(enum vm_guest_mode mode, void *arg)
{
	struct kvm_vm *vm = __vm_create(mode, 1, 0);
	struct kvm_vcpu *vcpu = vm_vcpu_add(vm, 0, guest_code);
	uint64_t size = test_size(vm);

	vm_userspace_mem_region_add(vm, VM_MEM_SRC_ANONYMOUS, TEST_GPA, TEST_SLOT,
				    size / vm->page_size, 0);
	virt_map(vm, TEST_GVA, TEST_GPA, size / vm->page_size);
	vcpu_args_set(vcpu, 3, TEST_GVA, size, (uint64_t)vm->page_size);
	vcpu_run_expect_done(vcpu);
	check_memory(vm, size);
	ksft_test_result_pass("%s: %lu KiB through IPA size %u, VM type 0x%lx\n",
			      vm_guest_mode_string(mode), (unsigned long)(size / KB),
			      vm->pa_bits, vm->type);
	kvm_vm_free(vm);
}

static void help(const char *name, const void *arg)
{
	printf("usage: %s [-h] [-m mode]\n", name);
	guest_modes_help(stdout);
}

int main(int argc, char *argv[])
{
	int opt, i, n = 0;

	guest_modes_append_default();
	while ((opt = test_getopt(argc, argv, "m:", help, NULL)) != -1) {
		if (opt != 'm') {	/* a long option: not this test's */
			help(argv[0], NULL);
			exit(KSFT_FAIL);
		}
		guest_modes_cmdline(optarg);
	}
	kvm_require_dev();
	ksft_print_header();
	for (i = 0; i < NUM_VM_MODES; i++) {
		if (guest_modes_enabled[i])
			n++;
		else if (!guest_mode_arch_supported(i))
			ksft_print_msg("Not supported by this host: %s\n",
				       vm_guest_mode_string(i));
	}
	ksft_set_plan(n);
	for_each_guest_mode(run_mode, NULL);
	ksft_finished();
}

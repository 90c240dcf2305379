// SPDX-License-Identifier: GPL-2.0-only
/*
 * Guest memory over every backing source: for each source of the table a
 * memslot of a few MiB (or one backing page, if larger) is mapped into a
 * guest, which writes a pattern derived from each page's GPA into every
 * page and reads it back; the host then checks every page through its own
 * mapping and, for shared sources, through the alias mapping of the same
 * memory.  A source this host cannot give is a skip with the reason.
 */
#include "kvm_util.h"

#define TEST_SLOT	1
#define TEST_GPA	(4ULL * GB)
#define MIN_SIZE	(4 * MB)

static uint64_t pattern(uint64_t gpa)
{
	return gpa ^ 0x5a5a5a5a00000000ULL;
}

/* The slot is identity-mapped: GVA == GPA. */
static __guest_code void guest_code(uint64_t gpa, uint64_t size, uint64_t page_size)
{
	uint64_t off, *p, last = page_size / 8 - 1;

	for (off = 0; off < size; off += page_size) {
		p = (uint64_t *)(gpa + off);
		p[0] = pattern(gpa + off);
		p[last] = ~pattern(gpa + off);
	}
	for (off = 0; off < size; off += page_size) {
		p = (uint64_t *)(gpa + off);
		GUEST_ASSERT_EQ(p[0], pattern(gpa + off));
		GUEST_ASSERT_EQ(p[last], ~pattern(gpa + off));
	}
	GUEST_DONE();
}

static void check_host_view(struct kvm_vm *vm, uint64_t size, bool alias)
{
	uint64_t off, gpa, *p, last = vm->page_size / 8 - 1;

	for (off = 0; off < size; off += vm->page_size) {
		gpa = TEST_GPA + off;
		p = alias ? addr_gpa2alias(vm, gpa) : addr_gpa2hva(vm, gpa);
		TEST_ASSERT(p, "No alias mapping for GPA 0x%lx", (unsigned long)gpa);
		TEST_ASSERT(p[0] == pattern(gpa) && p[last] == ~pattern(gpa),
			    "GPA 0x%lx via %s: 0x%lx / 0x%lx, expected 0x%lx / 0x%lx",
			    (unsigned long)gpa, alias ? "alias" : "host mapping",
			    (unsigned long)p[0], (unsigned long)p[last],
			    (unsigned long)pattern(gpa), (unsigned long)~pattern(gpa));
	}
}

static void test_source(enum vm_mem_backing_src_type type, uint64_t size)
{
	uint64_t npages;
	struct kvm_vcpu *vcpu;
	struct kvm_vm *vm;

	vm = vm_create_shape_with_one_vcpu(vm_shape_for_backing(VM_MODE_DEFAULT, type), &vcpu,
					   guest_code);
	npages = size / vm->page_size;
	vm_userspace_mem_region_add(vm, type, TEST_GPA, TEST_SLOT, npages, 0);
	virt_map(vm, TEST_GPA, TEST_GPA, npages);
	vcpu_args_set(vcpu, 3, TEST_GPA, size, (uint64_t)vm->page_size);

	/* The guest wrote and read back every page; the host checks where it can see. */
	vcpu_run_expect_done(vcpu);
	if (backing_src_host_readable(type))
		check_host_view(vm, size, false);
	if (backing_src_host_readable(type) && backing_src_is_shared(type))
		check_host_view(vm, size, true);
	kvm_vm_free(vm);
}

int main(int argc, char *argv[])
{
	const char *name, *why;
	char reason[256];
	uint64_t size;
	int type;

	parse_no_options(argc, argv,
			 "Every backing source mapped into a guest that writes and reads each page.");
	kvm_require_dev();
	ksft_print_header();
	ksft_set_plan(NUM_SRC_TYPES);
	for (type = 0; type < NUM_SRC_TYPES; type++) {
		name = vm_mem_backing_src_alias(type)->name;
		size = get_backing_src_pagesz(type);
		size = size > MIN_SIZE ? size : MIN_SIZE;
		why = backing_src_unavailable(type, size, reason, sizeof(reason));
		if (!why)
			why = kvm_backing_src_unavailable(type, reason, sizeof(reason));
		if (why) {
			ksft_test_result_skip("%s: %s\n", name, why);
			continue;
		}
		test_source(type, size);
		ksft_test_result_pass("%s: %lu MiB, every page checked%s\n", name,
				      (unsigned long)(size / MB),
				      !backing_src_host_readable(type) ? " by the guest (private)" :
				      backing_src_is_shared(type) ? " (and its alias)" : "");
	}
	ksft_finished();
}

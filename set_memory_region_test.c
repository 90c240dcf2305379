// SPDX-License-Identifier: GPL-2.0-only
/*
 * Memslot bookkeeping without guest code: add, move, delete and re-flag
 * slots, and check that overlapping, misaligned, resized, out-of-range and
 * badly flagged slots are refused with the errno KVM gives.
 */
#include <sys/mman.h>

#include "kvm_util.h"

#define SLOT_PAGES	16
#define BASE_GPA	(1ULL << 30)

struct ctx {
	struct kvm_vm *vm;
	uint64_t page;		/* host page size */
	uint64_t size;		/* bytes in a test slot */
	uint8_t *mem;		/* two slots' worth of host memory */
	int nr_slots;		/* KVM_CAP_NR_MEMSLOTS */
};

static int set_region(struct ctx *c, uint32_t slot, uint32_t flags,
		      uint64_t gpa, uint64_t size, void *hva)
{
	return __vm_set_user_memory_region(c->vm, slot, flags, gpa, size, hva);
}

#define EXPECT_ERRNO(what, call, err) TEST_ASSERT_IOCTL_ERRNO(what, call, err)
#define EXPECT_OK(what, call) do {					\
	int __r = (call);						\
	TEST_ASSERT(!__r, "%s failed, rc: %d errno: %d (%s)", what, __r,	\
		    errno, strerror(errno));				\
} while (0)

static void test_add_delete(struct ctx *c)
{
	EXPECT_OK("add slot 0", set_region(c, 0, 0, BASE_GPA, c->size, c->mem));
	EXPECT_OK("delete slot 0", set_region(c, 0, 0, BASE_GPA, 0, c->mem));
	EXPECT_ERRNO("delete deleted slot 0",
		     set_region(c, 0, 0, BASE_GPA, 0, c->mem), EINVAL);
	EXPECT_OK("re-add slot 0", set_region(c, 0, 0, BASE_GPA, c->size, c->mem));
}

static void test_overlap(struct ctx *c)
{
	uint64_t half = c->size / 2;

	EXPECT_ERRNO("slot 1 over slot 0",
		     set_region(c, 1, 0, BASE_GPA, c->size, c->mem + c->size), EEXIST);
	EXPECT_ERRNO("slot 1 over slot 0's tail",
		     set_region(c, 1, 0, BASE_GPA + half, c->size, c->mem + c->size),
		     EEXIST);
	EXPECT_ERRNO("slot 1 over slot 0's head",
		     set_region(c, 1, 0, BASE_GPA - half, c->size, c->mem + c->size),
		     EEXIST);
	EXPECT_OK("slot 1 right after slot 0",
		  set_region(c, 1, 0, BASE_GPA + c->size, c->size, c->mem + c->size));
	EXPECT_OK("delete slot 1",
		  set_region(c, 1, 0, BASE_GPA + c->size, 0, c->mem + c->size));
}

static void test_move(struct ctx *c)
{
	uint64_t new_gpa = BASE_GPA + 4 * c->size;

	EXPECT_OK("move slot 0", set_region(c, 0, 0, new_gpa, c->size, c->mem));
	/* The old range is free now, the new one taken. */
	EXPECT_OK("slot 1 at slot 0's old place",
		  set_region(c, 1, 0, BASE_GPA, c->size, c->mem + c->size));
	EXPECT_ERRNO("slot 2 at slot 0's new place",
		     set_region(c, 2, 0, new_gpa, c->size, c->mem + c->size), EEXIST);
	EXPECT_OK("delete slot 1", set_region(c, 1, 0, BASE_GPA, 0, c->mem + c->size));
	EXPECT_OK("move slot 0 back", set_region(c, 0, 0, BASE_GPA, c->size, c->mem));
}

static void test_misaligned(struct ctx *c)
{
	EXPECT_ERRNO("misaligned gpa",
		     set_region(c, 1, 0, BASE_GPA + 8 * c->size + 1, c->size, c->mem), EINVAL);
	EXPECT_ERRNO("misaligned size",
		     set_region(c, 1, 0, BASE_GPA + 8 * c->size, c->size - 1, c->mem),
		     EINVAL);
	EXPECT_ERRNO("misaligned hva",
		     set_region(c, 1, 0, BASE_GPA + 8 * c->size, c->size, c->mem + 1),
		     EINVAL);
	EXPECT_ERRNO("resize slot 0",
		     set_region(c, 0, 0, BASE_GPA, c->size + c->page, c->mem), EINVAL);
}

static void test_flags(struct ctx *c)
{
	uint64_t bitmap[4] = { 0 };

	EXPECT_ERRNO("unknown flag", set_region(c, 0, 1u << 7, BASE_GPA, c->size, c->mem),
		     EINVAL);
	EXPECT_ERRNO("KVM_GET_DIRTY_LOG without logging",
		     __kvm_vm_get_dirty_log(c->vm, 0, bitmap), ENOENT);
	EXPECT_OK("enable dirty logging", set_region(c, 0, KVM_MEM_LOG_DIRTY_PAGES,
						     BASE_GPA, c->size, c->mem));
	EXPECT_OK("KVM_GET_DIRTY_LOG with logging", __kvm_vm_get_dirty_log(c->vm, 0, bitmap));
	EXPECT_OK("disable dirty logging", set_region(c, 0, 0, BASE_GPA, c->size, c->mem));
	EXPECT_ERRNO("KVM_GET_DIRTY_LOG after disabling",
		     __kvm_vm_get_dirty_log(c->vm, 0, bitmap), ENOENT);
}

static void test_slot_ids(struct ctx *c)
{
	uint64_t gpa = BASE_GPA + 16 * c->size;

	EXPECT_ERRNO("slot id == KVM_CAP_NR_MEMSLOTS",
		     set_region(c, c->nr_slots, 0, gpa, c->size, c->mem), EINVAL);
	EXPECT_OK("highest slot id",
		  set_region(c, c->nr_slots - 1, 0, gpa, c->size, c->mem + c->size));
	EXPECT_OK("delete highest slot id",
		  set_region(c, c->nr_slots - 1, 0, gpa, 0, c->mem + c->size));
}

/*
 * Where KVM offers KVM_CAP_USER_MEMORY2 the library's memslots go through
 * KVM_SET_USER_MEMORY_REGION2; the original ioctl sees the same slots.
 */
static void test_region2(struct ctx *c)
{
	struct kvm_userspace_memory_region r = {
		.slot = 1,
		.guest_phys_addr = BASE_GPA,
		.memory_size = c->size,
		.userspace_addr = (uintptr_t)(c->mem + c->size),
	};

	TEST_ASSERT(c->vm->memory_region2,
		    "KVM offers KVM_CAP_USER_MEMORY2, the library's memslots do not use it");
	EXPECT_ERRNO("KVM_SET_USER_MEMORY_REGION: slot 1 over slot 0",
		     __vm_ioctl(c->vm, KVM_SET_USER_MEMORY_REGION, &r), EEXIST);
	r.slot = 0;
	r.memory_size = 0;
	r.userspace_addr = (uintptr_t)c->mem;
	EXPECT_OK("KVM_SET_USER_MEMORY_REGION: delete slot 0",
		  __vm_ioctl(c->vm, KVM_SET_USER_MEMORY_REGION, &r));
	EXPECT_OK("re-add slot 0", set_region(c, 0, 0, BASE_GPA, c->size, c->mem));
}

static const char *no_region2(struct ctx *c)
{
#ifdef KVM_CAP_USER_MEMORY2
	if (kvm_has_cap(KVM_CAP_USER_MEMORY2))
		return NULL;
	return "KVM lacks KVM_CAP_USER_MEMORY2";
#else
	return "built against uapi headers without KVM_CAP_USER_MEMORY2";
#endif
}

static const struct {
	const char *name;
	void (*fn)(struct ctx *c);
	const char *(*skip)(struct ctx *c);	/* the reason, if it cannot run */
} cases[] = {
	{ "add and delete", test_add_delete, NULL },
	{ "overlap refused (EEXIST)", test_overlap, NULL },
	{ "move", test_move, NULL },
	{ "misaligned or resized refused (EINVAL)", test_misaligned, NULL },
	{ "flags and dirty logging", test_flags, NULL },
	{ "slot id limits", test_slot_ids, NULL },
	{ "KVM_SET_USER_MEMORY_REGION2 where offered", test_region2, no_region2 },
};

int main(int argc, char *argv[])
{
	struct ctx c = { 0 };
	unsigned int i;

	parse_no_options(argc, argv, "Memslot add, move, delete and flags; invalid slots are refused.");

	c.vm = vm_create_barebones();
	c.nr_slots = vm_check_cap(c.vm, KVM_CAP_NR_MEMSLOTS);
	TEST_ASSERT(c.nr_slots >= 2, "KVM_CAP_NR_MEMSLOTS is %d", c.nr_slots);
	c.page = getpagesize();
	c.size = SLOT_PAGES * c.page;
	c.mem = mmap(NULL, 2 * c.size, PROT_READ | PROT_WRITE,
		     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	TEST_ASSERT(c.mem != MAP_FAILED, "mmap of %lu bytes", (unsigned long)(2 * c.size));

	ksft_print_header();
	ksft_set_plan(ARRAY_SIZE(cases));
	ksft_print_msg("KVM_CAP_NR_MEMSLOTS: %d\n", c.nr_slots);
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		const char *why = NULL;

		if (cases[i].skip)
			why = cases[i].skip(&c);
		if (why) {
			ksft_test_result_skip("%s: %s\n", cases[i].name, why);
			continue;
		}
		cases[i].fn(&c);
		ksft_test_result_pass("%s\n", cases[i].name);
	}
	munmap(c.mem, 2 * c.size);
	kvm_vm_free(c.vm);
	ksft_finished();
}

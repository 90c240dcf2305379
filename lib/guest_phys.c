// SPDX-License-Identifier: GPL-2.0-only
/*
 * Guest physical memory: a page allocator per memslot (what the arch
 * page tables are built from) and translating GPAs to host addresses.
 */
#include "bitmap.h"
#include "kvm_util.h"

static struct userspace_mem_region *slot_region(struct kvm_vm *vm, uint32_t slot)
{
	struct userspace_mem_region *r = memslot2region(vm, slot);

	TEST_ASSERT(r, "No memslot %u in this VM", slot);
	return r;
}

/* First index >= @start of @num set bits in a row, or @nbits if none. */
static uint64_t find_free_run(const unsigned long *map, uint64_t nbits,
			      uint64_t start, uint64_t num)
{
	uint64_t i = start, j;

	while (i + num <= nbits) {
		for (j = i; j < i + num && test_bit(j, map); j++)
			;
		if (j == i + num)
			return i;
		i = j + 1;
	}
	return nbits;
}

uint64_t vm_phy_pages_alloc(struct kvm_vm *vm, uint64_t num, uint64_t paddr_min,
			    uint32_t slot)
{
	struct userspace_mem_region *r = slot_region(vm, slot);
	uint64_t base = r->region.guest_phys_addr >> vm->page_shift;
	uint64_t npages = r->region.memory_size >> vm->page_shift;
	uint64_t min = paddr_min >> vm->page_shift, start, i;

	TEST_ASSERT(num, "Allocating no guest pages");
	TEST_ASSERT(IS_ALIGNED(paddr_min, vm->page_size),
		    "paddr_min 0x%lx not aligned to the page size 0x%x",
		    (unsigned long)paddr_min, vm->page_size);
	start = min > base ? min - base : 0;
	i = find_free_run(r->free_pages, npages, start, num);
	TEST_ASSERT(i < npages, "No %lu free guest pages at or above 0x%lx in slot %u",
		    (unsigned long)num, (unsigned long)paddr_min, slot);
	for (uint64_t j = i; j < i + num; j++)
		clear_bit(j, r->free_pages);
	return (base + i) << vm->page_shift;
}

uint64_t vm_phy_page_alloc(struct kvm_vm *vm, uint64_t paddr_min, uint32_t slot)
{
	return vm_phy_pages_alloc(vm, 1, paddr_min, slot);
}

uint64_t vm_alloc_page_table(struct kvm_vm *vm)
{
	uint64_t gpa = vm_phy_page_alloc(vm, KVM_GUEST_PAGE_TABLE_MIN_PADDR, 0);

	memset(addr_gpa2hva(vm, gpa), 0, vm->page_size);
	return gpa;
}

void *addr_gpa2hva(struct kvm_vm *vm, uint64_t gpa)
{
	struct userspace_mem_region *r = gpa2region(vm, gpa);

	TEST_ASSERT(r, "No memslot holds GPA 0x%lx", (unsigned long)gpa);
	return (uint8_t *)r->host_mem + (gpa - r->region.guest_phys_addr);
}

void *addr_gpa2alias(struct kvm_vm *vm, uint64_t gpa)
{
	struct userspace_mem_region *r = gpa2region(vm, gpa);

	TEST_ASSERT(r, "No memslot holds GPA 0x%lx", (unsigned long)gpa);
	if (!r->host_alias)
		return NULL;
	return (uint8_t *)r->host_alias + (gpa - r->region.guest_phys_addr);
}

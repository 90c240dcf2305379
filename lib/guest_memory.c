// SPDX-License-Identifier: GPL-2.0-only
/*
 * Guest virtual memory: a virtual address allocator, mapping ranges
 * through the arch page tables, and translating GVAs to GPAs and host
 * addresses.  Physical pages come from guest_phys.c.
 */
#include "kvm_util.h"

static void vrange_add(struct kvm_vm *vm, uint64_t start, uint64_t end)
{
	struct vm_vrange *v = realloc(vm->vranges, (vm->nr_vranges + 1) * sizeof(*v));

	TEST_ASSERT(v, "Out of memory");
	v[vm->nr_vranges].start = start;
	v[vm->nr_vranges].end = end;
	vm->vranges = v;
	vm->nr_vranges++;
}

/* A range in use that overlaps [start, end), or NULL. */
static struct vm_vrange *vrange_find(struct kvm_vm *vm, uint64_t start, uint64_t end)
{
	unsigned int i;

	for (i = 0; i < vm->nr_vranges; i++)
		if (start < vm->vranges[i].end && vm->vranges[i].start < end)
			return &vm->vranges[i];
	return NULL;
}

void vm_vaddr_reserve(struct kvm_vm *vm, uint64_t gva, uint64_t size)
{
	struct vm_vrange *v = vrange_find(vm, gva, gva + size);

	TEST_ASSERT(!v, "GVA range [0x%lx, 0x%lx) overlaps [0x%lx, 0x%lx) in use",
		    (unsigned long)gva, (unsigned long)(gva + size),
		    (unsigned long)(v ? v->start : 0), (unsigned long)(v ? v->end : 0));
	vrange_add(vm, gva, gva + size);
}

uint64_t vm_vaddr_alloc(struct kvm_vm *vm, uint64_t size, uint64_t vaddr_min)
{
	uint64_t len = ALIGN_UP(size, (uint64_t)vm->page_size);
	uint64_t gva = ALIGN_UP(vaddr_min, (uint64_t)vm->page_size);
	uint64_t limit = 1ULL << (vm->va_bits - 1), gpa;
	struct vm_vrange *v;

	while ((v = vrange_find(vm, gva, gva + len)))
		gva = ALIGN_UP(v->end, (uint64_t)vm->page_size);
	TEST_ASSERT(gva + len <= limit, "No 0x%lx bytes of GVA space above 0x%lx",
		    (unsigned long)len, (unsigned long)vaddr_min);
	vrange_add(vm, gva, gva + len);

	gpa = vm_phy_pages_alloc(vm, len / vm->page_size,
				 KVM_UTIL_MIN_PFN * vm->page_size, 0);
	for (uint64_t off = 0; off < len; off += vm->page_size)
		virt_pg_map(vm, gva + off, gpa + off);
	return gva;
}

uint64_t vm_vaddr_alloc_pages(struct kvm_vm *vm, uint64_t nr_pages)
{
	return vm_vaddr_alloc(vm, nr_pages * vm->page_size, KVM_UTIL_MIN_VADDR);
}

void virt_pgd_alloc(struct kvm_vm *vm)
{
	if (vm->pgd_created)
		return;
	virt_arch_pgd_alloc(vm);
	vm->pgd_created = true;
}

void virt_pg_map(struct kvm_vm *vm, uint64_t gva, uint64_t gpa)
{
	TEST_ASSERT(IS_ALIGNED(gva | gpa, (uint64_t)vm->page_size),
		    "GVA 0x%lx / GPA 0x%lx not page aligned", (unsigned long)gva,
		    (unsigned long)gpa);
	TEST_ASSERT((gpa >> vm->page_shift) <= vm->max_gfn,
		    "GPA 0x%lx beyond %u PA bits", (unsigned long)gpa, vm->pa_bits);
	virt_pgd_alloc(vm);
	virt_arch_pg_map(vm, gva, gpa, vm->page_size);
}

void virt_map(struct kvm_vm *vm, uint64_t gva, uint64_t gpa, uint64_t npages)
{
	uint64_t sizes[4], left = npages * vm->page_size;
	int n = virt_arch_page_sizes(vm, sizes), i;

	virt_pgd_alloc(vm);
	if (!vrange_find(vm, gva, gva + left))
		vrange_add(vm, gva, gva + left);
	while (left) {
		for (i = 0; i < n; i++)
			if (IS_ALIGNED(gva | gpa, sizes[i]) && left >= sizes[i])
				break;
		TEST_ASSERT(i < n, "GVA 0x%lx / GPA 0x%lx not page aligned",
			    (unsigned long)gva, (unsigned long)gpa);
		if (sizes[i] == vm->page_size)
			virt_pg_map(vm, gva, gpa);
		else
			virt_arch_pg_map(vm, gva, gpa, sizes[i]);
		gva += sizes[i];
		gpa += sizes[i];
		left -= sizes[i];
	}
}

uint64_t addr_gva2gpa(struct kvm_vm *vm, uint64_t gva)
{
	uint64_t gpa;

	TEST_ASSERT(vm->pgd_created && addr_arch_gva2gpa(vm, gva, &gpa),
		    "No mapping for GVA 0x%lx", (unsigned long)gva);
	return gpa;
}

void *addr_gva2hva(struct kvm_vm *vm, uint64_t gva)
{
	return addr_gpa2hva(vm, addr_gva2gpa(vm, gva));
}

void vm_vaddr_populate(struct kvm_vm *vm, uint64_t gva, uint64_t size)
{
	uint64_t start = ALIGN_DOWN(gva, (uint64_t)vm->page_size);
	uint64_t end = ALIGN_UP(gva + size, (uint64_t)vm->page_size), p, gpa;

	virt_pgd_alloc(vm);
	for (p = start; p < end; p += vm->page_size) {
		if (addr_arch_gva2gpa(vm, p, &gpa))
			continue;
		gpa = vm_phy_page_alloc(vm, KVM_UTIL_MIN_PFN * vm->page_size, 0);
		virt_pg_map(vm, p, gpa);
	}
	if (!vrange_find(vm, start, end))
		vrange_add(vm, start, end);
}

void guest_memcpy_to(struct kvm_vm *vm, uint64_t gva, const void *src, uint64_t len)
{
	uint64_t chunk;

	while (len) {
		chunk = vm->page_size - (gva & (vm->page_size - 1));
		if (chunk > len)
			chunk = len;
		if (src)
			memcpy(addr_gva2hva(vm, gva), src, chunk);
		else
			memset(addr_gva2hva(vm, gva), 0, chunk);
		gva += chunk;
		len -= chunk;
		if (src)
			src = (const uint8_t *)src + chunk;
	}
}

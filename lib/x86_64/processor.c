// SPDX-License-Identifier: GPL-2.0-only
/*
 * x86_64 guest modes and 4-level page tables with 4K, 2M and 1G mappings.
 */
#include "processor.h"

#define PTE_PRESENT	(1ULL << 0)
#define PTE_WRITABLE	(1ULL << 1)
#define PTE_LARGE	(1ULL << 7)
#define PTE_ADDR_MASK	(((1ULL << 52) - 1) & ~0xfffULL)
#define PT_LEVELS	4
#define PT_ENTRIES	512

bool guest_mode_arch_supported(enum vm_guest_mode mode)
{
	return mode == VM_MODE_PXXV48_4K;
}

void vm_arch_get_pa_va_bits(enum vm_guest_mode mode, unsigned int *pa_bits,
			    unsigned int *va_bits)
{
	const struct kvm_cpuid_entry2 *e = kvm_get_supported_cpuid_entry(0x80000008, 0);

	TEST_ASSERT(mode == VM_MODE_PXXV48_4K, "Guest mode %s not supported on x86_64",
		    vm_guest_mode_string(mode));
	*pa_bits = e ? (e->eax & 0xff) : 36;
	*va_bits = 48;
}

#ifndef KVM_X86_SW_PROTECTED_VM
#define KVM_X86_SW_PROTECTED_VM	1
#endif

unsigned long vm_arch_vm_type(struct kvm_vm *vm)
{
	return vm->private_mem ? KVM_X86_SW_PROTECTED_VM : 0;
}

/* Software-protected VMs: private memory without SEV or TDX. */
const char *vm_arch_private_type(unsigned long *type, const char **hint)
{
	*type = KVM_X86_SW_PROTECTED_VM;
	*hint = ": KVM built with CONFIG_KVM_SW_PROTECTED_VM=y and the TDP MMU has it";
	return "KVM_X86_SW_PROTECTED_VM";
}

static uint64_t *pt_hva(struct kvm_vm *vm, uint64_t gpa)
{
	return addr_gpa2hva(vm, gpa & PTE_ADDR_MASK);
}

void virt_arch_pgd_alloc(struct kvm_vm *vm)
{
	vm->pgd = vm_alloc_page_table(vm);
}

static int pt_index(uint64_t gva, int level)
{
	return (gva >> (12 + 9 * level)) & (PT_ENTRIES - 1);
}

static uint64_t level_size(int level)
{
	return 1ULL << (12 + 9 * level);
}

static bool gva_canonical(struct kvm_vm *vm, uint64_t gva)
{
	int64_t s = (int64_t)(gva << (64 - vm->va_bits)) >> (64 - vm->va_bits);

	return (uint64_t)s == gva;
}

void x86_pt_map(struct kvm_vm *vm, uint64_t root, uint64_t va, uint64_t pa, uint64_t size,
		uint64_t table_flags, uint64_t leaf_flags)
{
	int level, target = size == level_size(2) ? 2 : size == level_size(1) ? 1 : 0;
	uint64_t *table = pt_hva(vm, root), *pte;

	TEST_ASSERT(size == level_size(target), "Mapping size 0x%lx not 4K, 2M or 1G",
		    (unsigned long)size);
	TEST_ASSERT(IS_ALIGNED(va | pa, size), "Address 0x%lx / GPA 0x%lx not aligned to 0x%lx",
		    (unsigned long)va, (unsigned long)pa, (unsigned long)size);
	for (level = PT_LEVELS - 1; level > target; level--) {
		pte = &table[pt_index(va, level)];
		if (!(*pte & PTE_PRESENT))
			*pte = vm_alloc_page_table(vm) | table_flags;
		TEST_ASSERT(!(*pte & PTE_LARGE), "Address 0x%lx: already in a 0x%lx mapping",
			    (unsigned long)va, (unsigned long)level_size(level));
		table = pt_hva(vm, *pte);
	}
	pte = &table[pt_index(va, target)];
	TEST_ASSERT(!(*pte & PTE_PRESENT), "Address 0x%lx already mapped (PTE 0x%lx)",
		    (unsigned long)va, (unsigned long)*pte);
	*pte = pa | leaf_flags | (target ? PTE_LARGE : 0);
}

/* The present leaf entry mapping @va under @root and its level, or NULL. */
static uint64_t *pt_leaf(struct kvm_vm *vm, uint64_t root, uint64_t va, int *level)
{
	uint64_t *table = pt_hva(vm, root), *pte;

	for (*level = PT_LEVELS - 1; *level >= 0; (*level)--) {
		pte = &table[pt_index(va, *level)];
		if (!(*pte & PTE_PRESENT))
			return NULL;
		if (!*level || (*pte & PTE_LARGE))
			return pte;
		table = pt_hva(vm, *pte);
	}
	return NULL;
}

bool x86_pt_mapped(struct kvm_vm *vm, uint64_t root, uint64_t va)
{
	int level;

	return pt_leaf(vm, root, va, &level);
}

void virt_arch_pg_map(struct kvm_vm *vm, uint64_t gva, uint64_t gpa, uint64_t size)
{
	TEST_ASSERT(gva_canonical(vm, gva), "GVA 0x%lx not canonical", (unsigned long)gva);
	x86_pt_map(vm, vm->pgd, gva, gpa, size, PTE_PRESENT | PTE_WRITABLE,
		   PTE_PRESENT | PTE_WRITABLE);
}

int virt_arch_page_sizes(struct kvm_vm *vm, uint64_t sizes[4])
{
	const struct kvm_cpuid_entry2 *e = kvm_get_supported_cpuid_entry(0x80000001, 0);
	int n = 0;

	/* CPUID 0x80000001 EDX bit 26: 1G pages. */
	if (e && (e->edx & (1U << 26)))
		sizes[n++] = level_size(2);
	sizes[n++] = level_size(1);
	sizes[n++] = level_size(0);
	return n;
}

bool addr_arch_gva2gpa(struct kvm_vm *vm, uint64_t gva, uint64_t *gpa)
{
	uint64_t *pte;
	int level;

	if (!gva_canonical(vm, gva))
		return false;
	pte = pt_leaf(vm, vm->pgd, gva, &level);
	if (!pte)
		return false;
	*gpa = (*pte & PTE_ADDR_MASK & ~(level_size(level) - 1)) |
	       (gva & (level_size(level) - 1));
	return true;
}

// SPDX-License-Identifier: GPL-2.0-only
/*
 * aarch64 guest modes (the IPA sizes KVM offers, the granules the vCPU
 * has) and stage-1 page tables for 4K, 16K and 64K granules, with block
 * mappings, and the TCR_EL1/TTBR0_EL1 values that describe them.
 */
#include <fcntl.h>

#include "processor.h"

#define PTE_VALID	(1ULL << 0)
#define PTE_TABLE	(1ULL << 1)	/* table (levels 0-2) or page (level 3) */
#define PTE_ATTRINDX(i)	((uint64_t)(i) << 2)
#define PTE_SH_INNER	(3ULL << 8)
#define PTE_AF		(1ULL << 10)
#define PTE_TYPE_MASK	(PTE_VALID | PTE_TABLE)
#define PTE_TYPE_BLOCK	PTE_VALID

/* What this host offers, read once from a scratch VM and vCPU. */
static struct {
	bool probed;
	bool ipa_cap;
	unsigned int ipa_max;
	uint64_t mmfr0;
} host;

static void host_probe(void)
{
	struct kvm_vcpu_init init;
	int kvm, vm, vcpu;
	struct kvm_one_reg reg = {
		.id = SYS_ID_AA64MMFR0_EL1, .addr = (uintptr_t)&host.mmfr0,
	};

	if (host.probed)
		return;
	kvm = open_kvm_dev_path_or_exit(O_RDWR);
	host.ipa_max = kvm_ioctl(kvm, KVM_CHECK_EXTENSION, KVM_CAP_ARM_VM_IPA_SIZE);
	host.ipa_cap = host.ipa_max;
	if (!host.ipa_cap)
		host.ipa_max = 40;
	vm = kvm_ioctl(kvm, KVM_CREATE_VM, 0);
	vcpu = kvm_ioctl(vm, KVM_CREATE_VCPU, 0);
	kvm_ioctl(vm, KVM_ARM_PREFERRED_TARGET, &init);
	kvm_ioctl(vcpu, KVM_ARM_VCPU_INIT, &init);
	kvm_ioctl(vcpu, KVM_GET_ONE_REG, &reg);
	close(vcpu);
	close(vm);
	close(kvm);
	host.probed = true;
}

static bool granule_supported(unsigned int page_shift)
{
	switch (page_shift) {
	case 12:
		return MMFR0_TGRAN4(host.mmfr0) != 0xf;
	case 14:
		return MMFR0_TGRAN16(host.mmfr0) != 0;
	case 16:
		return MMFR0_TGRAN64(host.mmfr0) != 0xf;
	}
	return false;
}

bool guest_mode_arch_supported(enum vm_guest_mode mode)
{
	const struct vm_guest_mode_params *m = vm_guest_mode(mode);

	/* 47/48-bit VAs only; a 52-bit PA needs LPA, i.e. 64K pages here. */
	if (m->va_bits != 48 && m->va_bits != 47)
		return false;
	if (!m->pa_bits || (m->pa_bits == 52 && m->page_shift != 16))
		return false;
	host_probe();
	if (m->pa_bits > host.ipa_max || (!host.ipa_cap && m->pa_bits != 40))
		return false;
	return granule_supported(m->page_shift);
}

void vm_arch_get_pa_va_bits(enum vm_guest_mode mode, unsigned int *pa_bits,
			    unsigned int *va_bits)
{
	TEST_FAIL("Guest mode %s has no fixed PA/VA width: not an aarch64 mode",
		  vm_guest_mode_string(mode));
}

unsigned long vm_arch_vm_type(struct kvm_vm *vm)
{
	TEST_ASSERT(!vm->private_mem, "No VM type with private memory on arm64");
	host_probe();
	return host.ipa_cap ? KVM_VM_TYPE_ARM_IPA_SIZE(vm->pa_bits) : 0;
}

/* Protected VMs (pKVM) are not in Debian's kernels: none here. */
const char *vm_arch_private_type(unsigned long *type, const char **hint)
{
	*type = 0;
	*hint = "";
	return NULL;
}

/* Levels are numbered as the Arm ARM does: the last one is 3. */
static unsigned int level_shift(struct kvm_vm *vm, int level)
{
	return vm->page_shift + (3 - level) * (vm->page_shift - 3);
}

static int start_level(struct kvm_vm *vm)
{
	int levels = DIV_ROUND_UP(vm->va_bits - vm->page_shift, vm->page_shift - 3);

	return 4 - levels;
}

static uint64_t level_size(struct kvm_vm *vm, int level)
{
	return 1ULL << level_shift(vm, level);
}

static unsigned int pt_index(struct kvm_vm *vm, uint64_t gva, int level)
{
	return (gva >> level_shift(vm, level)) & ((1U << (vm->page_shift - 3)) - 1);
}

/* Output address <-> descriptor: with 64K pages, PA[51:48] go to [15:12]. */
static uint64_t pte_addr(struct kvm_vm *vm, uint64_t pte)
{
	uint64_t pa = pte & GENMASK_ULL(47, vm->page_shift);

	if (vm->page_shift == 16)
		pa |= (pte & GENMASK_ULL(15, 12)) << 36;
	return pa;
}

static uint64_t addr_pte(struct kvm_vm *vm, uint64_t pa)
{
	uint64_t pte = pa & GENMASK_ULL(47, vm->page_shift);

	if (vm->page_shift == 16)
		pte |= (pa >> 36) & GENMASK_ULL(15, 12);
	return pte;
}

static uint64_t *pt_hva(struct kvm_vm *vm, uint64_t gpa)
{
	return addr_gpa2hva(vm, gpa);
}

void virt_arch_pgd_alloc(struct kvm_vm *vm)
{
	vm->pgd = vm_alloc_page_table(vm);
}

/* Level of a mapping of @size bytes: 3 for a page, 2 or 1 for a block. */
static int size_level(struct kvm_vm *vm, uint64_t size)
{
	int level;

	for (level = 3; level >= start_level(vm); level--)
		if (level_size(vm, level) == size)
			return level;
	return -1;
}

void aarch64_pg_map_attr(struct kvm_vm *vm, uint64_t gva, uint64_t gpa,
			 uint64_t size, unsigned int attr)
{
	int level, target = size_level(vm, size);
	uint64_t *table = pt_hva(vm, vm->pgd), *pte;

	TEST_ASSERT(target >= 0, "Mapping size 0x%lx is no level's size",
		    (unsigned long)size);
	TEST_ASSERT(IS_ALIGNED(gva | gpa, size), "GVA 0x%lx / GPA 0x%lx not aligned to 0x%lx",
		    (unsigned long)gva, (unsigned long)gpa, (unsigned long)size);
	TEST_ASSERT(!(gva >> vm->va_bits), "GVA 0x%lx beyond %u VA bits",
		    (unsigned long)gva, vm->va_bits);
	for (level = start_level(vm); level < target; level++) {
		pte = &table[pt_index(vm, gva, level)];
		if (!(*pte & PTE_VALID))
			*pte = addr_pte(vm, vm_alloc_page_table(vm)) | PTE_VALID | PTE_TABLE;
		TEST_ASSERT((*pte & PTE_TYPE_MASK) != PTE_TYPE_BLOCK,
			    "GVA 0x%lx: already in a 0x%lx block", (unsigned long)gva,
			    (unsigned long)level_size(vm, level));
		table = pt_hva(vm, pte_addr(vm, *pte));
	}
	pte = &table[pt_index(vm, gva, target)];
	TEST_ASSERT(!(*pte & PTE_VALID), "GVA 0x%lx already mapped (descriptor 0x%lx)",
		    (unsigned long)gva, (unsigned long)*pte);
	*pte = addr_pte(vm, gpa) | PTE_VALID | (target == 3 ? PTE_TABLE : 0) |
	       PTE_ATTRINDX(attr) | PTE_SH_INNER | PTE_AF;
}

void virt_arch_pg_map(struct kvm_vm *vm, uint64_t gva, uint64_t gpa, uint64_t size)
{
	aarch64_pg_map_attr(vm, gva, gpa, size, MT_NORMAL);
}

/* Blocks at level 2 (2M, 32M, 512M) and, with 4K pages, level 1 (1G). */
int virt_arch_page_sizes(struct kvm_vm *vm, uint64_t sizes[4])
{
	int n = 0;

	if (vm->page_shift == 12 && start_level(vm) <= 1)
		sizes[n++] = level_size(vm, 1);
	sizes[n++] = level_size(vm, 2);
	sizes[n++] = level_size(vm, 3);
	return n;
}

bool addr_arch_gva2gpa(struct kvm_vm *vm, uint64_t gva, uint64_t *gpa)
{
	uint64_t *table = pt_hva(vm, vm->pgd), pte, mask;
	int level;

	if (gva >> vm->va_bits)
		return false;
	for (level = start_level(vm); level <= 3; level++) {
		pte = table[pt_index(vm, gva, level)];
		if (!(pte & PTE_VALID))
			return false;
		if (level == 3 || (pte & PTE_TYPE_MASK) == PTE_TYPE_BLOCK) {
			mask = level_size(vm, level) - 1;
			*gpa = (pte_addr(vm, pte) & ~mask) | (gva & mask);
			return true;
		}
		table = pt_hva(vm, pte_addr(vm, pte));
	}
	return false;
}

static uint64_t tcr_ips(unsigned int pa_bits)
{
	static const unsigned int bits[] = { 32, 36, 40, 42, 44, 48, 52 };
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(bits); i++)
		if (bits[i] >= pa_bits)
			return i;
	TEST_FAIL("No TCR_EL1.IPS for %u PA bits", pa_bits);
}

uint64_t aarch64_tcr(struct kvm_vm *vm)
{
	uint64_t tg0 = vm->page_shift == 16 ? TCR_TG0_64K :
		       vm->page_shift == 14 ? TCR_TG0_16K : TCR_TG0_4K;

	return TCR_T0SZ(vm->va_bits) | TCR_IRGN0_WBWA | TCR_ORGN0_WBWA |
	       TCR_SH0_INNER | tg0 | TCR_EPD1 | TCR_TG1_4K |
	       (tcr_ips(vm->pa_bits) << TCR_IPS_SHIFT);
}

/* With a 52-bit PA, TTBR0_EL1[5:2] hold PA[51:48] of the table. */
uint64_t aarch64_ttbr0(struct kvm_vm *vm)
{
	return (vm->pgd & GENMASK_ULL(47, 0)) | ((vm->pgd >> 46) & GENMASK_ULL(5, 2));
}

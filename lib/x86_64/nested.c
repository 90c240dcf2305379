// SPDX-License-Identifier: GPL-2.0-only
/*
 * x86_64 nested vCPUs, the vendor-neutral part: which vendor KVM's guest
 * CPUID offers (svm.c: AMD SVM, vmx.c: Intel VMX), L1's 1:1 tables
 * mapping L2's GPAs onto every memslot, and per vCPU the page L1 reads,
 * the control block, the CPU's area for L1, a zeroed bitmap page and
 * L2's stack.
 *
 * L2 runs on L1's page tables, descriptor tables and exception handlers;
 * L1 intercepts no I/O, so L2's ucalls exit straight to the host as L1's
 * do, and anything that does exit to L1 fails the test from L1.
 */
#include <stdio.h>

#include "nested.h"

static bool cpuid_has(uint32_t function, uint32_t ecx_bit)
{
	const struct kvm_cpuid_entry2 *e = kvm_get_supported_cpuid_entry(function, 0);

	return e && (e->ecx & ecx_bit);
}

/* The module's "nested" parameter says off ("0" or "N"). */
static bool module_nested_off(const char *module)
{
	char path[80], v[8];

	snprintf(path, sizeof(path), "/sys/module/%s/parameters/nested", module);
	if (!read_sys_line(path, v, sizeof(v)))
		return false;
	return v[0] == '0' || v[0] == 'N';
}

static const struct nested_vendor * const vendors[] = { &nested_svm, &nested_vmx };

static const struct nested_vendor *nested_vendor(char *why, size_t len)
{
	const struct nested_vendor *v;
	unsigned int i;

	/* nested=0 hides svm/vmx from the guest CPUID: say that first. */
	for (i = 0; i < ARRAY_SIZE(vendors); i++) {
		if (module_nested_off(vendors[i]->module)) {
			snprintf(why, len, "Nested vCPUs (-n): nested virtualization is off in %s (nested=0)",
				 vendors[i]->module);
			return NULL;
		}
	}
	for (i = 0; i < ARRAY_SIZE(vendors); i++) {
		v = vendors[i];
		if (cpuid_has(v->cpuid_function, v->cpuid_ecx_bit))
			return v->unavailable(why, len) ? NULL : v;
	}
	snprintf(why, len, "Nested vCPUs (-n): no svm or vmx in the guest CPUID this KVM offers: it cannot run nested guests");
	return NULL;
}

const char *nested_arch_unavailable(char *why, size_t len)
{
	return nested_vendor(why, len) ? NULL : why;
}

static const struct nested_vendor *vendor_or_fail(void)
{
	const struct nested_vendor *v;
	char why[160];

	v = nested_vendor(why, sizeof(why));
	TEST_ASSERT(v, "%s", why);
	return v;
}

uint64_t nested_arch_extra_pages(uint32_t nr_vcpus, uint64_t bytes)
{
	/* Per vCPU: its page, control block, save area, bitmap, L2's stack. */
	uint64_t pages = nr_vcpus * (4 + DEFAULT_STACK_PGS);

	/* The tables: a root, per 512G a PDPT, per 1G a PD (2M mappings). */
	return pages + 16 + 2 * (bytes >> 39) + 2 * (bytes >> 30);
}

void nested_arch_vm_setup(struct kvm_vm *vm)
{
	const struct nested_vendor *v = vendor_or_fail();
	uint64_t size = v->leaf_size(vm), root, gpa, end;
	struct userspace_mem_region *r;

	root = vm_alloc_page_table(vm);
	for (r = vm->regions; r; r = r->next) {
		gpa = ALIGN_DOWN((uint64_t)r->region.guest_phys_addr, size);
		end = ALIGN_UP((uint64_t)(r->region.guest_phys_addr + r->region.memory_size),
			       size);
		for (; gpa < end; gpa += size)
			if (!x86_pt_mapped(vm, root, gpa))
				x86_pt_map(vm, root, gpa, gpa, size, v->table_flags,
					   v->leaf_flags);
	}
	vm->arch.nested_root = root;
}

static uint64_t alloc_page(struct kvm_vm *vm, uint64_t *gpa)
{
	uint64_t gva = vm_vaddr_alloc(vm, vm->page_size, KVM_UTIL_MIN_VADDR);

	*gpa = addr_gva2gpa(vm, gva);
	memset(addr_gva2hva(vm, gva), 0, vm->page_size);
	return gva;
}

void nested_arch_vcpu_setup(struct kvm_vm *vm, struct kvm_vcpu *vcpu, void *l2_code,
			    uint64_t arg)
{
	const struct nested_vendor *v = vendor_or_fail();
	uint64_t gva, gpa;
	struct nested_vcpu *n;

	TEST_ASSERT(vm->arch.nested_root, "nested_arch_vm_setup() first");
	gva = alloc_page(vm, &gpa);
	n = addr_gva2hva(vm, gva);
	n->l2_arg = arg;
	n->ctl_gva = alloc_page(vm, &n->ctl_gpa);
	n->host_gva = alloc_page(vm, &n->host_gpa);
	alloc_page(vm, &n->bitmap_gpa);
	v->vcpu_setup(vm, vcpu, n, vm->arch.nested_root, (uint64_t)l2_code,
		      x86_guest_stack(vm));
	vcpu_arch_set_entry(vcpu, v->l1_code);
	vcpu_args_set(vcpu, 1, gva);
}

int nested_arch_vcpu_in_l2(struct kvm_vcpu *vcpu)
{
	uint64_t v;

	if (!kvm_has_cap(KVM_CAP_BINARY_STATS_FD) || !kvm_read_stat(vcpu->fd, "guest_mode", &v))
		return -1;
	return !!v;
}

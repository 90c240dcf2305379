// SPDX-License-Identifier: GPL-2.0-only
/*
 * kvm_util: creating and freeing VMs.
 */
#include <fcntl.h>
#include <sys/mman.h>

#include "kvm_util.h"

static struct kvm_vm *vm_alloc(enum vm_guest_mode mode)
{
	const struct vm_guest_mode_params *m = vm_guest_mode(mode);
	struct kvm_vm *vm = calloc(1, sizeof(*vm));

	TEST_ASSERT(vm, "Out of memory allocating a VM");
	vm->mode = mode;
	vm->pa_bits = m->pa_bits;
	vm->va_bits = m->va_bits;
	vm->page_size = m->page_size;
	vm->page_shift = m->page_shift;
	if (!vm->pa_bits || !vm->va_bits)
		vm_arch_get_pa_va_bits(mode, &vm->pa_bits, &vm->va_bits);
	vm->max_gfn = ((1ULL << vm->pa_bits) >> vm->page_shift) - 1;
	return vm;
}

static void vm_open(struct kvm_vm *vm)
{
	vm->kvm_fd = kvm_dev_open(O_RDWR);
	vm->fd = kvm_ioctl(vm->kvm_fd, KVM_CREATE_VM, vm->type);
	vm->pid = getpid();
	vm->memory_region2 = vm_has_memory_region2(vm);
}

struct kvm_vm *vm_create_barebones(void)
{
	struct kvm_vm *vm = vm_alloc(VM_MODE_DEFAULT);

	vm_open(vm);
	return vm;
}

/* Slot 0: the binary, page tables, stacks, ucalls, and @extra_pages. */
static uint64_t vm_nr_pages_required(enum vm_guest_mode mode, uint32_t nr_vcpus,
				     uint64_t extra_pages)
{
	uint64_t page_size = vm_guest_mode(mode)->page_size;
	uint64_t pages = DEFAULT_GUEST_PHY_PAGES;

	pages += nr_vcpus * DEFAULT_STACK_PGS * (4096 / page_size + 1);
	pages += extra_pages;
	/* Page tables for it all, at 8-byte entries, plus the upper levels. */
	pages += pages / (page_size / 8) * 2 + 16;
	/* The binary: a static test is a few MiB at most. */
	pages += 16 * MB / page_size;
	return pages;
}

struct kvm_vm *vm_create_shape_empty(struct vm_shape shape)
{
	struct kvm_vm *vm;

	TEST_ASSERT(guest_mode_arch_supported(shape.mode),
		    "Guest mode %s is not supported by this host",
		    vm_guest_mode_string(shape.mode));
	vm = vm_alloc(shape.mode);
	vm->private_mem = shape.private_mem;
	vm->type = vm_arch_vm_type(vm);
	vm_open(vm);
	return vm;
}

void vm_create_populate(struct kvm_vm *vm, uint32_t nr_vcpus, uint64_t extra_pages)
{
	uint64_t nr_pages = vm_nr_pages_required(vm->mode, nr_vcpus, extra_pages);

	vm_userspace_mem_region_add(vm, VM_MEM_SRC_ANONYMOUS, 0, 0, nr_pages, 0);
	virt_pgd_alloc(vm);
	kvm_vm_elf_load(vm, "/proc/self/exe");
	ucall_init(vm);
	vm_arch_setup(vm);
}

struct kvm_vm *__vm_create_shape(struct vm_shape shape, uint32_t nr_vcpus,
				 uint64_t extra_pages)
{
	struct kvm_vm *vm = vm_create_shape_empty(shape);

	vm_create_populate(vm, nr_vcpus, extra_pages);
	return vm;
}

struct kvm_vm *__vm_create(enum vm_guest_mode mode, uint32_t nr_vcpus,
			   uint64_t extra_pages)
{
	return __vm_create_shape(VM_SHAPE(mode), nr_vcpus, extra_pages);
}

struct kvm_vm *vm_create(uint32_t nr_vcpus)
{
	return __vm_create(VM_MODE_DEFAULT, nr_vcpus, 0);
}

struct kvm_vm *__vm_create_with_vcpus(enum vm_guest_mode mode, uint32_t nr_vcpus,
				      uint64_t extra_pages, void *guest_code,
				      struct kvm_vcpu *vcpus[])
{
	struct kvm_vm *vm = __vm_create(mode, nr_vcpus, extra_pages);
	uint32_t i;

	for (i = 0; i < nr_vcpus; i++)
		vcpus[i] = vm_vcpu_add(vm, i, guest_code);
	return vm;
}

struct kvm_vm *vm_create_with_vcpus(uint32_t nr_vcpus, void *guest_code,
				    struct kvm_vcpu *vcpus[])
{
	return __vm_create_with_vcpus(VM_MODE_DEFAULT, nr_vcpus, 0, guest_code, vcpus);
}

struct kvm_vm *vm_create_with_one_vcpu(struct kvm_vcpu **vcpu, void *guest_code)
{
	return vm_create_with_vcpus(1, guest_code, vcpu);
}

struct kvm_vm *vm_create_shape_with_one_vcpu(struct vm_shape shape, struct kvm_vcpu **vcpu,
					     void *guest_code)
{
	struct kvm_vm *vm = __vm_create_shape(shape, 1, 0);

	*vcpu = vm_vcpu_add(vm, 0, guest_code);
	return vm;
}

static void vcpu_free(struct kvm_vcpu *vcpu)
{
	int sz = kvm_ioctl(vcpu->vm->kvm_fd, KVM_GET_VCPU_MMAP_SIZE, NULL);

	TEST_ASSERT(!munmap(vcpu->run, sz), "munmap(vCPU %u run area)", vcpu->id);
	TEST_ASSERT(!close(vcpu->fd), "close(vCPU %u fd %d)", vcpu->id, vcpu->fd);
	free(vcpu);
}

void kvm_vm_free(struct kvm_vm *vm)
{
	struct kvm_vcpu *vcpu;

	if (!vm)
		return;
	while ((vcpu = vm->vcpus)) {
		vm->vcpus = vcpu->next;
		vcpu_free(vcpu);
	}
	vm_arch_free(vm);
	TEST_ASSERT(!close(vm->fd), "close(vm fd %d)", vm->fd);
	TEST_ASSERT(!close(vm->kvm_fd), "close(kvm fd %d)", vm->kvm_fd);
	/* The VM is gone: its memory can go without deleting each slot. */
	vm_free_regions(vm);
	free(vm->vranges);
	free(vm);
}

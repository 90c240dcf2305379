// SPDX-License-Identifier: GPL-2.0-only
/*
 * kvm_util: opening KVM, creating and freeing VMs, capabilities and
 * memslots.
 */
#include <fcntl.h>

#include "kvm_util.h"

int open_kvm_dev_path_or_exit(int flags)
{
	int fd = open(KVM_DEV_PATH, flags);

	if (fd < 0)
		test_skip("%s not available: %s", KVM_DEV_PATH, strerror(errno));
	return fd;
}

static int kvm_fd_check_api(int fd)
{
	int ret = kvm_ioctl(fd, KVM_GET_API_VERSION, NULL);

	TEST_ASSERT(ret == KVM_API_VERSION,
		    "KVM_GET_API_VERSION returned %d, expected %d", ret,
		    KVM_API_VERSION);
	return fd;
}

int kvm_check_cap(long cap)
{
	int fd = kvm_fd_check_api(open_kvm_dev_path_or_exit(O_RDONLY));
	int ret = kvm_ioctl(fd, KVM_CHECK_EXTENSION, cap);

	close(fd);
	return ret;
}

struct kvm_vm *vm_create_barebones(void)
{
	struct kvm_vm *vm = calloc(1, sizeof(*vm));

	TEST_ASSERT(vm, "Out of memory allocating a VM");
	vm->kvm_fd = kvm_fd_check_api(open_kvm_dev_path_or_exit(O_RDWR));
	vm->fd = kvm_ioctl(vm->kvm_fd, KVM_CREATE_VM, vm->type);
	return vm;
}

void kvm_vm_free(struct kvm_vm *vm)
{
	if (!vm)
		return;
	TEST_ASSERT(!close(vm->fd), "close(vm fd %d)", vm->fd);
	TEST_ASSERT(!close(vm->kvm_fd), "close(kvm fd %d)", vm->kvm_fd);
	free(vm);
}

int vm_check_cap(struct kvm_vm *vm, long cap)
{
	return vm_ioctl(vm, KVM_CHECK_EXTENSION, cap);
}

int __vm_set_user_memory_region(struct kvm_vm *vm, uint32_t slot,
				uint32_t flags, uint64_t gpa, uint64_t size,
				void *hva)
{
	struct kvm_userspace_memory_region region = {
		.slot = slot,
		.flags = flags,
		.guest_phys_addr = gpa,
		.memory_size = size,
		.userspace_addr = (uintptr_t)hva,
	};

	return __vm_ioctl(vm, KVM_SET_USER_MEMORY_REGION, &region);
}

void vm_set_user_memory_region(struct kvm_vm *vm, uint32_t slot,
			       uint32_t flags, uint64_t gpa, uint64_t size,
			       void *hva)
{
	int ret = __vm_set_user_memory_region(vm, slot, flags, gpa, size, hva);

	TEST_ASSERT(!ret, __KVM_IOCTL_ERROR("KVM_SET_USER_MEMORY_REGION",
					    vm->fd, ret));
}

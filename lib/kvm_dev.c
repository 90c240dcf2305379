// SPDX-License-Identifier: GPL-2.0-only
/*
 * /dev/kvm and capabilities: opening KVM (or skipping without it), and
 * asking KVM or a VM for a capability, enabling a VM's; whether KVM has
 * marked a VM dead.
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

void kvm_require_dev(void)
{
	close(open_kvm_dev_path_or_exit(O_RDWR));
}

static int kvm_fd_check_api(int fd)
{
	int ret = kvm_ioctl(fd, KVM_GET_API_VERSION, NULL);

	TEST_ASSERT(ret == KVM_API_VERSION,
		    "KVM_GET_API_VERSION returned %d, expected %d", ret,
		    KVM_API_VERSION);
	return fd;
}

int kvm_dev_open(int flags)
{
	return kvm_fd_check_api(open_kvm_dev_path_or_exit(flags));
}

int kvm_check_cap(long cap)
{
	int fd = kvm_dev_open(O_RDONLY);
	int ret = kvm_ioctl(fd, KVM_CHECK_EXTENSION, cap);

	close(fd);
	return ret;
}

const char *kvm_vm_dead_note(struct kvm_vm *vm)
{
	const char *note = "";
	int err = errno;

	if (err != EIO || !vm)
		return note;
	if (getpid() != vm->pid)
		note = ": the VM is another process's (KVM answers only its creator)";
	else if (__vm_ioctl(vm, KVM_CHECK_EXTENSION, KVM_CAP_USER_MEMORY) < 0 &&
		 errno == EIO)
		note = ": KVM has marked the VM dead (an internal error: see the host's dmesg)";
	errno = err;
	return note;
}

int vm_check_cap(struct kvm_vm *vm, long cap)
{
	return vm_ioctl(vm, KVM_CHECK_EXTENSION, cap);
}

int __vm_enable_cap(struct kvm_vm *vm, uint32_t cap, uint64_t arg0)
{
	struct kvm_enable_cap ec = { .cap = cap, .args[0] = arg0 };

	return __vm_ioctl(vm, KVM_ENABLE_CAP, &ec);
}

void vm_enable_cap(struct kvm_vm *vm, uint32_t cap, uint64_t arg0)
{
	int ret = __vm_enable_cap(vm, cap, arg0);

	TEST_ASSERT(!ret, "KVM_ENABLE_CAP(%u, 0x%lx) failed on vm fd %d, errno: %d (%s)",
		    cap, (unsigned long)arg0, vm->fd, errno, strerror(errno));
}

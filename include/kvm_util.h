/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * kvm_util: VMs, memslots and vCPUs on top of the KVM API.
 *
 * Every KVM ioctl goes through kvm_ioctl() and friends, which assert on
 * failure with the ioctl's name, the fd and errno.  The __ variants return
 * the raw result for tests that expect an error.
 */
#ifndef SELFTEST_KVM_UTIL_H
#define SELFTEST_KVM_UTIL_H

#include <linux/kvm.h>
#include <sys/ioctl.h>

#include "test_util.h"

#define KVM_DEV_PATH "/dev/kvm"

struct kvm_vm {
	int kvm_fd;
	int fd;
	unsigned long type;
};

#define __KVM_IOCTL_ERROR(name, fd, ret)				\
	"%s failed on fd %d, rc: %d errno: %d (%s)", name, fd, ret,	\
	errno, strerror(errno)

#define __kvm_ioctl(fd, cmd, arg)	ioctl(fd, cmd, arg)

#define kvm_ioctl(fd, cmd, arg) ({					\
	int __fd = (fd);						\
	int __ret = ioctl(__fd, cmd, arg);				\
	TEST_ASSERT(__ret >= 0, __KVM_IOCTL_ERROR(#cmd, __fd, __ret));	\
	__ret;								\
})

#define __vm_ioctl(vm, cmd, arg)	__kvm_ioctl((vm)->fd, cmd, arg)
#define vm_ioctl(vm, cmd, arg)		kvm_ioctl((vm)->fd, cmd, arg)

/* Assert that @ret is the failure of @name with @err, as the API says. */
#define TEST_ASSERT_IOCTL_ERRNO(name, ret, err)				\
	TEST_ASSERT((ret) == -1 && errno == (err),			\
		    "%s should fail with %s, rc: %d errno: %d (%s)",	\
		    name, strerror(err), ret, errno, strerror(errno))

/* Open /dev/kvm with @flags, or skip (exit 4) saying why it can't be. */
int open_kvm_dev_path_or_exit(int flags);
int kvm_check_cap(long cap);
#define kvm_has_cap(cap)	(kvm_check_cap(cap) > 0)

struct kvm_vm *vm_create_barebones(void);
void kvm_vm_free(struct kvm_vm *vm);
int vm_check_cap(struct kvm_vm *vm, long cap);

int __vm_set_user_memory_region(struct kvm_vm *vm, uint32_t slot,
				uint32_t flags, uint64_t gpa, uint64_t size,
				void *hva);
void vm_set_user_memory_region(struct kvm_vm *vm, uint32_t slot,
			       uint32_t flags, uint64_t gpa, uint64_t size,
			       void *hva);

#endif /* SELFTEST_KVM_UTIL_H */

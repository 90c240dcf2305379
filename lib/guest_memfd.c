// SPDX-License-Identifier: GPL-2.0-only
/*
 * guest_memfd and private memory: what this host's KVM offers (probed on
 * a VM of the shape asked for), creating guest_memfds, memory attributes
 * and punching holes.
 */
#include <fcntl.h>
#include <linux/falloc.h>
#include <sys/mman.h>

#include "guest_memfd.h"
#include "kvm_util.h"

/* What the shared guest_memfd backing needs: the host can map it. */
#define GMEM_SHARED_FLAGS	(GUEST_MEMFD_FLAG_MMAP | GUEST_MEMFD_FLAG_INIT_SHARED)

__printf(3, 4) static const char *because(char *why, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, len, fmt, ap);
	va_end(ap);
	return why;
}

/* A bare VM of @type (no memslot): its fd, or -errno. */
static int probe_vm(unsigned long type)
{
	int kvm = open_kvm_dev_path_or_exit(O_RDWR);
	int fd = __kvm_ioctl(kvm, KVM_CREATE_VM, type);
	int err = errno;

	close(kvm);
	return fd < 0 ? -err : fd;
}

static int vm_fd_cap(int vm_fd, long cap)
{
	int ret = __kvm_ioctl(vm_fd, KVM_CHECK_EXTENSION, cap);

	return ret < 0 ? 0 : ret;
}

/* What a VM of @type lacks for guest_memfd slots, NULL if nothing. */
static const char *vm_type_gmem_lacks(unsigned long type, const char *what, bool private_mem,
				      char *why, size_t len)
{
	const char *ret = NULL;
	int fd = probe_vm(type), flags;

	if (fd < 0)
		return because(why, len, "KVM_CREATE_VM(%s) failed: %s", what, strerror(-fd));
	flags = vm_fd_cap(fd, KVM_CAP_GUEST_MEMFD_FLAGS);
	if (vm_fd_cap(fd, KVM_CAP_USER_MEMORY2) <= 0)
		ret = because(why, len, "KVM lacks KVM_SET_USER_MEMORY_REGION2 (KVM_CAP_USER_MEMORY2, 6.8+) for %s",
			      what);
	else if (vm_fd_cap(fd, KVM_CAP_GUEST_MEMFD) <= 0)
		ret = because(why, len, "KVM lacks guest_memfd (KVM_CAP_GUEST_MEMFD) for %s", what);
	else if (private_mem &&
		 !(vm_fd_cap(fd, KVM_CAP_MEMORY_ATTRIBUTES) & KVM_MEMORY_ATTRIBUTE_PRIVATE))
		ret = because(why, len, "KVM lacks KVM_MEMORY_ATTRIBUTE_PRIVATE in KVM_CAP_MEMORY_ATTRIBUTES for %s",
			      what);
	else if (!private_mem && (flags & GMEM_SHARED_FLAGS) != GMEM_SHARED_FLAGS)
		ret = because(why, len, "KVM's guest_memfd flags 0x%x (KVM_CAP_GUEST_MEMFD_FLAGS) lack MMAP|INIT_SHARED (6.18+) for %s: the host cannot map it",
			      flags, what);
	close(fd);
	return ret;
}

const char *kvm_private_mem_unavailable(char *why, size_t len)
{
	const char *name, *hint = "";
	unsigned long type;
	int types;

	name = vm_arch_private_type(&type, &hint);
	if (!name)
		return because(why, len, "no VM type with private memory on this arch in this suite");
	types = kvm_check_cap(KVM_CAP_VM_TYPES);
	if (!(types & (1 << type)))
		return because(why, len, "KVM lacks the VM type %s (KVM_CAP_VM_TYPES 0x%x)%s", name, types,
			       hint);
	return vm_type_gmem_lacks(type, name, true, why, len);
}

const char *kvm_backing_src_unavailable(uint32_t src_type, char *why, size_t len)
{
	if (!backing_src_is_guest_memfd(src_type))
		return NULL;
	if (backing_src_is_private(src_type))
		return kvm_private_mem_unavailable(why, len);
	return vm_type_gmem_lacks(0, "the default VM type", false, why, len);
}

/*
 * One page slot of @src_type with @flags on a bare VM of its shape, then
 * (@move) moved one page up: 0 or -errno.
 */
static int probe_slot(uint32_t src_type, uint32_t flags, bool move)
{
	bool private_mem = backing_src_is_private(src_type);
	uint64_t gmem_flags = private_mem ? 0 : GMEM_SHARED_FLAGS;
	struct kvm_create_guest_memfd gmem = { .size = getpagesize(), .flags = gmem_flags };
	struct kvm_userspace_memory_region2 region = {
		.slot = 1,
		.flags = flags | KVM_MEM_GUEST_MEMFD,
		.memory_size = gmem.size,
	};
	unsigned long type = 0;
	int vm_fd, gmem_fd, ret;
	const char *hint;
	void *mem;

	if (private_mem)
		vm_arch_private_type(&type, &hint);
	vm_fd = probe_vm(type);
	if (vm_fd < 0)
		return vm_fd;
	gmem_fd = __kvm_ioctl(vm_fd, KVM_CREATE_GUEST_MEMFD, &gmem);
	TEST_ASSERT(gmem_fd >= 0, "KVM_CREATE_GUEST_MEMFD(flags 0x%lx) failed on vm fd %d, errno: %d (%s)",
		    (unsigned long)gmem_flags, vm_fd, errno, strerror(errno));
	mem = mmap(NULL, gmem.size, PROT_READ | PROT_WRITE,
		   private_mem ? MAP_PRIVATE | MAP_ANONYMOUS : MAP_SHARED,
		   private_mem ? -1 : gmem_fd, 0);
	TEST_ASSERT(mem != MAP_FAILED, "mmap(one page of guest memory) failed");
	region.userspace_addr = (uintptr_t)mem;
	region.guest_memfd = gmem_fd;
	ret = __kvm_ioctl(vm_fd, KVM_SET_USER_MEMORY_REGION2, &region) ? -errno : 0;
	if (!ret && move) {
		region.guest_phys_addr += gmem.size;
		ret = __kvm_ioctl(vm_fd, KVM_SET_USER_MEMORY_REGION2, &region) ? -errno : 0;
	}
	munmap(mem, gmem.size);
	close(gmem_fd);
	close(vm_fd);
	return ret;
}

const char *kvm_backing_src_flags_unavailable(uint32_t src_type, uint32_t flags,
					      char *why, size_t len)
{
	int ret;

	if (kvm_backing_src_unavailable(src_type, why, len))
		return why;
	if (!backing_src_is_guest_memfd(src_type))
		return NULL;
	ret = probe_slot(src_type, flags, false);
	if (!ret)
		return NULL;
	return because(why, len, "KVM refuses slot flags 0x%x on %s slots (KVM_SET_USER_MEMORY_REGION2: %s)",
		       flags, vm_mem_backing_src_alias(src_type)->name, strerror(-ret));
}

const char *kvm_backing_src_move_unavailable(uint32_t src_type, char *why, size_t len)
{
	int ret;

	if (kvm_backing_src_unavailable(src_type, why, len))
		return why;
	if (!backing_src_is_guest_memfd(src_type))
		return NULL;
	ret = probe_slot(src_type, 0, true);
	if (!ret)
		return NULL;
	return because(why, len, "KVM refuses to move %s slots (KVM_SET_USER_MEMORY_REGION2 to a new GPA: %s)",
		       vm_mem_backing_src_alias(src_type)->name, strerror(-ret));
}

void kvm_backing_src_require(uint32_t src_type)
{
	char why[256];

	if (kvm_backing_src_unavailable(src_type, why, sizeof(why)))
		test_skip("%s: %s", vm_mem_backing_src_alias(src_type)->name, why);
}

struct vm_shape vm_shape_for_backing(enum vm_guest_mode mode, uint32_t src_type)
{
	return (struct vm_shape){
		.mode = mode,
		.private_mem = backing_src_is_private(src_type),
	};
}

uint64_t vm_guest_memfd_flags(struct kvm_vm *vm)
{
	int ret = __vm_ioctl(vm, KVM_CHECK_EXTENSION, KVM_CAP_GUEST_MEMFD_FLAGS);

	return ret < 0 ? 0 : ret;
}

int __vm_create_guest_memfd(struct kvm_vm *vm, uint64_t size, uint64_t flags)
{
	struct kvm_create_guest_memfd gmem = { .size = size, .flags = flags };

	return __vm_ioctl(vm, KVM_CREATE_GUEST_MEMFD, &gmem);
}

int vm_create_guest_memfd(struct kvm_vm *vm, uint64_t size, uint64_t flags)
{
	int fd = __vm_create_guest_memfd(vm, size, flags);

	TEST_ASSERT(fd >= 0, "KVM_CREATE_GUEST_MEMFD(size 0x%lx, flags 0x%lx) failed on vm fd %d, errno: %d (%s)",
		    (unsigned long)size, (unsigned long)flags, vm->fd, errno, strerror(errno));
	return fd;
}

int __vm_set_memory_attributes(struct kvm_vm *vm, uint64_t gpa, uint64_t size,
			       uint64_t attributes)
{
	struct kvm_memory_attributes attr = {
		.address = gpa,
		.size = size,
		.attributes = attributes,
	};

	return __vm_ioctl(vm, KVM_SET_MEMORY_ATTRIBUTES, &attr);
}

void vm_set_memory_attributes(struct kvm_vm *vm, uint64_t gpa, uint64_t size,
			      uint64_t attributes)
{
	int ret = __vm_set_memory_attributes(vm, gpa, size, attributes);

	TEST_ASSERT(!ret, "KVM_SET_MEMORY_ATTRIBUTES([0x%lx, +0x%lx), 0x%lx) failed on vm fd %d, errno: %d (%s)",
		    (unsigned long)gpa, (unsigned long)size, (unsigned long)attributes,
		    vm->fd, errno, strerror(errno));
}

int __vm_guest_mem_punch_hole(struct kvm_vm *vm, uint64_t gpa, uint64_t size)
{
	struct userspace_mem_region *r = gpa2region(vm, gpa);
	uint64_t off;

	if (!r || r->gmem_fd < 0 ||
	    gpa + size > r->region.guest_phys_addr + r->region.memory_size) {
		errno = EINVAL;
		return -1;
	}
	off = r->gmem_offset + gpa - r->region.guest_phys_addr;
	return fallocate(r->gmem_fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, off, size);
}

struct kvm_memory_fault_exit *vcpu_memory_fault(struct kvm_vcpu *vcpu)
{
	/* The exit's union: memory_fault in 6.8+ headers, padding before. */
	return (struct kvm_memory_fault_exit *)&vcpu->run->padding;
}

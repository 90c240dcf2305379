/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * guest_memfd and private memory: the uapi this suite needs of them (from
 * Documentation/virt/kvm/api.rst and the 6.18 uapi, defined here when the
 * headers it is built against are older), what the host's KVM offers, and
 * the library's calls on them.
 *
 * A guest_memfd is a property of a memslot (its fd, offset and flags, in
 * struct userspace_mem_region); the backing sources guest_memfd (shared,
 * mmap()ed: GUEST_MEMFD_FLAG_MMAP | INIT_SHARED) and guest_memfd_private
 * (private memory of a VM type that has it) create one per slot.
 */
#ifndef SELFTEST_KVM_GUEST_MEMFD_H
#define SELFTEST_KVM_GUEST_MEMFD_H

#include <linux/kvm.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "guest_modes.h"

/* 6.8: KVM_SET_USER_MEMORY_REGION2, guest_memfd, memory attributes. */
#ifndef KVM_CAP_USER_MEMORY2
#define KVM_CAP_USER_MEMORY2		231
#define KVM_CAP_MEMORY_FAULT_INFO	232
#define KVM_CAP_MEMORY_ATTRIBUTES	233
#define KVM_CAP_GUEST_MEMFD		234
#define KVM_CAP_VM_TYPES		235

struct kvm_userspace_memory_region2 {
	__u32 slot;
	__u32 flags;
	__u64 guest_phys_addr;
	__u64 memory_size;
	__u64 userspace_addr;
	__u64 guest_memfd_offset;
	__u32 guest_memfd;
	__u32 pad1;
	__u64 pad2[14];
};

#define KVM_SET_USER_MEMORY_REGION2	_IOW(KVMIO, 0x49, struct kvm_userspace_memory_region2)
#define KVM_MEM_GUEST_MEMFD		(1UL << 2)
#define KVM_EXIT_MEMORY_FAULT		39
#define KVM_MEMORY_EXIT_FLAG_PRIVATE	(1ULL << 3)

struct kvm_memory_attributes {
	__u64 address;
	__u64 size;
	__u64 attributes;
	__u64 flags;
};

#define KVM_SET_MEMORY_ATTRIBUTES	_IOW(KVMIO, 0xd2, struct kvm_memory_attributes)
#define KVM_MEMORY_ATTRIBUTE_PRIVATE	(1ULL << 3)

struct kvm_create_guest_memfd {
	__u64 size;
	__u64 flags;
	__u64 reserved[6];
};

#define KVM_CREATE_GUEST_MEMFD		_IOWR(KVMIO, 0xd4, struct kvm_create_guest_memfd)
#endif

/* 6.18: guest_memfd the host can mmap(), shared from the start. */
#ifndef KVM_CAP_GUEST_MEMFD_FLAGS
#define KVM_CAP_GUEST_MEMFD_FLAGS	244
#endif
#ifndef GUEST_MEMFD_FLAG_MMAP
#define GUEST_MEMFD_FLAG_MMAP		(1ULL << 0)
#endif
#ifndef GUEST_MEMFD_FLAG_INIT_SHARED
#define GUEST_MEMFD_FLAG_INIT_SHARED	(1ULL << 1)
#endif

/* KVM_EXIT_MEMORY_FAULT's details (run->memory_fault in 6.8+ headers). */
struct kvm_memory_fault_exit {
	__u64 flags;
	__u64 gpa;
	__u64 size;
};

struct kvm_vm;
struct kvm_vcpu;

/*
 * The shape of a VM, fixed at KVM_CREATE_VM: its guest mode and whether
 * it has private memory (the arch's VM type for it).
 */
struct vm_shape {
	enum vm_guest_mode mode;
	bool private_mem;
};

#define VM_SHAPE(m)	((struct vm_shape){ .mode = (m) })

/*
 * NULL if this host's KVM can back guest memory with @src_type (any
 * source: guest_memfd kinds are probed on a VM of their shape), else why
 * not, in one line in @why.
 */
const char *kvm_backing_src_unavailable(uint32_t src_type, char *why, size_t len);
/* The same, and a slot of it takes KVM_MEM_* @flags (dirty logging...). */
const char *kvm_backing_src_flags_unavailable(uint32_t src_type, uint32_t flags,
					      char *why, size_t len);
/* The same, and a slot of it can move to another GPA. */
const char *kvm_backing_src_move_unavailable(uint32_t src_type, char *why, size_t len);
/* Skip (exit 4) with that reason. */
void kvm_backing_src_require(uint32_t src_type);
/* NULL if a VM with private memory can be made here, else why not (in @why). */
const char *kvm_private_mem_unavailable(char *why, size_t len);

/* The shape a VM needs for test memory of @src_type in @mode. */
struct vm_shape vm_shape_for_backing(enum vm_guest_mode mode, uint32_t src_type);

/* The GUEST_MEMFD_FLAG_* this VM's KVM accepts (KVM_CAP_GUEST_MEMFD_FLAGS). */
uint64_t vm_guest_memfd_flags(struct kvm_vm *vm);
/* KVM_CREATE_GUEST_MEMFD: the fd. */
int __vm_create_guest_memfd(struct kvm_vm *vm, uint64_t size, uint64_t flags);
int vm_create_guest_memfd(struct kvm_vm *vm, uint64_t size, uint64_t flags);

/* KVM_SET_MEMORY_ATTRIBUTES on [gpa, gpa + size). */
int __vm_set_memory_attributes(struct kvm_vm *vm, uint64_t gpa, uint64_t size,
			       uint64_t attributes);
void vm_set_memory_attributes(struct kvm_vm *vm, uint64_t gpa, uint64_t size,
			      uint64_t attributes);
#define vm_mem_set_private(vm, gpa, size) \
	vm_set_memory_attributes(vm, gpa, size, KVM_MEMORY_ATTRIBUTE_PRIVATE)

/*
 * fallocate(PUNCH_HOLE) on the guest_memfd behind [gpa, gpa + size) (one
 * slot).  KVM drops its mappings of the range; the next guest access gets
 * fresh, zeroed pages.
 */
int __vm_guest_mem_punch_hole(struct kvm_vm *vm, uint64_t gpa, uint64_t size);

/* A KVM_EXIT_MEMORY_FAULT's details. */
struct kvm_memory_fault_exit *vcpu_memory_fault(struct kvm_vcpu *vcpu);

#endif /* SELFTEST_KVM_GUEST_MEMFD_H */

/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * kvm_util: VMs, memslots, guest memory and vCPUs on top of the KVM API.
 *
 * Every KVM ioctl goes through kvm_ioctl() and friends, which assert on
 * failure with the ioctl's name, the fd and errno.  One rule for every
 * call of the library on an ioctl or system call: __foo() never asserts
 * and returns what it returned, -1 with errno set on failure; foo()
 * asserts that it succeeded.  (__vm_create() and __vm_vcpu_add() are, as
 * upstream's, lower-level forms that assert too.)
 *
 * A VM made by vm_create() has slot 0 at GPA 0 holding the test binary
 * (loaded at its link addresses, GVA == HVA), page tables, vCPU stacks and
 * the ucall pool; guest code is any function of the test.
 */
#ifndef SELFTEST_KVM_UTIL_H
#define SELFTEST_KVM_UTIL_H

#include <linux/kvm.h>
#include <sys/ioctl.h>

#include "test_util.h"
#include "guest_memfd.h"
#include "guest_modes.h"
#include "kvm_arch.h"
#include "ucall_common.h"

#define KVM_DEV_PATH		"/dev/kvm"
#define KVM_MAX_VCPUS		512
#define DEFAULT_GUEST_PHY_PAGES	512
#define KVM_UTIL_MIN_VADDR	0x2000
#define KVM_UTIL_MIN_PFN	2

struct userspace_mem_region {
	struct kvm_userspace_memory_region region;
	enum vm_mem_backing_src_type src_type;
	int fd;			/* memfd of shared kinds, else -1 */
	void *mmap_start;
	size_t mmap_size;
	void *host_mem;		/* the slot's userspace_addr */
	void *mmap_alias;	/* second mapping of fd (shared kinds) */
	void *host_alias;
	unsigned long *free_pages;	/* bit set: guest page not allocated */
	/* guest_memfd kinds: KVM_MEM_GUEST_MEMFD in region.flags, and these. */
	int gmem_fd;		/* -1: none */
	uint64_t gmem_offset;
	uint64_t gmem_flags;	/* GUEST_MEMFD_FLAG_* it was created with */
	struct userspace_mem_region *next;
};

struct kvm_vcpu {
	uint32_t id;
	int fd;
	struct kvm_vm *vm;
	struct kvm_run *run;
	struct kvm_vcpu *next;
};

/* A range of guest virtual addresses in use: [start, end). */
struct vm_vrange {
	uint64_t start;
	uint64_t end;
};

struct kvm_vm {
	int kvm_fd;
	int fd;
	pid_t pid;		/* the creator: KVM answers others with EIO */
	unsigned long type;
	enum vm_guest_mode mode;
	bool private_mem;	/* a VM type with private memory (its shape) */
	unsigned int pa_bits;
	unsigned int va_bits;
	unsigned int page_size;
	unsigned int page_shift;
	uint64_t max_gfn;
	struct userspace_mem_region *regions;
	struct kvm_vcpu *vcpus;
	bool pgd_created;
	uint64_t pgd;
	struct vm_vrange *vranges;
	unsigned int nr_vranges;
	uint64_t ucall_pool;	/* GVA of the ucall pool */
	bool memory_region2;	/* memslots through KVM_SET_USER_MEMORY_REGION2 */
	bool dirty_ring_with_bitmap;	/* KVM_CAP_DIRTY_LOG_RING_WITH_BITMAP on */
	struct kvm_vm_arch arch;
};

#define __KVM_IOCTL_ERROR(name, fd, ret)				\
	"%s failed on fd %d, rc: %d errno: %d (%s)", name, fd, ret,	\
	errno, strerror(errno)

/*
 * An ioctl whose number carries a size (_IOR, _IOW, _IOWR: _IOC_SIZE(cmd)
 * nonzero) takes a pointer to an object of that size; the wrappers check
 * it at compile time.  A command without one (_IO: KVM_RUN,
 * KVM_CHECK_EXTENSION, KVM_CREATE_VCPU) takes an integer, NULL or anything.
 * __builtin_choose_expr() hands sizeof a pointer even when @arg is an
 * integer, so that the check compiles for those too.
 */
#define __KVM_IOCTL_ARG_IS_PTR(arg)					\
	(__builtin_classify_type(arg) == __builtin_classify_type((void *)0))
#define __KVM_IOCTL_ARG_SIZE(arg)					\
	sizeof(*__builtin_choose_expr(__KVM_IOCTL_ARG_IS_PTR(arg), (arg), (char *)0))
#define kvm_ioctl_check_size(cmd, arg)					\
	_Static_assert(!_IOC_SIZE(cmd) ||				\
		       (__KVM_IOCTL_ARG_IS_PTR(arg) &&			\
			__KVM_IOCTL_ARG_SIZE(arg) == _IOC_SIZE(cmd)),	\
		       "the ioctl's argument is not a pointer to _IOC_SIZE(cmd) bytes")

#define __kvm_ioctl(fd, cmd, arg) ({					\
	kvm_ioctl_check_size(cmd, arg);					\
	ioctl(fd, cmd, arg);						\
})

#define kvm_ioctl(fd, cmd, arg) ({					\
	int __fd = (fd);						\
	int __ret = __kvm_ioctl(__fd, cmd, arg);			\
	TEST_ASSERT(__ret >= 0, __KVM_IOCTL_ERROR(#cmd, __fd, __ret));	\
	__ret;								\
})

/*
 * A VM's ioctls take a struct kvm_vm, a vCPU's a struct kvm_vcpu: both
 * have an fd, so a vCPU passed for a VM (or the other way round) would
 * compile and issue the ioctl on the wrong file.  The wrappers refuse
 * it at compile time (unit/ioctl_target_test.c proves they do).
 */
#define kvm_ioctl_check_target(p, type)					\
	_Static_assert(__builtin_types_compatible_p(__typeof__(*(p)), type), \
		       "the ioctl's target is not a " #type)

/*
 * KVM marks a VM dead after an internal error (KVM_BUG_ON): from then on
 * every ioctl of the VM and of its vCPUs, KVM_RUN included, fails with
 * EIO ("unexpected error conditions", Documentation/virt/kvm/api.rst).
 * kvm_vm_dead_note(vm) is ", and KVM has marked the VM dead ..." when
 * the failure in errno is that (a VM ioctl that cannot otherwise fail
 * fails with EIO too), else ""; errno is kept.
 */
const char *kvm_vm_dead_note(struct kvm_vm *vm);

#define __KVM_VM_IOCTL_ERROR(vm, name, fd, ret)				\
	"%s failed on fd %d, rc: %d errno: %d (%s)%s", name, fd, ret,	\
	errno, strerror(errno), kvm_vm_dead_note(vm)

#define __vm_ioctl(vm, cmd, arg) ({					\
	kvm_ioctl_check_target(vm, struct kvm_vm);			\
	__kvm_ioctl((vm)->fd, cmd, arg);				\
})
#define __vcpu_ioctl(vcpu, cmd, arg) ({					\
	kvm_ioctl_check_target(vcpu, struct kvm_vcpu);			\
	__kvm_ioctl((vcpu)->fd, cmd, arg);				\
})
#define vm_ioctl(vm, cmd, arg) ({					\
	kvm_ioctl_check_target(vm, struct kvm_vm);			\
	struct kvm_vm *__ioctl_vm = (vm);				\
	int __ret = __vm_ioctl(__ioctl_vm, cmd, arg);			\
	TEST_ASSERT(__ret >= 0, __KVM_VM_IOCTL_ERROR(__ioctl_vm, #cmd,	\
						     __ioctl_vm->fd, __ret)); \
	__ret;								\
})
#define vcpu_ioctl(vcpu, cmd, arg) ({					\
	kvm_ioctl_check_target(vcpu, struct kvm_vcpu);			\
	struct kvm_vcpu *__ioctl_vcpu = (vcpu);				\
	int __ret = __vcpu_ioctl(__ioctl_vcpu, cmd, arg);		\
	TEST_ASSERT(__ret >= 0, __KVM_VM_IOCTL_ERROR(__ioctl_vcpu->vm, #cmd, \
						     __ioctl_vcpu->fd, __ret)); \
	__ret;								\
})

/* Assert that @ret is the failure of @name with @err, as the API says. */
#define TEST_ASSERT_IOCTL_ERRNO(name, ret, err)				\
	TEST_ASSERT((ret) == -1 && errno == (err),			\
		    "%s should fail with %s, rc: %d errno: %d (%s)",	\
		    name, strerror(err), ret, errno, strerror(errno))

/* /dev/kvm and capabilities (kvm_dev.c). */
/* Open /dev/kvm with @flags, or skip (exit 4) saying why it can't be. */
int open_kvm_dev_path_or_exit(int flags);
/* The same, and assert KVM_GET_API_VERSION is the one this suite knows. */
int kvm_dev_open(int flags);
/* Skip (exit 4) unless /dev/kvm opens: call it before printing a TAP plan. */
void kvm_require_dev(void);
int kvm_check_cap(long cap);
#define kvm_has_cap(cap)	(kvm_check_cap(cap) > 0)
int vm_check_cap(struct kvm_vm *vm, long cap);
int __vm_enable_cap(struct kvm_vm *vm, uint32_t cap, uint64_t arg0);
void vm_enable_cap(struct kvm_vm *vm, uint32_t cap, uint64_t arg0);

/* VM lifecycle (kvm_util.c). */
struct kvm_vm *vm_create_barebones(void);
/* A VM in @mode with slot 0 big enough for @nr_vcpus and @extra_pages. */
struct kvm_vm *__vm_create(enum vm_guest_mode mode, uint32_t nr_vcpus,
			   uint64_t extra_pages);
/* The same for a VM of @shape (its mode and VM type). */
struct kvm_vm *__vm_create_shape(struct vm_shape shape, uint32_t nr_vcpus,
				 uint64_t extra_pages);
/*
 * The two halves of __vm_create_shape(), for what must come before any
 * memslot (a dirty ring backed by bitmaps): the VM with no memslot, then
 * slot 0, the binary, page tables and ucalls.
 */
struct kvm_vm *vm_create_shape_empty(struct vm_shape shape);
void vm_create_populate(struct kvm_vm *vm, uint32_t nr_vcpus, uint64_t extra_pages);
struct kvm_vm *vm_create(uint32_t nr_vcpus);
struct kvm_vm *__vm_create_with_vcpus(enum vm_guest_mode mode, uint32_t nr_vcpus,
				      uint64_t extra_pages, void *guest_code,
				      struct kvm_vcpu *vcpus[]);
struct kvm_vm *vm_create_with_vcpus(uint32_t nr_vcpus, void *guest_code,
				    struct kvm_vcpu *vcpus[]);
struct kvm_vm *vm_create_with_one_vcpu(struct kvm_vcpu **vcpu, void *guest_code);
struct kvm_vm *vm_create_shape_with_one_vcpu(struct vm_shape shape, struct kvm_vcpu **vcpu,
					     void *guest_code);
void kvm_vm_free(struct kvm_vm *vm);

/* Binary statistics (stats.c): a VM or vCPU stat by name, e.g. "exits". */
uint64_t vm_get_stat(struct kvm_vm *vm, const char *name);
uint64_t vcpu_get_stat(struct kvm_vcpu *vcpu, const char *name);
/*
 * Open KVM_GET_STATS_FD on @fd and read @name (a histogram: the sum of its
 * buckets); false if no such stat.
 */
bool kvm_read_stat(int fd, const char *name, uint64_t *value);

/*
 * Every stat of a VM or vCPU fd at one moment.  Adding several fds of one
 * kind (all vCPUs of a VM) sums them; a histogram's value is the sum of
 * its buckets.  Zero-initialize, and free with kvm_stats_snapshot_free().
 */
#define KVM_STAT_NAME_MAX	64	/* longer names are cut */

struct kvm_stat_value {
	char name[KVM_STAT_NAME_MAX];
	uint32_t flags;		/* KVM_STATS_TYPE_*, UNIT_*, BASE_* */
	uint64_t value;
};

struct kvm_stats_snapshot {
	uint32_t nr;
	struct kvm_stat_value *stats;
};

/* A stat that moved between two snapshots; name points into @after. */
struct kvm_stat_delta {
	const char *name;
	uint32_t flags;
	uint64_t before;
	uint64_t after;
};

void kvm_stats_snapshot_add(struct kvm_stats_snapshot *s, int fd);
/* The VM's stats and the sum over its vCPUs (empty without binary stats). */
void kvm_stats_snapshot_vm(struct kvm_vm *vm, struct kvm_stats_snapshot *vm_stats,
			   struct kvm_stats_snapshot *vcpu_stats);
/* The stats that differ between @before and @after, at most @max. */
int kvm_stats_snapshot_diff(const struct kvm_stats_snapshot *before,
			    const struct kvm_stats_snapshot *after,
			    struct kvm_stat_delta *deltas, int max);
/* @name's value in @s; false if @s has no such stat. */
bool kvm_stats_snapshot_find(const struct kvm_stats_snapshot *s, const char *name,
			     uint64_t *value);
void kvm_stats_snapshot_free(struct kvm_stats_snapshot *s);

/* Memslots (memslot.c). */
bool vm_has_memory_region2(struct kvm_vm *vm);
int __vm_set_user_memory_region(struct kvm_vm *vm, uint32_t slot,
				uint32_t flags, uint64_t gpa, uint64_t size,
				void *hva);
void vm_set_user_memory_region(struct kvm_vm *vm, uint32_t slot,
			       uint32_t flags, uint64_t gpa, uint64_t size,
			       void *hva);
/* With a guest_memfd (KVM_MEM_GUEST_MEMFD in @flags): region2 only. */
int __vm_set_user_memory_region2(struct kvm_vm *vm, uint32_t slot,
				 uint32_t flags, uint64_t gpa, uint64_t size,
				 void *hva, int gmem_fd, uint64_t gmem_offset);
void vm_userspace_mem_region_add(struct kvm_vm *vm,
				 enum vm_mem_backing_src_type src_type,
				 uint64_t gpa, uint32_t slot, uint64_t npages,
				 uint32_t flags);
/* The VM's region of slot @slot, of @gpa: NULL if none (lookups, no ioctl). */
static inline struct userspace_mem_region *memslot2region(struct kvm_vm *vm, uint32_t slot)
{
	struct userspace_mem_region *r;

	for (r = vm->regions; r; r = r->next)
		if (r->region.slot == slot)
			return r;
	return NULL;
}

static inline struct userspace_mem_region *gpa2region(struct kvm_vm *vm, uint64_t gpa)
{
	struct userspace_mem_region *r;

	for (r = vm->regions; r; r = r->next)
		if (gpa >= r->region.guest_phys_addr &&
		    gpa - r->region.guest_phys_addr < r->region.memory_size)
			return r;
	return NULL;
}
/* Slot flags (a guest_memfd stays). */
int __vm_mem_region_set_flags(struct kvm_vm *vm, uint32_t slot, uint32_t flags);
/* Move a slot (on failure it stays where it was). */
int __vm_mem_region_move(struct kvm_vm *vm, uint32_t slot, uint64_t new_gpa);
/*
 * x86's memslot zap quirk (KVM_X86_QUIRK_SLOT_ZAP_ALL: deleting or moving
 * a slot zaps every mapping, not only the slot's): NULL if this KVM lets
 * a VM disable it, else why not (in @why); and disabling it.
 */
const char *kvm_slot_zap_quirk_unavailable(char *why, size_t len);
void vm_disable_slot_zap_quirk(struct kvm_vm *vm);
/* Unmap every region's memory (once the VM fd is closed). */
void vm_free_regions(struct kvm_vm *vm);
/*
 * The host side of a region alone, also without a VM (host-only tests):
 * map @size bytes of r->src_type (host_mem, and host_alias for shared
 * kinds), and unmap them.
 */
void backing_region_map(struct userspace_mem_region *r, size_t size);
/*
 * A guest_memfd kind's region made outside vm_userspace_mem_region_add():
 * give it its guest_memfd of @size bytes on @vm (before backing_region_map()).
 */
void region_guest_memfd(struct kvm_vm *vm, struct userspace_mem_region *r, uint64_t size);
void backing_region_unmap(struct userspace_mem_region *r);

/* Guest physical memory (guest_phys.c). */
uint64_t vm_phy_pages_alloc(struct kvm_vm *vm, uint64_t num, uint64_t paddr_min,
			    uint32_t slot);
uint64_t vm_phy_page_alloc(struct kvm_vm *vm, uint64_t paddr_min, uint32_t slot);
/* A zeroed page of slot 0 for the arch page tables; returns its GPA. */
uint64_t vm_alloc_page_table(struct kvm_vm *vm);
void *addr_gpa2hva(struct kvm_vm *vm, uint64_t gpa);
void *addr_gpa2alias(struct kvm_vm *vm, uint64_t gpa);

/* Guest virtual memory (guest_memory.c). */
uint64_t vm_vaddr_alloc(struct kvm_vm *vm, uint64_t size, uint64_t vaddr_min);
uint64_t vm_vaddr_alloc_pages(struct kvm_vm *vm, uint64_t nr_pages);
/* Reserve [gva, gva + size) for the caller, asserting it is free. */
void vm_vaddr_reserve(struct kvm_vm *vm, uint64_t gva, uint64_t size);
/* Map any unmapped page of [gva, gva + size) to new pages of slot 0. */
void vm_vaddr_populate(struct kvm_vm *vm, uint64_t gva, uint64_t size);
/* Copy @len bytes to guest memory at @gva (zeroes if @src is NULL). */
void guest_memcpy_to(struct kvm_vm *vm, uint64_t gva, const void *src, uint64_t len);
void virt_pgd_alloc(struct kvm_vm *vm);
void virt_pg_map(struct kvm_vm *vm, uint64_t gva, uint64_t gpa);
/* Map @npages guest pages, using the largest mappings that fit. */
void virt_map(struct kvm_vm *vm, uint64_t gva, uint64_t gpa, uint64_t npages);
uint64_t addr_gva2gpa(struct kvm_vm *vm, uint64_t gva);
void *addr_gva2hva(struct kvm_vm *vm, uint64_t gva);

#define sync_global_to_guest(vm, g) ({					\
	__typeof__(g) *__p = addr_gva2hva(vm, (uint64_t)&(g));		\
	memcpy((void *)__p, (const void *)&(g), sizeof(g));		\
})
/* Write @val into the guest's copy of global @g. */
#define write_guest_global(vm, g, val) ({				\
	__typeof__(g) *__p = addr_gva2hva(vm, (uint64_t)&(g));		\
	*__p = (val);							\
})

/* The test binary in guest memory (elf_load.c). */
void kvm_vm_elf_load(struct kvm_vm *vm, const char *path);

/* vCPUs (vcpu.c). */
struct kvm_vcpu *__vm_vcpu_add(struct kvm_vm *vm, uint32_t id);
struct kvm_vcpu *vm_vcpu_add(struct kvm_vm *vm, uint32_t id, void *guest_code);
/* KVM_RUN, again after EINTR: 0, or -1 with errno set; never asserts. */
int __vcpu_run(struct kvm_vcpu *vcpu);
void vcpu_run(struct kvm_vcpu *vcpu);
const char *exit_reason_str(unsigned int exit_reason);

#define TEST_ASSERT_KVM_EXIT_REASON(vcpu, expected) do {		\
	unsigned int __r = (vcpu)->run->exit_reason;			\
	TEST_ASSERT(__r == (expected),					\
		    "vCPU %u: exit reason %u (%s), expected %u (%s)",	\
		    (vcpu)->id, __r, exit_reason_str(__r),		\
		    (unsigned int)(expected), exit_reason_str(expected)); \
} while (0)

/* Dirty logging (dirty_log.c). */
/* KVM_GET_DIRTY_LOG and KVM_CLEAR_DIRTY_LOG of one slot: the ioctl's result. */
int __kvm_vm_get_dirty_log(struct kvm_vm *vm, uint32_t slot, void *bitmap);
int __kvm_vm_clear_dirty_log(struct kvm_vm *vm, uint32_t slot, void *bitmap,
			     uint64_t first_page, uint32_t num_pages);
/*
 * Enable KVM_CAP_MANUAL_DIRTY_LOG_PROTECT2, with KVM_DIRTY_LOG_INITIALLY_SET
 * when the host has it.  Returns the flags enabled, 0 if the cap is absent.
 */
uint64_t vm_enable_manual_dirty_log_protect(struct kvm_vm *vm);

#endif /* SELFTEST_KVM_UTIL_H */

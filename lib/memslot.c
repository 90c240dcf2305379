// SPDX-License-Identifier: GPL-2.0-only
/*
 * Memslots: host memory of any backing source (anonymous, THP, hugetlb,
 * shmem, shared hugetlb, guest_memfd) registered as a KVM memory region,
 * and moving, re-flagging and deleting those regions.  Every change goes
 * through KVM_SET_USER_MEMORY_REGION2 where the VM has it.
 */
#include <linux/memfd.h>
#include <sys/mman.h>

#include "bitmap.h"
#include "kvm_util.h"

/*
 * KVM_SET_USER_MEMORY_REGION2 (KVM_CAP_USER_MEMORY2, 6.8) where the VM
 * offers it, else the original ioctl (guest_memfd.h has its uapi where
 * the headers lack it).
 */
bool vm_has_memory_region2(struct kvm_vm *vm)
{
	return vm_check_cap(vm, KVM_CAP_USER_MEMORY2) > 0;
}

static const char *memory_region_ioctl_name(struct kvm_vm *vm)
{
	return vm->memory_region2 ? "KVM_SET_USER_MEMORY_REGION2" :
				    "KVM_SET_USER_MEMORY_REGION";
}

int __vm_set_user_memory_region2(struct kvm_vm *vm, uint32_t slot,
				 uint32_t flags, uint64_t gpa, uint64_t size,
				 void *hva, int gmem_fd, uint64_t gmem_offset)
{
	struct kvm_userspace_memory_region region = {
		.slot = slot,
		.flags = flags,
		.guest_phys_addr = gpa,
		.memory_size = size,
		.userspace_addr = (uintptr_t)hva,
	};
	struct kvm_userspace_memory_region2 region2 = {
		.slot = slot,
		.flags = flags,
		.guest_phys_addr = gpa,
		.memory_size = size,
		.userspace_addr = (uintptr_t)hva,
		.guest_memfd_offset = gmem_offset,
		.guest_memfd = gmem_fd < 0 ? 0 : gmem_fd,
	};

	if (vm->memory_region2)
		return __vm_ioctl(vm, KVM_SET_USER_MEMORY_REGION2, &region2);
	/* The original ioctl has no guest_memfd: KVM would refuse the flag. */
	return __vm_ioctl(vm, KVM_SET_USER_MEMORY_REGION, &region);
}

int __vm_set_user_memory_region(struct kvm_vm *vm, uint32_t slot,
				uint32_t flags, uint64_t gpa, uint64_t size,
				void *hva)
{
	return __vm_set_user_memory_region2(vm, slot, flags, gpa, size, hva, -1, 0);
}

void vm_set_user_memory_region(struct kvm_vm *vm, uint32_t slot,
			       uint32_t flags, uint64_t gpa, uint64_t size,
			       void *hva)
{
	int ret = __vm_set_user_memory_region(vm, slot, flags, gpa, size, hva);

	TEST_ASSERT(!ret, __KVM_IOCTL_ERROR(memory_region_ioctl_name(vm),
					    vm->fd, ret));
}

/* Tell KVM what @r now says (a zero size deletes the slot). */
static int __region_commit(struct kvm_vm *vm, struct userspace_mem_region *r)
{
	return __vm_set_user_memory_region2(vm, r->region.slot, r->region.flags,
					    r->region.guest_phys_addr,
					    r->region.memory_size,
					    (void *)(uintptr_t)r->region.userspace_addr,
					    r->gmem_fd, r->gmem_offset);
}

static void region_commit(struct kvm_vm *vm, struct userspace_mem_region *r)
{
	int ret = __region_commit(vm, r);

	TEST_ASSERT(!ret, __KVM_IOCTL_ERROR(memory_region_ioctl_name(vm), vm->fd, ret));
}

static int backing_memfd(enum vm_mem_backing_src_type type, size_t size)
{
	unsigned int flags = 0;
	size_t pagesz = get_backing_src_pagesz(type);
	int fd;

	if (type == VM_MEM_SRC_SHARED_HUGETLB)
		flags = MFD_HUGETLB | (__builtin_ctzll(pagesz) << MFD_HUGE_SHIFT);
	fd = memfd_create("kvm_selftest", flags);
	TEST_ASSERT(fd >= 0, "memfd_create(%s) failed",
		    vm_mem_backing_src_alias(type)->name);
	TEST_ASSERT(!ftruncate(fd, size), "ftruncate(memfd, 0x%zx) failed", size);
	return fd;
}

static void *backing_map(struct userspace_mem_region *r, int flags, int fd)
{
	void *p = mmap(NULL, r->mmap_size, PROT_READ | PROT_WRITE, flags, fd, 0);

	TEST_ASSERT(p != MAP_FAILED, "mmap(0x%zx bytes of %s) failed", r->mmap_size,
		    vm_mem_backing_src_alias(r->src_type)->name);
	return p;
}

/*
 * Map the region's host memory, aligned to the backing page size.  A
 * shared guest_memfd is mapped from the slot's guest_memfd (made first);
 * a private one's host memory is its shared view.
 */
void backing_region_map(struct userspace_mem_region *r, size_t size)
{
	const struct vm_mem_backing_src_alias *src = vm_mem_backing_src_alias(r->src_type);
	size_t align = get_backing_src_pagesz(r->src_type);
	bool gmem = backing_src_is_guest_memfd(r->src_type);

	TEST_ASSERT(!gmem || (r->region.flags & KVM_MEM_GUEST_MEMFD),
		    "%s memory needs a VM's guest_memfd", src->name);
	r->fd = -1;
	r->mmap_size = size;
	/* hugetlb mappings come aligned; THP ones must be aligned by hand. */
	if (r->src_type == VM_MEM_SRC_ANONYMOUS_THP)
		r->mmap_size += align;
	if (gmem && backing_src_is_shared(r->src_type)) {
		r->mmap_start = backing_map(r, MAP_SHARED, r->gmem_fd);
		r->mmap_alias = backing_map(r, MAP_SHARED, r->gmem_fd);
	} else if (backing_src_is_shared(r->src_type)) {
		r->fd = backing_memfd(r->src_type, size);
		r->mmap_start = backing_map(r, MAP_SHARED, r->fd);
		r->mmap_alias = backing_map(r, MAP_SHARED, r->fd);
	} else {
		r->mmap_start = backing_map(r, src->flags, -1);
	}
	r->host_mem = (void *)ALIGN_UP((uintptr_t)r->mmap_start, align);
	r->host_alias = r->mmap_alias;

	if (r->src_type == VM_MEM_SRC_ANONYMOUS)
		TEST_ASSERT(!madvise(r->host_mem, size, MADV_NOHUGEPAGE),
			    "madvise(MADV_NOHUGEPAGE) failed");
	else if (r->src_type == VM_MEM_SRC_ANONYMOUS_THP)
		TEST_ASSERT(!madvise(r->host_mem, size, MADV_HUGEPAGE),
			    "madvise(MADV_HUGEPAGE) failed");
}

/*
 * The slot's guest_memfd, with the flags its kind needs of those KVM
 * reports: shared ones are mapped by the host (MMAP, INIT_SHARED),
 * private ones are not.
 */
void region_guest_memfd(struct kvm_vm *vm, struct userspace_mem_region *r, uint64_t size)
{
	uint64_t want = 0, have = vm_guest_memfd_flags(vm);

	TEST_ASSERT(vm->memory_region2, "%s memory needs KVM_SET_USER_MEMORY_REGION2",
		    vm_mem_backing_src_alias(r->src_type)->name);
	TEST_ASSERT(!backing_src_is_private(r->src_type) || vm->private_mem,
		    "%s memory needs a VM with private memory (vm_shape_for_backing())",
		    vm_mem_backing_src_alias(r->src_type)->name);
	if (!backing_src_is_private(r->src_type))
		want = GUEST_MEMFD_FLAG_MMAP | GUEST_MEMFD_FLAG_INIT_SHARED;
	TEST_ASSERT((have & want) == want,
		    "guest_memfd flags 0x%lx wanted, KVM_CAP_GUEST_MEMFD_FLAGS has 0x%lx",
		    (unsigned long)want, (unsigned long)have);
	r->gmem_fd = vm_create_guest_memfd(vm, size, want);
	r->gmem_offset = 0;
	r->gmem_flags = want;
	r->region.flags = KVM_MEM_GUEST_MEMFD;
}

static void region_check_new(struct kvm_vm *vm, uint64_t gpa, uint32_t slot,
			     uint64_t npages)
{
	uint64_t size = npages * vm->page_size;
	struct userspace_mem_region *r;

	TEST_ASSERT(npages, "Slot %u: no pages", slot);
	TEST_ASSERT(IS_ALIGNED(gpa, vm->page_size),
		    "Slot %u: GPA 0x%lx not aligned to the guest page size 0x%x",
		    slot, (unsigned long)gpa, vm->page_size);
	TEST_ASSERT((gpa >> vm->page_shift) + npages - 1 <= vm->max_gfn,
		    "Slot %u: GPA 0x%lx + %lu pages beyond %u PA bits", slot,
		    (unsigned long)gpa, (unsigned long)npages, vm->pa_bits);
	TEST_ASSERT(!memslot2region(vm, slot), "Slot %u already in use", slot);
	for (r = vm->regions; r; r = r->next)
		TEST_ASSERT(gpa + size <= r->region.guest_phys_addr ||
			    gpa >= r->region.guest_phys_addr + r->region.memory_size,
			    "Slot %u [0x%lx, 0x%lx) overlaps slot %u", slot,
			    (unsigned long)gpa, (unsigned long)(gpa + size),
			    r->region.slot);
}

void vm_userspace_mem_region_add(struct kvm_vm *vm,
				 enum vm_mem_backing_src_type src_type,
				 uint64_t gpa, uint32_t slot, uint64_t npages,
				 uint32_t flags)
{
	uint64_t size = npages * vm->page_size;
	struct userspace_mem_region *r;

	region_check_new(vm, gpa, slot, npages);
	backing_src_require(src_type, size);

	r = calloc(1, sizeof(*r));
	TEST_ASSERT(r, "Out of memory");
	r->src_type = src_type;
	r->gmem_fd = -1;
	if (backing_src_is_guest_memfd(src_type))
		region_guest_memfd(vm, r, size);
	backing_region_map(r, size);

	r->free_pages = calloc(BITS_TO_LONGS(npages), sizeof(unsigned long));
	TEST_ASSERT(r->free_pages, "Out of memory");
	for (uint64_t i = 0; i < npages; i++)
		set_bit(i, r->free_pages);

	r->region = (struct kvm_userspace_memory_region) {
		.slot = slot,
		.flags = flags | (r->region.flags & KVM_MEM_GUEST_MEMFD),
		.guest_phys_addr = gpa,
		.memory_size = size,
		.userspace_addr = (uintptr_t)r->host_mem,
	};
	region_commit(vm, r);
	r->next = vm->regions;
	vm->regions = r;
	if (backing_src_is_private(src_type))
		vm_mem_set_private(vm, gpa, size);
}

void backing_region_unmap(struct userspace_mem_region *r)
{
	TEST_ASSERT(!munmap(r->mmap_start, r->mmap_size), "munmap(slot %u)",
		    r->region.slot);
	if (r->mmap_alias)
		TEST_ASSERT(!munmap(r->mmap_alias, r->mmap_size),
			    "munmap(slot %u alias)", r->region.slot);
	if (r->fd >= 0)
		close(r->fd);
	if (r->region.flags & KVM_MEM_GUEST_MEMFD)
		close(r->gmem_fd);
}

static void region_free(struct userspace_mem_region *r)
{
	backing_region_unmap(r);
	free(r->free_pages);
	free(r);
}

/* A guest_memfd stays the slot's: KVM_MEM_GUEST_MEMFD is kept. */
int __vm_mem_region_set_flags(struct kvm_vm *vm, uint32_t slot, uint32_t flags)
{
	struct userspace_mem_region *r = memslot2region(vm, slot);

	if (!r) {
		errno = ENOENT;
		return -1;
	}
	r->region.flags = flags | (r->region.flags & KVM_MEM_GUEST_MEMFD);
	return __region_commit(vm, r);
}

int __vm_mem_region_move(struct kvm_vm *vm, uint32_t slot, uint64_t new_gpa)
{
	struct userspace_mem_region *r = memslot2region(vm, slot);
	uint64_t old;
	int ret;

	if (!r) {
		errno = ENOENT;
		return -1;
	}
	old = r->region.guest_phys_addr;
	r->region.guest_phys_addr = new_gpa;
	ret = __region_commit(vm, r);
	if (ret)
		r->region.guest_phys_addr = old;
	return ret;
}

void vm_free_regions(struct kvm_vm *vm)
{
	struct userspace_mem_region *r;

	while ((r = vm->regions)) {
		vm->regions = r->next;
		region_free(r);
	}
}

/* The quirk's bit is in x86's uapi headers only: elsewhere it is absent. */
const char *kvm_slot_zap_quirk_unavailable(char *why, size_t len)
{
#ifdef KVM_X86_QUIRK_SLOT_ZAP_ALL
	if (kvm_check_cap(KVM_CAP_DISABLE_QUIRKS2) & KVM_X86_QUIRK_SLOT_ZAP_ALL)
		return NULL;
	snprintf(why, len, "KVM lacks KVM_X86_QUIRK_SLOT_ZAP_ALL in KVM_CAP_DISABLE_QUIRKS2 (6.12+, x86)");
#else
	snprintf(why, len, "the memslot zap quirk is x86's (no KVM_X86_QUIRK_SLOT_ZAP_ALL in these uapi headers)");
#endif
	return why;
}

void vm_disable_slot_zap_quirk(struct kvm_vm *vm)
{
#ifdef KVM_X86_QUIRK_SLOT_ZAP_ALL
	vm_enable_cap(vm, KVM_CAP_DISABLE_QUIRKS2, KVM_X86_QUIRK_SLOT_ZAP_ALL);
#else
	TEST_FAIL("No KVM_X86_QUIRK_SLOT_ZAP_ALL to disable");
#endif
}

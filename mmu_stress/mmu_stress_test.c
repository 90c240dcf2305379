// SPDX-License-Identifier: GPL-2.0-only
/*
 * mmu_stress_test: KVM's MMU-notifier invalidation while vCPUs run.
 *
 * One host buffer of -s bytes backs many memslots at once (as upstream:
 * a large guest with little host memory), -m bytes of guest memory in
 * all, split between the vCPUs.  Stages, each timed:
 *
 *  run1, run2  every vCPU writes all its pages (first touch, then again);
 *  ro          the vCPUs keep writing while the host mprotect()s the
 *              buffer PROT_READ: each vCPU's KVM_RUN must fail with
 *              EFAULT (with kvm_run.memory_fault naming a page of its own
 *              range where KVM has KVM_CAP_MEMORY_FAULT_INFO);
 *  rw          write access back: every vCPU's write is retried, succeeds,
 *              and it writes all its pages again;
 *  unmap       the vCPUs keep writing a further memslot with its own
 *              memory while the host munmap()s that memory: each KVM_RUN
 *              must fail with EFAULT on that slot, and KVM and the test
 *              live on;
 *  remap       new memory mapped where the old was: every vCPU writes all
 *              of its pages in every slot again.
 * With -t guest_memfd (or guest_memfd_private) the unmap slot is a
 * guest_memfd and the buffer shmem (a guest_memfd's ranges cannot back
 * several slots).  KVM maps a guest_memfd from the file, not from the
 * host's mapping, so its unmap stage is a punch: every vCPU writes its
 * pages of the slot once and syncs; the host munmap()s the slot's host
 * mapping and fallocate(PUNCH_HOLE)s the guest_memfd (timed); in remap
 * every vCPU first reads its pages of the slot, which must be zero (KVM
 * dropped its mappings of the freed pages), then writes as before.
 * After run2, rw and remap every page must hold what that stage wrote:
 * after remap, also the new memory, so KVM mapped it and not the freed
 * pages.  At the end the buffer is unmapped with its slots still in the
 * VM and the VM destroyed (the notifier's release path).
 *
 * The guest cannot sync from a write that faults: in ro and unmap it
 * announces the stage in its own memory, then writes in a loop until the
 * host releases it; the host waits for the announcement before it
 * mprotect()s or munmap()s, and releases the loop only after every vCPU's
 * EFAULT.  A vCPU without an EFAULT within 20 s (or 20 sweeps
 * of run2, if longer) fails the test.
 */
#include <sys/mman.h>

#include "fault_inject.h"
#include "mmu_stress.h"
#include "perf_report.h"
#include "perf_test_util.h"

#define MMU_TIMEOUT_NS		(20ULL * NSEC_PER_SEC)
#define MMU_PATTERN(stage, key)	(0x6d6d750000000000ULL ^ ((uint64_t)(stage) << 44) ^ (key))

enum { ST_RUN1 = 1, ST_RUN2, ST_RO, ST_RW, ST_UNMAP, ST_REMAP };

/* A vCPU's pages: offsets in test memory (the aliased part, the victim). */
struct mmu_range {
	uint64_t start, end, vstart, vend;
};

/* Read by the guest (its copy in guest memory). */
struct mmu_args {
	uint64_t gva;
	uint64_t slot_size;
	uint64_t alias_size;	/* the slots that share the buffer */
	uint64_t page_size;
	uint64_t release;	/* the last spinning stage the host released */
	bool punch;		/* the unmap slot is a guest_memfd: punched, not unmapped */
	uint64_t spinning[KVM_MAX_VCPUS];	/* the stage each vCPU spins in */
	struct mmu_range r[KVM_MAX_VCPUS];
};

static struct mmu_args mmu;

struct mmu_state {
	struct kvm_vm *vm;
	struct userspace_mem_region buf;	/* the shared buffer */
	struct userspace_mem_region *victim;
	uint64_t gpa, victim_size;
	int nr_slots;
	bool mf_info;		/* KVM_CAP_MEMORY_FAULT_INFO */
	uint64_t efaults[2], mf_exits;	/* ro, unmap */
	uint64_t sweep_ns;	/* run2: every vCPU wrote all its pages once */
};

static struct mmu_state st;

static __guest_code uint64_t key_of(uint64_t off)
{
	return off < mmu.alias_size ? off % mmu.slot_size : off;
}

static __guest_code void sweep(uint64_t start, uint64_t end, uint64_t stage)
{
	uint64_t off;

	for (off = start; off < end; off += mmu.page_size)
		WRITE_ONCE(*(uint64_t *)(mmu.gva + off), MMU_PATTERN(stage, key_of(off)));
}

/* Write [start, end) until the host releases @stage; it faults meanwhile. */
static __guest_code void spin(uint32_t idx, uint64_t start, uint64_t end, uint64_t stage)
{
	WRITE_ONCE(mmu.spinning[idx], stage);
	do
		sweep(start, end, stage);
	while (READ_ONCE(mmu.release) < stage);
}

/* After a punch: [start, end) reads as new, zeroed memory. */
static __guest_code void check_zeroed(uint64_t start, uint64_t end)
{
	uint64_t off, got;

	for (off = start; off < end; off += mmu.page_size) {
		got = READ_ONCE(*(uint64_t *)(mmu.gva + off));
		GUEST_ASSERT_MSG(!got, "offset 0x%lx of the punched slot holds 0x%lx, not 0",
				 (unsigned long)off, (unsigned long)got);
	}
}

static __guest_code void guest_code(uint32_t idx)
{
	struct mmu_range *r = &mmu.r[idx];

	sweep(r->start, r->end, ST_RUN1);
	GUEST_SYNC(ST_RUN1);
	sweep(r->start, r->end, ST_RUN2);
	GUEST_SYNC(ST_RUN2);
	spin(idx, r->start, r->end, ST_RO);
	sweep(r->start, r->end, ST_RW);
	GUEST_SYNC(ST_RW);
	if (mmu.punch) {
		sweep(r->vstart, r->vend, ST_UNMAP);
		GUEST_SYNC(ST_UNMAP);
		check_zeroed(r->vstart, r->vend);
	} else {
		spin(idx, r->vstart, r->vend, ST_UNMAP);
	}
	sweep(r->start, r->end, ST_REMAP);
	sweep(r->vstart, r->vend, ST_REMAP);
	GUEST_SYNC(ST_REMAP);
	GUEST_ASSERT_MSG(0, "ran past the last stage");
}

/* Test memory at the top of guest-physical space, 1G-aligned for big pages. */
static uint64_t place_test_mem(struct kvm_vm *vm, const struct mmu_params *p,
			       uint64_t *alias_size)
{
	uint64_t top = (vm->max_gfn + 1) << vm->page_shift, align = GB, room;
	struct userspace_mem_region *r0 = memslot2region(vm, 0);
	uint64_t low = r0->region.guest_phys_addr + r0->region.memory_size;
	int max = kvm_check_cap(KVM_CAP_NR_MEMSLOTS) - 2;

	if (get_backing_src_pagesz(p->backing) > align)
		align = get_backing_src_pagesz(p->backing);
	room = top / 2 > low + align ? top / 2 : 0;
	st.nr_slots = p->guest_mem / p->slot_size;
	if (st.nr_slots > max)
		st.nr_slots = max;
	if (st.nr_slots > PERF_TEST_MAX_SLOTS - 2)
		st.nr_slots = PERF_TEST_MAX_SLOTS - 2;
	while (st.nr_slots > 1 && (uint64_t)st.nr_slots * p->slot_size + st.victim_size > room)
		st.nr_slots--;
	*alias_size = (uint64_t)st.nr_slots * p->slot_size;
	TEST_ASSERT(*alias_size + st.victim_size + align <= room,
		    "A slot of 0x%lx bytes does not fit in half of the %u-bit guest-physical space",
		    (unsigned long)p->slot_size, vm->pa_bits);
	if ((uint64_t)st.nr_slots < p->guest_mem / p->slot_size)
		ksft_print_msg("Guest memory capped at %d slots (KVM's memslot limit or %u PA bits)\n",
			       st.nr_slots, vm->pa_bits);
	return ALIGN_DOWN(top - *alias_size - st.victim_size, align);
}

/* Each vCPU: an equal share of the aliased pages and of the victim's. */
static void split_ranges(int nr_vcpus, uint64_t alias_size, uint64_t page_size)
{
	uint64_t pages = alias_size / page_size, vpages = st.victim_size / page_size;
	int i;

	for (i = 0; i < nr_vcpus; i++) {
		mmu.r[i].start = pages * i / nr_vcpus * page_size;
		mmu.r[i].end = pages * (i + 1) / nr_vcpus * page_size;
		mmu.r[i].vstart = alias_size + vpages * i / nr_vcpus * page_size;
		mmu.r[i].vend = alias_size + vpages * (i + 1) / nr_vcpus * page_size;
	}
}

static void create_vm(const struct mmu_params *p)
{
	uint64_t page_size = vm_guest_mode(VM_MODE_DEFAULT)->page_size, alias_size, total, i;
	struct kvm_vcpu *vcpus[KVM_MAX_VCPUS];
	int slot;

	st.victim_size = mmu_victim_size(p);
	st.vm = __vm_create_shape(vm_shape_for_backing(VM_MODE_DEFAULT, p->backing), p->nr_vcpus,
				  64 + 2 * (p->guest_mem / GB + 1));
	st.gpa = place_test_mem(st.vm, p, &alias_size);
	total = alias_size + st.victim_size;

	mmu.punch = backing_src_is_guest_memfd(p->backing);
	st.buf.src_type = mmu.punch ? VM_MEM_SRC_SHMEM : p->backing;
	backing_region_map(&st.buf, p->slot_size);
	/* As upstream: fault the buffer in, so guest faults find it present. */
	for (i = 0; i < p->slot_size; i += getpagesize())
		WRITE_ONCE(((uint8_t *)st.buf.host_mem)[i], 0xaa);
	for (slot = 0; slot < st.nr_slots; slot++)
		vm_set_user_memory_region(st.vm, 1 + slot, 0, st.gpa + slot * p->slot_size,
					  p->slot_size, st.buf.host_mem);
	vm_userspace_mem_region_add(st.vm, p->backing, st.gpa + alias_size, 1 + st.nr_slots,
				    st.victim_size / page_size, 0);
	st.victim = memslot2region(st.vm, 1 + st.nr_slots);
	vm_vaddr_reserve(st.vm, PERF_TEST_GVA, total);
	virt_map(st.vm, PERF_TEST_GVA, st.gpa, total / page_size);

	mmu.gva = PERF_TEST_GVA;
	mmu.slot_size = p->slot_size;
	mmu.alias_size = alias_size;
	mmu.page_size = page_size;
	split_ranges(p->nr_vcpus, alias_size, page_size);
	for (i = 0; i < (uint64_t)p->nr_vcpus; i++) {
		vcpus[i] = vm_vcpu_add(st.vm, i, guest_code);
		vcpu_args_set(vcpus[i], 1, i);
	}
	perf_test_set_vcpus(p->nr_vcpus, vcpus);
	sync_global_to_guest(st.vm, mmu);
#ifdef KVM_CAP_MEMORY_FAULT_INFO
	st.mf_info = kvm_has_cap(KVM_CAP_MEMORY_FAULT_INFO);
#endif
	ksft_print_msg("Running with 0x%lx bytes of guest memory (%d slots of 0x%lx sharing one %s buffer) and %d vCPUs; %s slot 0x%lx bytes of %s\n",
		       (unsigned long)alias_size, st.nr_slots, (unsigned long)p->slot_size,
		       vm_mem_backing_src_alias(st.buf.src_type)->name, p->nr_vcpus,
		       mmu.punch ? "punch" : "unmap", (unsigned long)st.victim_size,
		       vm_mem_backing_src_alias(p->backing)->name);
	ksft_print_msg("EFAULTs: %s\n", st.mf_info ?
		       "kvm_run.memory_fault checked where KVM fills it (KVM_CAP_MEMORY_FAULT_INFO)" :
		       "KVM_RUN's errno only (no KVM_CAP_MEMORY_FAULT_INFO)");
}

/*
 * The memory-fault exit, where KVM fills it (KVM_CAP_MEMORY_FAULT_INFO
 * says it may): a page of the vCPU's own range.
 */
static int check_memory_fault(struct perf_test_vcpu_args *va, uint64_t lo, uint64_t hi)
{
	struct kvm_memory_fault_exit *mf = vcpu_memory_fault(va->vcpu);
	uint64_t gpa = mf->gpa, size = mf->size;

	/* KVM may fill it (6.12 does not for a missing VMA write access). */
	if (va->vcpu->run->exit_reason != KVM_EXIT_MEMORY_FAULT)
		return 0;
	if (gpa < st.gpa + lo || gpa + size > st.gpa + hi || !size)
		return perf_test_fail("memory fault at GPA 0x%lx+0x%lx, outside the vCPU's range [0x%lx, 0x%lx)",
				      (unsigned long)gpa, (unsigned long)size,
				      (unsigned long)(st.gpa + lo), (unsigned long)(st.gpa + hi));
	__atomic_add_fetch(&st.mf_exits, 1, __ATOMIC_RELAXED);
	return 0;
}

/* ro and unmap: KVM_RUN must fail with EFAULT (the write the host took away). */
static int expect_efault(struct perf_test_vcpu_args *va, uint64_t pass)
{
	struct mmu_range *r = &mmu.r[va->vcpu_idx];
	bool ro = pass == ST_RO;

	/*
	 * exit_reason stays as the last ucall left it: arm64 completes that
	 * MMIO exit on this KVM_RUN only if it still says KVM_EXIT_MMIO.
	 */
	if (!__vcpu_run(va->vcpu)) {
		/* Names the exit (a guest exception is kept for the report). */
		if (!__perf_test_vcpu_sync(va, pass))
			perf_test_fail("GUEST_SYNC(%lu)", (unsigned long)pass);
		return perf_test_fail_more(": KVM_RUN returned instead of failing with EFAULT on %s memory",
					   ro ? "read-only" : "unmapped");
	}
	if (errno != EFAULT)
		return perf_test_fail("%s: KVM_RUN failed with %s, expected EFAULT",
				      ro ? "ro" : "unmap", strerror(errno));
	__atomic_add_fetch(&st.efaults[!ro], 1, __ATOMIC_RELAXED);
	return check_memory_fault(va, ro ? r->start : r->vstart, ro ? r->end : r->vend);
}

/* Passes that end in EFAULT: ro, and unmap unless it is a punch. */
static bool efault_pass(uint64_t pass)
{
	return pass == ST_RO || (pass == ST_UNMAP && !mmu.punch);
}

static int mmu_vcpu_pass(struct perf_test_vcpu_args *va, uint64_t pass)
{
	if (efault_pass(pass))
		return expect_efault(va, pass);
	return __perf_test_vcpu_pass(va, pass);
}

static bool past_deadline(void *arg)
{
	return timespec_to_ns(timespec_now()) > *(uint64_t *)arg;
}

/*
 * A pass that ends in GUEST_SYNC waits as long as the guest writes; one
 * that ends in EFAULT gets the longer of 20 s and 20 sweeps (run2's time).
 */
static int wait_pass(uint64_t pass)
{
	bool efault = efault_pass(pass);
	uint64_t timeout = st.sweep_ns * 20 > MMU_TIMEOUT_NS ? st.sweep_ns * 20 : MMU_TIMEOUT_NS;
	uint64_t deadline = timespec_to_ns(timespec_now()) + timeout;

	if (perf_test_wait_pass(pass, efault ? past_deadline : NULL, &deadline))
		return 0;
	return perf_test_fail("stage %lu: not every vCPU had its EFAULT within %lu s (KVM kept a mapping the host took away)",
			      (unsigned long)pass, (unsigned long)(timeout / NSEC_PER_SEC));
}

/* Wait until every vCPU spins in @stage (its writes are about to fault). */
static int wait_spinning(uint64_t stage, int nr_vcpus)
{
	uint64_t *spinning = addr_gva2hva(st.vm, (uint64_t)&mmu.spinning[0]);
	uint64_t deadline = timespec_to_ns(timespec_now()) + MMU_TIMEOUT_NS;
	int i;

	for (i = 0; i < nr_vcpus; i++) {
		while (READ_ONCE(spinning[i]) != stage) {
			if (past_deadline(&deadline))
				return perf_test_fail("vCPU %d never reached stage %lu", i,
						      (unsigned long)stage);
			usleep(100);
		}
	}
	return 0;
}

/* Let the spinning vCPUs out of @stage (after a timeout too, to join them). */
static void release(uint64_t stage)
{
	write_guest_global(st.vm, mmu.release, stage);
}

/* New memory for the unmap slot: 0, or -errno of the mmap(MAP_FIXED). */
static int __remap_victim(void)
{
	struct userspace_mem_region *r = st.victim;
	int flags = r->fd >= 0 ? MAP_SHARED : vm_mem_backing_src_alias(r->src_type)->flags;
	int fd = r->fd;
	void *p;

	/* A shared guest_memfd's host mapping is of the guest_memfd. */
	if (backing_src_is_guest_memfd(r->src_type) && backing_src_is_shared(r->src_type))
		fd = r->gmem_fd;
	p = mmap(r->host_mem, st.victim_size, PROT_READ | PROT_WRITE, flags | MAP_FIXED, fd, 0);

	if (p != r->host_mem)
		return -errno;
	if (r->src_type == VM_MEM_SRC_ANONYMOUS_THP)
		madvise(p, st.victim_size, MADV_HUGEPAGE);
	else if (r->src_type == VM_MEM_SRC_ANONYMOUS)
		madvise(p, st.victim_size, MADV_NOHUGEPAGE);
	return 0;
}

static int remap_victim(void)
{
	int ret = __remap_victim();

	if (!ret)
		return 0;
	return perf_test_fail("mmap(MAP_FIXED) of new memory for the unmap slot: %s",
			      strerror(-ret));
}

/* What a stage left: every page of [lo, hi) of @mem holds its pattern. */
static int check_pages(const uint8_t *mem, uint64_t lo, uint64_t hi, uint64_t stage,
		       const char *what, uint64_t *checked)
{
	uint64_t off, got, want;

	for (off = lo; off < hi; off += mmu.page_size) {
		got = *(const uint64_t *)(mem + off - lo);
		want = MMU_PATTERN(stage, key_of(off));
		if (got != want)
			return perf_test_fail("after stage %lu: %s at offset 0x%lx holds 0x%lx, expected 0x%lx",
					      (unsigned long)stage, what, (unsigned long)(off - lo),
					      (unsigned long)got, (unsigned long)want);
		(*checked)++;
	}
	return 0;
}

static int check_buffer(uint64_t stage, uint64_t *checked)
{
	return check_pages(st.buf.host_mem, 0, mmu.slot_size, stage, "the shared buffer",
			   checked);
}

struct mmu_times {
	uint64_t run1, run2, mprotect_ro, ro, mprotect_rw, rw, munmap, unmap, remap, punch;
	uint64_t checked;
};

static uint64_t since(struct timespec t)
{
	return timespec_to_ns(timespec_elapsed(t));
}

static int run_pass(uint64_t pass, uint64_t *ns)
{
	struct timespec start = timespec_now();

	perf_test_next_pass();
	if (wait_pass(pass))
		return -1;
	*ns = since(start);
	return 0;
}

static int make_read_only(void)
{
	return mprotect(st.buf.host_mem, mmu.slot_size, PROT_READ);
}

static int unmap_victim(void)
{
	return munmap(st.victim->host_mem, st.victim_size);
}

/*
 * Pass @stage: once every vCPU spins writing, take the memory away
 * (@take, named @what) and wait for every vCPU's EFAULT.  The times: of
 * @take, and from its start to the last EFAULT.
 */
static int take_away(uint64_t stage, int (*take)(void), const char *what,
		     uint64_t *take_ns, uint64_t *fault_ns)
{
	struct timespec start;
	int ret;

	perf_test_next_pass();
	if (wait_spinning(stage, perf_test_args.nr_vcpus))
		return -1;
	start = timespec_now();
	if (take())
		return perf_test_fail("%s: %s", what, strerror(errno));
	*take_ns = since(start);
	ret = wait_pass(stage);
	*fault_ns = since(start);
	return ret;
}

/* The vCPUs spin writing; the buffer goes read-only under them. */
static int ro_phase(struct mmu_times *t)
{
	struct timespec start;

	if (take_away(ST_RO, make_read_only, "mprotect(PROT_READ)", &t->mprotect_ro, &t->ro))
		return -1;
	start = timespec_now();
	if (mprotect(st.buf.host_mem, mmu.slot_size, PROT_READ | PROT_WRITE))
		return perf_test_fail("mprotect(PROT_READ | PROT_WRITE): %s", strerror(errno));
	t->mprotect_rw = since(start);
	release(ST_RO);
	if (run_pass(ST_RW, &t->rw))
		return -1;
	t->rw += t->mprotect_rw;
	return check_buffer(ST_RW, &t->checked);
}

/*
 * guest_memfd: the vCPUs wrote the slot; its host mapping goes, a hole is
 * punched in the guest_memfd (timed: munmap, then punch), the mapping
 * comes back, and the vCPUs find zeroes before they write it again.
 */
static int punch_phase(struct mmu_times *t)
{
	struct timespec start;
	int ret;

	if (run_pass(ST_UNMAP, &t->unmap))
		return -1;
	start = timespec_now();
	if (unmap_victim())
		return perf_test_fail("munmap(the punch slot's host mapping): %s", strerror(errno));
	t->munmap = since(start);
	start = timespec_now();
	ret = fault_inject("punch_skip") ? 0 :
	      __vm_guest_mem_punch_hole(st.vm, st.gpa + mmu.alias_size, st.victim_size);
	if (ret)
		return perf_test_fail("fallocate(PUNCH_HOLE) of the guest_memfd: %s", strerror(errno));
	t->punch = since(start);
	if (remap_victim() || run_pass(ST_REMAP, &t->remap) ||
	    check_buffer(ST_REMAP, &t->checked))
		return -1;
	/* Private memory: the guest's zero check is the check. */
	if (!backing_src_host_readable(st.victim->src_type))
		return 0;
	return check_pages(st.victim->host_mem, mmu.alias_size, mmu.alias_size + st.victim_size,
			   ST_REMAP, "the punch slot's guest_memfd", &t->checked);
}

/* The vCPUs spin writing the unmap slot; its memory goes away under them. */
static int unmap_phase(struct mmu_times *t)
{
	if (mmu.punch)
		return punch_phase(t);
	if (take_away(ST_UNMAP, unmap_victim, "munmap(the unmap slot's memory)", &t->munmap,
		      &t->unmap) ||
	    remap_victim())
		return -1;
	release(ST_UNMAP);
	if (run_pass(ST_REMAP, &t->remap))
		return -1;
	return check_buffer(ST_REMAP, &t->checked) ?:
	       check_pages(st.victim->host_mem, mmu.alias_size, mmu.alias_size + st.victim_size,
			   ST_REMAP, "the unmap slot's new memory", &t->checked);
}

static int run_stages(struct mmu_times *t, struct timespec start)
{
	if (wait_pass(ST_RUN1))
		return -1;
	t->run1 = since(start);
	if (run_pass(ST_RUN2, &t->run2) || check_buffer(ST_RUN2, &t->checked))
		return -1;
	st.sweep_ns = t->run2;
	return ro_phase(t) ?: unmap_phase(t);
}

/* After a failure: give the vCPUs back their memory and let them out. */
static void unblock_vcpus(const struct mmu_params *p)
{
	mprotect(st.buf.host_mem, p->slot_size, PROT_READ | PROT_WRITE);
	__remap_victim();
	release(ST_UNMAP);
}

static void print_time(const char *what, uint64_t ns, const char *sep)
{
	printf("%s = %lu.%09lus%s", what, (unsigned long)(ns / NSEC_PER_SEC),
	       (unsigned long)(ns % NSEC_PER_SEC), sep);
}

static void print_result(const struct mmu_params *p, const struct mmu_times *t)
{
	print_time("run1", t->run1, ", ");
	print_time("run2", t->run2, ", ");
	print_time("ro", t->ro, ", ");
	print_time("rw", t->rw, ", ");
	print_time("unmap", t->unmap, ", ");
	if (mmu.punch)
		print_time("punch", t->punch, ", ");
	print_time("remap", t->remap, "\n");
	perf_report_opt_str("backing", vm_mem_backing_src_alias(p->backing)->name);
	perf_report_opt_int("vcpus", p->nr_vcpus);
	perf_report_opt_int("slots", st.nr_slots);
	perf_report_opt_int("slot_bytes", p->slot_size);
	perf_report_opt_int("guest_bytes", mmu.alias_size);
	perf_report_opt_int("memory_fault_info", st.mf_info);
	perf_report_opt_int("punch", mmu.punch);
	perf_report_u64("run1_ns", t->run1, "ns");
	perf_report_u64("run2_ns", t->run2, "ns");
	perf_report_u64("mprotect_ro_ns", t->mprotect_ro, "ns");
	perf_report_u64("ro_ns", t->ro, "ns");
	perf_report_u64("mprotect_rw_ns", t->mprotect_rw, "ns");
	perf_report_u64("rw_ns", t->rw, "ns");
	perf_report_u64("munmap_ns", t->munmap, "ns");
	perf_report_u64("unmap_ns", t->unmap, "ns");
	perf_report_u64("remap_ns", t->remap, "ns");
	perf_report_u64("punch_ns", t->punch, "ns");
	perf_report_u64("ro_efaults", st.efaults[0], "count");
	perf_report_u64("unmap_efaults", st.efaults[1], "count");
	perf_report_u64("memory_fault_exits", st.mf_exits, "count");
	perf_report_u64("checked", t->checked, "pages");
	perf_report_run_end("mmu_stress");
}

static void run_test(const struct mmu_params *p)
{
	struct perf_test_options o;
	struct mmu_times t = { 0 };
	struct timespec start;

	perf_test_options_init(&o, 0, p->nr_vcpus);
	create_vm(p);
	perf_report_stats_begin(st.vm);
	start = timespec_now();
	perf_test_start_threads(&o, mmu_vcpu_pass);
	if (run_stages(&t, start))
		unblock_vcpus(p);
	perf_test_join_threads();
	perf_report_stats_end(st.vm);
	TEST_ASSERT(st.efaults[0] == (uint64_t)p->nr_vcpus &&
		    st.efaults[1] == (mmu.punch ? 0 : st.efaults[0]),
		    "EFAULTs: %lu in ro, %lu in %s, for %d vCPUs", (unsigned long)st.efaults[0],
		    (unsigned long)st.efaults[1], mmu.punch ? "punch" : "unmap", p->nr_vcpus);
	print_result(p, &t);
	/* The buffer goes away with its slots still in the VM, then the VM. */
	backing_region_unmap(&st.buf);
	perf_test_destroy_vm(st.vm);
}

/* The figures this test reports (perf_report.h: --figures lists them). */
static const char *const figures[] = {
	"run1_ns", "run2_ns", "mprotect_ro_ns", "ro_ns", "mprotect_rw_ns", "rw_ns",
	"munmap_ns", "unmap_ns", "remap_ns", "punch_ns", "ro_efaults", "unmap_efaults",
	"memory_fault_exits", "checked", NULL,
};

int main(int argc, char *argv[])
{
	struct mmu_params p;

	setvbuf(stdout, NULL, _IOLBF, 0);
	mmu_stress_params(argc, argv, &p);
	perf_report_figures(figures);
	perf_report_open("mmu_stress_test", p.json_path, argc, argv);
	run_test(&p);
	perf_report_close();
	return KSFT_PASS;
}

// SPDX-License-Identifier: GPL-2.0-only
/*
 * perf_test_util: test memory in a VM (or host-only), the guest code that
 * walks it, and checking what it holds afterwards.
 */
#include "dirty_ring.h"
#include "fault_inject.h"
#include "perf_test_util.h"
#include "numa_util.h"

struct perf_test_args perf_test_args;

/* Guest-safe helpers: no libc, no asserts. */
static __guest_code uint64_t mix64(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ULL;
	return x ^ (x >> 33);
}

static __guest_code uint64_t gcd64(uint64_t a, uint64_t b)
{
	uint64_t t;

	while (b) {
		t = a % b;
		a = b;
		b = t;
	}
	return a;
}

__guest_code bool perf_test_page_written(uint64_t off)
{
	struct perf_test_args *pta = &perf_test_args;

	if (pta->write_percent >= 100)
		return true;
	return mix64(off / pta->page_size ^ pta->seed) % 100 < pta->write_percent;
}

/*
 * A random order that still visits each of @n pages once: start at a
 * random page and step by a random stride prime to @n.
 */
static __guest_code void random_order(uint32_t seed, uint32_t idx, uint64_t n, uint64_t *start,
			 uint64_t *stride)
{
	uint64_t r = mix64(((uint64_t)seed << 32) | idx);

	*start = r % n;
	*stride = n > 1 ? mix64(r) % (n - 1) + 1 : 1;
	while (gcd64(*stride, n) != 1)
		(*stride)++;
}

__guest_code uint64_t perf_test_touch_pages(uint64_t base, uint32_t idx)
{
	struct perf_test_args *pta = &perf_test_args;
	struct perf_test_vcpu_args *va = &pta->vcpu_args[idx];
	uint64_t n = va->pages, page = 0, stride = 1, i, off;
	uint64_t *p;

	if (pta->random_access)
		random_order(pta->seed, idx, n, &page, &stride);
	for (i = 0; i < n; i++) {
		off = va->offset + page * pta->page_size;
		p = (uint64_t *)(base + off);
		if (perf_test_page_written(off))
			WRITE_ONCE(*p, PERF_TEST_PATTERN(off));
		else
			(void)READ_ONCE(*p);
		page += stride;
		if (page >= n)
			page -= n;
	}
	return n;
}

/* Every written page of test memory holds its pattern: pages checked. */
static __guest_code uint64_t guest_check_pages(uint64_t base)
{
	struct perf_test_args *pta = &perf_test_args;
	uint64_t off, got, n = 0;

	for (off = 0; off < pta->size; off += pta->page_size) {
		if (!perf_test_page_written(off))
			continue;
		got = READ_ONCE(*(uint64_t *)(base + off)) ^ pta->verify_flip;
		GUEST_ASSERT_MSG(got == PERF_TEST_PATTERN(off),
				 "Test memory at offset 0x%lx: 0x%lx, expected 0x%lx (guest check)",
				 (unsigned long)off, (unsigned long)got,
				 (unsigned long)PERF_TEST_PATTERN(off));
		n++;
	}
	return n;
}

static __guest_code void perf_test_guest_code(uint32_t idx)
{
	uint64_t pass;

	for (;;) {
		if (READ_ONCE(perf_test_args.verify)) {
			GUEST_SYNC(guest_check_pages(perf_test_args.gva));
			continue;
		}
		pass = READ_ONCE(perf_test_args.iteration);
		perf_test_touch_pages(perf_test_args.gva, idx);
		GUEST_ASSERT_MSG(idx || !READ_ONCE(perf_test_args.inject_guest_assert),
				 "injected fault (KVM_SELFTEST_FAIL=guest_assert)");
		GUEST_SYNC(pass);
	}
}

static void setup_vcpu_args(const struct perf_test_options *o, uint64_t page_size)
{
	struct perf_test_args *pta = &perf_test_args;
	int i;

	pta->size = perf_test_mem_size(o);
	pta->page_size = page_size;
	pta->nr_vcpus = o->nr_vcpus;
	pta->write_percent = 100;
	pta->backing = o->backing;
	pta->nr_slots = o->nr_slots;
	pta->partition = o->partition;
	pta->nested = o->nested;
	pta->own_guest_code = o->guest_code;
	for (i = 0; i < o->nr_vcpus; i++) {
		pta->vcpu_args[i].vcpu_idx = i;
		pta->vcpu_args[i].offset = o->partition ? i * o->vcpu_memory_bytes : 0;
		pta->vcpu_args[i].pages = (o->partition ? o->vcpu_memory_bytes : pta->size) /
					  page_size;
	}
}

/* Page-table pages to map @pages guest pages with the smallest mappings. */
static uint64_t page_table_pages(uint64_t pages, uint64_t page_size, int nr_slots)
{
	uint64_t per_table = page_size / 8;

	return pages / per_table + pages / (per_table * per_table) + 8 * nr_slots + 16;
}

/* Test memory is aligned for the backing's pages and the guest's. */
static uint64_t test_mem_align(struct kvm_vm *vm, uint32_t backing)
{
	uint64_t align = get_backing_src_pagesz(backing);

	return align < vm->page_size ? vm->page_size : align;
}

/* The highest GPA the test memory fits below, aligned for every mapping. */
static uint64_t test_mem_top_gpa(struct kvm_vm *vm, uint64_t size, uint32_t backing)
{
	uint64_t align = test_mem_align(vm, backing), top;

	top = (vm->max_gfn + 1) << vm->page_shift;
	TEST_ASSERT(size + align < top, "0x%lx bytes of test memory do not fit in %u PA bits",
		    (unsigned long)size, vm->pa_bits);
	return ALIGN_DOWN(top - size, align);
}

/*
 * -p: where the user put it, if it is aligned, fits and leaves slot 0
 * (the test binary, page tables, stacks) alone.
 */
static uint64_t test_mem_gpa(struct kvm_vm *vm, uint64_t size, const struct perf_test_options *o)
{
	uint64_t align = test_mem_align(vm, o->backing), gpa = o->phys_offset;
	uint64_t top = (vm->max_gfn + 1) << vm->page_shift;
	struct userspace_mem_region *r = memslot2region(vm, 0);
	uint64_t low = r->region.guest_phys_addr, high = low + r->region.memory_size;

	if (!gpa)
		return test_mem_top_gpa(vm, size, o->backing);
	perf_test_check_phys_align(o, align);
	if (gpa > top || size > top - gpa)
		test_usage_error("Test memory 0x%lx bytes at GPA 0x%lx (-p) ends beyond the guest's 0x%lx (%u PA bits)",
				 (unsigned long)size, (unsigned long)gpa, (unsigned long)top,
				 vm->pa_bits);
	if (gpa < high && low < gpa + size)
		test_usage_error("Test memory at GPA [0x%lx, 0x%lx) (-p) overlaps the test binary's memory [0x%lx, 0x%lx)",
				 (unsigned long)gpa, (unsigned long)(gpa + size),
				 (unsigned long)low, (unsigned long)high);
	return gpa;
}

/* The guest mode's page size, or with -L the largest pages that fit. */
static void map_test_mem(struct kvm_vm *vm, const struct perf_test_options *o, uint64_t pages)
{
	struct perf_test_args *pta = &perf_test_args;
	uint64_t i;

	vm_vaddr_reserve(vm, pta->gva, pta->size);
	if (o->large_pages) {
		virt_map(vm, pta->gva, pta->gpa, pages);
		return;
	}
	for (i = 0; i < pages; i++)
		virt_pg_map(vm, pta->gva + i * vm->page_size, pta->gpa + i * vm->page_size);
}

static void add_test_slots(struct kvm_vm *vm, const struct perf_test_options *o)
{
	struct perf_test_args *pta = &perf_test_args;
	uint64_t slot_size = pta->size / o->nr_slots;
	struct userspace_mem_region *r;
	int i;

	for (i = 0; i < o->nr_slots; i++) {
		vm_userspace_mem_region_add(vm, o->backing, pta->gpa + i * slot_size,
					    PERF_TEST_MEM_SLOT + i,
					    slot_size / vm->page_size, 0);
		if (o->numa_node < 0)
			continue;
		r = memslot2region(vm, PERF_TEST_MEM_SLOT + i);
		numa_util_bind(r->host_mem, slot_size, o->numa_node);
		if (r->host_alias)
			numa_util_bind(r->host_alias, slot_size, o->numa_node);
	}
}

struct kvm_vm *perf_test_create_vm(enum vm_guest_mode mode,
				   const struct perf_test_options *o)
{
	struct perf_test_args *pta = &perf_test_args;
	uint64_t page_size = vm_guest_mode(mode)->page_size, pages, extra;
	void *code = o->guest_code ? o->guest_code : (void *)perf_test_guest_code;
	struct timespec start;
	struct kvm_vcpu *vcpu;
	struct kvm_vm *vm;
	int i;

	memset(pta, 0, sizeof(*pta));
	setup_vcpu_args(o, page_size);
	pages = pta->size / page_size;
	extra = page_table_pages(pages, page_size, o->nr_slots);
	if (o->nested)
		extra += nested_arch_extra_pages(o->nr_vcpus, pta->size);
	vm = vm_create_shape_empty(vm_shape_for_backing(mode, o->backing));
	/* Before any vCPU, and any memslot for the bitmap that may back it. */
	if (o->dirty_ring_bytes)
		vm_enable_dirty_ring(vm, o->dirty_ring_bytes);
	if (o->vm_init)
		o->vm_init(vm);
	vm_create_populate(vm, o->nr_vcpus, extra);
	pta->vm = vm;
	pta->gva = PERF_TEST_GVA;
	pta->gpa = test_mem_gpa(vm, pta->size, o);
	start = timespec_now();
	add_test_slots(vm, o);
	pta->slots_ns = timespec_to_ns(timespec_elapsed(start));
	map_test_mem(vm, o, pages);
	if (o->nested)
		nested_arch_vm_setup(vm);

	for (i = 0; i < o->nr_vcpus; i++) {
		vcpu = vm_vcpu_add(vm, i, code);
		if (o->nested)
			nested_arch_vcpu_setup(vm, vcpu, code, i);
		else
			vcpu_args_set(vcpu, 1, (uint64_t)i);
		pta->vcpu_args[i].vcpu = vcpu;
	}
	pta->inject_guest_assert = fault_inject("guest_assert");
	sync_global_to_guest(vm, perf_test_args);
	ksft_print_msg("Test memory: 0x%lx bytes at GPA 0x%lx in %d slot(s) of %s, mapped with %s\n",
		       (unsigned long)pta->size, (unsigned long)pta->gpa, o->nr_slots,
		       vm_mem_backing_src_alias(o->backing)->name,
		       o->large_pages ? "the largest guest pages that fit (-L)" :
		       page_size == 4096 ? "4K guest pages" :
		       page_size == 16384 ? "16K guest pages" : "64K guest pages");
	if (o->nested)
		ksft_print_msg("Nested: each vCPU runs L1, which runs the page walks in L2, L2's memory mapped 1:1 onto L1's\n");
	return vm;
}

/*
 * KVM's counters for the run, summed over the vCPUs, the ones this KVM
 * has: what explains a difference (faults taken and fixed, shadow pages,
 * nested VMRUNs...) where times are noise.
 */
static void print_kvm_stats(struct kvm_vm *vm)
{
	static const char * const vcpu_stats[] = {
		"exits", "pf_taken", "pf_fixed", "pf_emulate", "pf_spurious", "pf_fast",
		"insn_emulation", "io_exits", "mmio_exits", "tlb_flush", "nested_run",
		"req_event", "halt_exits",
	};
	static const char * const vm_stats[] = {
		"mmu_shadow_zapped", "mmu_pte_write", "mmu_pde_zapped", "mmu_flooded",
		"mmu_recycled", "mmu_cache_miss", "mmu_unsync", "pages_4k", "pages_2m",
		"pages_1g", "remote_tlb_flush",
	};
	struct kvm_stats_snapshot vm_snap = { 0 }, vcpu_snap = { 0 };
	unsigned int i;
	uint64_t v;

	if (!kvm_has_cap(KVM_CAP_BINARY_STATS_FD))
		return;
	/* One read of each stats fd; the vCPUs' values come summed. */
	kvm_stats_snapshot_vm(vm, &vm_snap, &vcpu_snap);
	printf("RESULT_STATS");
	for (i = 0; i < ARRAY_SIZE(vcpu_stats); i++)
		if (kvm_stats_snapshot_find(&vcpu_snap, vcpu_stats[i], &v))
			printf(" %s=%lu", vcpu_stats[i], (unsigned long)v);
	for (i = 0; i < ARRAY_SIZE(vm_stats); i++)
		if (kvm_stats_snapshot_find(&vm_snap, vm_stats[i], &v))
			printf(" %s=%lu", vm_stats[i], (unsigned long)v);
	printf("\n");
	kvm_stats_snapshot_free(&vm_snap);
	kvm_stats_snapshot_free(&vcpu_snap);
}

void perf_test_destroy_vm(struct kvm_vm *vm)
{
	print_kvm_stats(vm);
	kvm_vm_free(vm);
	perf_test_args.vm = NULL;
}

void perf_test_setup_host_mem(const struct perf_test_options *o, uint64_t page_size)
{
	struct perf_test_args *pta = &perf_test_args;
	struct userspace_mem_region *r = &pta->host_region;

	memset(pta, 0, sizeof(*pta));
	setup_vcpu_args(o, page_size);
	r->src_type = o->backing;
	backing_region_map(r, pta->size);
	if (o->numa_node >= 0) {
		numa_util_bind(r->host_mem, pta->size, o->numa_node);
		if (r->host_alias)
			numa_util_bind(r->host_alias, pta->size, o->numa_node);
	}
}

void perf_test_free_host_mem(void)
{
	backing_region_unmap(&perf_test_args.host_region);
}

/* Guest-visible settings: call before the threads start. */
void perf_test_set_write_percent(uint32_t pct)
{
	TEST_ASSERT(pct <= 100, "Write percentage %u above 100", pct);
	perf_test_args.write_percent = pct;
	if (perf_test_args.vm)
		sync_global_to_guest(perf_test_args.vm, perf_test_args);
}

void perf_test_set_random_access(bool random, uint32_t seed)
{
	perf_test_args.random_access = random;
	perf_test_args.seed = seed;
	if (perf_test_args.vm)
		sync_global_to_guest(perf_test_args.vm, perf_test_args);
}

void *perf_test_hva(uint64_t off)
{
	struct perf_test_args *pta = &perf_test_args;

	TEST_ASSERT(off < pta->size, "Offset 0x%lx beyond test memory", (unsigned long)off);
	if (pta->vm)
		return addr_gpa2hva(pta->vm, pta->gpa + off);
	return (uint8_t *)pta->host_region.host_mem + off;
}

void *perf_test_alias(uint64_t off)
{
	struct perf_test_args *pta = &perf_test_args;

	TEST_ASSERT(off < pta->size, "Offset 0x%lx beyond test memory", (unsigned long)off);
	if (pta->vm)
		return addr_gpa2alias(pta->vm, pta->gpa + off);
	if (!pta->host_region.host_alias)
		return NULL;
	return (uint8_t *)pta->host_region.host_alias + off;
}

/* The passes ran in L2: each vCPU stopped at a GUEST_SYNC from L2. */
static void check_nested(void)
{
	struct perf_test_args *pta = &perf_test_args;
	uint32_t i;

	for (i = 0; pta->nested && pta->vm && i < pta->nr_vcpus; i++)
		TEST_ASSERT(nested_arch_vcpu_in_l2(pta->vcpu_args[i].vcpu),
			    "vCPU %u last exited from L1, not L2: its passes did not run nested", i);
}

/* vCPU 0, parked at a GUEST_SYNC, runs one more pass: the check. */
static uint64_t guest_check_memory(void)
{
	struct perf_test_args *pta = &perf_test_args;
	uint64_t checked;

	TEST_ASSERT(!pta->own_guest_code,
		    "%s memory is checked by the walker's guest code; this test has its own",
		    vm_mem_backing_src_alias(pta->backing)->name);
	write_guest_global(pta->vm, perf_test_args.verify_flip, fault_inject("guest_check"));
	write_guest_global(pta->vm, perf_test_args.verify, true);
	checked = vcpu_run_expect_sync(pta->vcpu_args[0].vcpu);
	write_guest_global(pta->vm, perf_test_args.verify, false);
	return checked;
}

uint64_t perf_test_check_memory(void)
{
	struct perf_test_args *pta = &perf_test_args;
	uint64_t off, got, checked = 0;

	check_nested();
	if (pta->vm && !backing_src_host_readable(pta->backing))
		return guest_check_memory();
	for (off = 0; off < pta->size; off += pta->page_size) {
		if (!perf_test_page_written(off))
			continue;
		got = *(uint64_t *)perf_test_hva(off);
		TEST_ASSERT(got == PERF_TEST_PATTERN(off),
			    "Test memory at offset 0x%lx (GPA 0x%lx): 0x%lx, expected 0x%lx",
			    (unsigned long)off, (unsigned long)(pta->gpa + off),
			    (unsigned long)got, (unsigned long)PERF_TEST_PATTERN(off));
		checked++;
	}
	return checked;
}

void perf_test_numa_check(int node)
{
	struct perf_test_args *pta = &perf_test_args;
	uint64_t off, step = get_backing_src_pagesz(pta->backing);
	int got;

	if (step < pta->page_size)
		step = pta->page_size;
	for (off = 0; off < pta->size; off += step) {
		got = numa_util_node_of(perf_test_hva(off));
		TEST_ASSERT(got == node, "Test memory at offset 0x%lx is on NUMA node %d, not %d",
			    (unsigned long)off, got, node);
	}
}

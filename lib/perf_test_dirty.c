// SPDX-License-Identifier: GPL-2.0-only
/*
 * perf_test_dirty: reading, re-arming and checking the dirty log of test
 * memory, from bitmaps or dirty rings.
 *
 * Both ways end in the same per-slot bitmaps (d->log), one bit a host
 * page, so one check serves both.  Ring entries may be harvested by vCPU
 * threads (ring full) while others do the same: bits are set atomically.
 */
#include "bitmap.h"
#include "perf_report.h"
#include "perf_test_dirty.h"

/* An ioctl of the VM failed while the vCPU threads run: record it. */
static int fail_ioctl(struct perf_test_dirty *d, const char *name, int ret)
{
	return perf_test_fail(__KVM_IOCTL_ERROR(name, d->vm->fd, ret));
}

static uint64_t slot_bytes(const struct perf_test_dirty *d)
{
	return perf_test_args.size / d->nr_slots;
}

static unsigned long **alloc_bitmaps(const struct perf_test_dirty *d)
{
	unsigned long **maps = calloc(d->nr_slots, sizeof(*maps));
	int i;

	TEST_ASSERT(maps, "Out of memory");
	for (i = 0; i < d->nr_slots; i++) {
		maps[i] = calloc(BITS_TO_LONGS(d->slot_pages), sizeof(unsigned long));
		TEST_ASSERT(maps[i], "Out of memory for a %lu-page dirty bitmap",
			    (unsigned long)d->slot_pages);
	}
	return maps;
}

static void free_bitmaps(const struct perf_test_dirty *d, unsigned long **maps)
{
	int i;

	for (i = 0; maps && i < d->nr_slots; i++)
		free(maps[i]);
	free(maps);
}

/* The host pages each pass writes: every vCPU's written guest pages. */
static void fill_expect(struct perf_test_dirty *d)
{
	struct perf_test_args *pta = &perf_test_args;
	uint64_t size = slot_bytes(d), host_page = getpagesize(), p, off;
	struct perf_test_vcpu_args *va;
	uint32_t i;

	for (i = 0; i < pta->nr_vcpus; i++) {
		va = &pta->vcpu_args[i];
		for (p = 0; p < va->pages; p++) {
			off = va->offset + p * pta->page_size;
			if (perf_test_page_written(off))
				set_bit(off % size / host_page, d->expect[off / size]);
		}
	}
}

void perf_test_dirty_init(struct perf_test_dirty *d, struct kvm_vm *vm,
			  uint32_t ring_bytes, bool manual)
{
	uint32_t i;

	memset(d, 0, sizeof(*d));
	d->vm = vm;
	d->ring_bytes = ring_bytes;
	d->nr_slots = perf_test_args.nr_slots;
	d->slot_pages = slot_bytes(d) / getpagesize();
	d->log = alloc_bitmaps(d);
	d->expect = alloc_bitmaps(d);
	fill_expect(d);
	if (ring_bytes) {
		d->rings = calloc(perf_test_args.nr_vcpus, sizeof(*d->rings));
		TEST_ASSERT(d->rings, "Out of memory");
		for (i = 0; i < perf_test_args.nr_vcpus; i++)
			dirty_ring_map(&d->rings[i], perf_test_args.vcpu_args[i].vcpu, ring_bytes);
	} else if (manual) {
		d->manual = vm_enable_manual_dirty_log_protect(vm);
		TEST_ASSERT(d->manual, "KVM_CAP_MANUAL_DIRTY_LOG_PROTECT2 is not available");
	}
}

void perf_test_dirty_free(struct perf_test_dirty *d)
{
	uint32_t i;

	for (i = 0; d->rings && i < perf_test_args.nr_vcpus; i++)
		dirty_ring_unmap(&d->rings[i]);
	free(d->rings);
	free_bitmaps(d, d->log);
	free_bitmaps(d, d->expect);
	memset(d, 0, sizeof(*d));
}

int __perf_test_dirty_enable(struct perf_test_dirty *d, bool on)
{
	int i, ret;

	for (i = 0; i < d->nr_slots; i++) {
		ret = __vm_mem_region_set_flags(d->vm, PERF_TEST_MEM_SLOT + i,
						on ? KVM_MEM_LOG_DIRTY_PAGES : 0);
		if (ret)
			return fail_ioctl(d, "KVM_SET_USER_MEMORY_REGION", ret);
	}
	d->all_dirty = on && (d->manual & KVM_DIRTY_LOG_INITIALLY_SET);
	return 0;
}

/* A harvested ring entry: its page's bit in the log. */
static void log_ring_entry(uint32_t slot, uint64_t offset, void *arg)
{
	struct perf_test_dirty *d = arg;
	uint32_t as_id = slot >> 16, idx = (slot & 0xffff) - PERF_TEST_MEM_SLOT;

	if (as_id || idx >= (uint32_t)d->nr_slots || offset >= d->slot_pages) {
		__atomic_fetch_add(&d->stray, 1, __ATOMIC_RELAXED);
		return;
	}
	test_and_set_bit_atomic(offset, d->log[idx]);
}

static void harvest(struct perf_test_dirty *d, uint32_t vcpu_idx)
{
	uint32_t n = dirty_ring_harvest(&d->rings[vcpu_idx], log_ring_entry, d);

	__atomic_fetch_add(&d->harvested, n, __ATOMIC_RELAXED);
}

static int reset_rings(struct perf_test_dirty *d)
{
	int ret = __vm_reset_dirty_rings(d->vm);

	return ret < 0 ? fail_ioctl(d, "KVM_RESET_DIRTY_RINGS", ret) : 0;
}

int __perf_test_dirty_get(struct perf_test_dirty *d)
{
	uint32_t i;
	int ret;

	if (d->ring_bytes) {
		for (i = 0; i < perf_test_args.nr_vcpus; i++)
			harvest(d, i);
		return 0;
	}
	for (i = 0; i < (uint32_t)d->nr_slots; i++) {
		ret = __kvm_vm_get_dirty_log(d->vm, PERF_TEST_MEM_SLOT + i, d->log[i]);
		if (ret)
			return fail_ioctl(d, "KVM_GET_DIRTY_LOG", ret);
	}
	return 0;
}

bool perf_test_dirty_needs_clear(const struct perf_test_dirty *d)
{
	return d->ring_bytes || d->manual;
}

int __perf_test_dirty_clear(struct perf_test_dirty *d)
{
	int i, ret;

	if (d->ring_bytes)
		return reset_rings(d);
	for (i = 0; d->manual && i < d->nr_slots; i++) {
		ret = __kvm_vm_clear_dirty_log(d->vm, PERF_TEST_MEM_SLOT + i, d->log[i], 0,
					       d->slot_pages);
		if (ret)
			return fail_ioctl(d, "KVM_CLEAR_DIRTY_LOG", ret);
	}
	return 0;
}

int __perf_test_dirty_ring_full(struct perf_test_dirty *d, uint32_t vcpu_idx)
{
	if (!d->ring_bytes)
		return perf_test_fail("KVM_EXIT_DIRTY_RING_FULL without a dirty ring");
	harvest(d, vcpu_idx);
	__atomic_fetch_add(&d->ring_full_exits, 1, __ATOMIC_RELAXED);
	return reset_rings(d);
}

/* Count one slot's differences, then clear its log. */
static void check_slot(struct perf_test_dirty *d, int slot, struct perf_test_dirty_count *c,
		       uint64_t *first_bad)
{
	unsigned long *log = d->log[slot], *exp = d->expect[slot], want, bad;
	uint64_t w, nr_words = BITS_TO_LONGS(d->slot_pages), tail;

	for (w = 0; w < nr_words; w++) {
		want = d->all_dirty ? ~0UL : exp[w];
		tail = d->slot_pages - w * BITS_PER_LONG;
		if (tail < BITS_PER_LONG)
			want &= BIT_MASK(tail) - 1;
		bad = want ^ log[w];
		if (bad && *first_bad == UINT64_MAX)
			*first_bad = slot * d->slot_pages + w * BITS_PER_LONG +
				     __builtin_ctzl(bad);
		c->reported += __builtin_popcountl(log[w]);
		c->expected += __builtin_popcountl(want);
		c->missing += __builtin_popcountl(want & ~log[w]);
		c->extra += __builtin_popcountl(log[w] & ~want);
		log[w] = 0;
	}
}

int __perf_test_dirty_check(struct perf_test_dirty *d, struct perf_test_dirty_count *c)
{
	uint64_t first_bad = UINT64_MAX, page = getpagesize();
	int i;

	memset(c, 0, sizeof(*c));
	for (i = 0; i < d->nr_slots; i++)
		check_slot(d, i, c, &first_bad);
	d->all_dirty = false;
	if (d->stray)
		return perf_test_fail("%lu dirty ring entries outside test memory",
				      (unsigned long)d->stray);
	if (first_bad == UINT64_MAX)
		return 0;
	return perf_test_fail("dirty log: %lu pages reported, %lu expected: %lu missing, %lu extra; first difference at GPA 0x%lx",
			      (unsigned long)c->reported, (unsigned long)c->expected,
			      (unsigned long)c->missing, (unsigned long)c->extra,
			      (unsigned long)(perf_test_args.gpa + first_bad * page));
}

/* @fn on @d, its time in @ns; with d->phase, under the profile phase @name. */
static int timed(struct perf_test_dirty *d, int (*fn)(struct perf_test_dirty *d),
		 const char *name, uint64_t *ns)
{
	struct timespec start;
	int ret;

	if (d->phase)
		perf_report_phase(name);
	start = timespec_now();
	ret = fn(d);
	*ns = timespec_to_ns(timespec_elapsed(start));
	if (d->phase)
		perf_report_phase(d->phase);
	return ret;
}

static int enable(struct perf_test_dirty *d)
{
	return __perf_test_dirty_enable(d, true);
}

static int disable(struct perf_test_dirty *d)
{
	return __perf_test_dirty_enable(d, false);
}

int __perf_test_dirty_enable_timed(struct perf_test_dirty *d, bool on, uint64_t *ns)
{
	return timed(d, on ? enable : disable, on ? "enable" : "disable", ns);
}

int __perf_test_dirty_harvest(struct perf_test_dirty *d, struct perf_test_dirty_times *t,
			      struct perf_test_dirty_count *c)
{
	t->clear_ns = 0;
	if (timed(d, __perf_test_dirty_get, "get", &t->get_ns))
		return -1;
	if (perf_test_dirty_needs_clear(d) &&
	    timed(d, __perf_test_dirty_clear, "clear", &t->clear_ns))
		return -1;
	return __perf_test_dirty_check(d, c);
}

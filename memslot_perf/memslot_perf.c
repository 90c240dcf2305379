// SPDX-License-Identifier: GPL-2.0-only
/*
 * memslot_perf: the loops memslot_perf_test times and their checks.
 *
 * The vCPU runs passes (perf_test_threads): in each it writes, from the
 * pass's first page on, a value made of the page's offset and the
 * iteration, and with verify it first checks the value the host put in
 * the middle of the page.  The host checks what came back through each
 * slot's own mapping.
 */
#include <sys/mman.h>

#include "memslot_perf.h"

#define UNMAP_CHUNK		(2 * MB)
#define MOVE_HALF_AREA		(96 * KB)	/* upstream's area: 3 x 64K */

const char * const ms_op_names[NR_OPS] = {
	"map", "unmap", "unmap chunked", "move active area", "move inactive area", "RW",
};
const char * const ms_op_keys[NR_OPS] = {
	"map", "unmap", "unmap_chunked", "move_active", "move_inactive", "rw",
};

/* What the vCPU does in a pass; the guest's copy is synced between passes. */
struct ms_guest {
	uint64_t first;		/* offset in test memory of the first page */
	uint64_t npages;
	uint64_t gen;		/* the iteration: part of every value */
	bool verify;		/* check the host's value in each page first */
	bool spin;		/* repeat the pass until stop */
	bool stop;
};

static struct ms_guest ms_guest;

/* What the guest writes at a page's start, the host in its middle. */
static __guest_code uint64_t guest_val(uint64_t off, uint64_t gen)
{
	return PERF_TEST_PATTERN(off) ^ (gen << 40);
}

static __guest_code uint64_t host_val(uint64_t off, uint64_t gen)
{
	return ~guest_val(off, gen);
}

static __guest_code void ms_guest_pass(void)
{
	uint64_t gva = perf_test_args.gva, psz = perf_test_args.page_size;
	uint64_t gen = READ_ONCE(ms_guest.gen), off, got, i;

	for (i = 0; i < READ_ONCE(ms_guest.npages); i++) {
		off = READ_ONCE(ms_guest.first) + i * psz;
		if (READ_ONCE(ms_guest.verify)) {
			got = READ_ONCE(*(uint64_t *)(gva + off + psz / 2));
			__GUEST_ASSERT(got == host_val(off, gen), "got == host_val(off, gen)",
				       "test memory at offset %#lx reads %#lx through its slot, the host wrote %#lx",
				       (unsigned long)off, (unsigned long)got,
				       (unsigned long)host_val(off, gen));
		}
		WRITE_ONCE(*(uint64_t *)(gva + off), guest_val(off, gen));
	}
}

static __guest_code void ms_guest_code(uint32_t idx)
{
	uint64_t pass;

	for (;;) {
		pass = READ_ONCE(perf_test_args.iteration);
		do
			ms_guest_pass();
		while (READ_ONCE(ms_guest.spin) && !READ_ONCE(ms_guest.stop));
		GUEST_SYNC(pass);
	}
}

/* One run of one test, on the host. */
struct ms_state {
	const struct ms_config *p;
	enum ms_op op;
	struct kvm_vm *vm;
	uint8_t **hva;		/* each test slot's host memory */
	uint64_t size, page, half;
	uint64_t pass;		/* the pass the vCPU runs, or ran last */
	uint64_t area, area_len;	/* the move tests' area */
	uint64_t move_src, move_dst;
	uint32_t move_slot;
};

/* The vCPU's MMIO exits in test memory: allowed in [lo, hi) only. */
static struct {
	uint64_t mem_lo, mem_hi;
	uint64_t lo, hi;
	uint64_t exits;
} ms_mmio;

static int ms_vcpu_pass(struct perf_test_vcpu_args *va, uint64_t pass)
{
	struct kvm_run *run = va->vcpu->run;
	uint64_t gpa;

	for (;;) {
		if (__perf_test_vcpu_run(va->vcpu))
			return -1;
		gpa = run->mmio.phys_addr;
		if (run->exit_reason != KVM_EXIT_MMIO || gpa < ms_mmio.mem_lo ||
		    gpa >= ms_mmio.mem_hi)
			return __perf_test_vcpu_sync(va, pass);
		if (gpa < ms_mmio.lo || gpa >= ms_mmio.hi || !run->mmio.is_write ||
		    run->mmio.len != 8)
			return perf_test_fail("unexpected MMIO %s of %u bytes at GPA 0x%lx (allowed: writes of 8 in [0x%lx, 0x%lx))",
					      run->mmio.is_write ? "write" : "read", run->mmio.len,
					      (unsigned long)gpa, (unsigned long)ms_mmio.lo,
					      (unsigned long)ms_mmio.hi);
		ms_mmio.exits++;
	}
}

static uint64_t *hva_of(struct ms_state *s, uint64_t off)
{
	return (uint64_t *)(s->hva[off / s->p->slot_size] + off % s->p->slot_size);
}

static bool check_page(struct ms_state *s, uint64_t off, uint64_t want)
{
	uint64_t got = *hva_of(s, off);

	if (got == want)
		return true;
	perf_test_fail("%s: test memory at offset 0x%lx (slot %lu, GPA 0x%lx) holds 0x%lx, expected 0x%lx",
		       ms_op_names[s->op], (unsigned long)off,
		       (unsigned long)(PERF_TEST_MEM_SLOT + off / s->p->slot_size),
		       (unsigned long)(perf_test_args.gpa + off), (unsigned long)got,
		       (unsigned long)want);
	return false;
}

/*
 * The vCPU wrote [first, first + len) in iteration @gen: every page, or
 * (without -d) the first and last page of each slot the range covers.
 */
static bool check_written(struct ms_state *s, uint64_t first, uint64_t len, uint64_t gen)
{
	uint64_t off, end = first + len, ss = s->p->slot_size, stop;

	for (off = first; off < end; off += s->page) {
		if (!check_page(s, off, guest_val(off, gen)))
			return false;
		stop = ALIGN_DOWN(off, ss) + ss;
		stop = (stop < end ? stop : end) - s->page;
		if (!s->p->check_all && off < stop) {
			if (!check_page(s, stop, guest_val(stop, gen)))
				return false;
			off = stop;
		}
	}
	return true;
}

/*
 * MADV_DONTNEED [first, first + len), @chunk bytes a call, within slots;
 * guest_memfd: fallocate(PUNCH_HOLE) on it (its mapping is not KVM's).
 */
static bool unmap_range(struct ms_state *s, uint64_t first, uint64_t len, uint64_t chunk)
{
	uint64_t off = first, end = first + len, ss = s->p->slot_size, n, stop;
	bool gmem = backing_src_is_guest_memfd(s->p->o.backing);
	int ret;

	while (off < end) {
		stop = ALIGN_DOWN(off, ss) + ss;
		stop = stop < end ? stop : end;
		n = stop - off < chunk ? stop - off : chunk;
		if (gmem)
			ret = __vm_guest_mem_punch_hole(s->vm, perf_test_args.gpa + off, n);
		else
			ret = madvise(hva_of(s, off), n, MADV_DONTNEED);
		if (ret) {
			perf_test_fail("%s of 0x%lx bytes at offset 0x%lx: %s",
				       gmem ? "fallocate(PUNCH_HOLE)" : "madvise(MADV_DONTNEED)",
				       (unsigned long)n, (unsigned long)off, strerror(errno));
			return false;
		}
		off += n;
	}
	return true;
}

/* The vCPU is between passes: give it the next one. */
static void guest_next(struct ms_state *s, uint64_t first, uint64_t len, uint64_t gen,
		       bool verify)
{
	ms_guest = (struct ms_guest) {
		.first = first, .npages = len / s->page, .gen = gen, .verify = verify,
	};
	sync_global_to_guest(s->vm, ms_guest);
	perf_test_next_pass();
	s->pass++;
}

static bool guest_wait(struct ms_state *s)
{
	if (perf_test_wait_pass(s->pass, NULL, NULL))
		return true;
	perf_test_fail("%s: the vCPU failed in pass %lu", ms_op_names[s->op],
		       (unsigned long)s->pass);
	return false;
}

static uint64_t unmap_chunk(struct ms_state *s)
{
	uint64_t c = s->op == OP_UNMAP_CHUNKED ? UNMAP_CHUNK : (uint64_t)getpagesize();
	uint64_t b = get_backing_src_pagesz(s->p->o.backing);

	c = c > b ? c : b;
	return c > s->page ? c : s->page;
}

/*
 * One iteration, each half once; the vCPU is in the pass that writes
 * half 0 (the map test: all of it; unmap: its first page).
 */
static bool iter_map_unmap(struct ms_state *s, uint64_t gen)
{
	uint64_t lo[2] = { 0, s->half }, len[2] = { s->half, s->size - s->half };
	uint64_t chunk = unmap_chunk(s);
	bool map = s->op == OP_MAP;
	int h;

	for (h = 0; h < 2; h++) {
		/* The map test unmaps the other half while the vCPU maps this one. */
		if (map && !unmap_range(s, lo[!h], len[!h], s->p->slot_size))
			return false;
		if (!guest_wait(s) || !check_written(s, lo[h], map ? len[h] : s->page, gen))
			return false;
		guest_next(s, lo[!h], map ? len[!h] : s->page, gen + h, false);
		if (!map && !unmap_range(s, lo[h], len[h], chunk))
			return false;
	}
	return true;
}

static bool move_slot(struct ms_state *s, uint64_t gpa)
{
	int ret = __vm_mem_region_move(s->vm, s->move_slot, gpa);

	if (!ret)
		return true;
	perf_test_fail("moving slot %u to GPA 0x%lx: %s", s->move_slot,
		       (unsigned long)gpa, strerror(errno));
	return false;
}

/* The vCPU spins over the area (pass 2) while the slot moves away and back. */
static bool iter_move(struct ms_state *s, uint64_t gen)
{
	return move_slot(s, s->move_dst) && move_slot(s, s->move_src);
}

/* The host writes every page, the vCPU checks it and writes back. */
static bool iter_rw(struct ms_state *s, uint64_t gen)
{
	uint64_t off;

	if (!guest_wait(s) || !check_written(s, 0, s->size, gen))
		return false;
	for (off = 0; off < s->size; off += s->page)
		hva_of(s, off)[s->page / 16] = host_val(off, gen + 1);
	guest_next(s, 0, s->size, gen + 1, true);
	return true;
}

/* What the vCPU does first (pass 1), before the timed loop. */
static void prepare(struct ms_state *s)
{
	uint64_t last = s->size - s->p->slot_size, off, half_area;

	ms_guest = (struct ms_guest) { .npages = 1, .gen = 1 };
	ms_mmio.mem_lo = perf_test_args.gpa;
	ms_mmio.mem_hi = perf_test_args.gpa + s->size;
	ms_mmio.lo = ms_mmio.hi = ms_mmio.exits = 0;
	switch (s->op) {
	case OP_MAP:
		ms_guest.npages = s->half / s->page;
		break;
	case OP_MOVE_ACTIVE:
	case OP_MOVE_INACTIVE:
		half_area = ALIGN_DOWN(MOVE_HALF_AREA, s->page);
		half_area = half_area > s->page ? half_area : s->page;
		half_area = half_area < s->p->slot_size ? half_area : s->p->slot_size;
		s->area_len = 2 * half_area < last ? 2 * half_area : last;
		s->area = s->op == OP_MOVE_ACTIVE ? last - half_area : last - s->area_len;
		s->move_slot = PERF_TEST_MEM_SLOT + s->p->nr_slots - 1;
		s->move_src = perf_test_args.gpa + last;
		s->move_dst = perf_test_args.gpa - 2 * s->p->slot_size;
		if (s->op == OP_MOVE_ACTIVE) {
			ms_mmio.lo = s->move_src;
			ms_mmio.hi = s->move_src + half_area;
		}
		if (s->p->no_zap_quirk)
			vm_disable_slot_zap_quirk(s->vm);
		ms_guest.first = s->area;
		ms_guest.npages = s->area_len / s->page;
		break;
	case OP_RW:
		for (off = 0; off < s->size; off += s->page)
			hva_of(s, off)[s->page / 16] = host_val(off, 1);
		ms_guest.npages = s->size / s->page;
		ms_guest.verify = true;
		break;
	default:
		break;
	}
	sync_global_to_guest(s->vm, ms_guest);
}

/* Pass 1 wrote the area; pass 2 spins over it while the loop moves the slot. */
static bool move_start(struct ms_state *s)
{
	if (!guest_wait(s))
		return false;
	ms_guest.spin = true;
	sync_global_to_guest(s->vm, ms_guest);
	perf_test_next_pass();
	s->pass++;
	return true;
}

/*
 * After the moves: the area holds what pass 1 wrote (and the spinning
 * rewrote), nothing else in test memory was written, and the vCPU reads
 * through the slot, back in place, what the host writes there now.
 */
static bool move_finish(struct ms_state *s)
{
	uint64_t off;

	write_guest_global(s->vm, ms_guest.stop, true);
	if (!guest_wait(s))
		return false;
	for (off = 0; off < s->size; off += s->page) {
		if (off >= s->area && off < s->area + s->area_len) {
			if (!check_page(s, off, guest_val(off, 1)))
				return false;
			hva_of(s, off)[s->page / 16] = host_val(off, 2);
		} else if (!check_page(s, off, 0)) {
			return false;
		}
	}
	guest_next(s, s->area, s->area_len, 2, true);
	return guest_wait(s) && check_written(s, s->area, s->area_len, 2);
}

/* The map, unmap and RW loops end with the vCPU in a pass: its check. */
static bool loop_finish(struct ms_state *s, uint64_t gen)
{
	if (s->op == OP_RW)
		return guest_wait(s) && check_written(s, 0, s->size, gen);
	return guest_wait(s) && check_written(s, 0, s->op == OP_MAP ? s->half : s->page, gen);
}

static bool (*const iter_fns[NR_OPS])(struct ms_state *s, uint64_t gen) = {
	iter_map_unmap, iter_map_unmap, iter_map_unmap, iter_move, iter_move, iter_rw,
};

bool ms_op_is_move(enum ms_op op)
{
	return op == OP_MOVE_ACTIVE || op == OP_MOVE_INACTIVE;
}

/*
 * One iteration untimed (it faults test memory in: upstream counts it),
 * then at least one timed, and as many as fit in -l seconds.
 */
static bool timed_loop(struct ms_state *s, struct ms_run *r)
{
	uint64_t limit = s->p->seconds * NSEC_PER_SEC, gen = 1;
	struct timespec start;

	if (ms_op_is_move(s->op) && !move_start(s))
		return false;
	if (!iter_fns[s->op](s, gen++))
		return false;
	start = timespec_now();
	do {
		if (!iter_fns[s->op](s, gen))
			return false;
		gen++;
		r->loop_ns = timespec_to_ns(timespec_elapsed(start));
	} while (r->loop_ns < limit);
	r->iterations = gen - 2;
	return ms_op_is_move(s->op) ? move_finish(s) : loop_finish(s, gen);
}

static void slot_hvas(struct ms_state *s)
{
	uint32_t n = s->p->nr_slots;
	struct userspace_mem_region *r;

	s->hva = calloc(n, sizeof(*s->hva));
	TEST_ASSERT(s->hva, "Out of memory");
	for (r = s->vm->regions; r; r = r->next)
		if (r->region.slot >= PERF_TEST_MEM_SLOT && r->region.slot < PERF_TEST_MEM_SLOT + n)
			s->hva[r->region.slot - PERF_TEST_MEM_SLOT] = r->host_mem;
}

void ms_run_once(enum vm_guest_mode mode, const struct ms_config *p, enum ms_op op,
		 struct ms_run *r)
{
	uint64_t align = get_backing_src_pagesz(p->o.backing);
	struct ms_state s = { .p = p, .op = op };
	struct perf_test_options o = p->o;

	o.guest_code = ms_guest_code;
	s.vm = perf_test_create_vm(mode, &o);
	s.size = perf_test_args.size;
	s.page = perf_test_args.page_size;
	align = align > s.page ? align : s.page;
	s.half = ALIGN_DOWN(s.size / 2, align);
	slot_hvas(&s);
	prepare(&s);
	s.pass = 1;
	perf_test_start_threads(&o, ms_vcpu_pass);
	timed_loop(&s, r);
	/* A failed check can leave the vCPU spinning: stop it for the join. */
	write_guest_global(s.vm, ms_guest.stop, true);
	perf_test_join_threads();

	r->setup_ns = perf_test_args.slots_ns;
	r->iter_ns = r->loop_ns / r->iterations;
	r->mmio_exits = ms_mmio.exits;
	free(s.hva);
	perf_test_destroy_vm(s.vm);
}

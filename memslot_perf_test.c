// SPDX-License-Identifier: GPL-2.0-only
/*
 * memslot_perf_test: what memslot operations cost when test memory is
 * spread over many memslots (-s), as upstream's test of that name
 * measures them, one operation a test (-f first, -e last):
 *
 *   0 map             the vCPU writes (maps) one half of test memory while
 *                     the host unmaps the other (MADV_DONTNEED), in turns
 *   1 unmap           the vCPU writes one page of a half, the host unmaps
 *                     that half a host page at a time
 *   2 unmap chunked   the same, 2M at a time
 *   3 move active     the last slot moves away and back while the vCPU
 *                     writes an area half in it (MMIO exits while away)
 *   4 move inactive   the same, the area wholly in other slots
 *   5 RW              the host writes every page, the vCPU checks what it
 *                     reads and writes back, the host checks that
 *
 * Each test runs -r times, each run a new VM for -l seconds; a run's
 * figure is its time per iteration (one pass of the loop above), and the
 * test reports their median, min and max (upstream prints the best
 * only), beside the time to add the slots.
 *
 * Not only timed: every value read back carries the offset and the
 * iteration that wrote it, so a write lost, misplaced or stale is found:
 * the map test checks the first and last page of every slot of each half
 * it mapped (every page with -d), the move tests that the area holds what
 * was written after the moves and that the vCPU reads through the moved
 * slot what the host wrote there, and that MMIO exits happen only in the
 * moving part of an active area and never for an inactive one.
 */
#include <getopt.h>
#include <sys/mman.h>

#include "perf_report.h"
#include "perf_test_util.h"

#define DEFAULT_MEM		(128 * MB)
#define DEFAULT_SECONDS		5.0
#define DEFAULT_RUNS		3
#define MAX_RUNS		1000
#define UNMAP_CHUNK		(2 * MB)
#define MOVE_HALF_AREA		(96 * KB)	/* upstream's area: 3 x 64K */
#define MAP_COUNT_SPARE		1024		/* mappings left for everything else */

enum ms_op { OP_MAP, OP_UNMAP, OP_UNMAP_CHUNKED, OP_MOVE_ACTIVE, OP_MOVE_INACTIVE, OP_RW,
	     NR_OPS };

static const char * const op_names[NR_OPS] = {
	"map", "unmap", "unmap chunked", "move active area", "move inactive area", "RW",
};
static const char * const op_keys[NR_OPS] = {
	"map", "unmap", "unmap_chunked", "move_active", "move_inactive", "rw",
};

struct mp_params {
	struct perf_test_options o;
	uint64_t mem_bytes;	/* -b */
	long slots_cap;		/* -s, -1: no cap */
	int first, last;	/* -f, -e */
	double seconds;		/* -l */
	int runs;		/* -r */
	bool verbose;		/* -v */
	bool check_all;		/* -d */
	bool no_zap_quirk;	/* -q */
	char mode_buf[16];
	/* The layout, decided by check_params(). */
	int nr_slots;
	uint64_t slot_size;
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
	const struct mp_params *p;
	enum ms_op op;
	struct kvm_vm *vm;
	uint8_t **hva;		/* each test slot's host memory */
	uint64_t size, page, half;
	uint64_t pass;		/* the pass the vCPU runs, or ran last */
	uint64_t area, area_len;	/* the move tests' area */
	uint64_t move_src, move_dst;
	uint32_t move_slot;
	struct userspace_mem_region *move_r;
	char err[300];
};

/* The vCPU's MMIO exits in test memory: allowed in [lo, hi) only. */
static struct {
	uint64_t mem_lo, mem_hi;
	uint64_t lo, hi;
	uint64_t exits;
} ms_mmio;

static bool ms_vcpu_pass(struct perf_test_vcpu_args *va, uint64_t pass, char *err, size_t len)
{
	struct kvm_run *run = va->vcpu->run;
	uint64_t gpa;

	for (;;) {
		if (!perf_test_vcpu_run(va->vcpu, err, len))
			return false;
		gpa = run->mmio.phys_addr;
		if (run->exit_reason != KVM_EXIT_MMIO || gpa < ms_mmio.mem_lo ||
		    gpa >= ms_mmio.mem_hi)
			return perf_test_vcpu_sync(va, pass, err, len);
		if (gpa < ms_mmio.lo || gpa >= ms_mmio.hi || !run->mmio.is_write ||
		    run->mmio.len != 8) {
			snprintf(err, len, "unexpected MMIO %s of %u bytes at GPA 0x%lx (allowed: writes of 8 in [0x%lx, 0x%lx))",
				 run->mmio.is_write ? "write" : "read", run->mmio.len,
				 (unsigned long)gpa, (unsigned long)ms_mmio.lo,
				 (unsigned long)ms_mmio.hi);
			return false;
		}
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
	snprintf(s->err, sizeof(s->err),
		 "%s: test memory at offset 0x%lx (slot %lu, GPA 0x%lx) holds 0x%lx, expected 0x%lx",
		 op_names[s->op], (unsigned long)off,
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

/* MADV_DONTNEED [first, first + len), @chunk bytes a call, within slots. */
static bool unmap_range(struct ms_state *s, uint64_t first, uint64_t len, uint64_t chunk)
{
	uint64_t off = first, end = first + len, ss = s->p->slot_size, n, stop;

	while (off < end) {
		stop = ALIGN_DOWN(off, ss) + ss;
		stop = stop < end ? stop : end;
		n = stop - off < chunk ? stop - off : chunk;
		if (madvise(hva_of(s, off), n, MADV_DONTNEED)) {
			snprintf(s->err, sizeof(s->err), "madvise(MADV_DONTNEED) of 0x%lx bytes at offset 0x%lx: %s",
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
	snprintf(s->err, sizeof(s->err), "%s: the vCPU failed in pass %lu", op_names[s->op],
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
	int ret = __vm_set_user_memory_region(s->vm, s->move_slot, 0, gpa, s->p->slot_size,
					      s->hva[s->move_slot - PERF_TEST_MEM_SLOT]);

	if (!ret) {
		s->move_r->region.guest_phys_addr = gpa;
		return true;
	}
	snprintf(s->err, sizeof(s->err), "moving slot %u to GPA 0x%lx: %s", s->move_slot,
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
		s->move_r = memslot2region(s->vm, s->move_slot);
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

static bool is_move(enum ms_op op)
{
	return op == OP_MOVE_ACTIVE || op == OP_MOVE_INACTIVE;
}

struct ms_run {
	uint64_t iterations;
	uint64_t loop_ns;
	uint64_t iter_ns;
	uint64_t setup_ns;
	uint64_t mmio_exits;
};

/* At least one iteration, then as many as fit in -l seconds. */
static bool timed_loop(struct ms_state *s, struct ms_run *r)
{
	uint64_t limit = s->p->seconds * NSEC_PER_SEC, gen = 1;
	struct timespec start;

	if (is_move(s->op) && !move_start(s))
		return false;
	start = timespec_now();
	do {
		if (!iter_fns[s->op](s, gen))
			return false;
		gen++;
		r->loop_ns = timespec_to_ns(timespec_elapsed(start));
	} while (r->loop_ns < limit);
	r->iterations = gen - 1;
	return is_move(s->op) ? move_finish(s) : loop_finish(s, gen);
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

static void print_secs(const char *before, uint64_t ns, const char *after)
{
	printf("%s%lu.%09lus%s", before, (unsigned long)(ns / NSEC_PER_SEC),
	       (unsigned long)(ns % NSEC_PER_SEC), after);
}

static void run_once(const struct mp_params *p, enum vm_guest_mode mode, enum ms_op op, int run,
		     struct ms_run *r)
{
	uint64_t align = get_backing_src_pagesz(p->o.backing);
	struct ms_state s = { .p = p, .op = op };
	bool ok;

	s.vm = perf_test_create_vm(mode, &p->o);
	s.size = perf_test_args.size;
	s.page = perf_test_args.page_size;
	align = align > s.page ? align : s.page;
	s.half = ALIGN_DOWN(s.size / 2, align);
	slot_hvas(&s);
	prepare(&s);
	s.pass = 1;
	perf_test_start_threads(&p->o, ms_vcpu_pass);
	ok = timed_loop(&s, r);
	/* A failed check can leave the vCPU spinning: stop it for the join. */
	write_guest_global(s.vm, ms_guest.stop, true);
	perf_test_join_threads();
	TEST_ASSERT(ok, "%s", s.err);

	r->setup_ns = perf_test_args.slots_ns;
	r->iter_ns = r->loop_ns / r->iterations;
	r->mmio_exits = ms_mmio.exits;
	print_secs("Test took ", r->setup_ns, " for slot setup + ");
	print_secs("", r->loop_ns, " all iterations\n");
	printf("Done %lu iterations, avg ", (unsigned long)r->iterations);
	print_secs("", r->iter_ns, " each\n");
	printf("RESULT_RUN test=memslot_perf op=%s run=%d slots=%d iterations=%lu iter_ns=%lu setup_ns=%lu mmio_exits=%lu\n",
	       op_keys[op], run, p->nr_slots, (unsigned long)r->iterations,
	       (unsigned long)r->iter_ns, (unsigned long)r->setup_ns,
	       (unsigned long)r->mmio_exits);
	free(s.hva);
	perf_test_destroy_vm(s.vm);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Median, min and max of @n values (sorts them). */
static void spread(uint64_t *v, int n, uint64_t out[3])
{
	qsort(v, n, sizeof(*v), cmp_u64);
	out[0] = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
	out[1] = v[0];
	out[2] = v[n - 1];
}

/* Report keys live as long as the report: one set a test. */
static char keys[NR_OPS + 1][5][40];

static void report_spread(int k, const char *name, const uint64_t s[3], uint64_t iters,
			  uint64_t mmio)
{
	static const char * const sfx[] = { "ns_median", "ns_min", "ns_max" };
	int i;

	for (i = 0; i < 3; i++) {
		snprintf(keys[k][i], sizeof(keys[k][i]), "%s_%s", name, sfx[i]);
		perf_report_u64(keys[k][i], s[i], "ns");
	}
	if (k == NR_OPS)
		return;
	snprintf(keys[k][3], sizeof(keys[k][3]), "%s_iterations", name);
	perf_report_u64(keys[k][3], iters, "count");
	if (!is_move(k))
		return;
	snprintf(keys[k][4], sizeof(keys[k][4]), "%s_mmio_exits", name);
	perf_report_u64(keys[k][4], mmio, "count");
}

/* Every run of test @op; its spread reported, its setup times kept. */
static void run_op(const struct mp_params *p, enum vm_guest_mode mode, enum ms_op op,
		   uint64_t *setup)
{
	uint64_t iter[MAX_RUNS], s[3], iters = 0, mmio = 0, best = 0, best_iters = 0;
	struct ms_run r;
	int i;

	printf("Testing %s performance with %d runs, %g seconds each\n", op_names[op], p->runs,
	       p->seconds);
	for (i = 0; i < p->runs; i++) {
		memset(&r, 0, sizeof(r));
		run_once(p, mode, op, i + 1, &r);
		iter[i] = r.iter_ns;
		setup[i] = r.setup_ns;
		iters += r.iterations;
		mmio += r.mmio_exits;
		if (!best || r.iter_ns < best) {
			best = r.iter_ns;
			best_iters = r.iterations;
		}
	}
	print_secs("Best runtime result was ", best, " per iteration");
	printf(" (with %lu iterations)\n", (unsigned long)best_iters);
	spread(iter, p->runs, s);
	print_secs("Per iteration over the runs: median ", s[0], "");
	print_secs(", min ", s[1], "");
	print_secs(", max ", s[2], "\n");
	report_spread(op, op_keys[op], s, iters, mmio);
}

static void run_tests(enum vm_guest_mode mode, void *arg)
{
	const struct mp_params *p = arg;
	int nr = (p->last - p->first + 1) * p->runs, op;
	uint64_t *setup = calloc(nr, sizeof(*setup)), s[3];

	TEST_ASSERT(setup, "Out of memory");
	perf_report_guest_mode(vm_guest_mode_string(mode));
	perf_report_opt_int("slots", p->nr_slots);
	perf_report_opt_int("slot_bytes", p->slot_size);
	perf_report_opt_int("mem_bytes", p->o.vcpu_memory_bytes);
	perf_report_opt_str("backing", vm_mem_backing_src_alias(p->o.backing)->name);
	perf_report_opt_int("page_size", vm_guest_mode(mode)->page_size);
	perf_report_opt_int("first", p->first);
	perf_report_opt_int("last", p->last);
	perf_report_opt_int("runs", p->runs);
	perf_report_opt_int("length_ms", p->seconds * 1000);
	perf_report_opt_int("check_all", p->check_all);
	perf_report_opt_int("slot_zap_quirk", !p->no_zap_quirk);
	for (op = p->first; op <= p->last; op++) {
		if (op > p->first)
			printf("\n");
		run_op(p, mode, op, setup + (op - p->first) * p->runs);
	}
	spread(setup, nr, s);
	print_secs("\nBest slot setup time for the whole test area was ", s[1], "");
	print_secs(" (median ", s[0], "");
	print_secs(", max ", s[2], ")\n");
	report_spread(NR_OPS, "setup", s, 0, 0);
	perf_report_run_end("memslot_perf");
	free(setup);
}

static void help(const char *name, const struct mp_params *d)
{
	int i;

	printf("usage: %s [-h] [-v] [-d] [-q] [-s slots] [-f first_test] [-e last_test]\n"
	       "          [-l test_length] [-r run_count] [-m mode] [-b size] [-t type]\n"
	       "          [--json file]\n", name);
	printf(" -v: verbose: the memory layout\n"
	       " -d: check every page the vCPU mapped, not only each slot's first and last\n"
	       " -q: disable the memslot zap quirk (x86 KVM_X86_QUIRK_SLOT_ZAP_ALL) for\n"
	       "     the move tests\n"
	       " -s: memslot count cap, slot 0 included (-1: no cap, all KVM allows and\n"
	       "     the memory splits into; default: %ld)\n"
	       " -f: the first test to run (default: %d)\n"
	       " -e: the last test to run (default: %d)\n"
	       " -l: each run's length in seconds, e.g. 5 or 0.2 (default: %g; at least\n"
	       "     one iteration)\n"
	       " -r: runs per test, each in a new VM (default: %d)\n",
	       d->slots_cap, d->first, d->last, d->seconds, d->runs);
	guest_modes_help(stdout);
	printf("     (default: mode %d)\n"
	       " -b: test memory, split evenly into the slots, e.g. 32M (default: %luM)\n",
	       VM_MODE_DEFAULT, (unsigned long)(d->mem_bytes / MB));
	backing_src_help(stdout, "-t");
	printf(" --json FILE: also write the options and figures as one JSON object to FILE\n"
	       "\nTests:\n");
	for (i = 0; i < NR_OPS; i++)
		printf("%d: %s\n", i, op_names[i]);
}

static double parse_seconds(const char *arg)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(arg, &end);
	if (errno || end == arg || *end || !(v > 0) || v > 86400)
		test_usage_error("Invalid test length (-l) '%s': seconds above 0, e.g. 5 or 0.2",
				 arg);
	return v;
}

static void parse_opt(struct mp_params *p, int opt, const char *arg)
{
	switch (opt) {
	case 'v':
		p->verbose = true;
		break;
	case 'd':
		p->check_all = true;
		break;
	case 'q':
		p->no_zap_quirk = true;
		break;
	case 's':
		p->slots_cap = parse_long("memslot count cap (-s)", arg, -1, 1L << 20);
		if (p->slots_cap == 0 || p->slots_cap == 1)
			test_usage_error("Memslot count cap (-s) %ld: must be larger than 1, or -1 for no cap",
					 p->slots_cap);
		break;
	case 'f':
		p->first = parse_long("first test (-f)", arg, 0, NR_OPS - 1);
		break;
	case 'e':
		p->last = parse_long("last test (-e)", arg, 0, NR_OPS - 1);
		break;
	case 'l':
		p->seconds = parse_seconds(arg);
		break;
	case 'r':
		p->runs = parse_long("runs per test (-r)", arg, 1, MAX_RUNS);
		break;
	case 'm':
		parse_long("guest mode (-m)", arg, 0, NUM_VM_MODES - 1);
		p->o.mode_arg = arg;
		break;
	case 'b':
		p->mem_bytes = parse_size(arg);
		break;
	case 't':
		p->o.backing = parse_backing_src_type(arg);
		break;
	case PERF_TEST_OPT_JSON:
		p->o.json_path = arg;
		break;
	}
}

static void parse_args(int argc, char *argv[], struct mp_params *p)
{
	struct mp_params defaults = *p;
	int opt;

	while ((opt = getopt_long(argc, argv, "hvdqs:f:e:l:r:m:b:t:", perf_test_long_options,
				  NULL)) != -1) {
		if (opt == 'h') {
			help(argv[0], &defaults);
			exit(KSFT_PASS);
		}
		if (opt == '?') {
			help(argv[0], &defaults);
			exit(KSFT_FAIL);
		}
		parse_opt(p, opt, optarg);
	}
	if (optind < argc)
		test_usage_error("Unexpected argument '%s'", argv[optind]);
	if (p->first > p->last)
		test_usage_error("The first test (-f %d) comes after the last (-e %d)", p->first,
				 p->last);
}

static uint64_t guest_page_size(void)
{
	int i;

	for (i = 0; i < NUM_VM_MODES; i++)
		if (guest_modes_enabled[i])
			return vm_guest_mode(i)->page_size;
	TEST_FAIL("No guest mode enabled");
}

/*
 * How many slots: the cap (slot 0 is the test binary's), what KVM
 * allows, whole units of the backing's and the guest's pages, and the
 * mappings the kernel allows (shared kinds map each slot twice).
 */
static int slot_count(const struct mp_params *p, uint64_t units64)
{
	long kvm_max = kvm_check_cap(KVM_CAP_NR_MEMSLOTS), n, maps, units = units64;

	maps = read_sys_u64("/proc/sys/vm/max_map_count");
	maps = maps > MAP_COUNT_SPARE ? (maps - MAP_COUNT_SPARE) : 1;
	maps /= backing_src_is_shared(p->o.backing) ? 2 : 1;
	n = (p->slots_cap < 0 || p->slots_cap > kvm_max ? kvm_max : p->slots_cap) - 1;
	if (p->slots_cap < 0)
		return n < units ? (n < maps ? n : maps) : (units < maps ? units : maps);
	if (n > units)
		test_usage_error("Memslot count %ld (-s) too high for 0x%lx bytes of test memory (-b) in whole 0x%lx-byte units of %s pages: at most %lu",
				 n + 1, (unsigned long)p->mem_bytes,
				 (unsigned long)(p->mem_bytes / units),
				 vm_mem_backing_src_alias(p->o.backing)->name,
				 (unsigned long)units + 1);
	if (n > maps)
		test_usage_error("Memslot count %ld (-s) needs more mappings than vm.max_map_count allows: at most %ld",
				 n + 1, maps + 1);
	return n;
}

/* Everything decided before any work: usage errors, then skips. */
static void check_params(struct mp_params *p)
{
	uint64_t align = get_backing_src_pagesz(p->o.backing), page;
	char why[200];

	if (!p->o.mode_arg) {
		snprintf(p->mode_buf, sizeof(p->mode_buf), "%d", VM_MODE_DEFAULT);
		p->o.mode_arg = p->mode_buf;
	}
	p->o.vcpu_memory_bytes = p->mem_bytes;
	perf_test_options_check(&p->o, false);
	if (p->no_zap_quirk && kvm_slot_zap_quirk_unavailable(why, sizeof(why)))
		test_skip("-q: %s", why);
	page = guest_page_size();
	align = align > page ? align : page;
	p->nr_slots = slot_count(p, p->mem_bytes / align);
	p->slot_size = ALIGN_DOWN(p->mem_bytes / p->nr_slots, align);
	p->o.nr_slots = p->nr_slots;
	p->o.vcpu_memory_bytes = p->slot_size * p->nr_slots;
	if (p->o.vcpu_memory_bytes < 2 * align)
		test_usage_error("Test memory 0x%lx (-b) is less than two 0x%lx-byte units of %s pages: the tests map and unmap it in halves",
				 (unsigned long)p->mem_bytes, (unsigned long)align,
				 vm_mem_backing_src_alias(p->o.backing)->name);
	if (p->nr_slots < 2 && p->first <= OP_MOVE_INACTIVE && p->last >= OP_MOVE_ACTIVE)
		test_usage_error("The move tests (%d, %d) need two test slots besides slot 0: -s 3 or more",
				 OP_MOVE_ACTIVE, OP_MOVE_INACTIVE);
	ksft_print_msg("Memslots: %d for test memory of 0x%lx bytes each (KVM allows %d in all)\n",
		       p->nr_slots, (unsigned long)p->slot_size,
		       kvm_check_cap(KVM_CAP_NR_MEMSLOTS));
	if (p->verbose)
		ksft_print_msg("Slots %d..%d from the top of guest-physical space down; the move tests move slot %d to below test memory and back\n",
			       PERF_TEST_MEM_SLOT, PERF_TEST_MEM_SLOT + p->nr_slots - 1,
			       PERF_TEST_MEM_SLOT + p->nr_slots - 1);
}

int main(int argc, char *argv[])
{
	struct mp_params p = {
		.mem_bytes = DEFAULT_MEM,
		.slots_cap = -1,
		.first = 0,
		.last = NR_OPS - 1,
		.seconds = DEFAULT_SECONDS,
		.runs = DEFAULT_RUNS,
	};

	setvbuf(stdout, NULL, _IOLBF, 0);
	perf_test_options_init(&p.o, DEFAULT_MEM, 1);
	p.o.guest_code = ms_guest_code;
	parse_args(argc, argv, &p);
	check_params(&p);
	perf_report_open("memslot_perf_test", p.o.json_path, argc, argv);
	for_each_guest_mode(run_tests, &p);
	perf_report_close();
	return KSFT_PASS;
}

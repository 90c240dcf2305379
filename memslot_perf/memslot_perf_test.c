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
 * Each test runs -r times, each run a new VM for -l seconds after one
 * untimed iteration (which faults the memory in); a run's figure is its
 * time per iteration (one pass of the loop above), and the test reports
 * their median, min and max (upstream prints the best only), beside the
 * time to add the slots.
 *
 * Not only timed: every value read back carries the offset and the
 * iteration that wrote it, so a write lost, misplaced or stale is found:
 * the map test checks the first and last page of every slot of each half
 * it mapped (every page with -d), the move tests that the area holds what
 * was written after the moves and that the vCPU reads through the moved
 * slot what the host wrote there, and that MMIO exits happen only in the
 * moving part of an active area and never for an inactive one.
 */
#include <sys/mman.h>

#include "memslot_perf.h"
#include "perf_report.h"
#include "profile.h"

#define DEFAULT_MEM		(32 * MB)
#define DEFAULT_SECONDS		1.0	/* upstream: 5; -l 5 for its runs */
#define DEFAULT_RUNS		3
#define DEFAULT_SLOTS_CAP	257	/* 256 slots of test memory and slot 0 */
#define MAX_RUNS		1000
#define MAP_COUNT_SPARE		1024		/* mappings left for everything else */

struct mp_params {
	struct ms_config c;	/* -t, -m, --json; -l, -d, -q; the layout */
	uint64_t mem_bytes;	/* -b */
	long slots_cap;		/* -s, -1: no cap */
	bool slots_set;		/* -s given: a cap too high is an error */
	int first, last;	/* -f, -e */
	int runs;		/* -r */
	bool verbose;		/* -v */
	const char *no_moves;	/* why the move tests cannot run, NULL if they can */
	char no_moves_why[256];
	char mode_buf[16];
};

static void print_secs(const char *before, uint64_t ns, const char *after)
{
	printf("%s%lu.%09lus%s", before, (unsigned long)(ns / NSEC_PER_SEC),
	       (unsigned long)(ns % NSEC_PER_SEC), after);
}

static void print_run(const struct mp_params *p, enum ms_op op, int run, const struct ms_run *r)
{
	print_secs("Test took ", r->setup_ns, " for slot setup + ");
	print_secs("", r->loop_ns, " all iterations\n");
	printf("Done %lu iterations, avg ", (unsigned long)r->iterations);
	print_secs("", r->iter_ns, " each\n");
	printf("RESULT_RUN test=memslot_perf op=%s run=%d slots=%d iterations=%lu iter_ns=%lu setup_ns=%lu mmio_exits=%lu\n",
	       ms_op_keys[op], run, p->c.nr_slots, (unsigned long)r->iterations,
	       (unsigned long)r->iter_ns, (unsigned long)r->setup_ns,
	       (unsigned long)r->mmio_exits);
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
	if (!ms_op_is_move(k))
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

	printf("Testing %s performance with %d runs, %g seconds each\n", ms_op_names[op], p->runs,
	       p->c.seconds);
	for (i = 0; i < p->runs; i++) {
		memset(&r, 0, sizeof(r));
		ms_run_once(mode, &p->c, op, &r);
		print_run(p, op, i + 1, &r);
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
	report_spread(op, ms_op_keys[op], s, iters, mmio);
}

static void run_tests(enum vm_guest_mode mode, void *arg)
{
	const struct mp_params *p = arg;
	int nr = (p->last - p->first + 1) * p->runs, op, n = 0;
	uint64_t *setup = calloc(nr, sizeof(*setup)), s[3];

	TEST_ASSERT(setup, "Out of memory");
	perf_report_guest_mode(vm_guest_mode_string(mode));
	perf_report_opt_int("slots", p->c.nr_slots);
	perf_report_opt_int("slot_bytes", p->c.slot_size);
	perf_report_opt_int("mem_bytes", p->c.o.vcpu_memory_bytes);
	perf_report_opt_str("backing", vm_mem_backing_src_alias(p->c.o.backing)->name);
	perf_report_opt_int("page_size", vm_guest_mode(mode)->page_size);
	perf_report_opt_int("first", p->first);
	perf_report_opt_int("last", p->last);
	perf_report_opt_int("runs", p->runs);
	perf_report_opt_int("length_ms", p->c.seconds * 1000);
	perf_report_opt_int("check_all", p->c.check_all);
	perf_report_opt_int("slot_zap_quirk", !p->c.no_zap_quirk);
	for (op = p->first; op <= p->last; op++) {
		if (op > p->first)
			printf("\n");
		if (ms_op_is_move(op) && p->no_moves) {
			ksft_print_msg("Skipping the %s test: %s\n", ms_op_names[op], p->no_moves);
			continue;
		}
		run_op(p, mode, op, setup + n);
		n += p->runs;
	}
	TEST_ASSERT(n, "No test left to run");
	spread(setup, n, s);
	print_secs("\nBest slot setup time for the whole test area was ", s[1], "");
	print_secs(" (median ", s[0], "");
	print_secs(", max ", s[2], ")\n");
	report_spread(NR_OPS, "setup", s, 0, 0);
	perf_report_run_end("memslot_perf");
	free(setup);
}

static void help(const char *name, const void *defaults)
{
	const struct mp_params *d = defaults;
	int i;

	printf("usage: %s [-h] [-v] [-d] [-q] [-s slots] [-f first_test] [-e last_test]\n"
	       "          [-l test_length] [-r run_count] [-m mode] [-b size] [-t type]\n"
	       "          [--json file]\n", name);
	printf("-v and -s are upstream's memslot_perf_test's, not the perf tests' (-v\n"
	       "vCPUs, -s backing source): the backing source is -t here.\n");
	printf(" -v: verbose: the memory layout\n"
	       " -d: check every page the vCPU mapped, not only each slot's first and last\n"
	       " -q: disable the memslot zap quirk (x86 KVM_X86_QUIRK_SLOT_ZAP_ALL) for\n"
	       "     the move tests\n"
	       " -s: memslot count cap, slot 0 included (-1: no cap, all KVM allows and\n"
	       "     the memory splits into, upstream's default; default here: %ld, so\n"
	       "     that a run fits the kselftest timeout under emulation; without -s, at\n"
	       "     most what the memory splits into)\n"
	       " -f: the first test to run (default: %d)\n"
	       " -e: the last test to run (default: %d)\n"
	       " -l: each run's length in seconds, e.g. 5 or 0.2 (default: %g; at least\n"
	       "     one iteration)\n"
	       " -r: runs per test, each in a new VM (default: %d)\n",
	       d->slots_cap, d->first, d->last, d->c.seconds, d->runs);
	guest_modes_help(stdout);
	printf("     (this test runs mode %d unless told, as upstream's)\n"
	       " -b: test memory, split evenly into the slots, e.g. 32M (default: %luM);\n"
	       "     auto: two pages of the backing source (-t), at least 1M, a skip\n"
	       "     where MemAvailable (hugetlb: the free huge pages) cannot hold it\n",
	       VM_MODE_DEFAULT, (unsigned long)(d->mem_bytes / MB));
	backing_src_help(stdout, "-t", d->c.o.backing);
	printf(" --json FILE: also write the options and figures as one JSON object to FILE\n"
	       "\nTests:\n");
	for (i = 0; i < NR_OPS; i++)
		printf("%d: %s\n", i, ms_op_names[i]);
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
		p->c.check_all = true;
		break;
	case 'q':
		p->c.no_zap_quirk = true;
		break;
	case 's':
		p->slots_cap = parse_long("memslot count cap (-s)", arg, -1, 1L << 20);
		p->slots_set = true;
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
		p->c.seconds = parse_seconds(arg);
		break;
	case 'r':
		p->runs = parse_long("runs per test (-r)", arg, 1, MAX_RUNS);
		break;
	case 'm':
		parse_long("guest mode (-m)", arg, 0, NUM_VM_MODES - 1);
		p->c.o.mode_arg = arg;
		break;
	case 'b':
		p->c.o.auto_size = !strcmp(arg, "auto");
		p->mem_bytes = p->c.o.auto_size ? 0 : parse_size(arg);
		break;
	case 't':
		p->c.o.backing = parse_backing_src_type(arg);
		break;
	case TEST_OPT_JSON:
		p->c.o.json_path = arg;
		break;
	case TEST_OPT_PROFILE:
		profile_request(arg);
		break;
	}
}

static void parse_args(int argc, char *argv[], struct mp_params *p)
{
	struct mp_params defaults = *p;
	int opt;

	while ((opt = test_getopt(argc, argv, "vdqs:f:e:l:r:m:b:t:", help, &defaults)) != -1)
		parse_opt(p, opt, optarg);
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
	maps /= backing_src_is_shared(p->c.o.backing) ? 2 : 1;
	n = (p->slots_cap < 0 || p->slots_cap > kvm_max ? kvm_max : p->slots_cap) - 1;
	if (p->slots_cap < 0 || !p->slots_set)
		return n < units ? (n < maps ? n : maps) : (units < maps ? units : maps);
	if (n > units)
		test_usage_error("Memslot count %ld (-s) too high for 0x%lx bytes of test memory (-b) in whole 0x%lx-byte units of %s pages: at most %lu",
				 n + 1, (unsigned long)p->mem_bytes,
				 (unsigned long)(p->mem_bytes / units),
				 vm_mem_backing_src_alias(p->c.o.backing)->name,
				 (unsigned long)units + 1);
	if (n > maps)
		test_usage_error("Memslot count %ld (-s) needs more mappings than vm.max_map_count allows: at most %ld",
				 n + 1, maps + 1);
	return n;
}

/* Everything decided before any work: usage errors, then skips. */
static void check_params(struct mp_params *p)
{
	uint64_t align = get_backing_src_pagesz(p->c.o.backing), page;
	char why[200];

	if (!p->c.o.mode_arg) {
		snprintf(p->mode_buf, sizeof(p->mode_buf), "%d", VM_MODE_DEFAULT);
		p->c.o.mode_arg = p->mode_buf;
	}
	/* -b auto: two pages of the backing (the tests work in halves). */
	if (p->c.o.auto_size)
		p->mem_bytes = align > MB / 2 ? 2 * align : MB;
	p->c.o.vcpu_memory_bytes = p->mem_bytes;
	if (!backing_src_host_readable(p->c.o.backing))
		test_usage_error("The tests write and check test memory from the host; -t %s has no host view",
				 vm_mem_backing_src_alias(p->c.o.backing)->name);
	perf_test_options_check(&p->c.o, false);
	if (p->first <= OP_MOVE_INACTIVE && p->last >= OP_MOVE_ACTIVE)
		p->no_moves = kvm_backing_src_move_unavailable(p->c.o.backing, p->no_moves_why,
							       sizeof(p->no_moves_why));
	if (p->no_moves && p->first >= OP_MOVE_ACTIVE && p->last <= OP_MOVE_INACTIVE)
		test_skip("The move tests: %s", p->no_moves);
	if (p->c.no_zap_quirk && kvm_slot_zap_quirk_unavailable(why, sizeof(why)))
		test_skip("-q: %s", why);
	page = guest_page_size();
	align = align > page ? align : page;
	p->c.nr_slots = slot_count(p, p->mem_bytes / align);
	p->c.slot_size = ALIGN_DOWN(p->mem_bytes / p->c.nr_slots, align);
	p->c.o.nr_slots = p->c.nr_slots;
	p->c.o.vcpu_memory_bytes = p->c.slot_size * p->c.nr_slots;
	if (p->c.o.vcpu_memory_bytes < 2 * align)
		test_usage_error("Test memory 0x%lx (-b) is less than two 0x%lx-byte units of %s pages: the tests map and unmap it in halves",
				 (unsigned long)p->mem_bytes, (unsigned long)align,
				 vm_mem_backing_src_alias(p->c.o.backing)->name);
	if (p->c.nr_slots < 2 && p->first <= OP_MOVE_INACTIVE && p->last >= OP_MOVE_ACTIVE)
		test_usage_error("The move tests (%d, %d) need two test slots besides slot 0: -s 3 or more",
				 OP_MOVE_ACTIVE, OP_MOVE_INACTIVE);
	ksft_print_msg("Memslots: %d for test memory of 0x%lx bytes each (KVM allows %d in all)\n",
		       p->c.nr_slots, (unsigned long)p->c.slot_size,
		       kvm_check_cap(KVM_CAP_NR_MEMSLOTS));
	if (p->verbose)
		ksft_print_msg("Slots %d..%d from the top of guest-physical space down; the move tests move slot %d to below test memory and back\n",
			       PERF_TEST_MEM_SLOT, PERF_TEST_MEM_SLOT + p->c.nr_slots - 1,
			       PERF_TEST_MEM_SLOT + p->c.nr_slots - 1);
}

/*
 * The figures this test reports (perf_report.h: --figures lists them); * is
 * a name from the test's own table.
 */
static const char *const figures[] = {
	"*_ns_median", "*_ns_min", "*_ns_max", "*_iterations", "*_mmio_exits", NULL,
};

int main(int argc, char *argv[])
{
	struct mp_params p = {
		.mem_bytes = DEFAULT_MEM,
		.slots_cap = DEFAULT_SLOTS_CAP,
		.first = 0,
		.last = NR_OPS - 1,
		.c.seconds = DEFAULT_SECONDS,
		.runs = DEFAULT_RUNS,
	};

	setvbuf(stdout, NULL, _IOLBF, 0);
	perf_test_options_init(&p.c.o, DEFAULT_MEM, 1);
	parse_args(argc, argv, &p);
	check_params(&p);
	perf_report_figures(figures);
	perf_report_open("memslot_perf_test", p.c.o.json_path, argc, argv);
	for_each_guest_mode(run_tests, &p);
	perf_report_close();
	return KSFT_PASS;
}

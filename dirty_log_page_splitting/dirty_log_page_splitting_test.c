// SPDX-License-Identifier: GPL-2.0-only
/*
 * dirty_log_page_splitting_test: what happens to KVM's huge mappings of
 * guest memory when dirty logging starts, and what it costs.
 *
 * Test memory on huge pages (hugetlb, THP) is first mapped huge by KVM.
 * Dirty logging tracks 4K pages, so the huge mappings must be split:
 * eagerly, when logging is enabled (or, with manual protect and
 * KVM_DIRTY_LOG_INITIALLY_SET, when the log is first cleared), where KVM
 * splits eagerly (x86: eager_page_split with the TDP MMU; arm64:
 * KVM_CAP_ARM_EAGER_SPLIT_CHUNK_SIZE); else lazily, by the guest's first
 * write to each huge page.  Disabling logging lets the huge mappings come
 * back (x86 zaps the 4K ones; the next touch maps huge again).
 *
 * The vCPUs populate memory, logging is enabled, two passes dirty every
 * page (each followed by reading and re-arming the log, which must report
 * exactly the pages written), logging is disabled and a last pass touches
 * memory again.  After each step KVM's counts of its mappings (the VM
 * stats pages_4k, pages_2m, pages_1g; where KVM keeps none, its page-table
 * memory, SecPageTables) must be what eager or lazy splitting implies.
 * Each run is timed: enabling logging, each pass, each clear, disabling.
 * The runs: eager and lazy splitting (where the test may choose), each
 * without and with manual protect.
 */
#include <getopt.h>

#include "eager_split.h"
#include "fault_inject.h"
#include "kvm_mappings.h"
#include "perf_report.h"
#include "perf_test_dirty.h"
#include "perf_test_util.h"

#define DEFAULT_VCPU_MEMORY	(8 * MB)
#define DEFAULT_VCPUS		2
#define DEFAULT_SLOTS		2
/* Slot-0 pages (stack, ucall structs) the guest may map after populating. */
#define SLACK_PAGES		64
/* Page-table pages the guest's own slot may add after populating. */
#define SLACK_TABLES		2
#define TABLES_FREE_WAIT_MS	2000

enum stage {
	ST_POPULATED, ST_ENABLED, ST_DIRTY1, ST_CLEAR1, ST_DIRTY2, ST_CLEAR2,
	ST_DISABLED, ST_REPOPULATED, NR_STAGES,
};

static const char * const stage_key[NR_STAGES] = {
	"populated", "enabled", "dirty1", "clear1", "dirty2", "clear2", "disabled",
	"repopulated",
};

static const char * const stage_text[NR_STAGES] = {
	"populating memory", "enabling dirty logging", "the first dirty pass",
	"the first clear", "the second dirty pass", "the second clear",
	"disabling dirty logging", "repopulating memory",
};

/* How this KVM lets the test see its mappings. */
enum counter { CNT_NONE, CNT_STATS, CNT_TABLES };

struct mappings {
	bool taken;
	struct kvm_mappings k;		/* CNT_STATS */
	uint64_t tables;		/* CNT_TABLES: page-table pages */
};

struct split_params {
	struct perf_test_options o;
	int only_split;		/* -E: -1 both, 0 lazy, 1 eager */
	bool get_only;		/* -g */
	bool manual_ok;		/* KVM_CAP_MANUAL_DIRTY_LOG_PROTECT2 */
	struct eager_split_info eager;
};

struct split_run {
	bool eager;		/* eager splitting on */
	bool expect_eager;	/* ... and this KVM splits eagerly */
	bool injected;		/* KVM_SELFTEST_FAIL=split_expect */
	bool manual;		/* manual protect */
	enum stage split_at;	/* where the huge mappings must be gone */
	enum counter counter;
	char why_none[160];
	uint64_t huge_bytes;	/* test memory the host backs with huge pages */
	uint64_t huge_size;
	uint64_t tables_before;	/* before populating (CNT_TABLES) */
	uint64_t ns[NR_STAGES];	/* the step ending at each stage */
	struct mappings m[NR_STAGES];
};

static struct perf_test_dirty dirty;

static void help(const char *name, const void *arg)
{
	const struct split_params *d = arg;

	printf("usage: %s [-h] [-m mode] [-b size] [-v vcpus] [-o] [-s type] [-x memslots]\n"
	       "          [-c cpus] [-B] [-N node] [-p offset] [-g] [-E eager|lazy] [--json file]\n",
	       name);
	perf_test_options_help(stdout, &d->o);
	printf(" -x: split test memory into this many memslots (default: %d)\n"
	       " -g: only without manual protect (default: also with\n"
	       "     KVM_CAP_MANUAL_DIRTY_LOG_PROTECT2 and KVM_DIRTY_LOG_INITIALLY_SET)\n"
	       " -E: only eager or only lazy splitting (default: both where the test may\n"
	       "     choose: x86 writes the kvm parameter eager_page_split and puts it\n"
	       "     back; arm64 sets KVM_CAP_ARM_EAGER_SPLIT_CHUNK_SIZE per VM)\n"
	       "The backing (-s) must have huge pages (default: anonymous_hugetlb); test\n"
	       "memory is mapped in the guest with its largest pages (as -L); -n is not\n"
	       "for this test.\n", d->o.nr_slots);
}

static void parse_opt(struct split_params *p, int opt, const char *arg)
{
	switch (opt) {
	case 'g':
		p->get_only = true;
		break;
	case 'E':
		if (!strcmp(arg, "eager"))
			p->only_split = 1;
		else if (!strcmp(arg, "lazy"))
			p->only_split = 0;
		else
			test_usage_error("Invalid splitting (-E) '%s': eager or lazy", arg);
		break;
	}
}

static void parse_args(int argc, char *argv[], struct split_params *p)
{
	struct split_params defaults = *p;
	int opt;

	while ((opt = perf_test_getopt(argc, argv, "x:gE:", &p->o, help, &defaults)) != -1)
		parse_opt(p, opt, optarg);
}

/* Usage errors first, then what the host lacks. */
static void check_params(struct split_params *p)
{
	const char *name = vm_mem_backing_src_alias(p->o.backing)->name;

	if (p->o.nested)
		test_usage_error("-n (nested) is not for this test: L2's memory is mapped by L1's tables, not split by KVM's");
	if (p->o.backing != VM_MEM_SRC_ANONYMOUS_THP && !backing_src_is_hugetlb(p->o.backing))
		test_usage_error("Backing %s (-s) has no huge pages to split: use anonymous_thp or a hugetlb source",
				 name);
	p->o.large_pages = true;
	perf_test_options_check(&p->o, false);
	p->manual_ok = kvm_has_cap(KVM_CAP_MANUAL_DIRTY_LOG_PROTECT2);
	if (!p->manual_ok)
		ksft_print_msg("Manual protect: not available (no KVM_CAP_MANUAL_DIRTY_LOG_PROTECT2)\n");
	eager_split_probe(&p->eager);
	if (!p->eager.available)
		ksft_print_msg("Eager splitting: not available: %s\n", p->eager.why);
	else
		ksft_print_msg("Eager splitting: %s is %s%s%s%s\n", p->eager.knob,
			       p->eager.current ? "on" : "off",
			       p->eager.settable ? ", the test may choose" : "",
			       p->eager.why[0] ? "; " : "", p->eager.why);
	if (p->only_split == 1 && !p->eager.available)
		test_skip("Eager splitting (-E eager): %s", p->eager.why);
	if (p->only_split >= 0 && !p->eager.settable && p->eager.available &&
	    p->only_split != p->eager.current)
		test_skip("-E %s: %s is %s and the test may not change it: %s",
			  p->only_split ? "eager" : "lazy", p->eager.knob,
			  p->eager.current ? "on" : "off", p->eager.why);
}

/* Test memory the host backs with huge pages: all of hugetlb, THP as given. */
static uint64_t host_huge_bytes(struct kvm_vm *vm)
{
	struct userspace_mem_region *r;
	uint64_t sum = 0;
	int i;

	if (perf_test_args.backing != VM_MEM_SRC_ANONYMOUS_THP)
		return perf_test_args.size;
	for (i = 0; i < perf_test_args.nr_slots; i++) {
		r = memslot2region(vm, PERF_TEST_MEM_SLOT + i);
		sum += backing_thp_bytes(r->host_mem);
	}
	return sum;
}

/*
 * After populating: which counter shows this KVM's mappings, if any.  Its
 * VM stats where it has them (x86), else (arm64) the host's page-table
 * memory, which only this test's VM should move in a VM of its own.
 */
static void choose_counter(struct kvm_vm *vm, struct split_run *r)
{
	struct kvm_mappings m = { 0 };
	uint64_t tables;

	if (kvm_mappings_read(vm, &m)) {
		if (m.pages_4k + m.pages_2m + m.pages_1g)
			r->counter = CNT_STATS;
		else
			snprintf(r->why_none, sizeof(r->why_none),
				 "this KVM's pages_4k/2m/1g stats stay 0 while the guest maps memory");
		return;
	}
	if (kvm_page_tables_read(&tables) && tables > r->tables_before) {
		r->counter = CNT_TABLES;
		return;
	}
	snprintf(r->why_none, sizeof(r->why_none),
		 "this KVM has no pages_4k/2m/1g stats, and SecPageTables did not grow while the guest populated memory");
}

static void snap(struct kvm_vm *vm, struct split_run *r, enum stage s, uint64_t ns)
{
	struct mappings *m = &r->m[s];

	r->ns[s] = ns;
	m->taken = true;
	if (r->counter == CNT_STATS)
		kvm_mappings_read(vm, &m->k);
	else if (r->counter == CNT_TABLES)
		kvm_page_tables_read(&m->tables);
}

/* Tables the guest's writes freed go back to the host after an RCU grace period. */
static void snap_tables_settled(struct kvm_vm *vm, struct split_run *r, enum stage s,
				uint64_t ns)
{
	uint64_t want = r->m[ST_POPULATED].tables + SLACK_TABLES;
	int ms;

	for (ms = 0; ; ms += 10) {
		snap(vm, r, s, ns);
		if (r->counter != CNT_TABLES || r->m[s].tables <= want ||
		    ms >= TABLES_FREE_WAIT_MS)
			return;
		usleep(10000);
	}
}

static int pass_failed(uint64_t pass)
{
	return perf_test_fail("pass %lu did not complete", (unsigned long)pass);
}

/* Dirty pass @i (1 or 2): the pass, read the log, re-arm it, check it. */
static int dirty_pass(struct kvm_vm *vm, struct split_run *r, int i)
{
	enum stage d = i == 1 ? ST_DIRTY1 : ST_DIRTY2, c = d + 1;
	struct perf_test_dirty_times dt;
	struct perf_test_dirty_count cnt;
	uint64_t ns;

	if (!perf_test_run_pass(i + 1, &ns))
		return pass_failed(i + 1);
	snap(vm, r, d, ns);
	if (__perf_test_dirty_harvest(&dirty, &dt, &cnt))
		return perf_test_fail_more(" (dirty pass %d)", i);
	if (perf_test_dirty_needs_clear(&dirty))
		snap(vm, r, c, dt.clear_ns);
	return 0;
}

/* Everything while the vCPU threads exist: errors recorded, not asserted. */
static int run_steps(struct kvm_vm *vm, struct split_run *r, struct timespec start)
{
	uint64_t ns;

	if (!perf_test_wait_pass(1, NULL, NULL))
		return pass_failed(1);
	ns = timespec_to_ns(timespec_elapsed(start));
	choose_counter(vm, r);
	snap(vm, r, ST_POPULATED, ns);
	r->huge_bytes = host_huge_bytes(vm);
	if (__perf_test_dirty_enable_timed(&dirty, true, &ns))
		return -1;
	snap(vm, r, ST_ENABLED, ns);
	if (dirty_pass(vm, r, 1) || dirty_pass(vm, r, 2))
		return -1;
	if (__perf_test_dirty_enable_timed(&dirty, false, &ns))
		return -1;
	snap(vm, r, ST_DISABLED, ns);
	if (!perf_test_run_pass(4, &ns))
		return pass_failed(4);
	snap_tables_settled(vm, r, ST_REPOPULATED, ns);
	return 0;
}

static void print_stage(const struct split_run *r, enum stage s)
{
	const struct mappings *m = &r->m[s];

	printf("%s time: %lu.%09lus", stage_text[s], (unsigned long)(r->ns[s] / NSEC_PER_SEC),
	       (unsigned long)(r->ns[s] % NSEC_PER_SEC));
	if (r->counter == CNT_STATS)
		printf("; page stats after: 4K: %lu 2M: %lu 1G: %lu", (unsigned long)m->k.pages_4k,
		       (unsigned long)m->k.pages_2m, (unsigned long)m->k.pages_1g);
	else if (r->counter == CNT_TABLES)
		printf("; KVM page tables after: %lu pages", (unsigned long)m->tables);
	printf("\n");
}

/* Where the huge mappings of test memory must be gone. */
static enum stage split_stage(const struct split_run *r, uint64_t manual)
{
	bool init_set = manual & KVM_DIRTY_LOG_INITIALLY_SET;

	/* Initially set: nothing is write-protected until the first clear. */
	if (r->expect_eager)
		return init_set ? ST_CLEAR1 : ST_ENABLED;
	return init_set ? ST_DIRTY2 : ST_DIRTY1;
}

static const char *split_name(const struct split_run *r)
{
	return r->expect_eager ? "eager" : "lazy";
}

/* Mappings at @s against populated: @huge pages mapped huge, 4K ones @lo more (+@slack). */
static void check_stats_at(const struct split_run *r, enum stage s, uint64_t huge, uint64_t lo,
			   uint64_t slack)
{
	const struct kvm_mappings *m = &r->m[s].k, *p = &r->m[ST_POPULATED].k;

	TEST_ASSERT(kvm_mappings_huge_pages(m) == huge && m->pages_4k >= p->pages_4k + lo &&
		    m->pages_4k <= p->pages_4k + lo + slack,
		    "After %s (%s splitting, due at %s): pages_4k %lu, pages_2m %lu, pages_1g %lu; expected %lu pages mapped huge and %lu..%lu more 4K mappings than the %lu after populating",
		    stage_text[s], split_name(r), stage_text[r->split_at],
		    (unsigned long)m->pages_4k, (unsigned long)m->pages_2m,
		    (unsigned long)m->pages_1g, (unsigned long)huge, (unsigned long)lo,
		    (unsigned long)(lo + slack), (unsigned long)p->pages_4k);
}

static void check_stats(const struct split_run *r)
{
	const struct kvm_mappings *p = &r->m[ST_POPULATED].k, *d = &r->m[ST_DISABLED].k;
	uint64_t h = r->huge_bytes / getpagesize();
	enum stage s;

	TEST_ASSERT(kvm_mappings_huge_pages(p) == h,
		    "After populating memory: %lu pages mapped huge (pages_2m %lu, pages_1g %lu), expected the %lu the host backs with huge pages",
		    (unsigned long)kvm_mappings_huge_pages(p), (unsigned long)p->pages_2m,
		    (unsigned long)p->pages_1g, (unsigned long)h);
	for (s = ST_ENABLED; s <= ST_CLEAR2; s++) {
		if (!r->m[s].taken)
			continue;
		/* Only enabling runs no guest code since populating. */
		check_stats_at(r, s, s < r->split_at ? h : 0, s < r->split_at ? 0 : h,
			       s == ST_ENABLED ? 0 : SLACK_PAGES);
	}
	/* Zapped (6.1, 6.12) or made huge again in place. */
	check_stats_at(r, ST_DISABLED, kvm_mappings_huge_pages(d) ? h : 0, 0, SLACK_PAGES);
	ksft_print_msg("Disabling dirty logging %s\n", kvm_mappings_huge_pages(d) ?
		       "made the huge mappings again in place" :
		       "zapped the 4K mappings; the next touch maps huge again");
	check_stats_at(r, ST_REPOPULATED, h, 0, SLACK_PAGES);
}

/* Page-table pages that splitting one huge mapping of @size into pages adds. */
static uint64_t tables_per_split(uint64_t size)
{
	uint64_t page = getpagesize(), pmd = page * (page / 8);

	return size <= pmd ? 1 : 1 + size / pmd;
}

static void check_tables_at(const struct split_run *r, enum stage s, int64_t lo, int64_t hi)
{
	int64_t d = r->m[s].tables - r->m[ST_POPULATED].tables;

	TEST_ASSERT(d >= lo && d <= hi,
		    "After %s (%s splitting, due at %s): KVM page tables grew by %ld pages since populating, expected %ld..%ld",
		    stage_text[s], split_name(r), stage_text[r->split_at], (long)d, (long)lo,
		    (long)hi);
}

static void check_tables(const struct split_run *r)
{
	int64_t t = r->huge_bytes / r->huge_size * tables_per_split(r->huge_size);
	enum stage s;

	ksft_print_msg("Splitting %lu huge mappings of 0x%lx bytes adds %ld page-table pages\n",
		       (unsigned long)(r->huge_bytes / r->huge_size),
		       (unsigned long)r->huge_size, (long)t);
	for (s = ST_ENABLED; s <= ST_CLEAR2; s++) {
		if (!r->m[s].taken)
			continue;
		if (s < r->split_at)
			check_tables_at(r, s, 0, s == ST_ENABLED ? 0 : SLACK_TABLES);
		else
			check_tables_at(r, s, t, t + (s == ST_ENABLED ? 0 : SLACK_TABLES));
	}
	/* Writes after disabling map huge again, freeing the tables. */
	check_tables_at(r, ST_REPOPULATED, -SLACK_TABLES, SLACK_TABLES);
}

static void check_mappings(const struct split_run *r)
{
	const char *none = r->counter == CNT_NONE ? r->why_none :
			   !r->huge_bytes ? "THP gave test memory no huge pages" : NULL;

	if (none && r->injected)
		test_skip("KVM_SELFTEST_FAIL=split_expect: no mapping checks to catch it: %s",
			  none);
	if (none) {
		ksft_print_msg("Mapping checks: skipped: %s\n", none);
		return;
	}
	ksft_print_msg("Mapping checks: %s\n", r->counter == CNT_STATS ?
		       "VM stats pages_4k, pages_2m, pages_1g" :
		       "KVM page-table memory (SecPageTables; no pages_* stats on this KVM)");
	if (r->counter == CNT_STATS)
		check_stats(r);
	else
		check_tables(r);
	ksft_print_msg("Mapping checks: %s splitting as expected\n", split_name(r));
}

static const char *counter_name(enum counter c)
{
	return c == CNT_STATS ? "stats" : c == CNT_TABLES ? "page_tables" : "none";
}

/* Per-stage keys, built once: perf_report keeps the pointers. */
static char stage_keys[NR_STAGES][4][24];

static void report_counts(const struct split_run *r)
{
	static const char * const names[] = { "pages_4k", "pages_2m", "pages_1g", "tables" };
	enum stage s;

	for (s = 0; s < NR_STAGES; s++) {
		const struct mappings *m = &r->m[s];
		int i;

		for (i = 0; i < 4; i++)
			snprintf(stage_keys[s][i], sizeof(stage_keys[s][i]), "%s_%s", names[i],
				 stage_key[s]);
		if (!m->taken)
			continue;
		if (r->counter == CNT_STATS) {
			perf_report_u64(stage_keys[s][0], m->k.pages_4k, "count");
			perf_report_u64(stage_keys[s][1], m->k.pages_2m, "count");
			perf_report_u64(stage_keys[s][2], m->k.pages_1g, "count");
		} else if (r->counter == CNT_TABLES) {
			perf_report_u64(stage_keys[s][3], m->tables, "pages");
		}
	}
}

static void report_run(const struct split_run *r, const struct split_params *p,
		       enum vm_guest_mode mode)
{
	bool init_set = dirty.manual & KVM_DIRTY_LOG_INITIALLY_SET;
	enum stage first_dirty = init_set ? ST_DIRTY2 : ST_DIRTY1;

	perf_report_opt_str("split", r->eager ? "eager" : "lazy");
	perf_report_opt_int("kvm_splits_eagerly", r->expect_eager);
	perf_report_opt_str("protect", dirty.manual ? "manual" : "get");
	perf_report_opt_int("initially_set", init_set);
	perf_report_opt_str("counter", counter_name(r->counter));
	perf_report_opt_int("mode", mode);
	perf_report_opt_str("backing", vm_mem_backing_src_alias(p->o.backing)->name);
	perf_report_opt_int("vcpus", p->o.nr_vcpus);
	perf_report_opt_int("vcpu_bytes", p->o.vcpu_memory_bytes);
	perf_report_opt_int("slots", p->o.nr_slots);
	perf_report_u64("huge_bytes", r->huge_bytes, "bytes");
	perf_report_u64("populate_ns", r->ns[ST_POPULATED], "ns");
	perf_report_u64("enable_ns", r->ns[ST_ENABLED], "ns");
	/* The step that write-protects (and splits eagerly), the first pass after it. */
	perf_report_u64("protect_ns", r->ns[init_set ? ST_CLEAR1 : ST_ENABLED], "ns");
	perf_report_u64("first_dirty_ns", r->ns[first_dirty], "ns");
	perf_report_u64("dirty1_ns", r->ns[ST_DIRTY1], "ns");
	perf_report_u64("dirty2_ns", r->ns[ST_DIRTY2], "ns");
	perf_report_u64("clear1_ns", r->ns[ST_CLEAR1], "ns");
	perf_report_u64("clear2_ns", r->ns[ST_CLEAR2], "ns");
	perf_report_u64("disable_ns", r->ns[ST_DISABLED], "ns");
	perf_report_u64("repopulate_ns", r->ns[ST_REPOPULATED], "ns");
	report_counts(r);
	perf_report_run_end("dirty_log_page_splitting");
}

static void run_one(enum vm_guest_mode mode, struct split_params *p, bool eager, bool manual)
{
	struct split_run r = { .eager = eager, .manual = manual };
	struct timespec start;
	struct kvm_vm *vm;
	enum stage s;

	if (p->eager.settable)
		eager_split_select(eager);
	/* KVM_SELFTEST_FAIL=split_expect: the checks must catch the wrong model. */
	r.injected = fault_inject("split_expect");
	r.expect_eager = (eager && p->eager.kvm_splits) ^ r.injected;
	r.huge_size = get_backing_src_pagesz(p->o.backing);
	p->o.vm_init = eager_split_vm_init;
	vm = perf_test_create_vm(mode, &p->o);
	perf_report_guest_mode(vm_guest_mode_string(mode));
	perf_test_dirty_init(&dirty, vm, 0, manual);
	r.split_at = split_stage(&r, dirty.manual);
	ksft_print_msg("Run: %s splitting%s, %s: huge mappings must go at %s\n",
		       eager ? "eager" : "lazy",
		       eager && !r.expect_eager ? " (which this KVM does lazily)" : "",
		       !dirty.manual ? "no manual protect" :
		       dirty.manual & KVM_DIRTY_LOG_INITIALLY_SET ?
		       "manual protect, initially set" : "manual protect",
		       stage_text[r.split_at]);
	kvm_page_tables_read(&r.tables_before);

	perf_report_stats_begin(vm);
	start = timespec_now();
	perf_test_start_threads(&p->o, __perf_test_vcpu_pass);
	run_steps(vm, &r, start);
	perf_test_join_threads();
	perf_report_stats_end(vm);
	perf_test_check_memory();

	for (s = 0; s < NR_STAGES; s++)
		if (r.m[s].taken)
			print_stage(&r, s);
	check_mappings(&r);
	report_run(&r, p, mode);
	perf_test_dirty_free(&dirty);
	perf_test_destroy_vm(vm);
}

static void run_mode(enum vm_guest_mode mode, void *arg)
{
	struct split_params *p = arg;
	int split;

	for (split = 1; split >= 0; split--) {
		/* Where the test may not choose: one set of runs, as the host is. */
		if (!p->eager.settable && split != (p->eager.available && p->eager.current))
			continue;
		if (p->only_split >= 0 && split != p->only_split)
			continue;
		run_one(mode, p, split, false);
		if (!p->get_only && p->manual_ok)
			run_one(mode, p, split, true);
	}
}

/*
 * The figures this test reports (perf_report.h: --figures lists them); * is
 * a name from the test's own table.
 */
static const char *const figures[] = {
	"pages_4k_*", "pages_2m_*", "pages_1g_*", "tables_*", "huge_bytes", "populate_ns",
	"enable_ns", "protect_ns", "first_dirty_ns", "dirty1_ns", "dirty2_ns", "clear1_ns",
	"clear2_ns", "disable_ns", "repopulate_ns", NULL,
};

int main(int argc, char *argv[])
{
	struct split_params p = { .only_split = -1 };

	setvbuf(stdout, NULL, _IOLBF, 0);
	perf_test_options_init(&p.o, DEFAULT_VCPU_MEMORY, DEFAULT_VCPUS);
	p.o.backing = VM_MEM_SRC_ANONYMOUS_HUGETLB;
	p.o.nr_slots = DEFAULT_SLOTS;
	parse_args(argc, argv, &p);
	check_params(&p);
	perf_report_figures(figures);
	perf_report_open("dirty_log_page_splitting_test", p.o.json_path, argc, argv);
	for_each_guest_mode(run_mode, &p);
	perf_report_close();
	return KSFT_PASS;
}

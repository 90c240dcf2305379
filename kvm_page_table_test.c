// SPDX-License-Identifier: GPL-2.0-only
/*
 * kvm_page_table_test: how long KVM takes to create guest mappings (first
 * touch), to update them while dirty logging is on (every write faults
 * again on a write-protected or split mapping), and to rebuild them once
 * logging is off (huge mappings come back), for each backing source and
 * guest mode.
 *
 * Three passes of perf_test_util's guest code, each writing every guest
 * page of test memory: create, then KVM_MEM_LOG_DIRTY_PAGES on (without
 * manual protect: enabling write-protects everything) and update, then
 * logging off and rebuild.  Around each pass the KVM stats are read, and
 * the mapping sizes (pages_4k/2m/1g, x86) and fault counts (pf_taken on
 * x86, exits on arm64) must tell the same story as the timings:
 *
 *  - after create, all of test memory is mapped;
 *  - 4K host pages (anonymous, shmem) never give huge mappings;
 *  - with huge host pages and -L huge guest pages, huge mappings exist
 *    after create, are gone after the update pass, and are back after
 *    the rebuild pass (x86: KVM zaps collapsible mappings when logging
 *    stops);
 *  - the update pass faults at least once per page written (skipped where
 *    Intel's PML logs writes without faults); with huge pages and -L the
 *    create and adjust passes fault far less (once a huge page): this is
 *    arm64's view of the huge mappings, which has no page-size stats;
 *  - the dirty log after the update pass holds exactly the pages written,
 *    and afterwards every page holds its pattern.
 * A stat this KVM lacks skips its part of the story, with the reason.
 */
#include <getopt.h>

#include "perf_report.h"
#include "perf_test_dirty.h"
#include "perf_test_util.h"

#define DEFAULT_VCPU_MEMORY	(16 * MB)

enum { PT_BEFORE, PT_CREATE, PT_UPDATE, PT_REBUILD, PT_NR };

static const char * const phase_name[PT_NR] = {
	"before", "KVM_CREATE_MAPPINGS", "KVM_UPDATE_MAPPINGS", "KVM_ADJUST_MAPPINGS",
};

/*
 * The stats of one moment; has_* false where this KVM lacks the stat.
 * Faults: x86's pf_taken counts every guest page fault; arm64 has only
 * exits (each stage-2 fault is one).
 */
static const char * const fault_stats[] = { "pf_taken", "exits" };
#define NR_FAULT_STATS	ARRAY_SIZE(fault_stats)

struct pt_stats {
	uint64_t faults[NR_FAULT_STATS], p4k, p2m, p1g;
	bool has_fault[NR_FAULT_STATS], has_sizes;
};

struct pt_run {
	struct pt_stats s[PT_NR];
	uint64_t ns[PT_NR];
	uint64_t enable_ns, get_ns, disable_ns;
	struct perf_test_dirty_count dirty;
	int fault;		/* the fault_stats[] that moved, -1: none */
	bool sizes_live;	/* pages_* moved: this KVM maintains them */
};

static struct perf_test_dirty dirty;

static void help(const char *name, const void *defaults)
{
	const struct perf_test_options *d = defaults;

	printf("usage: %s [-h] [-m mode] [-b size] [-v vcpus] [-s type] [-x memslots]\n"
	       "          [-c cpus] [-p offset] [-L] [-B] [-N node] [--json file]\n", name);
	perf_test_options_help(stdout, d);
	printf(" -x: split test memory into this many memslots (default: 1)\n"
	       "Every vCPU writes all its pages three times: create, update (dirty\n"
	       "logging on), adjust (logging off); the KVM stats must agree.\n");
}

static void parse_args(int argc, char *argv[], struct perf_test_options *o)
{
	struct perf_test_options defaults = *o;

	/* Every option is a shared one (-x too): none is left to this test. */
	TEST_ASSERT(perf_test_getopt(argc, argv, "x:", o, help, &defaults) == -1,
		    "an option perf_test_parse_opt() does not know");
	if (o->nested)
		test_usage_error("-n: the mapping story is L1's; this test runs the vCPUs unnested");
	if (!o->partition)
		test_usage_error("-o: each vCPU writes its own slice here, so that the dirty log is exact");
}

static void read_stats(struct kvm_vm *vm, struct pt_stats *s)
{
	struct kvm_stats_snapshot vm_snap = { 0 }, vcpu_snap = { 0 };
	unsigned int i;

	kvm_stats_snapshot_vm(vm, &vm_snap, &vcpu_snap);
	for (i = 0; i < NR_FAULT_STATS; i++)
		s->has_fault[i] = kvm_stats_snapshot_find(&vcpu_snap, fault_stats[i],
							  &s->faults[i]);
	s->has_sizes = kvm_stats_snapshot_find(&vm_snap, "pages_4k", &s->p4k) &&
		       kvm_stats_snapshot_find(&vm_snap, "pages_2m", &s->p2m);
	if (!kvm_stats_snapshot_find(&vm_snap, "pages_1g", &s->p1g))
		s->p1g = 0;
	kvm_stats_snapshot_free(&vm_snap);
	kvm_stats_snapshot_free(&vcpu_snap);
}

/*
 * Which stats this KVM keeps: the create pass maps all of test memory
 * and the binary, so a fault stat and the page counts must move in it;
 * one that stays 0 is one this KVM does not maintain (a KVM may lack a
 * path: kvm_pvm keeps them at 0), and its checks are skipped.
 */
static void probe_live_stats(struct pt_run *r)
{
	const struct pt_stats *b = &r->s[PT_BEFORE], *c = &r->s[PT_CREATE];
	unsigned int i;

	/* The first this KVM has: pf_taken where it exists. */
	r->fault = -1;
	for (i = 0; i < NR_FAULT_STATS && r->fault < 0; i++)
		if (c->has_fault[i])
			r->fault = i;
	if (r->fault >= 0 && c->faults[r->fault] == b->faults[r->fault]) {
		ksft_print_msg("Faults: %s stayed 0 while the create pass faulted memory in: this KVM does not maintain it\n",
			       fault_stats[r->fault]);
		r->fault = -1;
	}
	r->sizes_live = c->has_sizes && (c->p4k || c->p2m || c->p1g);
}

/* Intel's PML logs writes in hardware: no write fault per page then. */
static bool pml_enabled(void)
{
	char v[8];

	return read_sys_line("/sys/module/kvm_intel/parameters/pml", v, sizeof(v)) &&
	       (v[0] == 'Y' || v[0] == '1');
}

static uint64_t huge(const struct pt_stats *s)
{
	return s->p2m + s->p1g;
}

static uint64_t mapped_bytes(const struct pt_stats *s)
{
	return s->p4k * 4 * KB + s->p2m * 2 * MB + s->p1g * GB;
}

static void print_phase(int pass, uint64_t ns)
{
	printf("%s: total execution time: %lu.%09lus\n", phase_name[pass],
	       (unsigned long)(ns / NSEC_PER_SEC), (unsigned long)(ns % NSEC_PER_SEC));
}

/* Pass @pass (pass 1 starts with the threads): wait for it, time it. */
static int run_pass(uint64_t pass, struct timespec start, uint64_t *ns)
{
	if (pass > PT_CREATE)
		perf_test_next_pass();
	if (!perf_test_wait_pass(pass, NULL, NULL))
		return perf_test_fail("pass %lu (%s) did not complete", (unsigned long)pass,
				      phase_name[pass]);
	*ns = timespec_to_ns(timespec_elapsed(start));
	print_phase(pass, *ns);
	return 0;
}

/* The three passes, stats read between them; errors recorded (threads run). */
static int run_phases(struct kvm_vm *vm, struct pt_run *r, struct timespec start)
{
	struct perf_test_dirty_times dt;

	if (run_pass(PT_CREATE, start, &r->ns[PT_CREATE]))
		return -1;
	read_stats(vm, &r->s[PT_CREATE]);
	probe_live_stats(r);
	if (__perf_test_dirty_enable_timed(&dirty, true, &r->enable_ns) ||
	    run_pass(PT_UPDATE, timespec_now(), &r->ns[PT_UPDATE]))
		return -1;
	read_stats(vm, &r->s[PT_UPDATE]);
	if (__perf_test_dirty_harvest(&dirty, &dt, &r->dirty))
		return -1;
	r->get_ns = dt.get_ns;
	if (__perf_test_dirty_enable_timed(&dirty, false, &r->disable_ns) ||
	    run_pass(PT_REBUILD, timespec_now(), &r->ns[PT_REBUILD]))
		return -1;
	read_stats(vm, &r->s[PT_REBUILD]);
	return 0;
}

static uint64_t faults_in(const struct pt_run *r, int phase)
{
	return r->s[phase].faults[r->fault] - r->s[phase - 1].faults[r->fault];
}

static void print_story(const struct pt_run *r)
{
	int i;

	for (i = PT_CREATE; i < PT_NR; i++) {
		printf("%s:", phase_name[i]);
		if (r->fault >= 0)
			printf(" %s=%lu", fault_stats[r->fault], (unsigned long)faults_in(r, i));
		if (r->s[i].has_sizes)
			printf(" pages_4k=%lu pages_2m=%lu pages_1g=%lu",
			       (unsigned long)r->s[i].p4k, (unsigned long)r->s[i].p2m,
			       (unsigned long)r->s[i].p1g);
		printf("\n");
	}
}

/* Huge host pages mapped huge in the guest: the story must show them. */
static bool huge_expected(const struct perf_test_options *o)
{
	return get_backing_src_pagesz(o->backing) >= 2 * MB && o->large_pages;
}

static void check_sizes_story(const struct perf_test_options *o, const struct pt_run *r)
{
	const struct pt_stats *c = &r->s[PT_CREATE], *u = &r->s[PT_UPDATE];
	const struct pt_stats *b = &r->s[PT_REBUILD];
	uint64_t size = perf_test_args.size;

	if (!c->has_sizes) {
		ksft_print_msg("Mapping sizes: not checked (this KVM has no pages_4k/pages_2m stats; arm64 has none: its checks are the faults and the dirty log)\n");
		return;
	}
	if (!r->sizes_live) {
		ksft_print_msg("Mapping sizes: not checked (pages_4k/2m/1g stayed 0 while the create pass mapped memory: this KVM does not maintain them)\n");
		return;
	}
	TEST_ASSERT(mapped_bytes(c) >= size,
		    "After %s only 0x%lx bytes are mapped (pages_4k/2m/1g), test memory is 0x%lx",
		    phase_name[PT_CREATE], (unsigned long)mapped_bytes(c), (unsigned long)size);
	if (get_backing_src_pagesz(o->backing) < 2 * MB) {
		TEST_ASSERT(!huge(c) && !huge(u) && !huge(b),
			    "4K host pages (%s) mapped huge: pages_2m+1g %lu/%lu/%lu after create/update/adjust",
			    vm_mem_backing_src_alias(o->backing)->name, (unsigned long)huge(c),
			    (unsigned long)huge(u), (unsigned long)huge(b));
		ksft_print_msg("Mapping sizes: 4K host pages, no huge mapping in any phase\n");
		return;
	}
	if (!huge_expected(o)) {
		ksft_print_msg("Mapping sizes: not asserted without -L (with 4K guest pages a shadow MMU maps 4K)\n");
		return;
	}
	TEST_ASSERT(huge(c) > 0, "After %s: no huge mapping (pages_2m+1g 0) of %s test memory with -L",
		    phase_name[PT_CREATE], vm_mem_backing_src_alias(o->backing)->name);
	TEST_ASSERT(huge(u) < huge(c),
		    "Dirty logging and writes left the huge mappings: pages_2m+1g %lu after create, %lu after update",
		    (unsigned long)huge(c), (unsigned long)huge(u));
	TEST_ASSERT(huge(b) > huge(u),
		    "Huge mappings did not come back after logging stopped: pages_2m+1g %lu after update, %lu after adjust",
		    (unsigned long)huge(u), (unsigned long)huge(b));
	ksft_print_msg("Mapping sizes: huge mappings %lu after create, %lu under logging, %lu after adjust\n",
		       (unsigned long)huge(c), (unsigned long)huge(u), (unsigned long)huge(b));
}

/*
 * Huge mappings seen in the fault counts (arm64 has no page-size stats):
 * create and adjust fault once a huge page, a fraction of the pages.
 */
static void check_huge_faults(const struct pt_run *r, uint64_t written)
{
	int phases[] = { PT_CREATE, PT_REBUILD };
	unsigned int i;

	/* The binary's own first faults (~20) would blur a small count. */
	if (written < 256) {
		ksft_print_msg("Faults: huge mappings not judged from %lu pages (fewer than 256)\n",
			       (unsigned long)written);
		return;
	}
	for (i = 0; i < ARRAY_SIZE(phases); i++)
		TEST_ASSERT(faults_in(r, phases[i]) < written / 4,
			    "%s took %lu %s for %lu pages of huge host and guest pages: not huge mappings",
			    phase_name[phases[i]], (unsigned long)faults_in(r, phases[i]),
			    fault_stats[r->fault], (unsigned long)written);
	ksft_print_msg("Faults: huge mappings made and rebuilt, %lu and %lu %s for %lu pages\n",
		       (unsigned long)faults_in(r, PT_CREATE), (unsigned long)faults_in(r, PT_REBUILD),
		       fault_stats[r->fault], (unsigned long)written);
}

static void check_faults_story(const struct perf_test_options *o, const struct pt_run *r)
{
	/* Every guest page of test memory is written in each pass. */
	uint64_t written = perf_test_args.size / perf_test_args.page_size, got;

	if (r->fault < 0) {
		ksft_print_msg("Faults: not checked (no live pf_taken or exits stat)\n");
		return;
	}
	if (pml_enabled()) {
		ksft_print_msg("Faults: update pass not checked (kvm_intel's PML logs writes without faults)\n");
		return;
	}
	got = faults_in(r, PT_UPDATE);
	TEST_ASSERT(got >= written,
		    "%s wrote %lu pages under dirty logging but took only %lu %s: writes did not fault",
		    phase_name[PT_UPDATE], (unsigned long)written, (unsigned long)got,
		    fault_stats[r->fault]);
	ksft_print_msg("Faults: %lu %s for %lu pages written under logging\n", (unsigned long)got,
		       fault_stats[r->fault], (unsigned long)written);
	if (huge_expected(o))
		check_huge_faults(r, written);
}

static void print_result(const struct perf_test_options *o, enum vm_guest_mode mode,
			 const struct pt_run *r, uint64_t checked)
{
	/* perf_report keeps the key pointers: one string each. */
	static const char * const ns_key[PT_NR] = { NULL, "create_ns", "update_ns", "adjust_ns" };
	static const char * const fault_key[PT_NR] = {
		NULL, "create_faults", "update_faults", "adjust_faults",
	};
	static const char * const huge_key[PT_NR] = {
		NULL, "create_huge", "update_huge", "adjust_huge",
	};
	int i;

	perf_report_opt_int("mode", mode);
	perf_report_opt_str("backing", vm_mem_backing_src_alias(o->backing)->name);
	perf_report_opt_int("vcpus", o->nr_vcpus);
	perf_report_opt_int("vcpu_bytes", o->vcpu_memory_bytes);
	perf_report_opt_int("slots", o->nr_slots);
	perf_report_opt_int("large_pages", o->large_pages);
	for (i = PT_CREATE; i < PT_NR; i++)
		perf_report_u64(ns_key[i], r->ns[i], "ns");
	perf_report_u64("enable_ns", r->enable_ns, "ns");
	perf_report_u64("get_ns", r->get_ns, "ns");
	perf_report_u64("disable_ns", r->disable_ns, "ns");
	perf_report_u64("dirty_reported", r->dirty.reported, "pages");
	for (i = PT_CREATE; i < PT_NR; i++) {
		if (r->fault >= 0)
			perf_report_u64(fault_key[i], faults_in(r, i), "count");
		if (r->sizes_live)
			perf_report_u64(huge_key[i], huge(&r->s[i]), "count");
	}
	perf_report_u64("checked", checked, "pages");
	perf_report_run_end("kvm_page_table");
}

static void run_test(enum vm_guest_mode mode, void *arg)
{
	const struct perf_test_options *o = arg;
	struct pt_run r = { 0 };
	struct timespec start;
	struct kvm_vm *vm;
	uint64_t checked;

	vm = perf_test_create_vm(mode, o);
	perf_report_guest_mode(vm_guest_mode_string(mode));
	perf_test_dirty_init(&dirty, vm, 0, false);
	read_stats(vm, &r.s[PT_BEFORE]);

	perf_report_stats_begin(vm);
	start = timespec_now();
	perf_test_start_threads(o, __perf_test_vcpu_pass);
	run_phases(vm, &r, start);
	perf_test_join_threads();
	perf_report_stats_end(vm);

	print_story(&r);
	check_sizes_story(o, &r);
	check_faults_story(o, &r);
	checked = perf_test_check_memory();
	print_result(o, mode, &r, checked);
	perf_test_dirty_free(&dirty);
	perf_test_destroy_vm(vm);
}

/* The figures this test reports (perf_report.h: --figures lists them). */
static const char *const figures[] = {
	"create_ns", "update_ns", "adjust_ns", "enable_ns", "get_ns", "disable_ns",
	"dirty_reported", "create_faults", "update_faults", "adjust_faults", "create_huge",
	"update_huge", "adjust_huge", "checked", NULL,
};

int main(int argc, char *argv[])
{
	struct perf_test_options o;
	char why[256];

	setvbuf(stdout, NULL, _IOLBF, 0);
	perf_test_options_init(&o, DEFAULT_VCPU_MEMORY, 1);
	parse_args(argc, argv, &o);
	/* -b auto: two 2M mappings; -L: 256 guest pages of 64K, faults judged. */
	o.auto_min_bytes = o.large_pages ? 16 * MB : 4 * MB;
	perf_test_options_check(&o, false);
	if (kvm_backing_src_flags_unavailable(o.backing, KVM_MEM_LOG_DIRTY_PAGES, why, sizeof(why)))
		test_skip("Dirty logging: %s", why);
	perf_report_figures(figures);
	perf_report_open("kvm_page_table_test", o.json_path, argc, argv);
	for_each_guest_mode(run_test, &o);
	perf_report_close();
	return KSFT_PASS;
}

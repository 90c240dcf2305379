// SPDX-License-Identifier: GPL-2.0-only
/*
 * dirty_log_perf_test: what dirty logging costs, as live migration uses
 * it: enabling it, each pass of vCPUs dirtying memory under it, reading
 * the log and re-arming it, and disabling it, as memory, vCPUs and
 * memslots grow.
 *
 * The vCPUs first write all their memory (populate), then dirty logging
 * is enabled and the vCPUs dirty their memory once per iteration; after
 * each pass the log is read (KVM_GET_DIRTY_LOG, or harvested from per-vCPU
 * dirty rings with -R) and re-armed (KVM_CLEAR_DIRTY_LOG with manual
 * protect, the default where the host has it, or KVM_RESET_DIRTY_RINGS).
 *
 * Not only timed: after each pass the log must report exactly the pages
 * the guest wrote in it (all of them with KVM_DIRTY_LOG_INITIALLY_SET's
 * first read), which the host knows from the seed (perf_test_util), and
 * afterwards every written page must hold its pattern.
 */
#include <getopt.h>

#include "perf_test_dirty.h"
#include "perf_report.h"
#include "perf_test_util.h"

#define DEFAULT_VCPU_MEMORY	(16 * MB)
#define DEFAULT_ITERATIONS	2
#define MAX_ITERATIONS		100000

struct dl_params {
	struct perf_test_options o;
	int iterations;
	bool manual;		/* cleared by -g */
	uint32_t write_percent;
	bool random_access;
	uint32_t seed;
	bool run_while_disabling;	/* -e */
	uint32_t ring_entries;	/* -R, 0: bitmaps */
};

struct dl_times {
	uint64_t populate;
	uint64_t enable;
	uint64_t dirty;		/* sums over the iterations */
	uint64_t get;
	uint64_t clear;
	uint64_t disable;
	uint64_t reported;	/* pages the log reported, all iterations */
	uint64_t checked;	/* written pages whose contents were checked */
};

/* Shared with the vCPU threads. */
static struct perf_test_dirty dirty;
static bool keep_running;

static void help(const char *name, const void *arg)
{
	const struct dl_params *d = arg;

	printf("usage: %s [-h] [-i iterations] [-g] [-m mode] [-b size] [-v vcpus] [-o]\n"
	       "          [-s type] [-x memslots] [-w percent] [-a] [-r seed] [-c cpus]\n"
	       "          [-e] [-n] [-p offset] [-L] [-B] [-N node] [-R ring_entries]\n"
	       "          [--json file]\n", name);
	perf_test_options_help(stdout, &d->o);
	printf(" -i: dirty passes, each followed by reading the log (default: %d, at least 2)\n"
	       " -g: no manual protect: KVM_GET_DIRTY_LOG clears and write-protects, no\n"
	       "     KVM_CLEAR_DIRTY_LOG (default: KVM_CAP_MANUAL_DIRTY_LOG_PROTECT2 with\n"
	       "     KVM_DIRTY_LOG_INITIALLY_SET where the host has them)\n"
	       " -x: split test memory into this many memslots (default: 1)\n"
	       " -w: percentage of pages the vCPUs write, the others they read (default: 100)\n"
	       " -a: access pages in a random order (default: in order)\n"
	       " -r: seed for -a and for which pages -w writes (default: %u)\n"
	       " -e: vCPUs keep running while dirty logging is disabled\n"
	       " -R: read the log from per-vCPU dirty rings of this many entries (a power\n"
	       "     of two; KVM_CAP_DIRTY_LOG_RING) instead of the dirty bitmap\n",
	       d->iterations, d->seed);
}

static void parse_opt(struct dl_params *p, int opt, const char *arg)
{
	switch (opt) {
	case 'i':
		p->iterations = parse_long("iteration count (-i)", arg, 2, MAX_ITERATIONS);
		break;
	case 'g':
		p->manual = false;
		break;
	case 'w':
		p->write_percent = parse_long("write percentage (-w)", arg, 0, 100);
		break;
	case 'a':
		p->random_access = true;
		break;
	case 'r':
		p->seed = parse_long("seed (-r)", arg, 0, UINT32_MAX);
		break;
	case 'e':
		p->run_while_disabling = true;
		break;
	case 'R':
		p->ring_entries = parse_long("ring entry count (-R)", arg, 1, 1L << 30);
		break;
	}
}

static void parse_args(int argc, char *argv[], struct dl_params *p)
{
	struct dl_params defaults = *p;
	int opt;

	while ((opt = perf_test_getopt(argc, argv, "x:i:gw:ar:eR:", &p->o, help, &defaults)) != -1)
		parse_opt(p, opt, optarg);
}

/* The ring: usage errors first, then what the host lacks. */
static void check_ring(struct dl_params *p)
{
	uint64_t bytes = (uint64_t)p->ring_entries * sizeof(struct kvm_dirty_gfn);
	struct kvm_vm *vm;
	uint32_t max;

	if (p->ring_entries & (p->ring_entries - 1))
		test_usage_error("Dirty ring entry count %u (-R) is not a power of two",
				 p->ring_entries);
	if (!p->manual)
		test_usage_error("-g (no manual protect) is about the dirty bitmap; the ring (-R) has no bitmap");
	/* linux/kvm.h falls back to 0, the kvm_run page, for such headers. */
	if (!KVM_DIRTY_LOG_PAGE_OFFSET)
		test_skip("Dirty ring (-R): built against uapi headers without this arch's KVM_DIRTY_LOG_PAGE_OFFSET");
	if (!kvm_dirty_ring_cap(&max))
		test_skip("Dirty ring (-R): KVM on this host lacks KVM_CAP_DIRTY_LOG_RING");
	if (bytes > max)
		test_usage_error("Dirty ring of %u entries (-R) exceeds KVM's maximum of %lu",
				 p->ring_entries, (unsigned long)(max / sizeof(struct kvm_dirty_gfn)));
	vm = vm_create_barebones();
	if (__vm_enable_dirty_ring(vm, bytes))
		test_usage_error("KVM refuses a dirty ring of %u entries (-R): %s (it keeps some entries in reserve: try more)",
				 p->ring_entries, strerror(errno));
	kvm_vm_free(vm);
	p->manual = false;
	p->o.dirty_ring_bytes = bytes;
}

/* Everything decided before any work: usage errors, then skips. */
static void check_params(struct dl_params *p)
{
	char why[256];

	if (p->ring_entries)
		check_ring(p);
	perf_test_options_check(&p->o, false);
	if (kvm_backing_src_flags_unavailable(p->o.backing, KVM_MEM_LOG_DIRTY_PAGES, why,
					      sizeof(why)))
		test_skip("Dirty logging: %s", why);
	if (p->manual && !kvm_has_cap(KVM_CAP_MANUAL_DIRTY_LOG_PROTECT2)) {
		ksft_print_msg("Manual protect: not available (no KVM_CAP_MANUAL_DIRTY_LOG_PROTECT2)\n");
		p->manual = false;
	}
}

/* One pass of a vCPU; with keep_running set it walks again until cleared. */
static int dl_vcpu_pass(struct perf_test_vcpu_args *va, uint64_t pass)
{
	struct kvm_vcpu *vcpu = va->vcpu;
	int ret;

	for (;;) {
		ret = __perf_test_vcpu_run(vcpu);
		if (ret)
			return ret;
		if (vcpu->run->exit_reason == KVM_EXIT_DIRTY_RING_FULL) {
			ret = __perf_test_dirty_ring_full(&dirty, va->vcpu_idx);
			if (ret)
				return ret;
			continue;
		}
		ret = __perf_test_vcpu_sync(va, pass);
		if (ret || !READ_ONCE(keep_running))
			return ret;
	}
}

static void print_time(const char *what, uint64_t ns)
{
	printf("%s: %lu.%09lus\n", what, (unsigned long)(ns / NSEC_PER_SEC),
	       (unsigned long)(ns % NSEC_PER_SEC));
}

static void print_iteration(int i, uint64_t dirty_ns, uint64_t get_ns, uint64_t clear_ns,
			    const struct perf_test_dirty_count *c)
{
	char what[64];

	snprintf(what, sizeof(what), "Iteration %d dirty memory time", i);
	print_time(what, dirty_ns);
	snprintf(what, sizeof(what), "Iteration %d get dirty log time", i);
	print_time(what, get_ns);
	if (perf_test_dirty_needs_clear(&dirty)) {
		snprintf(what, sizeof(what), "Iteration %d clear dirty log time", i);
		print_time(what, clear_ns);
	}
	printf("RESULT_ITER test=dirty_log iteration=%d dirty_ns=%lu get_ns=%lu clear_ns=%lu reported=%lu expected=%lu\n",
	       i, (unsigned long)dirty_ns, (unsigned long)get_ns, (unsigned long)clear_ns,
	       (unsigned long)c->reported, (unsigned long)c->expected);
}

/* Start pass @pass and wait for every vCPU to finish it: its time. */
static int run_pass(uint64_t pass, uint64_t *ns)
{
	if (!perf_test_run_pass(pass, ns))
		return perf_test_fail("pass %lu did not complete", (unsigned long)pass);
	return 0;
}

/* Iteration @i: pass @i + 1 (pass 1 populated), read, re-arm, check. */
static int run_iteration(int i, struct dl_times *t)
{
	struct perf_test_dirty_times dt;
	struct perf_test_dirty_count c;
	uint64_t dirty_ns;

	if (run_pass(i + 1, &dirty_ns))
		return -1;
	if (__perf_test_dirty_harvest(&dirty, &dt, &c))
		return perf_test_fail_more(" (iteration %d)", i);
	print_iteration(i, dirty_ns, dt.get_ns, dt.clear_ns, &c);
	t->dirty += dirty_ns;
	t->get += dt.get_ns;
	t->clear += dt.clear_ns;
	t->reported += c.reported;
	return 0;
}

/* With -e the vCPUs walk their memory while logging is disabled. */
static int disable_phase(const struct dl_params *p, struct dl_times *t)
{
	uint64_t pass = p->iterations + 2;
	int ret;

	if (!p->run_while_disabling)
		return __perf_test_dirty_enable_timed(&dirty, false, &t->disable);
	WRITE_ONCE(keep_running, true);
	perf_test_next_pass();
	ret = __perf_test_dirty_enable_timed(&dirty, false, &t->disable);
	WRITE_ONCE(keep_running, false);
	if (!ret && !perf_test_wait_pass(pass, NULL, NULL))
		return perf_test_fail("pass %lu did not complete", (unsigned long)pass);
	return ret;
}

/* Everything while the vCPU threads exist: errors recorded, not asserted. */
static int run_phases(const struct dl_params *p, struct dl_times *t, struct timespec start)
{
	int i;

	if (!perf_test_wait_pass(1, NULL, NULL))
		return perf_test_fail("populating memory (pass 1) did not complete");
	t->populate = timespec_to_ns(timespec_elapsed(start));
	print_time("Populate memory time", t->populate);
	if (__perf_test_dirty_enable_timed(&dirty, true, &t->enable))
		return -1;
	print_time("Enabling dirty logging time", t->enable);
	for (i = 1; i <= p->iterations; i++)
		if (run_iteration(i, t))
			return -1;
	if (disable_phase(p, t))
		return -1;
	print_time("Disabling dirty logging time", t->disable);
	return 0;
}

static void print_total(const char *what, int n, uint64_t ns)
{
	uint64_t avg = ns / n;

	printf("%s over %d iterations took %lu.%09lus. (Avg %lu.%09lus/iteration)\n", what, n,
	       (unsigned long)(ns / NSEC_PER_SEC), (unsigned long)(ns % NSEC_PER_SEC),
	       (unsigned long)(avg / NSEC_PER_SEC), (unsigned long)(avg % NSEC_PER_SEC));
}

static void print_result(const struct dl_params *p, enum vm_guest_mode mode,
			 const struct dl_times *t)
{
	int n = p->iterations;

	print_total("Get dirty log", n, t->get);
	if (perf_test_dirty_needs_clear(&dirty))
		print_total("Clear dirty log", n, t->clear);
	perf_report_opt_str("log", p->ring_entries ? "ring" : "bitmap");
	perf_report_opt_int("ring_entries", p->ring_entries);
	perf_report_opt_int("manual_protect", !!dirty.manual);
	perf_report_opt_int("initially_set", !!(dirty.manual & KVM_DIRTY_LOG_INITIALLY_SET));
	perf_report_opt_int("mode", mode);
	perf_report_opt_str("backing", vm_mem_backing_src_alias(p->o.backing)->name);
	perf_report_opt_int("vcpus", p->o.nr_vcpus);
	perf_report_opt_int("vcpu_bytes", p->o.vcpu_memory_bytes);
	perf_report_opt_int("slots", p->o.nr_slots);
	perf_report_opt_int("overlap", !p->o.partition);
	perf_report_opt_int("write_percent", p->write_percent);
	perf_report_opt_int("random", p->random_access);
	perf_report_opt_int("seed", p->seed);
	perf_report_opt_int("iterations", n);
	perf_report_opt_int("barrier", p->o.barrier);
	perf_report_opt_int("run_while_disabling", p->run_while_disabling);
	perf_report_u64("populate_ns", t->populate, "ns");
	perf_report_u64("enable_ns", t->enable, "ns");
	perf_report_u64("dirty_ns_avg", t->dirty / n, "ns");
	perf_report_u64("get_ns_total", t->get, "ns");
	perf_report_u64("get_ns_avg", t->get / n, "ns");
	perf_report_u64("clear_ns_total", t->clear, "ns");
	perf_report_u64("clear_ns_avg", t->clear / n, "ns");
	perf_report_u64("disable_ns", t->disable, "ns");
	perf_report_u64("reported", t->reported, "pages");
	perf_report_u64("checked", t->checked, "pages");
	perf_report_u64("ring_full_exits", dirty.ring_full_exits, "count");
	perf_report_u64("ring_harvested", dirty.harvested, "count");
	perf_report_run_end("dirty_log");
}

static void describe(const struct dl_params *p, const struct kvm_vm *vm)
{
	if (p->ring_entries)
		ksft_print_msg("Dirty log: per-vCPU rings of %u entries%s\n", p->ring_entries,
			       vm->dirty_ring_with_bitmap ?
			       ", backed by bitmaps (KVM_CAP_DIRTY_LOG_RING_WITH_BITMAP)" : "");
	else
		ksft_print_msg("Dirty log: bitmap, manual protect %s\n",
			       !dirty.manual ? "off" :
			       dirty.manual & KVM_DIRTY_LOG_INITIALLY_SET ?
			       "on, initially set" : "on");
}

static void run_test(enum vm_guest_mode mode, void *arg)
{
	const struct dl_params *p = arg;
	struct dl_times t = { 0 };
	struct timespec start;
	struct kvm_vm *vm;

	vm = perf_test_create_vm(mode, &p->o);
	perf_report_guest_mode(vm_guest_mode_string(mode));
	perf_test_set_write_percent(p->write_percent);
	perf_test_set_random_access(p->random_access, p->seed);
	perf_test_dirty_init(&dirty, vm, p->o.dirty_ring_bytes, p->manual);
	dirty.phase = "dirty";
	describe(p, vm);

	perf_report_stats_begin(vm);
	perf_report_phase("populate");
	start = timespec_now();
	perf_test_start_threads(&p->o, dl_vcpu_pass);
	run_phases(p, &t, start);
	WRITE_ONCE(keep_running, false);
	perf_test_join_threads();
	perf_report_stats_end(vm);

	t.checked = perf_test_check_memory();
	print_result(p, mode, &t);
	perf_test_dirty_free(&dirty);
	perf_test_destroy_vm(vm);
}

/* The figures this test reports (perf_report.h: --figures lists them). */
static const char *const figures[] = {
	"populate_ns", "enable_ns", "dirty_ns_avg", "get_ns_total", "get_ns_avg",
	"clear_ns_total", "clear_ns_avg", "disable_ns", "reported", "checked",
	"ring_full_exits", "ring_harvested", NULL,
};

int main(int argc, char *argv[])
{
	struct dl_params p = {
		.iterations = DEFAULT_ITERATIONS,
		.manual = true,
		.write_percent = 100,
		.seed = 1,
	};

	/* Phases print as they end, also into a pipe. */
	setvbuf(stdout, NULL, _IOLBF, 0);
	perf_test_options_init(&p.o, DEFAULT_VCPU_MEMORY, 1);
	parse_args(argc, argv, &p);
	check_params(&p);
	perf_report_figures(figures);
	perf_report_open("dirty_log_perf_test", p.o.json_path, argc, argv);
	for_each_guest_mode(run_test, &p);
	perf_report_close();
	return KSFT_PASS;
}

// SPDX-License-Identifier: GPL-2.0-only
/*
 * access_tracking_perf_test: how fast the host's page aging finds which
 * guest pages are idle, through KVM's young/clear_young MMU notifiers,
 * and what that aging costs the guest's next accesses.
 *
 * The vCPUs populate their memory (perf_test_util), an initial aging
 * starts the first period, then they write and read it again (the
 * control).  Then, with MGLRU or page_idle (access_tracking.h), timed:
 * age (the pages the guest touched must be found young), age again with
 * no guest access (now they must be idle), write the idle memory, age,
 * age, read it, age.  Each aging's time is printed with its counts.
 *
 * The bound, as upstream's: at least 90% of test pages.  What may keep
 * the rest from counting: pages still in a per-CPU LRU batch, not yet on
 * an LRU list (at most a batch of folios per CPU), translations the
 * guest keeps in a TLB that clear_young does not flush, and the test's
 * own memory in the memcg.  The batches are a count of folios, not a
 * share: 2 vCPUs' threads on 2 CPUs left 20-42 guest pages uncounted
 * whatever the size, so a case needs a few hundred guest pages a vCPU
 * for 90% to hold (64K guest pages: 32M a vCPU).  Where the host cannot
 * be exact (nested, NUMA balancing) -w auto only warns.
 */
#include <getopt.h>

#include "access_tracking.h"
#include "perf_report.h"
#include "perf_test_util.h"

#define DEFAULT_VCPU_MEMORY	(64 * MB)
#define BOUND_PERCENT		90
/* Fewer found young than this, in auto mode: aging never asked KVM. */
#define NONE_PERCENT		10

struct at_params {
	struct perf_test_options o;
	const char *tracker_name;	/* -t */
	long warn;			/* -w: >0 warn, 0 fail, <0 auto */
	const struct access_ops *t;
	bool warn_only;
	bool young_warn_only;	/* auto: aging does not ask KVM at all */
};

/* What one run measured. */
struct at_result {
	uint64_t populate_ns, write_ns, read_ns, write_idle_ns, read_idle_ns;
	uint64_t age_first_ns, age_ns, nr_ages;
	uint64_t young_min, idle_min;	/* the lowest count each check saw */
	uint64_t total;
	bool ok;
	bool kvm_young;		/* aging saw the guest's accesses */
};

static void help(const char *name, const void *arg)
{
	const struct at_params *d = arg;

	printf("usage: %s [-h] [-m mode] [-b size] [-v vcpus] [-o] [-s type]\n"
	       "          [-w warn] [-t mglru|page_idle] [-c cpus] [-N node] [--json file]\n",
	       name);
	perf_test_options_help(stdout, &d->o);
	printf(" -w: when fewer than %d%% of test pages are found young after the guest\n"
	       "     touched them, or idle after an aging with no access: >0 warn only,\n"
	       "     0 fail, <0 auto (default): fail, unless the host runs nested or\n"
	       "     with NUMA balancing, or (young only) the first aging after guest\n"
	       "     accesses finds under %d%% young: aging that does not ask KVM (MGLRU\n"
	       "     before 6.12)\n", BOUND_PERCENT, NONE_PERCENT);
	access_tracker_help(stdout, "-t");
}

static void parse_args(int argc, char *argv[], struct at_params *p)
{
	struct at_params defaults = *p;
	int opt;

	while ((opt = perf_test_getopt(argc, argv, "w:t:", &p->o, help, &defaults)) != -1) {
		switch (opt) {
		case 'w':
			p->warn = parse_long("idle page warning (-w)", optarg, -1, 1);
			break;
		case 't':
			p->tracker_name = optarg;
			break;
		}
	}
}

static void check_params(struct at_params *p)
{
	char why[160];

	if (p->o.nested)
		test_usage_error("-n: access tracking of nested guests is not measured here");
	if (backing_src_is_guest_memfd(p->o.backing))
		test_usage_error("-s %s: KVM maps guest_memfd from the file, whose pages are unevictable and off the LRU lists page_idle and MGLRU track",
				 vm_mem_backing_src_alias(p->o.backing)->name);
	perf_test_options_check(&p->o, false);
	p->t = access_tracker_get(p->tracker_name);
	p->warn_only = p->warn > 0;
	if (p->warn < 0 && access_counts_inexact(why, sizeof(why))) {
		printf("Warning only about idle page counts: %s (-w 0 fails instead)\n", why);
		p->warn_only = true;
	}
}

/* Run pass @pass of the vCPUs with @write_percent; its wall time. */
static uint64_t timed_pass(const struct at_params *p, uint64_t pass, uint32_t write_percent,
			   const char *what)
{
	struct timespec start;
	uint64_t ns;

	perf_test_set_write_percent(write_percent);
	start = timespec_now();
	if (pass == 1)
		perf_test_start_threads(&p->o, __perf_test_vcpu_pass);
	else
		perf_test_next_pass();
	TEST_ASSERT(perf_test_wait_pass(pass, NULL, NULL), "%s: pass %lu failed", what,
		    (unsigned long)pass);
	ns = timespec_to_ns(timespec_elapsed(start));
	printf("%-30s: %lu.%09lus\n", what, (unsigned long)(ns / NSEC_PER_SEC),
	       (unsigned long)(ns % NSEC_PER_SEC));
	return ns;
}

/*
 * Age, time it and count.  @expect: "young" (the guest touched every test
 * page since the previous aging), "idle" (it touched none), NULL (no check).
 */
static void age(struct at_params *p, const struct access_range *range,
		const char *expect, struct at_result *r)
{
	struct access_counts c;
	struct timespec start = timespec_now();
	uint64_t ns, got;
	char what[80];

	access_tracker_age(p->t, range, &c);
	ns = timespec_to_ns(timespec_elapsed(start));
	r->total = c.total;
	printf("%-30s: %lu.%09lus, %lu young, %lu idle of %lu pages\n",
	       expect ? "Mark memory idle" : "Initial aging", (unsigned long)(ns / NSEC_PER_SEC),
	       (unsigned long)(ns % NSEC_PER_SEC), (unsigned long)c.young,
	       (unsigned long)c.idle, (unsigned long)c.total);
	if (!expect) {
		r->age_first_ns = ns;
		return;
	}
	r->age_ns += ns;
	r->nr_ages++;
	got = !strcmp(expect, "young") ? c.young : c.idle;
	if (!strcmp(expect, "young") && r->nr_ages == 1 && p->warn < 0 &&
	    got < c.total * NONE_PERCENT / 100) {
		printf("WARNING: %s found %lu of %lu guest-touched pages young: this kernel's aging does not ask KVM (the secondary MMU) for Accessed bits; -w 0 fails instead\n",
		       p->t->name, (unsigned long)got, (unsigned long)c.total);
		p->young_warn_only = true;
		r->kvm_young = false;
	}
	snprintf(what, sizeof(what), "%s: pages found %s", p->t->name, expect);
	r->ok &= access_check_bound(what, got, c.total * BOUND_PERCENT / 100, c.total,
				    p->warn_only || (p->young_warn_only && !strcmp(expect, "young")));
	if (!strcmp(expect, "young"))
		r->young_min = r->nr_ages == 1 || got < r->young_min ? got : r->young_min;
	else
		r->idle_min = !r->idle_min || got < r->idle_min ? got : r->idle_min;
}

static void run_phases(struct at_params *p, struct at_result *r)
{
	uint64_t stride = perf_test_args.page_size > (uint64_t)getpagesize() ?
			  perf_test_args.page_size : (uint64_t)getpagesize();
	struct access_range range = { perf_test_hva(0), perf_test_args.size, stride };

	r->populate_ns = timed_pass(p, 1, 100, "Populating memory");
	age(p, &range, NULL, r);
	r->write_ns = timed_pass(p, 2, 100, "Writing to populated memory");
	r->read_ns = timed_pass(p, 3, 0, "Reading from populated memory");
	perf_report_stats_begin(perf_test_args.vm);
	age(p, &range, "young", r);
	age(p, &range, "idle", r);
	r->write_idle_ns = timed_pass(p, 4, 100, "Writing to idle memory");
	age(p, &range, "young", r);
	age(p, &range, "idle", r);
	r->read_idle_ns = timed_pass(p, 5, 0, "Reading from idle memory");
	age(p, &range, "young", r);
	perf_report_stats_end(perf_test_args.vm);
	perf_test_join_threads();
}

static void report(const struct at_params *p, const struct at_result *r)
{
	uint64_t age_ns = r->nr_ages ? r->age_ns / r->nr_ages : 0;

	printf("Aging (%s): %lu pages in %lu.%09lus on average, %.1f pages/s\n", p->t->name,
	       (unsigned long)r->total, (unsigned long)(age_ns / NSEC_PER_SEC),
	       (unsigned long)(age_ns % NSEC_PER_SEC), rate_per_sec(r->total, age_ns));
	perf_report_opt_str("tracker", p->t->name);
	perf_report_opt_str("backing", vm_mem_backing_src_alias(p->o.backing)->name);
	perf_report_opt_int("vcpus", p->o.nr_vcpus);
	perf_report_opt_int("vcpu_bytes", p->o.vcpu_memory_bytes);
	perf_report_opt_int("overlap", !p->o.partition);
	perf_report_opt_int("warn_only", p->warn_only);
	perf_report_u64("pages", r->total, "pages");
	perf_report_u64("populate_ns", r->populate_ns, "ns");
	perf_report_u64("write_ns", r->write_ns, "ns");
	perf_report_u64("read_ns", r->read_ns, "ns");
	perf_report_u64("age_first_ns", r->age_first_ns, "ns");
	perf_report_u64("age_ns", age_ns, "ns");
	perf_report_double("age_rate", rate_per_sec(r->total, age_ns), "pages/s");
	perf_report_u64("write_idle_ns", r->write_idle_ns, "ns");
	perf_report_u64("read_idle_ns", r->read_idle_ns, "ns");
	perf_report_u64("young_min", r->young_min, "pages");
	perf_report_u64("idle_min", r->idle_min, "pages");
	perf_report_opt_int("counts_ok", r->ok);
	perf_report_opt_int("kvm_young", r->kvm_young);
	perf_report_stats_in_result();
	perf_report_run_end("access_tracking");
}

static void run_guest_mode(enum vm_guest_mode mode, void *arg)
{
	struct at_params *p = arg;
	struct at_result r = { .ok = true, .kvm_young = true };
	struct kvm_vm *vm = perf_test_create_vm(mode, &p->o);

	/* After the VM's own memory, before test memory: only it is counted. */
	access_tracker_setup(p->t);
	perf_report_guest_mode(vm_guest_mode_string(mode));
	run_phases(p, &r);
	access_tracker_teardown(p->t);
	perf_test_check_memory();
	report(p, &r);
	perf_test_destroy_vm(vm);
}

/* The figures this test reports (perf_report.h: --figures lists them). */
static const char *const figures[] = {
	"pages", "populate_ns", "write_ns", "read_ns", "age_first_ns", "age_ns", "age_rate",
	"write_idle_ns", "read_idle_ns", "young_min", "idle_min", NULL,
};

int main(int argc, char *argv[])
{
	struct at_params p = { .warn = -1 };

	perf_test_options_init(&p.o, DEFAULT_VCPU_MEMORY, 1);
	parse_args(argc, argv, &p);
	check_params(&p);
	perf_report_figures(figures);
	perf_report_open("access_tracking_perf_test", p.o.json_path, argc, argv);
	for_each_guest_mode(run_guest_mode, &p);
	perf_report_close();
	return KSFT_PASS;
}

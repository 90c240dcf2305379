// SPDX-License-Identifier: GPL-2.0-only
/*
 * memslot_modification_stress_test: vCPUs walk their memory over and over
 * (perf_test_util's guest code) while the main thread adds and deletes a
 * memslot just below test memory, -i times, -d microseconds apart: every
 * change makes KVM swap its memslot arrays and wait for the vCPUs to
 * leave their SRCU read sides, and a delete zaps the slot's mappings
 * (x86: all mappings, unless -q disables KVM_X86_QUIRK_SLOT_ZAP_ALL).
 *
 * Prints how long each add and each delete took (the ioctl alone: the
 * slot's host memory is mapped once), as a distribution, and how many
 * walks of their memory the vCPUs made meanwhile.  Every vCPU must finish
 * its walk once the changes stop, and afterwards every page must hold
 * what its vCPU wrote.
 */
#include <getopt.h>

#include "latency_hist.h"
#include "perf_report.h"
#include "perf_test_util.h"

#define DEFAULT_VCPU_MEMORY	(16 * MB)
#define DEFAULT_ITERATIONS	10
#define MAX_ITERATIONS		100000000L

struct mm_params {
	struct perf_test_options o;
	long iterations;	/* -i */
	long delay_us;		/* -d */
	bool no_zap_quirk;	/* -q */
};

struct mm_times {
	struct latency_hist add, del;
	uint64_t add_min, del_min;
	uint64_t loop_ns;
	uint64_t walks_before[KVM_MAX_VCPUS];	/* at the first change */
	uint64_t walks_after[KVM_MAX_VCPUS];	/* at the last */
	uint64_t checked;
};

/* Shared with the vCPU threads. */
static bool keep_running;
static uint64_t walks[KVM_MAX_VCPUS];

/* Walk after walk until the changes stop; each walk ends in a GUEST_SYNC. */
static int mm_vcpu_pass(struct perf_test_vcpu_args *va, uint64_t pass)
{
	int ret;

	for (;;) {
		ret = __perf_test_vcpu_pass(va, pass);
		if (ret)
			return ret;
		WRITE_ONCE(walks[va->vcpu_idx], walks[va->vcpu_idx] + 1);
		if (!READ_ONCE(keep_running))
			return 0;
	}
}

static void help(const char *name, const void *defaults)
{
	const struct mm_params *d = defaults;

	printf("usage: %s [-h] [-m mode] [-d delay_usec] [-q] [-b size] [-v vcpus] [-o]\n"
	       "          [-i iterations] [-s type] [-c cpus] [-B] [-N node] [-p offset]\n"
	       "          [-L] [--json file]\n", name);
	perf_test_options_help(stdout, &d->o);
	printf(" -d: delay between one add and delete of the memslot and the next, in\n"
	       "     microseconds (default: 0)\n"
	       " -q: disable the memslot zap quirk (x86 KVM_X86_QUIRK_SLOT_ZAP_ALL): a\n"
	       "     delete zaps only the slot's mappings\n"
	       " -i: times to add and delete the memslot (default: %ld)\n"
	       "The memslot is one page of the -s backing (or guest page) below test memory.\n",
	       d->iterations);
}

static void parse_args(int argc, char *argv[], struct mm_params *p)
{
	struct mm_params defaults = *p;
	int opt;

	while ((opt = perf_test_getopt(argc, argv, "d:qi:", &p->o, help, &defaults)) != -1) {
		if (opt == 'd')
			p->delay_us = parse_long("delay (-d)", optarg, 0, 10000000);
		else if (opt == 'q')
			p->no_zap_quirk = true;
		else if (opt == 'i')
			p->iterations = parse_long("iteration count (-i)", optarg, 1, MAX_ITERATIONS);
	}
}

/* Everything decided before any work: usage errors, then skips. */
static void check_params(struct mm_params *p)
{
	char why[200];

	if (p->o.nested)
		test_usage_error("-n: this test's vCPUs do not run nested (L1's tables would not follow the memslot)");
	perf_test_options_check(&p->o, false);
	if (p->no_zap_quirk && kvm_slot_zap_quirk_unavailable(why, sizeof(why)))
		test_skip("-q: %s", why);
}

/* The memslot that comes and goes: one page right below test memory. */
static uint64_t dummy_gpa(struct kvm_vm *vm, uint64_t size)
{
	struct userspace_mem_region *r0 = memslot2region(vm, 0);
	uint64_t gpa = perf_test_args.gpa - size;

	if (perf_test_args.gpa < size ||
	    gpa < r0->region.guest_phys_addr + r0->region.memory_size)
		test_usage_error("No room for the memslot below test memory at GPA 0x%lx (-p): it would overlap the test binary's",
				 (unsigned long)perf_test_args.gpa);
	return gpa;
}

static void time_change(struct latency_hist *h, uint64_t *min, struct timespec start)
{
	uint64_t ns = timespec_to_ns(timespec_elapsed(start));

	latency_hist_add(h, ns);
	if (!*min || ns < *min)
		*min = ns;
}

/* Add and delete the slot -i times; negative (recorded) if KVM refused. */
static int modify_slots(struct kvm_vm *vm, const struct mm_params *p,
			const struct userspace_mem_region *r, uint64_t gpa, uint64_t size,
			struct mm_times *t)
{
	uint32_t flags = r->region.flags;
	void *hva = r->host_mem;
	uint32_t slot = PERF_TEST_MEM_SLOT + p->o.nr_slots;
	struct timespec start, loop = timespec_now();
	long i;

	for (i = 0; i < p->iterations; i++) {
		if (p->delay_us)
			usleep(p->delay_us);
		start = timespec_now();
		if (__vm_set_user_memory_region2(vm, slot, flags, gpa, size, hva, r->gmem_fd, 0))
			break;
		time_change(&t->add, &t->add_min, start);
		start = timespec_now();
		if (__vm_set_user_memory_region2(vm, slot, flags, gpa, 0, hva, r->gmem_fd, 0))
			break;
		time_change(&t->del, &t->del_min, start);
	}
	t->loop_ns = timespec_to_ns(timespec_elapsed(loop));
	if (i == p->iterations)
		return 0;
	return perf_test_fail("%s memslot %u (GPA 0x%lx, 0x%lx bytes), change %ld: %s",
			      t->add.count == t->del.count ? "Adding" : "Deleting", slot,
			      (unsigned long)gpa, (unsigned long)size, i + 1, strerror(errno));
}

static void snapshot_walks(uint64_t *to, int nr_vcpus)
{
	int i;

	for (i = 0; i < nr_vcpus; i++)
		to[i] = READ_ONCE(walks[i]);
}

/* Every vCPU finished a walk after the last change; every page holds its pattern. */
static void check_result(const struct mm_params *p, bool done, struct mm_times *t)
{
	uint64_t pages = perf_test_args.size / perf_test_args.page_size;
	int i;

	TEST_ASSERT(done, "Not every vCPU finished its walk after the memslot changes");
	for (i = 0; i < p->o.nr_vcpus; i++)
		TEST_ASSERT(walks[i] >= 1, "vCPU %d made no walk of its memory", i);
	t->checked = perf_test_check_memory();
	TEST_ASSERT(t->checked == pages, "%lu of %lu pages checked", (unsigned long)t->checked,
		    (unsigned long)pages);
}

static void print_dist(const char *what, const char *key, const struct latency_hist *h,
		       uint64_t min)
{
	static char keys[2][4][24];
	int k = key[0] == 'd', i;
	const uint64_t v[4] = {
		min, latency_hist_percentile(h, 50), latency_hist_percentile(h, 99), h->max,
	};
	static const char * const sfx[] = { "min", "p50", "p99", "max" };

	printf("%s: %lu, min %lu ns, p50 %lu ns, p99 %lu ns, max %lu ns, avg %lu ns\n", what,
	       (unsigned long)h->count, (unsigned long)v[0], (unsigned long)v[1],
	       (unsigned long)v[2], (unsigned long)v[3],
	       (unsigned long)(h->count ? h->sum / h->count : 0));
	for (i = 0; i < 4; i++) {
		snprintf(keys[k][i], sizeof(keys[k][i]), "%s_ns_%s", key, sfx[i]);
		perf_report_u64(keys[k][i], v[i], "ns");
	}
}

static void print_result(const struct mm_params *p, enum vm_guest_mode mode,
			 const struct mm_times *t)
{
	uint64_t during = 0, total = 0, d;
	int i;

	for (i = 0; i < p->o.nr_vcpus; i++) {
		d = t->walks_after[i] - t->walks_before[i];
		during += d;
		total += walks[i];
		printf("vCPU %d: %lu walks of its memory, %lu of them while the memslot changed\n",
		       i, (unsigned long)walks[i], (unsigned long)d);
		printf("RESULT_VCPU vcpu=%d walks=%lu walks_during=%lu\n", i,
		       (unsigned long)walks[i], (unsigned long)d);
	}
	printf("Memslot changes: %ld adds and deletes in %lu.%09lus\n", p->iterations,
	       (unsigned long)(t->loop_ns / NSEC_PER_SEC),
	       (unsigned long)(t->loop_ns % NSEC_PER_SEC));
	perf_report_opt_int("mode", mode);
	perf_report_opt_str("backing", vm_mem_backing_src_alias(p->o.backing)->name);
	perf_report_opt_int("vcpus", p->o.nr_vcpus);
	perf_report_opt_int("vcpu_bytes", p->o.vcpu_memory_bytes);
	perf_report_opt_int("overlap", !p->o.partition);
	perf_report_opt_int("iterations", p->iterations);
	perf_report_opt_int("delay_us", p->delay_us);
	perf_report_opt_int("slot_zap_quirk", !p->no_zap_quirk);
	print_dist("Memslot add", "add", &t->add, t->add_min);
	print_dist("Memslot delete", "del", &t->del, t->del_min);
	perf_report_u64("loop_ns", t->loop_ns, "ns");
	perf_report_u64("walks", total, "count");
	perf_report_u64("walks_during", during, "count");
	perf_report_double("walk_rate", rate_per_sec(during, t->loop_ns), "walks/s");
	perf_report_u64("checked", t->checked, "pages");
	perf_report_run_end("memslot_modification_stress");
}

static void run_test(enum vm_guest_mode mode, void *arg)
{
	const struct mm_params *p = arg;
	struct userspace_mem_region r = { .src_type = p->o.backing };
	struct mm_times *t = calloc(1, sizeof(*t));
	struct kvm_vm *vm;
	uint64_t size, gpa;
	bool ok, done;

	TEST_ASSERT(t, "Out of memory");
	vm = perf_test_create_vm(mode, &p->o);
	perf_report_guest_mode(vm_guest_mode_string(mode));
	if (p->no_zap_quirk)
		vm_disable_slot_zap_quirk(vm);
	ksft_print_msg("Memslot zap quirk %s\n", p->no_zap_quirk ? "disabled" : "as KVM has it");
	size = get_backing_src_pagesz(p->o.backing);
	size = size > vm->page_size ? size : vm->page_size;
	gpa = dummy_gpa(vm, size);
	r.gmem_fd = -1;
	if (backing_src_is_guest_memfd(r.src_type))
		region_guest_memfd(vm, &r, size);
	backing_region_map(&r, size);
	memset(walks, 0, sizeof(walks));
	WRITE_ONCE(keep_running, true);

	perf_report_stats_begin(vm);
	perf_test_start_threads(&p->o, mm_vcpu_pass);
	snapshot_walks(t->walks_before, p->o.nr_vcpus);
	ok = !modify_slots(vm, p, &r, gpa, size, t);
	snapshot_walks(t->walks_after, p->o.nr_vcpus);
	WRITE_ONCE(keep_running, false);
	done = ok && perf_test_wait_pass(1, NULL, NULL);
	perf_test_join_threads();
	perf_report_stats_end(vm);

	check_result(p, done, t);
	print_result(p, mode, t);
	backing_region_unmap(&r);
	perf_test_destroy_vm(vm);
	free(t);
}

/* The figures this test reports (perf_report.h: --figures lists them). */
static const char *const figures[] = {
	"add_ns_min", "add_ns_p50", "add_ns_p99", "add_ns_max", "del_ns_min", "del_ns_p50",
	"del_ns_p99", "del_ns_max", "loop_ns", "walks", "walks_during", "walk_rate",
	"checked", NULL,
};

int main(int argc, char *argv[])
{
	struct mm_params p = { .iterations = DEFAULT_ITERATIONS };

	setvbuf(stdout, NULL, _IOLBF, 0);
	perf_test_options_init(&p.o, DEFAULT_VCPU_MEMORY, 1);
	parse_args(argc, argv, &p);
	check_params(&p);
	perf_report_figures(figures);
	perf_report_open("memslot_modification_stress_test", p.o.json_path, argc, argv);
	for_each_guest_mode(run_test, &p);
	perf_report_close();
	return KSFT_PASS;
}

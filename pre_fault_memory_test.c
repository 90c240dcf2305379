// SPDX-License-Identifier: GPL-2.0-only
/*
 * pre_fault_memory_test: KVM_PRE_FAULT_MEMORY maps guest memory in KVM's
 * stage-2 page tables before the guest touches it.
 *
 * Correctness, as upstream checks it: a whole range maps with the
 * progress (gpa, size) reported back on every call; a range running past
 * the end of its memslot maps up to the end, then fails with ENOENT and
 * the rest left in size; a range outside any memslot fails with ENOENT;
 * bad flags, alignment or size fail with EINVAL.
 *
 * The measurement: the pre-fault rate (guest pages/s) of test memory
 * against the demand-fault rate of the same memory in a fresh VM (the
 * vCPUs' first read pass), and the first read pass over pre-faulted
 * memory, which must take no page faults (the pf_taken stat, where KVM
 * has it).  Both VMs have their own memory (slot 0) pre-faulted, so the
 * faults counted are test memory's.  Pre-faulting maps as a read fault
 * would: the passes read.
 */
#include <getopt.h>

#include "perf_report.h"
#include "perf_test_util.h"

#ifndef KVM_CAP_PRE_FAULT_MEMORY
#define KVM_CAP_PRE_FAULT_MEMORY	236
struct kvm_pre_fault_memory {
	__u64 gpa;
	__u64 size;
	__u64 flags;
	__u64 padding[5];
};
#define KVM_PRE_FAULT_MEMORY	_IOWR(KVMIO, 0xd5, struct kvm_pre_fault_memory)
#endif

#define DEFAULT_VCPU_MEMORY	(16 * MB)
#define DEFAULT_PHYS_OFFSET	(1 * GB)	/* room above test memory: no slot */

struct pf_params {
	struct perf_test_options o;
};

struct pf_result {
	uint64_t pages;		/* guest pages of test memory */
	uint64_t prefault_ns, prefault_calls;
	uint64_t demand_ns, demand_faults;
	uint64_t first_ns, first_faults;
	uint64_t mapped_4k;	/* 4K pages KVM mapped while pre-faulting (x86 stats) */
	bool have_pf_stat, have_page_stats;
};

static void help(const char *name, const void *defaults)
{
	const struct pf_params *d = defaults;

	printf("usage: %s [-h] [-m mode] [-b size] [-v vcpus] [-s type] [-p offset]\n"
	       "          [-c cpus] [-L] [--json file]\n", name);
	perf_test_options_help(stdout, &d->o);
	printf(" (here -p defaults to 0x%llx: the range above test memory has no memslot)\n",
	       (unsigned long long)DEFAULT_PHYS_OFFSET);
}

static void parse_args(int argc, char *argv[], struct pf_params *p)
{
	struct pf_params defaults = *p;

	/* Every option is a shared one: none is left to this test. */
	TEST_ASSERT(perf_test_getopt(argc, argv, "", &p->o, help, &defaults) == -1,
		    "an option perf_test_parse_opt() does not know");
	if (p->o.nested)
		test_usage_error("-n: KVM_PRE_FAULT_MEMORY cannot map for a nested guest (shadow paging)");
	if (!p->o.partition)
		test_usage_error("-o: each vCPU reads its own slice here");
}

/* Decided before any work: the capability, on /dev/kvm and on a VM. */
static void check_params(struct pf_params *p)
{
	struct kvm_vm *vm;
	int cap;

	perf_test_options_check(&p->o, false);
	if (!kvm_has_cap(KVM_CAP_PRE_FAULT_MEMORY))
		test_skip("KVM_CAP_PRE_FAULT_MEMORY: not supported by this KVM (6.11+, x86 with TDP)");
	vm = vm_create_barebones();
	cap = vm_check_cap(vm, KVM_CAP_PRE_FAULT_MEMORY);
	kvm_vm_free(vm);
	if (cap <= 0)
		test_skip("KVM_CAP_PRE_FAULT_MEMORY: not supported by the default VM type");
}

/*
 * KVM_PRE_FAULT_MEMORY on [gpa, gpa + size) until done or an error:
 * every call that succeeds must have made progress, reported back in
 * gpa and size; one that fails must have left them alone.  Returns 0 or
 * the errno that ended it, with what is left in *left.
 */
static int pre_fault(struct kvm_vcpu *vcpu, uint64_t gpa, uint64_t size, uint64_t *left,
		     uint64_t *calls)
{
	struct kvm_pre_fault_memory r = { .gpa = gpa, .size = size };
	uint64_t prev_gpa, prev_size;
	int ret;

	do {
		prev_gpa = r.gpa;
		prev_size = r.size;
		ret = __vcpu_ioctl(vcpu, KVM_PRE_FAULT_MEMORY, &r);
		if (calls)
			(*calls)++;
		if (ret < 0 && errno == EINTR)
			continue;
		if (ret < 0)
			break;
		TEST_ASSERT(r.size < prev_size && r.gpa - prev_gpa == prev_size - r.size,
			    "KVM_PRE_FAULT_MEMORY succeeded on [0x%lx, +0x%lx) with no progress reported: gpa 0x%lx size 0x%lx",
			    (unsigned long)prev_gpa, (unsigned long)prev_size,
			    (unsigned long)r.gpa, (unsigned long)r.size);
	} while (r.size);
	if (ret < 0)
		TEST_ASSERT(r.gpa == prev_gpa && r.size == prev_size,
			    "KVM_PRE_FAULT_MEMORY failed (errno %d) but changed the range to gpa 0x%lx size 0x%lx",
			    errno, (unsigned long)r.gpa, (unsigned long)r.size);
	*left = r.size;
	return ret < 0 ? errno : 0;
}

static void expect_pre_fault(struct kvm_vcpu *vcpu, uint64_t gpa, uint64_t size,
			     int want_err, uint64_t want_left, const char *what)
{
	uint64_t left;
	int err = pre_fault(vcpu, gpa, size, &left, NULL);

	TEST_ASSERT(err == want_err && left == want_left,
		    "%s: [0x%lx, +0x%lx) ended with errno %d (%s), 0x%lx left; expected errno %d, 0x%lx left",
		    what, (unsigned long)gpa, (unsigned long)size, err, strerror(err),
		    (unsigned long)left, want_err, (unsigned long)want_left);
	printf("ok: %s: errno %d, 0x%lx bytes left\n", what, err, (unsigned long)left);
}

static void expect_einval(struct kvm_vcpu *vcpu, struct kvm_pre_fault_memory r, const char *what)
{
	int ret = __vcpu_ioctl(vcpu, KVM_PRE_FAULT_MEMORY, &r);

	TEST_ASSERT_IOCTL_ERRNO(what, ret, EINVAL);
	printf("ok: %s: EINVAL\n", what);
}

/* Upstream's checks, on test memory (mapped or not, the semantics are the same). */
static void check_semantics(struct kvm_vcpu *vcpu)
{
	uint64_t pg = perf_test_args.page_size, gpa = perf_test_args.gpa;
	uint64_t size = perf_test_args.size, end = gpa + size;

	expect_pre_fault(vcpu, gpa, size - 2 * pg, 0, 0, "whole range");
	expect_pre_fault(vcpu, end - 2 * pg, 4 * pg, ENOENT, 2 * pg,
			 "range past the end of the slot");
	expect_pre_fault(vcpu, end, 4 * pg, ENOENT, 4 * pg, "range outside any slot");
	expect_einval(vcpu, (struct kvm_pre_fault_memory) { .gpa = gpa, .size = pg, .flags = 1 },
		      "flags 1");
	expect_einval(vcpu, (struct kvm_pre_fault_memory) { .gpa = gpa + 1, .size = pg },
		      "unaligned gpa");
	expect_einval(vcpu, (struct kvm_pre_fault_memory) { .gpa = gpa, .size = 0 }, "size 0");
	expect_einval(vcpu, (struct kvm_pre_fault_memory) { .gpa = -pg, .size = 2 * pg },
		      "range wrapping around");
}

static uint64_t stat_sum(struct kvm_vm *vm, bool vcpu, const char *name, bool *found)
{
	struct kvm_vcpu *v;
	uint64_t sum = 0, x;

	*found = false;
	if (!kvm_has_cap(KVM_CAP_BINARY_STATS_FD))
		return 0;
	if (!vcpu) {
		*found = kvm_read_stat(vm->fd, name, &sum);
		return sum;
	}
	for (v = vm->vcpus; v; v = v->next)
		if (kvm_read_stat(v->fd, name, &x)) {
			sum += x;
			*found = true;
		}
	return sum;
}

/* 4K pages KVM maps (x86's pages_4k/2m/1g VM stats); *found false without them. */
static uint64_t mapped_4k(struct kvm_vm *vm, bool *found)
{
	bool f4, f2, f1;
	uint64_t n = stat_sum(vm, false, "pages_4k", &f4) +
		     512 * stat_sum(vm, false, "pages_2m", &f2) +
		     512 * 512 * stat_sum(vm, false, "pages_1g", &f1);

	*found = f4 && f2 && f1;
	return n;
}

/* Pre-fault the VM's own memory (slot 0): the passes then fault test memory only. */
static void pre_fault_slot0(struct kvm_vm *vm)
{
	struct userspace_mem_region *r = memslot2region(vm, 0);
	uint64_t left;
	int err = pre_fault(vm->vcpus, r->region.guest_phys_addr, r->region.memory_size,
			    &left, NULL);

	TEST_ASSERT(!err, "Pre-faulting slot 0: errno %d (%s), 0x%lx left", err, strerror(err),
		    (unsigned long)left);
}

/* One read pass of every vCPU: its time, and the page faults KVM took. */
static uint64_t read_pass(const struct pf_params *p, uint64_t *faults, bool *have)
{
	struct kvm_vm *vm = perf_test_args.vm;
	struct timespec start;
	uint64_t ns, before;

	perf_test_set_write_percent(0);
	before = stat_sum(vm, true, "pf_taken", have);
	start = timespec_now();
	perf_test_start_threads(&p->o, __perf_test_vcpu_pass);
	TEST_ASSERT(perf_test_wait_pass(1, NULL, NULL), "The read pass failed");
	ns = timespec_to_ns(timespec_elapsed(start));
	perf_test_join_threads();
	*faults = stat_sum(vm, true, "pf_taken", have) - before;
	return ns;
}

static void print_rate(const char *what, uint64_t pages, uint64_t ns, const char *extra)
{
	printf("%-34s: %lu.%09lus, %lu pages, %.1f pages/s%s\n", what,
	       (unsigned long)(ns / NSEC_PER_SEC), (unsigned long)(ns % NSEC_PER_SEC),
	       (unsigned long)pages, rate_per_sec(pages, ns), extra);
}

/* A fresh VM, no pre-fault of test memory: the read pass demand-faults it. */
static void run_demand(const struct pf_params *p, enum vm_guest_mode mode, struct pf_result *r)
{
	struct kvm_vm *vm = perf_test_create_vm(mode, &p->o);
	char extra[64];

	r->pages = perf_test_args.size / perf_test_args.page_size;
	pre_fault_slot0(vm);
	r->demand_ns = read_pass(p, &r->demand_faults, &r->have_pf_stat);
	snprintf(extra, sizeof(extra), ", %lu faults", (unsigned long)r->demand_faults);
	print_rate("Demand-fault read pass", r->pages, r->demand_ns, extra);
	check_semantics(vm->vcpus);
	perf_test_destroy_vm(vm);
}

static void run_prefault(const struct pf_params *p, enum vm_guest_mode mode, struct pf_result *r)
{
	struct kvm_vm *vm = perf_test_create_vm(mode, &p->o);
	uint64_t left, before;
	struct timespec start;
	char extra[64];
	int err;

	pre_fault_slot0(vm);
	before = mapped_4k(vm, &r->have_page_stats);
	start = timespec_now();
	err = pre_fault(vm->vcpus, perf_test_args.gpa, perf_test_args.size, &left,
			&r->prefault_calls);
	r->prefault_ns = timespec_to_ns(timespec_elapsed(start));
	TEST_ASSERT(!err, "Pre-faulting test memory: errno %d (%s), 0x%lx left", err,
		    strerror(err), (unsigned long)left);
	r->mapped_4k = mapped_4k(vm, &r->have_page_stats) - before;
	snprintf(extra, sizeof(extra), ", %lu calls", (unsigned long)r->prefault_calls);
	print_rate("KVM_PRE_FAULT_MEMORY", r->pages, r->prefault_ns, extra);
	perf_report_stats_begin(vm);
	r->first_ns = read_pass(p, &r->first_faults, &r->have_pf_stat);
	perf_report_stats_end(vm);
	snprintf(extra, sizeof(extra), ", %lu faults", (unsigned long)r->first_faults);
	print_rate("Read pass over pre-faulted memory", r->pages, r->first_ns, extra);
	perf_test_check_memory();
	perf_test_destroy_vm(vm);
}

/* The outcome: pre-faulting mapped all of test memory, and the guest faulted on none. */
static void check_result(const struct pf_result *r)
{
	uint64_t want_4k = perf_test_args.size / 4096;

	if (r->have_page_stats)
		TEST_ASSERT(r->mapped_4k >= want_4k,
			    "Pre-faulting mapped %lu 4K pages' worth (pages_4k/2m/1g), test memory is %lu",
			    (unsigned long)r->mapped_4k, (unsigned long)want_4k);
	else
		printf("No pages_4k/2m/1g stats: how much pre-faulting mapped is not checked\n");
	if (r->have_pf_stat)
		TEST_ASSERT(!r->first_faults,
			    "The first read pass over pre-faulted memory took %lu page faults (pf_taken)",
			    (unsigned long)r->first_faults);
	else
		printf("No pf_taken stat: faults after pre-faulting are not checked\n");
}

static void report(const struct pf_params *p, const struct pf_result *r)
{
	perf_report_opt_str("backing", vm_mem_backing_src_alias(p->o.backing)->name);
	perf_report_opt_int("vcpus", p->o.nr_vcpus);
	perf_report_opt_int("vcpu_bytes", p->o.vcpu_memory_bytes);
	perf_report_opt_int("guest_page_size", perf_test_args.page_size);
	perf_report_u64("pages", r->pages, "pages");
	perf_report_u64("prefault_ns", r->prefault_ns, "ns");
	perf_report_double("prefault_rate", rate_per_sec(r->pages, r->prefault_ns), "pages/s");
	perf_report_u64("prefault_calls", r->prefault_calls, "count");
	perf_report_u64("demand_ns", r->demand_ns, "ns");
	perf_report_double("demand_rate", rate_per_sec(r->pages, r->demand_ns), "pages/s");
	perf_report_u64("demand_faults", r->demand_faults, "count");
	perf_report_u64("first_pass_ns", r->first_ns, "ns");
	perf_report_double("first_pass_rate", rate_per_sec(r->pages, r->first_ns), "pages/s");
	perf_report_u64("first_pass_faults", r->first_faults, "count");
	perf_report_opt_int("faults_checked", r->have_pf_stat);
	perf_report_u64("mapped_4k", r->mapped_4k, "pages");
	perf_report_stats_in_result();
	perf_report_run_end("pre_fault_memory");
}

static void run_guest_mode(enum vm_guest_mode mode, void *arg)
{
	struct pf_params *p = arg;
	struct pf_result r = { 0 };

	perf_report_guest_mode(vm_guest_mode_string(mode));
	run_demand(p, mode, &r);
	run_prefault(p, mode, &r);
	check_result(&r);
	report(p, &r);
}

/* The figures this test reports (perf_report.h: --figures lists them). */
static const char *const figures[] = {
	"pages", "prefault_ns", "prefault_rate", "prefault_calls", "demand_ns", "demand_rate",
	"demand_faults", "first_pass_ns", "first_pass_rate", "first_pass_faults", "mapped_4k",
	NULL,
};

int main(int argc, char *argv[])
{
	struct pf_params p;

	perf_test_options_init(&p.o, DEFAULT_VCPU_MEMORY, 1);
	p.o.phys_offset = DEFAULT_PHYS_OFFSET;
	parse_args(argc, argv, &p);
	check_params(&p);
	perf_report_figures(figures);
	perf_report_open("pre_fault_memory_test", p.o.json_path, argc, argv);
	for_each_guest_mode(run_guest_mode, &p);
	perf_report_close();
	return KSFT_PASS;
}

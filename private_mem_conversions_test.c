// SPDX-License-Identifier: GPL-2.0-only
/*
 * private_mem_conversions_test: guest memory converted between private
 * and shared while vCPUs run, timed.
 *
 * Test memory is guest_memfd_private: a guest_memfd for the private pages,
 * anonymous memory as the slot's shared view, all of it private at the
 * start, each vCPU its own -b bytes.  In each of -r rounds every vCPU
 * writes and reads back its private pages, then walks them in chunks of
 * -k pages; for each chunk it asks, through a ucall:
 *
 *  to shared   the host sets the chunk's attributes to shared and punches
 *              the chunk out of the guest_memfd (its private content is
 *              gone), then writes a pattern into the shared view; the
 *              guest must read that pattern, then writes its own;
 *  to private  the host checks the guest's pattern in the shared view,
 *              sets the attributes to private and drops the shared pages
 *              (MADV_DONTNEED); the guest must read zeroes (fresh private
 *              pages, nothing of the old private or the shared content).
 *
 * Each conversion is timed on the host (the attribute change and the
 * punch or drop), per conversion and per page.  A KVM_EXIT_MEMORY_FAULT
 * (the guest touched a page whose attribute changed under it) is counted
 * and answered by converting the page as the exit asks.  Where KVM has no
 * VM type with private memory the test skips, saying why.
 */
#include <getopt.h>
#include <sys/mman.h>

#include "fault_inject.h"
#include "perf_report.h"
#include "perf_test_util.h"

#define DEFAULT_VCPU_MEMORY	(2 * MB)
#define DEFAULT_CHUNK_PAGES	16
#define DEFAULT_ROUNDS		4

/* GUEST_SYNC_ARGS stages: a conversion request (gpa, size). */
#define PMC_TO_SHARED		0x70c5
#define PMC_TO_PRIVATE		0x70c9

#define PMC_PRIVATE(round, gpa)	(0x9e17000000000000ULL ^ ((uint64_t)(round) << 48) ^ (gpa))
#define PMC_HOST(round, gpa)	(0x4057000000000000ULL ^ ((uint64_t)(round) << 48) ^ (gpa))
#define PMC_SHARED(round, gpa)	(0x54a7000000000000ULL ^ ((uint64_t)(round) << 48) ^ (gpa))

/* Read by the guest (its copy in guest memory). */
static struct {
	uint64_t chunk_pages;
	uint64_t rounds;
} pmc;

struct pmc_params {
	struct perf_test_options o;
	uint64_t chunk_pages;	/* -k */
	uint64_t rounds;	/* -r */
};

/* KVM_SELFTEST_FAIL: leave out the punch, or the host's writes. */
static bool punch_skip, host_write_skip;

/* Host side, summed over the vCPU threads. */
static struct {
	uint64_t conversions[2];	/* to shared, to private */
	uint64_t pages[2];
	uint64_t ns[2];
	uint64_t memory_faults;
} tally;

static __guest_code uint64_t *guest_page(uint64_t off)
{
	return (uint64_t *)(perf_test_args.gva + off);
}

static __guest_code void guest_code(uint32_t idx)
{
	struct perf_test_vcpu_args *va = &perf_test_args.vcpu_args[idx];
	uint64_t psz = perf_test_args.page_size, n = va->pages, round, c, i, k, off, gpa;
	uint64_t last = psz / 8 - 1, *p;

	for (round = 1; round <= pmc.rounds; round++) {
		for (i = 0; i < n; i++) {
			off = va->offset + i * psz;
			WRITE_ONCE(*guest_page(off), PMC_PRIVATE(round, perf_test_args.gpa + off));
		}
		for (i = 0; i < n; i++) {
			off = va->offset + i * psz;
			GUEST_ASSERT_EQ(READ_ONCE(*guest_page(off)),
					PMC_PRIVATE(round, perf_test_args.gpa + off));
		}
		for (c = 0; c < n; c += pmc.chunk_pages) {
			k = n - c < pmc.chunk_pages ? n - c : pmc.chunk_pages;
			off = va->offset + c * psz;
			gpa = perf_test_args.gpa + off;
			GUEST_SYNC_ARGS(PMC_TO_SHARED, gpa, k * psz, round, 0);
			for (i = 0; i < k; i++) {
				p = guest_page(off + i * psz);
				GUEST_ASSERT_EQ(READ_ONCE(p[0]), PMC_HOST(round, gpa + i * psz));
				WRITE_ONCE(p[0], PMC_SHARED(round, gpa + i * psz));
			}
			GUEST_SYNC_ARGS(PMC_TO_PRIVATE, gpa, k * psz, round, 0);
			for (i = 0; i < k; i++) {
				p = guest_page(off + i * psz);
				GUEST_ASSERT_EQ(READ_ONCE(p[0]), 0ULL);
				GUEST_ASSERT_EQ(READ_ONCE(p[last]), 0ULL);
			}
		}
	}
	GUEST_DONE();
}

static void tally_add(int to_private, uint64_t pages, uint64_t ns)
{
	__atomic_add_fetch(&tally.conversions[to_private], 1, __ATOMIC_RELAXED);
	__atomic_add_fetch(&tally.pages[to_private], pages, __ATOMIC_RELAXED);
	__atomic_add_fetch(&tally.ns[to_private], ns, __ATOMIC_RELAXED);
}

/* The host's half of a conversion request; negative (recorded) on failure. */
static int convert(struct kvm_vm *vm, const struct ucall *uc)
{
	bool to_private = uc->args[1] == PMC_TO_PRIVATE;
	uint64_t gpa = uc->args[2], size = uc->args[3], round = uc->args[4], off, got;
	uint64_t psz = vm->page_size;
	uint8_t *hva = addr_gpa2hva(vm, gpa);
	struct timespec start;
	int ret, err;

	if (to_private) {
		/* Shared memory: the host sees what the guest wrote. */
		for (off = 0; off < size; off += psz) {
			got = *(uint64_t *)(hva + off);
			if (got != PMC_SHARED(round, gpa + off))
				return perf_test_fail("shared GPA 0x%lx holds 0x%lx, the guest wrote 0x%lx",
						      (unsigned long)(gpa + off), (unsigned long)got,
						      (unsigned long)PMC_SHARED(round, gpa + off));
		}
	}
	start = timespec_now();
	ret = __vm_set_memory_attributes(vm, gpa, size,
					 to_private ? KVM_MEMORY_ATTRIBUTE_PRIVATE : 0);
	if (!ret && to_private)
		ret = madvise(hva, size, MADV_DONTNEED);
	else if (!ret && !punch_skip)
		ret = __vm_guest_mem_punch_hole(vm, gpa, size);
	err = errno;
	tally_add(to_private, size / psz, timespec_to_ns(timespec_elapsed(start)));
	if (ret)
		return perf_test_fail("converting [0x%lx, +0x%lx) to %s: %s", (unsigned long)gpa,
				      (unsigned long)size, to_private ? "private" : "shared",
				      strerror(err));
	for (off = 0; !to_private && !host_write_skip && off < size; off += psz)
		*(uint64_t *)(hva + off) = PMC_HOST(round, gpa + off);
	return 0;
}

/* An access the attributes did not expect: convert as KVM asks. */
static int memory_fault(struct kvm_vcpu *vcpu)
{
	struct kvm_memory_fault_exit *mf = vcpu_memory_fault(vcpu);
	bool to_private = mf->flags & KVM_MEMORY_EXIT_FLAG_PRIVATE;
	int ret;

	__atomic_add_fetch(&tally.memory_faults, 1, __ATOMIC_RELAXED);
	ret = __vm_set_memory_attributes(vcpu->vm, mf->gpa, mf->size,
					 to_private ? KVM_MEMORY_ATTRIBUTE_PRIVATE : 0);
	if (ret)
		return perf_test_fail("memory fault at [0x%lx, +0x%lx): converting to %s: %s",
				      (unsigned long)mf->gpa, (unsigned long)mf->size,
				      to_private ? "private" : "shared", strerror(errno));
	return 0;
}

/* A vCPU's whole run, as one pass: its conversions until GUEST_DONE. */
static int pmc_vcpu_pass(struct perf_test_vcpu_args *va, uint64_t pass)
{
	struct kvm_vcpu *vcpu = va->vcpu;
	struct ucall uc;
	uint64_t cmd;

	for (;;) {
		if (__perf_test_vcpu_run(vcpu))
			return -1;
		if (vcpu->run->exit_reason == KVM_EXIT_MEMORY_FAULT) {
			if (memory_fault(vcpu))
				return -1;
			continue;
		}
		cmd = __get_ucall(vcpu, &uc);
		if (cmd == UCALL_DONE)
			return 0;
		if (cmd == UCALL_SYNC &&
		    (uc.args[1] == PMC_TO_SHARED || uc.args[1] == PMC_TO_PRIVATE)) {
			if (convert(vcpu->vm, &uc))
				return -1;
			continue;
		}
		/* Anything else: a guest assert or exception, kept for the report. */
		return __perf_test_vcpu_sync(va, pass);
	}
}

static void print_conversions(const char *what, int i)
{
	uint64_t n = tally.conversions[i], pages = tally.pages[i], ns = tally.ns[i];

	printf("Conversions to %-7s: %lu of %lu pages in %lu.%09lus: %lu ns per conversion, %lu ns per page\n",
	       what, (unsigned long)n, (unsigned long)pages, (unsigned long)(ns / NSEC_PER_SEC),
	       (unsigned long)(ns % NSEC_PER_SEC), (unsigned long)(n ? ns / n : 0),
	       (unsigned long)(pages ? ns / pages : 0));
}

/* perf_report keeps the key pointers: one literal a key. */
static const char * const report_keys[2][5] = {
	{ "to_shared", "to_shared_pages", "to_shared_ns", "to_shared_ns_per_conversion",
	  "to_shared_ns_per_page" },
	{ "to_private", "to_private_pages", "to_private_ns", "to_private_ns_per_conversion",
	  "to_private_ns_per_page" },
};

static void report(const struct pmc_params *p, uint64_t run_ns)
{
	uint64_t n, pages, ns;
	int i;

	print_conversions("shared", 0);
	print_conversions("private", 1);
	printf("Memory-fault exits: %lu; run time %lu.%09lus\n", (unsigned long)tally.memory_faults,
	       (unsigned long)(run_ns / NSEC_PER_SEC), (unsigned long)(run_ns % NSEC_PER_SEC));
	perf_report_opt_str("backing", vm_mem_backing_src_alias(p->o.backing)->name);
	perf_report_opt_int("vcpus", p->o.nr_vcpus);
	perf_report_opt_int("vcpu_bytes", p->o.vcpu_memory_bytes);
	perf_report_opt_int("chunk_pages", p->chunk_pages);
	perf_report_opt_int("rounds", p->rounds);
	perf_report_opt_int("guest_page_size", perf_test_args.page_size);
	for (i = 0; i < 2; i++) {
		n = tally.conversions[i];
		pages = tally.pages[i];
		ns = tally.ns[i];
		perf_report_u64(report_keys[i][0], n, "count");
		perf_report_u64(report_keys[i][1], pages, "pages");
		perf_report_u64(report_keys[i][2], ns, "ns");
		perf_report_u64(report_keys[i][3], n ? ns / n : 0, "ns");
		perf_report_u64(report_keys[i][4], pages ? ns / pages : 0, "ns");
	}
	perf_report_u64("memory_fault_exits", tally.memory_faults, "count");
	perf_report_u64("run_ns", run_ns, "ns");
	perf_report_run_end("private_mem_conversions");
}

static void run_guest_mode(enum vm_guest_mode mode, void *arg)
{
	struct pmc_params *p = arg;
	uint64_t expect, ns;
	struct timespec start;
	struct kvm_vm *vm;
	bool ok;

	memset(&tally, 0, sizeof(tally));
	perf_report_guest_mode(vm_guest_mode_string(mode));
	vm = perf_test_create_vm(mode, &p->o);
	pmc.chunk_pages = p->chunk_pages;
	pmc.rounds = p->rounds;
	sync_global_to_guest(vm, pmc);
	perf_report_stats_begin(vm);
	start = timespec_now();
	perf_test_start_threads(&p->o, pmc_vcpu_pass);
	ok = perf_test_wait_pass(1, NULL, NULL);
	ns = timespec_to_ns(timespec_elapsed(start));
	/* Fails the test with a failed vCPU's own report (a guest assert...). */
	perf_test_join_threads();
	TEST_ASSERT(ok, "A vCPU's conversions failed");
	perf_report_stats_end(vm);
	expect = DIV_ROUND_UP(perf_test_args.vcpu_args[0].pages, p->chunk_pages) * p->rounds *
		 p->o.nr_vcpus;
	TEST_ASSERT(tally.conversions[0] == expect && tally.conversions[1] == expect,
		    "%lu conversions to shared, %lu to private: %lu of each expected",
		    (unsigned long)tally.conversions[0], (unsigned long)tally.conversions[1],
		    (unsigned long)expect);
	report(p, ns);
	perf_test_destroy_vm(vm);
}

static void help(const char *name, const void *arg)
{
	const struct pmc_params *d = arg;

	printf("usage: %s [-h] [-m mode] [-b size] [-v vcpus] [-k pages] [-r rounds]\n"
	       "          [-c cpus] [--json file]\n", name);
	perf_test_options_help(stdout, &d->o);
	printf(" (here -s must be guest_memfd_private, the default)\n"
	       " -k: pages a conversion request covers (default: %d)\n"
	       " -r: rounds: every vCPU converts all its pages to shared and back\n"
	       "     once a round (default: %d)\n", DEFAULT_CHUNK_PAGES, DEFAULT_ROUNDS);
}

static void parse_args(int argc, char *argv[], struct pmc_params *p)
{
	struct pmc_params d = *p;
	int opt;

	while ((opt = perf_test_getopt(argc, argv, "k:r:", &p->o, help, &d)) != -1) {
		switch (opt) {
		case 'k':
			p->chunk_pages = parse_long("conversion size in pages (-k)", optarg, 1, 1 << 20);
			break;
		case 'r':
			p->rounds = parse_long("rounds (-r)", optarg, 1, 1 << 20);
			break;
		default:
			help(argv[0], &d);
			exit(KSFT_FAIL);
		}
	}
}

/* Usage errors first, then what the host lacks. */
static void check_params(struct pmc_params *p)
{
	if (!backing_src_is_private(p->o.backing))
		test_usage_error("Conversions are of private memory: -s guest_memfd_private, not %s",
				 vm_mem_backing_src_alias(p->o.backing)->name);
	if (!p->o.partition)
		test_usage_error("-o: each vCPU converts its own pages; overlapping ranges would race");
	if (p->o.nested)
		test_usage_error("-n: the conversions are the vCPUs' own requests, not nested guests'");
	perf_test_options_check(&p->o, false);
}

/* The figures this test reports (perf_report.h: --figures lists them). */
static const char *const figures[] = {
	"to_shared", "to_shared_pages", "to_shared_ns", "to_shared_ns_per_conversion",
	"to_shared_ns_per_page", "to_private", "to_private_pages", "to_private_ns",
	"to_private_ns_per_conversion", "to_private_ns_per_page", "memory_fault_exits",
	"run_ns", NULL,
};

int main(int argc, char *argv[])
{
	struct pmc_params p = { .chunk_pages = DEFAULT_CHUNK_PAGES, .rounds = DEFAULT_ROUNDS };

	perf_test_options_init(&p.o, DEFAULT_VCPU_MEMORY, 1);
	p.o.backing = VM_MEM_SRC_GUEST_MEMFD_PRIVATE;
	p.o.guest_code = guest_code;
	parse_args(argc, argv, &p);
	check_params(&p);
	punch_skip = fault_inject("punch_skip");
	host_write_skip = fault_inject("host_write_skip");
	perf_report_figures(figures);
	perf_report_open("private_mem_conversions_test", p.o.json_path, argc, argv);
	for_each_guest_mode(run_guest_mode, &p);
	perf_report_close();
	return KSFT_PASS;
}

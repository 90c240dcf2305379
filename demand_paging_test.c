// SPDX-License-Identifier: GPL-2.0-only
/*
 * demand_paging_test: how fast vCPUs can fault in their memory, with the
 * faults served by KVM alone or from user space through userfaultfd, as
 * in post-copy live migration.
 *
 * Each vCPU writes every guest page of its memory once (perf_test_util).
 * With -u the memory is registered with userfaultfd and reader threads
 * serve each fault (userfaultfd_util).  -H runs the same pages in the same
 * order through plain host threads instead of vCPUs, served by the same
 * readers: no /dev/kvm needed, and the difference between the two rates
 * is KVM's share of the cost.
 *
 * Afterwards every page must hold what was written, and in MISSING mode
 * with separate memory per vCPU and base-page backing the readers must
 * have served exactly one fault per page.
 */
#include <getopt.h>
#include <sys/mman.h>

#include "perf_report.h"
#include "perf_test_util.h"
#include "userfaultfd_util.h"

#define DEFAULT_VCPU_MEMORY	(16 * MB)
#define MAX_READERS		1024

struct dp_params {
	struct perf_test_options o;
	enum uffd_mode uffd_mode;
	enum uffd_wake wake;
	unsigned int delay_us;
	int nr_readers;
	bool one_uffd;		/* -a, or implied by -o */
	bool host_only;		/* -H */
};

struct dp_result {
	uint64_t time_ns;
	struct uffd_reader_stats uffd;
	int nr_uffds;
	uint64_t exits;
	uint64_t pf_taken;
	uint64_t checked;
};

static void help(const char *name, const void *arg)
{
	const struct dp_params *d = arg;

	printf("usage: %s [-h] [-m mode] [-u MISSING|MINOR] [-d usec] [-b size]\n"
	       "          [-s type] [-v vcpus] [-o] [-a] [-r readers] [-w epoll|poll]\n"
	       "          [-c cpus] [-n] [-p offset] [-L] [-B] [-N node] [-H]\n"
	       "          [--json file]\n", name);
	perf_test_options_help(stdout, &d->o);
	printf(" -u: serve faults with userfaultfd: MISSING (UFFDIO_COPY into empty\n"
	       "     memory) or MINOR (UFFDIO_CONTINUE of page cache filled through an\n"
	       "     alias mapping; needs -s shmem or shared_hugetlb). Default: KVM alone\n"
	       " -d: delay each fault's service by this many microseconds\n"
	       " -a: one userfaultfd for all test memory (default: one per vCPU)\n"
	       " -r: reader threads per userfaultfd (default: 1, at most %d)\n"
	       " -w: how readers wait: epoll (EPOLLEXCLUSIVE, one reader woken per\n"
	       "     fault; default) or poll (every reader woken: thundering herd)\n"
	       " -H: host only: plain threads touch the pages instead of vCPUs\n",
	       MAX_READERS);
}

static void parse_args(int argc, char *argv[], struct dp_params *p)
{
	struct dp_params defaults = *p;
	int opt;

	while ((opt = perf_test_getopt(argc, argv, "u:d:ar:w:H", &p->o, help, &defaults)) != -1) {
		switch (opt) {
		case 'u':
			p->uffd_mode = parse_uffd_mode(optarg);
			break;
		case 'd':
			p->delay_us = parse_long("delay (-d)", optarg, 0, 1000000);
			break;
		case 'a':
			p->one_uffd = true;
			break;
		case 'r':
			p->nr_readers = parse_long("reader count (-r)", optarg, 1, MAX_READERS);
			break;
		case 'w':
			p->wake = parse_uffd_wake(optarg);
			break;
		case 'H':
			p->host_only = true;
			break;
		}
	}
}

/*
 * Whether userfaultfd can register a mapping of a shared guest_memfd in
 * @mode on this kernel: tried on one page of a bare VM's guest_memfd.
 */
static const char *guest_memfd_uffd_unavailable(enum uffd_mode mode, char *why, size_t len)
{
	size_t size = getpagesize();
	struct kvm_vm *vm = vm_create_barebones();
	int gmem = vm_create_guest_memfd(vm, size, GUEST_MEMFD_FLAG_MMAP |
					 GUEST_MEMFD_FLAG_INIT_SHARED);
	void *mem = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, gmem, 0);
	const char *ret;

	TEST_ASSERT(mem != MAP_FAILED, "mmap(guest_memfd) failed");
	ret = uffd_range_unavailable(mode, mem, size, why, len);
	munmap(mem, size);
	close(gmem);
	kvm_vm_free(vm);
	return ret;
}

/* Everything decided before any work: usage errors, then skips. */
static void check_params(struct dp_params *p)
{
	char why[200];

	if (p->uffd_mode == UFFD_MODE_MINOR && !backing_src_is_shared(p->o.backing))
		test_usage_error("MINOR faults need shared memory: -s shmem or -s shared_hugetlb, not %s",
				 vm_mem_backing_src_alias(p->o.backing)->name);
	if (p->uffd_mode != UFFD_MODE_NONE && !backing_src_host_readable(p->o.backing))
		test_usage_error("-u %s serves faults on the host's mapping; -s %s has none",
				 uffd_mode_name(p->uffd_mode),
				 vm_mem_backing_src_alias(p->o.backing)->name);
	if (!p->o.partition)
		p->one_uffd = true;
	perf_test_options_check(&p->o, p->host_only);
	if (uffd_unavailable(p->uffd_mode, p->o.backing, p->host_only, why, sizeof(why)))
		test_skip("%s", why);
	if (p->uffd_mode != UFFD_MODE_NONE && backing_src_is_guest_memfd(p->o.backing)) {
		if (guest_memfd_uffd_unavailable(p->uffd_mode, why, sizeof(why)))
			test_skip("userfaultfd cannot serve a guest_memfd mapping on this kernel: %s",
				  why);
	}
}

/* MINOR: put every page in the page cache, through the alias mapping. */
static void prefill_page_cache(void)
{
	uint64_t step = get_backing_src_pagesz(perf_test_args.backing), off;

	for (off = 0; off < perf_test_args.size; off += step)
		WRITE_ONCE(*(uint64_t *)perf_test_alias(off), ~PERF_TEST_PATTERN(off));
}

static int setup_uffds(const struct dp_params *p, struct uffd_desc **uffds)
{
	struct perf_test_vcpu_args *va;
	uint64_t len;
	int i, n;

	if (p->uffd_mode == UFFD_MODE_NONE)
		return 0;
	if (p->uffd_mode == UFFD_MODE_MINOR)
		prefill_page_cache();
	n = p->one_uffd ? 1 : p->o.nr_vcpus;
	for (i = 0; i < n; i++) {
		va = &perf_test_args.vcpu_args[i];
		len = p->one_uffd ? perf_test_args.size : va->pages * perf_test_args.page_size;
		uffds[i] = uffd_create(p->uffd_mode, p->wake, p->delay_us,
				       perf_test_hva(p->one_uffd ? 0 : va->offset), len,
				       p->o.backing, p->nr_readers, p->host_only);
	}
	/* Every uffd is set up (or the test failed) before any thread starts. */
	for (i = 0; i < n; i++)
		uffd_start_readers(uffds[i]);
	return n;
}

struct uffd_set {
	struct uffd_desc **uffds;
	int n;
};

static bool some_uffd_failed(void *arg)
{
	struct uffd_set *s = arg;
	int i;

	for (i = 0; i < s->n; i++)
		if (uffd_failed(s->uffds[i]))
			return true;
	return false;
}

/* One pass over test memory; every thread is joined on every path. */
static void run_pass(const struct dp_params *p, struct uffd_set *s, struct dp_result *r)
{
	struct timespec start = timespec_now();
	bool done;
	int i;

	perf_report_stats_begin(perf_test_args.vm);
	perf_test_start_threads(&p->o, p->host_only ? __perf_test_host_pass :
						     __perf_test_vcpu_pass);
	done = perf_test_wait_pass(1, some_uffd_failed, s);
	r->time_ns = timespec_to_ns(timespec_elapsed(start));
	if (done)
		perf_report_stats_end(perf_test_args.vm);
	if (!done) {
		/* Stopping the uffds lets threads blocked in faults finish. */
		for (i = 0; i < s->n; i++)
			uffd_stop_readers(s->uffds[i]);
	}
	perf_test_join_threads();
	for (i = 0; i < s->n; i++) {
		uffd_stop_demand_paging(s->uffds[i]);
		uffd_desc_stats(s->uffds[i], &r->uffd);
		uffd_desc_free(s->uffds[i]);
	}
	TEST_ASSERT(done, "Pass 1 did not complete");
}

static uint64_t stat_or_zero(struct kvm_vcpu *vcpu, const char *name)
{
	uint64_t v = 0;

	if (!kvm_read_stat(vcpu->fd, name, &v))
		return 0;
	return v;
}

static void print_vcpus(const struct dp_params *p, struct dp_result *r)
{
	bool stats = !p->host_only && kvm_has_cap(KVM_CAP_BINARY_STATS_FD);
	struct perf_test_vcpu_args *va;
	uint64_t exits = 0, pf = 0;
	int i;

	for (i = 0; i < p->o.nr_vcpus; i++) {
		va = &perf_test_args.vcpu_args[i];
		if (stats) {
			exits = stat_or_zero(va->vcpu, "exits");
			pf = stat_or_zero(va->vcpu, "pf_taken");
			r->exits += exits;
			r->pf_taken += pf;
		}
		printf("%s %d execution time: %lu.%09lus, %lu pages, demand paging rate: %.1f pgs/sec, exits: %lu, pf_taken: %lu\n",
		       p->host_only ? "Host thread" : "vCPU", i,
		       (unsigned long)(va->pass_ns / NSEC_PER_SEC),
		       (unsigned long)(va->pass_ns % NSEC_PER_SEC), (unsigned long)va->pages,
		       rate_per_sec(va->pages, va->pass_ns), (unsigned long)exits, (unsigned long)pf);
		printf("RESULT_VCPU vcpu=%d time_ns=%lu pages=%lu rate=%.1f exits=%lu pf_taken=%lu\n",
		       i, (unsigned long)va->pass_ns, (unsigned long)va->pages,
		       rate_per_sec(va->pages, va->pass_ns), (unsigned long)exits, (unsigned long)pf);
	}
}

/* Pages made present: from faults served with uffd, else pages touched. */
static uint64_t pages_paged_in(const struct dp_params *p, const struct dp_result *r)
{
	uint64_t per_fault = get_backing_src_pagesz(p->o.backing) / perf_test_args.page_size;

	if (p->uffd_mode == UFFD_MODE_NONE)
		return perf_test_args.size / perf_test_args.page_size;
	return r->uffd.served * (per_fault ? per_fault : 1);
}

static void print_vcpu_rate_range(const struct dp_params *p, double *lo, double *hi)
{
	struct perf_test_vcpu_args *va;
	double v;
	int i;

	*lo = *hi = 0;
	for (i = 0; i < p->o.nr_vcpus; i++) {
		va = &perf_test_args.vcpu_args[i];
		v = rate_per_sec(va->pages, va->pass_ns);
		if (!i || v < *lo)
			*lo = v;
		if (!i || v > *hi)
			*hi = v;
	}
}

static void print_result(const struct dp_params *p, struct dp_result *r)
{
	const struct latency_hist *h = &r->uffd.latency;
	uint64_t pages = pages_paged_in(p, r);
	double lo, hi;

	print_vcpus(p, r);
	print_vcpu_rate_range(p, &lo, &hi);
	printf("Total %s execution time: %lu.%09lus\n", p->host_only ? "host" : "guest",
	       (unsigned long)(r->time_ns / NSEC_PER_SEC),
	       (unsigned long)(r->time_ns % NSEC_PER_SEC));
	printf("Overall demand paging rate: %f pgs/sec\n", rate_per_sec(pages, r->time_ns));
	if (p->uffd_mode != UFFD_MODE_NONE) {
		printf("Paged in %lu pages: %lu faults served by %d reader(s) x %d uffd(s), %lu raced, %lu empty wake-ups\n",
		       (unsigned long)pages,
		       (unsigned long)r->uffd.served, p->nr_readers, r->nr_uffds,
		       (unsigned long)r->uffd.raced, (unsigned long)r->uffd.empty_wakes);
		printf("Fault service latency: p50 %lu ns, p99 %lu ns, max %lu ns\n",
		       (unsigned long)latency_hist_percentile(h, 50),
		       (unsigned long)latency_hist_percentile(h, 99), (unsigned long)h->max);
	}
	perf_report_opt_int("host_only", p->host_only);
	perf_report_opt_str("uffd", uffd_mode_name(p->uffd_mode));
	perf_report_opt_str("backing", vm_mem_backing_src_alias(p->o.backing)->name);
	perf_report_opt_int("vcpus", p->o.nr_vcpus);
	perf_report_opt_int("vcpu_bytes", p->o.vcpu_memory_bytes);
	perf_report_opt_int("overlap", !p->o.partition);
	perf_report_u64("uffds", r->nr_uffds, "count");
	perf_report_opt_int("readers", r->nr_uffds ? p->nr_readers : 0);
	perf_report_opt_str("wake", uffd_wake_name(p->wake));
	perf_report_opt_int("delay_us", p->delay_us);
	perf_report_opt_int("barrier", p->o.barrier);
	perf_report_u64("pages", pages, "pages");
	perf_report_u64("faults", r->uffd.served, "count");
	perf_report_u64("raced", r->uffd.raced, "count");
	perf_report_u64("empty_wakes", r->uffd.empty_wakes, "count");
	perf_report_u64("time_ns", r->time_ns, "ns");
	perf_report_double("rate", rate_per_sec(pages, r->time_ns), "pages/s");
	perf_report_double("vcpu_rate_min", lo, "pages/s");
	perf_report_double("vcpu_rate_max", hi, "pages/s");
	perf_report_u64("lat_p50_ns", latency_hist_percentile(h, 50), "ns");
	perf_report_u64("lat_p99_ns", latency_hist_percentile(h, 99), "ns");
	perf_report_u64("lat_max_ns", h->max, "ns");
	perf_report_u64("exits", r->exits, "count");
	perf_report_u64("pf_taken", r->pf_taken, "count");
	perf_report_u64("checked", r->checked, "pages");
	perf_report_opt_int("numa_node", p->o.numa_node);
	perf_report_run_end("demand_paging");
}

static void check_result(const struct dp_params *p, struct dp_result *r)
{
	uint64_t pages = perf_test_args.size / perf_test_args.page_size;

	r->checked = perf_test_check_memory();
	TEST_ASSERT(r->checked == pages, "%lu of %lu pages checked",
		    (unsigned long)r->checked, (unsigned long)pages);
	if (p->uffd_mode == UFFD_MODE_MISSING && p->o.partition &&
	    get_backing_src_pagesz(p->o.backing) == perf_test_args.page_size)
		TEST_ASSERT(r->uffd.served == pages,
			    "%lu faults served for %lu pages touched",
			    (unsigned long)r->uffd.served, (unsigned long)pages);
	if (p->o.numa_node >= 0)
		perf_test_numa_check(p->o.numa_node);
}

static void run_test(const struct dp_params *p)
{
	struct uffd_desc *uffds[KVM_MAX_VCPUS];
	struct dp_result r = { 0 };
	struct uffd_set s = { .uffds = uffds };

	s.n = r.nr_uffds = setup_uffds(p, uffds);
	run_pass(p, &s, &r);
	check_result(p, &r);
	print_result(p, &r);
}

static void run_guest_mode(enum vm_guest_mode mode, void *arg)
{
	struct kvm_vm *vm = perf_test_create_vm(mode, &((struct dp_params *)arg)->o);

	perf_report_guest_mode(vm_guest_mode_string(mode));
	run_test(arg);
	perf_test_destroy_vm(vm);
}

/* The figures this test reports (perf_report.h: --figures lists them). */
static const char *const figures[] = {
	"uffds", "pages", "faults", "raced", "empty_wakes", "time_ns", "rate",
	"vcpu_rate_min", "vcpu_rate_max", "lat_p50_ns", "lat_p99_ns", "lat_max_ns", "exits",
	"pf_taken", "checked", NULL,
};

int main(int argc, char *argv[])
{
	struct dp_params p = {
		.uffd_mode = UFFD_MODE_NONE,
		.wake = UFFD_WAKE_EPOLL,
		.nr_readers = 1,
	};

	perf_test_options_init(&p.o, DEFAULT_VCPU_MEMORY, 1);
	parse_args(argc, argv, &p);
	check_params(&p);
	perf_report_figures(figures);
	perf_report_open("demand_paging_test", p.o.json_path, argc, argv);
	if (p.host_only) {
		perf_test_setup_host_mem(&p.o, vm_guest_mode(VM_MODE_DEFAULT)->page_size);
		run_test(&p);
		perf_test_free_host_mem();
	} else {
		for_each_guest_mode(run_guest_mode, &p);
	}
	perf_report_close();
	return KSFT_PASS;
}

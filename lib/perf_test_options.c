// SPDX-License-Identifier: GPL-2.0-only
/*
 * The options perf tests share, so a letter means the same in each:
 * -m mode, -b bytes per vCPU, -v vCPUs, -o overlap, -s backing source,
 * -c CPU list, -n nested, -p guest-physical offset: as in upstream's
 * demand_paging_test and dirty_log_perf_test; and letters no upstream
 * version of either uses: -B no start barrier, -N NUMA node, -L largest
 * guest pages, and the long options --json FILE and --profile FILE.  Checked in one place,
 * before any work: bad input is a usage error, what the host lacks a skip.
 */
#include <fcntl.h>
#include <sched.h>
#include <signal.h>

#include "numa_util.h"
#include "perf_test_util.h"
#include "profile.h"

/* As upstream: -b per vCPU, with -o too (then every vCPU walks it all). */
uint64_t perf_test_mem_size(const struct perf_test_options *o)
{
	return o->vcpu_memory_bytes * o->nr_vcpus;
}

void perf_test_options_init(struct perf_test_options *o, uint64_t bytes, int nr_vcpus)
{
	*o = (struct perf_test_options) {
		.vcpu_memory_bytes = bytes,
		.auto_min_bytes = 2 * MB,
		.nr_vcpus = nr_vcpus,
		.partition = true,
		.backing = DEFAULT_VM_MEM_SRC,
		.barrier = true,
		.numa_node = -1,
		.nr_slots = 1,
		.main_cpu = -1,
	};
}

static uint64_t parse_phys_offset(const char *arg)
{
	const char *why;
	uint64_t v;

	if (try_parse_size(arg, &v, &why))
		test_usage_error("Invalid guest-physical offset (-p) '%s': %s", arg, why);
	return v;
}

bool perf_test_parse_opt(struct perf_test_options *o, int opt, const char *arg)
{
	switch (opt) {
	case 'm':
		if (strcmp(arg, "first"))
			parse_long("guest mode (-m)", arg, 0, NUM_VM_MODES - 1);
		o->mode_arg = arg;
		return true;
	case 'b':
		o->auto_size = !strcmp(arg, "auto");
		o->vcpu_memory_bytes = o->auto_size ? 0 : parse_size(arg);
		return true;
	case 'v':
		o->nr_vcpus = parse_long("vCPU count (-v)", arg, 1, KVM_MAX_VCPUS);
		return true;
	case 'o':
		o->partition = false;
		return true;
	case 's':
		o->backing = parse_backing_src_type(arg);
		return true;
	case 'c':
		o->cpu_list = arg;
		return true;
	case 'B':
		o->barrier = false;
		return true;
	case 'n':
		o->nested = true;
		return true;
	case 'N':
		o->numa_node = parse_long("NUMA node (-N)", arg, 0, 1023);
		return true;
	case 'p':
		o->phys_offset = parse_phys_offset(arg);
		return true;
	case 'L':
		o->large_pages = true;
		return true;
	case TEST_OPT_JSON:
		o->json_path = arg;
		return true;
	case TEST_OPT_PROFILE:
		profile_request(arg);
		return true;
	case 'x':
		o->nr_slots = parse_long("memslot count (-x)", arg, 1, PERF_TEST_MAX_SLOTS);
		return true;
	}
	return false;
}

int perf_test_getopt(int argc, char *argv[], const char *test_opts,
		     struct perf_test_options *o, test_help_fn help, const void *arg)
{
	char optstring[128];
	int opt;

	TEST_ASSERT(snprintf(optstring, sizeof(optstring), "%s%s", PERF_TEST_OPTSTRING,
			     test_opts) < (int)sizeof(optstring), "Option string too long");
	while ((opt = test_getopt(argc, argv, optstring, help, arg)) != -1)
		if (!perf_test_parse_opt(o, opt, optarg))
			return opt;
	return -1;
}

void perf_test_options_help(FILE *out, const struct perf_test_options *d)
{
	guest_modes_help(out);
	fprintf(out, " -b: guest memory each vCPU touches, e.g. 10M or 3G (default: %luM);\n"
		"     auto: one page of the backing source (-s), at least %luM, a skip\n"
		"     where MemAvailable (hugetlb: the free huge pages) cannot hold it\n"
		" -v: number of vCPUs (default: %d, at most %d)\n"
		" -o: overlap: every vCPU touches all of test memory (vCPUs x size), instead\n"
		"     of its own slice\n",
		(unsigned long)(d->vcpu_memory_bytes / MB),
		(unsigned long)(d->auto_min_bytes / MB), d->nr_vcpus, KVM_MAX_VCPUS);
	backing_src_help(out, "-s", d->backing);
	fprintf(out, " -c: pin vCPU threads to these CPUs, e.g. 2,3,4-5: one per vCPU, plus\n"
		"     optionally one more for the main thread\n"
		" -B: no start barrier: vCPUs enter the guest while later vCPU threads\n"
		"     are still being created (measures what the barrier saves)\n"
		" -n: run the vCPUs nested: each vCPU's guest is a small hypervisor (L1)\n"
		"     that runs the same page walks in its own guest (L2), L2's physical\n"
		"     memory mapped 1:1 onto L1's (x86_64: AMD SVM with NPT or Intel\n"
		"     VMX with EPT)\n"
		" -p: guest-physical address of test memory, e.g. 0x40000000 (default:\n"
		"     the top of guest-physical space); must not overlap the test binary\n"
		" -L: map test memory in the guest with the largest pages the guest mode\n"
		"     allows (default: the guest mode's page size)\n"
		" -N: bind test memory to this NUMA node (checked after the run)\n"
		" --json FILE: also write the options and figures, with the KVM stats\n"
		"     that moved while timed, as one JSON object to FILE\n"
		" --profile FILE: sample the kernel (CPU clock) on the test's CPUs while\n"
		"     timed; the test's threads' samples by kernel function, as JSON to\n"
		"     FILE (and in the --json runs)\n");
}

int try_parse_cpu_list(const char *list, int *cpus, int max, const char **why)
{
	const char *p = list;
	long first, last;
	char *end;
	int n = 0;

	while (*p) {
		errno = 0;
		first = strtol(p, &end, 10);
		last = first;
		if (end != p && *end == '-')
			last = strtol(end + 1, &end, 10);
		if (end == p || errno || first < 0 || last < first || last >= CPU_SETSIZE ||
		    (*end && *end != ',')) {
			*why = "use e.g. 0,2,4-6";
			return -EINVAL;
		}
		for (; first <= last; first++) {
			if (n == max) {
				*why = "too many CPUs";
				return -E2BIG;
			}
			cpus[n++] = first;
		}
		p = *end ? end + 1 : end;
	}
	if (!n) {
		*why = "empty";
		return -EINVAL;
	}
	return n;
}

int parse_cpu_list(const char *list, int *cpus, int max)
{
	const char *why;
	int n = try_parse_cpu_list(list, cpus, max, &why);

	if (n == -E2BIG)
		test_usage_error("CPU list '%s' has more than %d CPUs", list, max);
	if (n < 0)
		test_usage_error("Invalid CPU list '%s': %s", list, why);
	return n;
}

static void check_cpu_list(struct perf_test_options *o)
{
	int cpus[KVM_MAX_VCPUS + 1], n, i;
	cpu_set_t allowed;

	n = parse_cpu_list(o->cpu_list, cpus, ARRAY_SIZE(cpus));
	if (n != o->nr_vcpus && n != o->nr_vcpus + 1)
		test_usage_error("CPU list '%s' has %d CPUs: give one per vCPU (%d), plus optionally one for the main thread",
				 o->cpu_list, n,
				 o->nr_vcpus);
	TEST_ASSERT(!sched_getaffinity(0, sizeof(allowed), &allowed), "sched_getaffinity");
	for (i = 0; i < n; i++)
		if (!CPU_ISSET(cpus[i], &allowed))
			test_usage_error("CPU %d of list '%s' is not in this process's affinity mask",
					 cpus[i], o->cpu_list);
	for (i = 0; i < o->nr_vcpus; i++)
		o->vcpu_cpus[i] = cpus[i];
	o->main_cpu = n > o->nr_vcpus ? cpus[n - 1] : -1;
	o->pin = true;
}

/* -b auto: one page of the backing, at least the test's minimum. */
static void resolve_auto_size(struct perf_test_options *o)
{
	uint64_t pagesz = get_backing_src_pagesz(o->backing);

	if (o->vcpu_memory_bytes)	/* the test sized it itself */
		return;
	o->vcpu_memory_bytes = o->auto_min_bytes;
	if (pagesz)
		o->vcpu_memory_bytes = ALIGN_UP(o->vcpu_memory_bytes, pagesz);
}

/* Test memory must fit in this host's RAM: every page gets touched. */
static void check_ram(const struct perf_test_options *o)
{
	uint64_t ram = (uint64_t)sysconf(_SC_PHYS_PAGES) * sysconf(_SC_PAGESIZE);

	if (o->vcpu_memory_bytes > UINT64_MAX / o->nr_vcpus)
		test_usage_error("Test memory of %d vCPUs x 0x%lx bytes (-v, -b) overflows",
				 o->nr_vcpus, (unsigned long)o->vcpu_memory_bytes);
	if (!o->auto_size && perf_test_mem_size(o) > ram)
		test_usage_error("Test memory 0x%lx bytes (-b, -v) exceeds this host's RAM, 0x%lx bytes",
				 (unsigned long)perf_test_mem_size(o), (unsigned long)ram);
}

void perf_test_check_phys_align(const struct perf_test_options *o, uint64_t align)
{
	if (align && o->phys_offset % align)
		test_usage_error("Guest-physical offset 0x%lx (-p) is not aligned to 0x%lx (%s pages)",
				 (unsigned long)o->phys_offset, (unsigned long)align,
				 vm_mem_backing_src_alias(o->backing)->name);
}

static void check_sizes(const struct perf_test_options *o, uint64_t pagesz)
{
	uint64_t total = perf_test_mem_size(o);
	const char *name = vm_mem_backing_src_alias(o->backing)->name;

	if (pagesz && o->vcpu_memory_bytes % pagesz)
		test_usage_error("Memory size 0x%lx (-b) is not a multiple of the %s page size 0x%lx",
				 (unsigned long)o->vcpu_memory_bytes, name,
				 (unsigned long)pagesz);
	if (pagesz && total % (pagesz * o->nr_slots))
		test_usage_error("Test memory 0x%lx does not split into %d memslots of whole %s pages",
				 (unsigned long)total, o->nr_slots, name);
	/* Before any skip: the guest page size is checked with the VM. */
	perf_test_check_phys_align(o, pagesz);
}

/* Every enabled guest mode's page size must divide the sizes too. */
static void check_guest_pages(const struct perf_test_options *o)
{
	uint64_t size = perf_test_mem_size(o) / o->nr_slots, pgsz;
	int i;

	for (i = 0; i < NUM_VM_MODES; i++) {
		if (!guest_modes_enabled[i])
			continue;
		pgsz = vm_guest_mode(i)->page_size;
		if (o->vcpu_memory_bytes % pgsz || size % pgsz)
			test_usage_error("Memory size 0x%lx is not a multiple of the guest page size 0x%lx (%s)",
					 (unsigned long)o->vcpu_memory_bytes,
					 (unsigned long)pgsz, vm_guest_mode_string(i));
	}
}

static void check_host(const struct perf_test_options *o, bool host_only)
{
	uint64_t total = perf_test_mem_size(o);
	char why[160];
	int max;

	if (!get_backing_src_pagesz(o->backing))
		test_skip("Backing source %s is not supported by this host",
			  vm_mem_backing_src_alias(o->backing)->name);
	if (o->auto_size && !backing_src_is_hugetlb(o->backing) &&
	    total > meminfo_kb("MemAvailable") * KB)
		test_skip("-b auto: %d vCPUs x 0x%lx bytes of %s exceed MemAvailable",
			  o->nr_vcpus, (unsigned long)o->vcpu_memory_bytes,
			  vm_mem_backing_src_alias(o->backing)->name);
	backing_src_require(o->backing, total);
	if (o->numa_node >= 0 &&
	    numa_util_unavailable(o->numa_node, o->backing, total, why, sizeof(why)))
		test_skip("%s", why);
	if (host_only)
		return;
	close(open_kvm_dev_path_or_exit(O_RDWR));
	kvm_backing_src_require(o->backing);
	if (o->nested && nested_arch_unavailable(why, sizeof(why)))
		test_skip("%s", why);
	max = kvm_check_cap(KVM_CAP_MAX_VCPUS);
	if (max > 0 && o->nr_vcpus > max)
		test_skip("%d vCPUs requested, KVM allows %d per VM", o->nr_vcpus, max);
	/* Slot 0 holds the test binary: test memory gets the rest. */
	max = kvm_check_cap(KVM_CAP_NR_MEMSLOTS);
	if (max > 0 && o->nr_slots > max - 1)
		test_usage_error("%d memslots requested (-x), KVM allows %d per VM: at most %d for test memory",
				 o->nr_slots, max, max - 1);
}

/*
 * SIGINT/SIGTERM: say so, then die of the signal (the status a shell or
 * runner expects), which takes every thread down at once.  Installed even
 * where the shell started the test with SIGINT ignored (in background).
 */
static void on_signal(int sig)
{
	static const char msg[] = "perf test: interrupted by a signal\n";

	if (write(STDERR_FILENO, msg, sizeof(msg) - 1) < 0)
		sig = SIGKILL;
	signal(sig, SIG_DFL);
	raise(sig);
}

static void catch_signals(void)
{
	struct sigaction sa = { .sa_handler = on_signal };

	sigemptyset(&sa.sa_mask);
	TEST_ASSERT(!sigaction(SIGINT, &sa, NULL) && !sigaction(SIGTERM, &sa, NULL),
		    "sigaction(SIGINT, SIGTERM)");
}

void perf_test_options_check(struct perf_test_options *o, bool host_only)
{
	catch_signals();
	if (host_only && o->nested)
		test_usage_error("-n runs the vCPUs nested; -H runs no vCPUs");
	if (host_only && backing_src_is_guest_memfd(o->backing))
		test_usage_error("-s %s is a VM's guest_memfd; -H runs no VM",
				 vm_mem_backing_src_alias(o->backing)->name);
	if (o->numa_node >= 0 && !backing_src_host_readable(o->backing))
		test_usage_error("-N binds the host's mapping of test memory; -s %s has none",
				 vm_mem_backing_src_alias(o->backing)->name);
	if (o->auto_size)
		resolve_auto_size(o);
	check_ram(o);
	check_sizes(o, get_backing_src_pagesz(o->backing));
	if (o->cpu_list)
		check_cpu_list(o);
	check_host(o, host_only);
	if (!host_only) {
		guest_modes_append_default();
		if (o->mode_arg)
			guest_modes_cmdline(o->mode_arg);
		check_guest_pages(o);
	}
	if (o->main_cpu >= 0) {
		cpu_set_t set;

		CPU_ZERO(&set);
		CPU_SET(o->main_cpu, &set);
		TEST_ASSERT(!sched_setaffinity(0, sizeof(set), &set),
			    "Pinning the main thread to CPU %d", o->main_cpu);
	}
}

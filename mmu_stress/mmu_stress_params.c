// SPDX-License-Identifier: GPL-2.0-only
/*
 * mmu_stress_test's options and sizes: what it runs with on this machine
 * (defaults from MemAvailable and the CPUs it may run on), upstream's -m/-s
 * in GiB, usage errors, then what the host lacks (skips), all decided
 * before any work.  The stages themselves are in mmu_stress_test.c.
 */
#include <fcntl.h>
#include <sched.h>
#include <sys/mman.h>

#include "mmu_stress.h"
#include "perf_report.h"
#include "perf_test_util.h"

static uint64_t mem_available(void)
{
	uint64_t kb = meminfo_kb("MemAvailable");

	return kb ? kb * KB : 1 * GB;
}

static int default_vcpus(void)
{
	cpu_set_t set;
	int n;

	if (sched_getaffinity(0, sizeof(set), &set))
		return 1;
	n = CPU_COUNT(&set) * 3 / 4;
	return n > 0 ? n : 1;
}

static uint64_t page_align(const struct mmu_params *p)
{
	uint64_t a = get_backing_src_pagesz(p->backing), g = vm_guest_mode(VM_MODE_DEFAULT)->page_size;

	return a > g ? a : g;
}

uint64_t mmu_victim_size(const struct mmu_params *p)
{
	uint64_t size = p->slot_size < MMU_VICTIM_MAX ? p->slot_size : MMU_VICTIM_MAX;
	uint64_t min = (uint64_t)p->nr_vcpus * vm_guest_mode(VM_MODE_DEFAULT)->page_size;

	return ALIGN_UP(size > min ? size : min, page_align(p));
}

/* Defaults from this machine: MemAvailable/8 of guest memory in 16 slots. */
static void default_sizes(struct mmu_params *p, bool mem_set, bool slot_set)
{
	uint64_t align = page_align(p);

	if (!mem_set) {
		p->guest_mem = mem_available() / 8;
		if (p->guest_mem > MMU_MAX_GUEST_MEM)
			p->guest_mem = MMU_MAX_GUEST_MEM;
		if (slot_set && p->guest_mem < p->slot_size)
			p->guest_mem = p->slot_size;
	}
	if (!slot_set) {
		p->slot_size = ALIGN_DOWN(p->guest_mem / 16, align);
		if (!p->slot_size)
			p->slot_size = align;
	}
	if (!mem_set && p->guest_mem < p->slot_size)
		p->guest_mem = p->slot_size;
}

static void help(const char *name, const void *arg)
{
	const struct mmu_params *d = arg;

	printf("usage: %s [-h] [-c vcpus] [-m guest_mem] [-s slot_size] [-t type] [-H]\n"
	       "          [--json file]\n", name);
	printf("-c, -m, -s and -H are upstream's mmu_stress_test's, not the perf tests'\n"
	       "(-c CPU list, -m guest mode, -s backing source, -H host only): the\n"
	       "backing source is -t here.\n");
	printf(" -c: number of vCPUs (default: 3/4 of the CPUs this thread may run on: %d)\n"
	       " -m: guest memory, spread over memslots of -s bytes that all map the\n"
	       "     same host buffer: GiB as a bare number (upstream's), or a size such\n"
	       "     as 512M (default: MemAvailable/8, at most 128G: 0x%lx); fewer slots\n"
	       "     if KVM's slot limit or the guest-physical space is reached\n"
	       " -s: memslot size, the host memory the test maps (GiB as a bare number,\n"
	       "     or a size; default: -m/16, a multiple of the backing page: 0x%lx)\n",
	       d->nr_vcpus, (unsigned long)d->guest_mem, (unsigned long)d->slot_size);
	backing_src_help(stdout, "-t", d->backing);
	printf("     (shmem: upstream's memfd)\n"
	       " -H: hugepages: -t shared_hugetlb (upstream's memfd with MFD_HUGETLB)\n"
	       " --json FILE: also write the options and figures as JSON to FILE\n");
}

/* Upstream's -m/-s take GiB; a size with a suffix is taken as is. */
static uint64_t parse_gib_or_size(const char *what, const char *arg)
{
	uint64_t v;
	const char *why;
	long gib;

	if (!try_parse_long(arg, 1, 1L << 20, &gib))
		return (uint64_t)gib * GB;
	if (try_parse_size(arg, &v, &why) || !v)
		test_usage_error("Bad %s '%s': GiB as a number, or a size such as 512M", what, arg);
	return v;
}

static void parse_args(int argc, char *argv[], struct mmu_params *p)
{
	struct mmu_params defaults = *p;
	int opt;

	default_sizes(&defaults, false, false);

	while ((opt = test_getopt(argc, argv, "c:m:s:t:H", help, &defaults)) != -1) {
		switch (opt) {
		case 'c':
			p->nr_vcpus = parse_long("vCPU count (-c)", optarg, 1, KVM_MAX_VCPUS);
			break;
		case 'm':
			p->guest_mem = parse_gib_or_size("guest memory (-m)", optarg);
			break;
		case 's':
			p->slot_size = parse_gib_or_size("slot size (-s)", optarg);
			break;
		case 't':
			p->backing = parse_backing_src_type(optarg);
			break;
		case 'H':
			p->backing = VM_MEM_SRC_SHARED_HUGETLB;
			break;
		case TEST_OPT_JSON:
			p->json_path = optarg;
			break;
		default:	/* --profile: not this test's */
			help(argv[0], &defaults);
			exit(KSFT_FAIL);
		}
	}
}

static __guest_code void probe_guest_code(uint64_t gva)
{
	WRITE_ONCE(*(uint64_t *)gva, 1);
	GUEST_SYNC(0);
}

/*
 * Does this KVM fail KVM_RUN with EFAULT on a write to read-only host
 * memory (as KVM's API says)?  A KVM that emulates the write as MMIO
 * instead cannot run the ro stage: skip, saying so.
 */
static void probe_ro_write(void)
{
	struct kvm_vcpu *vcpu;
	struct kvm_vm *vm = vm_create_with_one_vcpu(&vcpu, probe_guest_code);
	uint64_t gpa = 1ULL << 30, gva = PERF_TEST_GVA, size = getpagesize();
	int ret;

	vm_userspace_mem_region_add(vm, VM_MEM_SRC_ANONYMOUS, gpa, 1, size / vm->page_size, 0);
	vm_vaddr_reserve(vm, gva, size);
	virt_pg_map(vm, gva, gpa);
	vcpu_args_set(vcpu, 1, gva);
	TEST_ASSERT(!mprotect(addr_gpa2hva(vm, gpa), size, PROT_READ), "mprotect(PROT_READ)");
	ret = __vcpu_run(vcpu);
	if (!ret && vcpu->run->exit_reason == KVM_EXIT_MMIO)
		test_skip("This KVM emulates a guest write to read-only host memory as MMIO (KVM_EXIT_MMIO at GPA 0x%lx), not EFAULT from KVM_RUN: the ro stage cannot run",
			  (unsigned long)vcpu->run->mmio.phys_addr);
	kvm_vm_free(vm);
}

/* Usage errors first, then what the host lacks (skips). */
static void check_params(struct mmu_params *p)
{
	uint64_t align = page_align(p), host;
	const char *name = vm_mem_backing_src_alias(p->backing)->name;
	int max;

	if (p->slot_size % align)
		test_usage_error("Slot size 0x%lx (-s) is not a multiple of the %s/guest page size 0x%lx",
				 (unsigned long)p->slot_size, name, (unsigned long)align);
	if (p->guest_mem < p->slot_size)
		test_usage_error("Guest memory 0x%lx (-m) is less than one slot of 0x%lx (-s)",
				 (unsigned long)p->guest_mem, (unsigned long)p->slot_size);
	host = p->slot_size + mmu_victim_size(p);
	/* hugetlb pages come from their pool, which backing_src_require() checks. */
	if (!backing_src_is_hugetlb(p->backing) && host > mem_available())
		test_usage_error("A slot of 0x%lx bytes (-s) and the unmap slot exceed MemAvailable, 0x%lx bytes",
				 (unsigned long)p->slot_size, (unsigned long)mem_available());
	if (p->guest_mem / vm_guest_mode(VM_MODE_DEFAULT)->page_size < (uint64_t)p->nr_vcpus)
		test_usage_error("Guest memory 0x%lx (-m) has fewer pages than the %d vCPUs (-c)",
				 (unsigned long)p->guest_mem, p->nr_vcpus);
	backing_src_require(p->backing, host);
	close(open_kvm_dev_path_or_exit(O_RDWR));
	kvm_backing_src_require(p->backing);
	max = kvm_check_cap(KVM_CAP_MAX_VCPUS);
	if (max > 0 && p->nr_vcpus > max)
		test_skip("%d vCPUs requested, KVM allows %d per VM", p->nr_vcpus, max);
	if (kvm_check_cap(KVM_CAP_NR_MEMSLOTS) < 3)
		test_skip("KVM allows fewer than 3 memslots (the binary, the buffer, the unmap slot)");
	probe_ro_write();
}

void mmu_stress_params(int argc, char *argv[], struct mmu_params *p)
{
	*p = (struct mmu_params){ .backing = VM_MEM_SRC_SHMEM, .nr_vcpus = default_vcpus() };
	parse_args(argc, argv, p);
	default_sizes(p, p->guest_mem, p->slot_size);
	check_params(p);
}

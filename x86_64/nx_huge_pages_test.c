// SPDX-License-Identifier: GPL-2.0-only
/*
 * nx_huge_pages_test: the iTLB multihit mitigation (NX huge pages).  With
 * it on, KVM maps huge pages non-executable; a guest that executes from
 * one gets that mapping split to 4K pages (counted in the VM stat
 * nx_lpage_splits), and KVM's recovery thread later zaps the split pages
 * so that the next access maps them huge again.  KVM_CAP_VM_DISABLE_NX_
 * HUGE_PAGES turns the mitigation off for one VM (the process needs
 * CAP_SYS_BOOT).
 *
 * The test forces the mitigation on (kvm parameters nx_huge_pages,
 * nx_huge_pages_recovery_period_ms) with recovery off
 * (nx_huge_pages_recovery_ratio 0) until it waits for it (ratio 1: every
 * split page), so that no recovery races the steps before, and puts every
 * parameter back as it was when it exits, also on failure.  Three
 * 2M hugetlb pages of guest memory: the guest reads the first two, then
 * executes from the first and the third, then reads them again after the
 * recovery thread ran; pages_2m and nx_lpage_splits must follow, in a VM
 * with the mitigation and in one that disabled it.  Without CAP_SYS_BOOT
 * disabling it must fail with EPERM (checked in a child that drops it).
 */
#include <linux/capability.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include "fault_inject.h"
#include "kvm_params.h"
#include "perf_report.h"
#include "processor.h"

#define HPAGE_SLOT		10
#define HPAGE_GPA		(4ULL << 30)	/* clear of slot 0 */
#define HPAGE_GVA		HPAGE_GPA
#define HPAGE_SIZE		(2 * MB)
#define NR_HPAGES		3
#define RET_OPCODE		0xc3
#define DEFAULT_PERIOD_MS	100
/* How long the recovery thread may take, in periods (it wakes each period). */
#define RECOVERY_PERIODS	50

struct nx_params {
	long period_ms;		/* -p */
	bool reboot;		/* -r: CAP_SYS_BOOT is required */
	const char *json_path;
};

/* What the guest does at each step, and what the stats must be after it. */
struct nx_step {
	const char *what;
	int page;		/* 0..2 */
	bool exec;
	int pages_2m[2];	/* [mitigation on, disabled for the VM] */
	int splits[2];
};

/* Step 5 is the wait for the recovery thread: no guest access. */
#define RECOVERY_STEP	5

static const struct nx_step steps[] = {
	{ "read page 0", 0, false, { 1, 1 }, { 0, 0 } },
	{ "read page 1", 1, false, { 2, 2 }, { 0, 0 } },
	{ "execute page 0", 0, true, { 1, 2 }, { 1, 0 } },
	{ "execute page 2", 2, true, { 1, 3 }, { 2, 0 } },
	{ "read page 0 again", 0, false, { 1, 3 }, { 2, 0 } },
	{ "recovery thread", -1, false, { 1, 3 }, { 0, 0 } },
	{ "read page 2 after recovery", 2, false, { 2, 3 }, { 0, 0 } },
	{ "read page 0 after recovery", 0, false, { 3, 3 }, { 0, 0 } },
};

static __guest_code void guest_code(void)
{
	unsigned int i;
	uint64_t p;

	for (i = 0; i < ARRAY_SIZE(steps); i++) {
		if (steps[i].page < 0)
			continue;
		p = HPAGE_GVA + steps[i].page * HPAGE_SIZE;
		if (steps[i].exec)
			((void (*)(void))p)();
		else
			(void)READ_ONCE(*(uint64_t *)p);
		GUEST_SYNC(i);
	}
	GUEST_DONE();
}

static void help(const char *name, const void *arg)
{
	printf("usage: %s [-h] [-p period_ms] [-t token] [-r] [--json file]\n"
	       "-p is upstream's nx_huge_pages_test's, not the perf tests' (guest-physical\n"
	       "offset).\n"
	       " -p: the NX recovery period in milliseconds the test sets (default: %d)\n"
	       " -t: accepted for upstream's wrapper script; the test sets up and\n"
	       "     restores the kvm parameters itself\n"
	       " -r: the process must have CAP_SYS_BOOT (else a skip), so that\n"
	       "     KVM_CAP_VM_DISABLE_NX_HUGE_PAGES succeeds; without -r the test\n"
	       "     checks whichever outcome the capability implies, and the EPERM\n"
	       "     one in a child that drops CAP_SYS_BOOT\n"
	       " --json FILE: also write the figures as JSON to FILE\n", name, DEFAULT_PERIOD_MS);
}

static void parse_args(int argc, char *argv[], struct nx_params *p)
{
	int opt;

	while ((opt = test_getopt(argc, argv, "p:t:r", help, NULL)) != -1) {
		switch (opt) {
		case 'p':
			p->period_ms = parse_long("recovery period (-p)", optarg, 1, 60000);
			break;
		case 't':
			parse_long("token (-t)", optarg, 0, INT32_MAX);
			break;
		case 'r':
			p->reboot = true;
			break;
		case TEST_OPT_JSON:
			p->json_path = optarg;
			break;
		default:	/* --profile: not this test's */
			help(argv[0], NULL);
			exit(KSFT_FAIL);
		}
	}
}

static bool cap_sys_boot(void)
{
	struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct d[2];

	TEST_ASSERT(!syscall(SYS_capget, &h, d), "capget");
	return d[CAP_TO_INDEX(CAP_SYS_BOOT)].effective & CAP_TO_MASK(CAP_SYS_BOOT);
}

static void drop_cap_sys_boot(void)
{
	struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct d[2];

	TEST_ASSERT(!syscall(SYS_capget, &h, d), "capget");
	d[CAP_TO_INDEX(CAP_SYS_BOOT)].effective &= ~CAP_TO_MASK(CAP_SYS_BOOT);
	TEST_ASSERT(!syscall(SYS_capset, &h, d), "capset without CAP_SYS_BOOT");
}

static void set_param(const char *name, const char *value)
{
	char why[200];

	if (!kvm_param_set(name, value, why, sizeof(why)))
		test_skip("NX huge pages: %s", why);
}

/* Everything decided before any work; then the mitigation forced on. */
static void setup(const struct nx_params *p)
{
	struct kvm_stats_snapshot s = { 0 };
	char period[24];
	uint64_t v;
	bool found;

	kvm_require_dev();
	if (!kvm_has_cap(KVM_CAP_BINARY_STATS_FD))
		test_skip("NX huge pages: KVM lacks KVM_CAP_BINARY_STATS_FD (the stats are the check)");
	if (p->reboot && !cap_sys_boot())
		test_skip("-r: this process lacks CAP_SYS_BOOT");
	backing_src_require(VM_MEM_SRC_ANONYMOUS_HUGETLB_2MB, NR_HPAGES * HPAGE_SIZE);
	/* The stats this test reads, on a VM of this KVM. */
	{
		struct kvm_vm *vm = vm_create_barebones();

		kvm_stats_snapshot_add(&s, vm->fd);
		found = kvm_stats_snapshot_find(&s, "nx_lpage_splits", &v) &&
			kvm_stats_snapshot_find(&s, "pages_2m", &v);
		kvm_stats_snapshot_free(&s);
		kvm_vm_free(vm);
	}
	if (!found)
		test_skip("NX huge pages: KVM has no nx_lpage_splits or pages_2m VM stat");
	snprintf(period, sizeof(period), "%ld", p->period_ms);
	/* Recovery off until the test wants it: no race with the split steps. */
	set_param("nx_huge_pages_recovery_ratio", "0");
	set_param("nx_huge_pages_recovery_period_ms", period);
	set_param("nx_huge_pages", "force");
	ksft_print_msg("NX huge pages forced on, recovery period %ld ms, ratio 1 only while the test waits for it (restored at exit)\n",
		       p->period_ms);
}

static void check_stats(struct kvm_vm *vm, const struct nx_step *st, bool disabled)
{
	uint64_t p2m = vm_get_stat(vm, "pages_2m"), splits = vm_get_stat(vm, "nx_lpage_splits");

	/* KVM_SELFTEST_FAIL=nx_expect:N: the Nth check expects the other VM's stats. */
	if (fault_inject("nx_expect"))
		disabled = !disabled;

	TEST_ASSERT(p2m == (uint64_t)st->pages_2m[disabled] &&
		    splits == (uint64_t)st->splits[disabled],
		    "After %s (mitigation %s): pages_2m %lu, nx_lpage_splits %lu; expected %d and %d",
		    st->what, disabled ? "disabled for the VM" : "on", (unsigned long)p2m,
		    (unsigned long)splits, st->pages_2m[disabled], st->splits[disabled]);
}

/*
 * Mitigation on: until the splits are recovered (polled, its time); off
 * for the VM: nothing may change over as many periods as upstream waits.
 */
static uint64_t wait_recovery(struct kvm_vm *vm, const struct nx_params *p, bool disabled)
{
	long waited = 0, limit = p->period_ms * (disabled ? 5 : RECOVERY_PERIODS);
	struct timespec start = timespec_now();
	uint64_t ns;

	/* Recovery on (0 -> 1 wakes KVM's recovery threads): zap every split page. */
	set_param("nx_huge_pages_recovery_ratio", "1");

	if (limit < 5000 && !disabled)
		limit = 5000;
	while (waited < limit) {
		if (!disabled && !vm_get_stat(vm, "nx_lpage_splits"))
			break;
		usleep(10000);
		waited += 10;
	}
	ns = timespec_to_ns(timespec_elapsed(start));
	set_param("nx_huge_pages_recovery_ratio", "0");
	return ns;
}

static void run_vm(const struct nx_params *p, bool disabled)
{
	uint64_t step_ns[ARRAY_SIZE(steps)];
	struct timespec start;
	struct kvm_vcpu *vcpu;
	struct kvm_vm *vm;
	uint64_t stage;
	unsigned int i;

	vm = vm_create(1);
	if (disabled)
		vm_enable_cap(vm, KVM_CAP_VM_DISABLE_NX_HUGE_PAGES, 0);
	vcpu = vm_vcpu_add(vm, 0, guest_code);
	vm_userspace_mem_region_add(vm, VM_MEM_SRC_ANONYMOUS_HUGETLB_2MB, HPAGE_GPA, HPAGE_SLOT,
				    NR_HPAGES * HPAGE_SIZE / vm->page_size, 0);
	vm_vaddr_reserve(vm, HPAGE_GVA, NR_HPAGES * HPAGE_SIZE);
	/* Huge guest pages too: a shadow MMU maps no larger than the guest. */
	virt_map(vm, HPAGE_GVA, HPAGE_GPA, NR_HPAGES * HPAGE_SIZE / vm->page_size);
	memset(addr_gpa2hva(vm, HPAGE_GPA), RET_OPCODE, NR_HPAGES * HPAGE_SIZE);
	TEST_ASSERT(!vm_get_stat(vm, "pages_2m") && !vm_get_stat(vm, "nx_lpage_splits"),
		    "Huge mappings or NX splits before the guest ran");

	for (i = 0; i < ARRAY_SIZE(steps); i++) {
		if (i == RECOVERY_STEP) {
			step_ns[i] = wait_recovery(vm, p, disabled);
		} else {
			start = timespec_now();
			stage = vcpu_run_expect_sync(vcpu);
			step_ns[i] = timespec_to_ns(timespec_elapsed(start));
			TEST_ASSERT(stage == i, "Guest step %u: GUEST_SYNC(%lu), expected %u",
				    i, (unsigned long)stage, i);
		}
		check_stats(vm, &steps[i], disabled);
		ksft_print_msg("%s: %lu ns; pages_2m %d, nx_lpage_splits %d\n", steps[i].what,
			       (unsigned long)step_ns[i], steps[i].pages_2m[disabled],
			       steps[i].splits[disabled]);
	}
	vcpu_run_expect_done(vcpu);

	perf_report_opt_str("mitigation", disabled ? "disabled_for_vm" : "on");
	perf_report_opt_int("period_ms", p->period_ms);
	perf_report_u64("read_huge_ns", step_ns[0], "ns");
	perf_report_u64("exec_split_ns", step_ns[2], "ns");
	perf_report_u64("exec_fresh_ns", step_ns[3], "ns");
	perf_report_u64("recovery_ns", step_ns[RECOVERY_STEP], "ns");
	perf_report_u64("read_recovered_ns", step_ns[RECOVERY_STEP + 1], "ns");
	perf_report_u64("max_splits", steps[RECOVERY_STEP - 1].splits[disabled], "count");
	perf_report_run_end("nx_huge_pages");
	kvm_vm_free(vm);
}

/* In a child without CAP_SYS_BOOT: disabling the mitigation must fail with EPERM. */
static void check_eperm(void)
{
	int status, ret;
	struct kvm_vm *vm;
	pid_t pid;

	fflush(stdout);
	pid = fork();
	TEST_ASSERT(pid >= 0, "fork");
	if (!pid) {
		drop_cap_sys_boot();
		vm = vm_create_barebones();
		ret = __vm_enable_cap(vm, KVM_CAP_VM_DISABLE_NX_HUGE_PAGES, 0);
		TEST_ASSERT_IOCTL_ERRNO("KVM_ENABLE_CAP(KVM_CAP_VM_DISABLE_NX_HUGE_PAGES) without CAP_SYS_BOOT",
					ret, EPERM);
		kvm_vm_free(vm);
		_exit(0);
	}
	TEST_ASSERT(waitpid(pid, &status, 0) == pid, "waitpid");
	TEST_ASSERT(WIFEXITED(status) && !WEXITSTATUS(status),
		    "The child without CAP_SYS_BOOT failed (status 0x%x)", status);
}

/* The figures this test reports (perf_report.h: --figures lists them). */
static const char *const figures[] = {
	"read_huge_ns", "exec_split_ns", "exec_fresh_ns", "recovery_ns", "read_recovered_ns",
	"max_splits", NULL,
};

int main(int argc, char *argv[])
{
	struct nx_params p = { .period_ms = DEFAULT_PERIOD_MS };
	bool disable_cap;

	setvbuf(stdout, NULL, _IOLBF, 0);
	parse_args(argc, argv, &p);
	setup(&p);
	disable_cap = kvm_has_cap(KVM_CAP_VM_DISABLE_NX_HUGE_PAGES);
	perf_report_figures(figures);
	perf_report_open("nx_huge_pages_test", p.json_path, argc, argv);
	ksft_print_header();
	ksft_set_plan(3);

	run_vm(&p, false);
	ksft_test_result_pass("mitigation on: execution splits, the recovery thread maps huge again\n");
	if (!disable_cap) {
		ksft_test_result_skip("KVM lacks KVM_CAP_VM_DISABLE_NX_HUGE_PAGES\n");
		ksft_test_result_skip("KVM lacks KVM_CAP_VM_DISABLE_NX_HUGE_PAGES\n");
	} else {
		if (cap_sys_boot()) {
			run_vm(&p, true);
			ksft_test_result_pass("KVM_CAP_VM_DISABLE_NX_HUGE_PAGES: no splits in that VM\n");
		} else {
			ksft_test_result_skip("KVM_CAP_VM_DISABLE_NX_HUGE_PAGES: this process lacks CAP_SYS_BOOT\n");
		}
		check_eperm();
		ksft_test_result_pass("KVM_CAP_VM_DISABLE_NX_HUGE_PAGES without CAP_SYS_BOOT: EPERM\n");
	}
	perf_report_close();
	kvm_params_restore();
	ksft_finished();
}

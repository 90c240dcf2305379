// SPDX-License-Identifier: GPL-2.0-only
/*
 * KVM's binary stats count a vCPU's exits: a guest that makes N ucalls
 * (each one an exit to user space) moves the vCPU's "exits" counter by
 * at least N, and by no more than a bound the test states (-e), however
 * the ucall leaves the guest (x86_64: port I/O, arm64: MMIO).
 */
#include "perf_report.h"

#define DEFAULT_UCALLS	1000
#define DEFAULT_EXTRA	20	/* exits a ucall may cost besides its own */

static __guest_code void guest_code(uint64_t nr_ucalls)
{
	uint64_t i;

	for (i = 0; i < nr_ucalls; i++)
		GUEST_SYNC(i);
	GUEST_DONE();
}

struct params {
	long nr_ucalls;
	long extra;
	const char *json_path;
};

static void help(const char *name, const void *arg)
{
	const struct params *d = arg;

	printf("usage: %s [-h] [-i ucalls] [-e exits] [--json FILE]\n"
	       "The guest makes ucalls; the vCPU's \"exits\" stat must move by at least\n"
	       "one a ucall and at most -e a ucall.\n"
	       " -i: ucalls the guest makes (default: %ld)\n"
	       " -e: exits a ucall may cost at most, its own included (default: %ld)\n"
	       " --json FILE: also write the options and figures, with the KVM stats\n"
	       "     that moved, as one JSON object to FILE\n",
	       name, d->nr_ucalls, d->extra);
}

static void parse_args(int argc, char *argv[], struct params *p)
{
	const struct params d = { DEFAULT_UCALLS, DEFAULT_EXTRA, NULL };
	int opt;

	*p = d;
	while ((opt = test_getopt(argc, argv, "i:e:", help, &d)) != -1) {
		switch (opt) {
		case 'i':
			p->nr_ucalls = parse_long("ucall count (-i)", optarg, 1, 1000000);
			break;
		case 'e':
			p->extra = parse_long("exits a ucall (-e)", optarg, 1, 1000);
			break;
		case TEST_OPT_JSON:
			p->json_path = optarg;
			break;
		default:
			help(argv[0], &d);
			exit(KSFT_FAIL);
		}
	}
}

/* The figures this test reports (perf_report.h: --figures lists them). */
static const char *const figures[] = {
	"exits", NULL,
};

int main(int argc, char *argv[])
{
	uint64_t before, after, exits, i, nr;
	struct kvm_vcpu *vcpu;
	struct kvm_vm *vm;
	struct params p;

	parse_args(argc, argv, &p);
	kvm_require_dev();
	perf_report_figures(figures);
	perf_report_open("exit_stats_test", p.json_path, argc, argv);
	vm = vm_create_with_one_vcpu(&vcpu, guest_code);
	if (!kvm_read_stat(vcpu->fd, "exits", &before))
		test_skip("KVM has no \"exits\" vCPU stat (binary stats: KVM_GET_STATS_FD)");
	nr = p.nr_ucalls;
	vcpu_args_set(vcpu, 1, nr);
	ksft_print_header();
	ksft_set_plan(1);

	perf_report_stats_begin(vm);
	for (i = 0; i < nr; i++)
		TEST_ASSERT_EQ(vcpu_run_expect_sync(vcpu), i);
	vcpu_run_expect_done(vcpu);
	perf_report_stats_end(vm);
	after = vcpu_get_stat(vcpu, "exits");

	/* The N syncs and the DONE: N + 1 exits to user space. */
	exits = after - before;
	ksft_print_msg("%lu ucalls, %lu exits\n", (unsigned long)(nr + 1),
		       (unsigned long)exits);
	TEST_ASSERT(exits >= nr + 1, "%lu ucalls but the \"exits\" stat moved by %lu",
		    (unsigned long)(nr + 1), (unsigned long)exits);
	TEST_ASSERT(exits <= (nr + 1) * p.extra,
		    "%lu ucalls moved \"exits\" by %lu, more than %ld a ucall",
		    (unsigned long)(nr + 1), (unsigned long)exits, p.extra);

	perf_report_opt_int("ucalls", p.nr_ucalls);
	perf_report_u64("exits", exits, "exits");
	perf_report_run_end("exit_stats");
	perf_report_close();
	kvm_vm_free(vm);
	ksft_test_result_pass("%lu ucalls moved \"exits\" by %lu\n", (unsigned long)(nr + 1),
			      (unsigned long)exits);
	ksft_finished();
}

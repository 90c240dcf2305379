// SPDX-License-Identifier: GPL-2.0-only
/*
 * Create VMs with as many vCPUs as KVM_CAP_MAX_VCPUS allows, at the low
 * and the high end of the vCPU id range, and check that one more vCPU, an
 * id out of range, or a duplicate id is refused.
 */
#include <sys/resource.h>

#include "kvm_util.h"

struct vcpu_limits {
	int nr_vcpus;		/* KVM_CAP_NR_VCPUS: recommended */
	int max_vcpus;		/* KVM_CAP_MAX_VCPUS */
	int max_vcpu_id;	/* KVM_CAP_MAX_VCPU_ID */
};

static struct vcpu_limits read_limits(void)
{
	struct vcpu_limits l;

	/* The fallbacks are those the KVM API documents. */
	l.nr_vcpus = kvm_check_cap(KVM_CAP_NR_VCPUS);
	if (!l.nr_vcpus)
		l.nr_vcpus = 4;
	l.max_vcpus = kvm_check_cap(KVM_CAP_MAX_VCPUS);
	if (!l.max_vcpus)
		l.max_vcpus = l.nr_vcpus;
	l.max_vcpu_id = kvm_check_cap(KVM_CAP_MAX_VCPU_ID);
	if (!l.max_vcpu_id)
		l.max_vcpu_id = l.max_vcpus;
	return l;
}

static void raise_fd_limit(int need)
{
	struct rlimit rl;

	TEST_ASSERT(!getrlimit(RLIMIT_NOFILE, &rl), "getrlimit(RLIMIT_NOFILE)");
	if (rl.rlim_cur >= (rlim_t)need)
		return;
	if (rl.rlim_max < (rlim_t)need)
		rl.rlim_max = need;
	rl.rlim_cur = need;
	if (setrlimit(RLIMIT_NOFILE, &rl))
		test_skip("Need %d open files for the vCPUs, RLIMIT_NOFILE allows %lu",
			  need, (unsigned long)rl.rlim_cur);
}

static int create_vcpu(struct kvm_vm *vm, int id)
{
	return __vm_ioctl(vm, KVM_CREATE_VCPU, id);
}

/* Fill a VM with max_vcpus vCPUs starting at @first_id, then go one over. */
static void test_vcpu_creation(struct vcpu_limits l, int first_id)
{
	struct kvm_vm *vm = vm_create_barebones();
	int i, fd, *fds = calloc(l.max_vcpus, sizeof(*fds));

	TEST_ASSERT(fds, "Out of memory");
	for (i = 0; i < l.max_vcpus; i++) {
		fds[i] = create_vcpu(vm, first_id + i);
		TEST_ASSERT(fds[i] >= 0, "KVM_CREATE_VCPU of vCPU %d (id %d) of %d failed",
			    i + 1, first_id + i, l.max_vcpus);
	}

	fd = create_vcpu(vm, first_id > 0 ? first_id - 1 : l.max_vcpus);
	TEST_ASSERT(fd < 0, "vCPU %d of a VM limited to %d was created",
		    l.max_vcpus + 1, l.max_vcpus);

	for (i = 0; i < l.max_vcpus; i++)
		close(fds[i]);
	free(fds);
	kvm_vm_free(vm);
}

static void test_bad_ids(struct vcpu_limits l)
{
	struct kvm_vm *vm = vm_create_barebones();
	int fd;

	TEST_ASSERT_IOCTL_ERRNO("KVM_CREATE_VCPU(max_vcpu_id)",
				create_vcpu(vm, l.max_vcpu_id), EINVAL);
	TEST_ASSERT_IOCTL_ERRNO("KVM_CREATE_VCPU(-1)", create_vcpu(vm, -1), EINVAL);
	fd = create_vcpu(vm, 0);
	TEST_ASSERT(fd >= 0, "KVM_CREATE_VCPU(0) failed");
	TEST_ASSERT_IOCTL_ERRNO("KVM_CREATE_VCPU(0) twice", create_vcpu(vm, 0), EEXIST);
	close(fd);
	kvm_vm_free(vm);
}

int main(int argc, char *argv[])
{
	struct vcpu_limits l;

	parse_no_options(argc, argv,
			 "Create VMs with KVM_CAP_MAX_VCPUS vCPUs; check the vCPU id limits.");
	l = read_limits();
	raise_fd_limit(l.max_vcpus + 100);
	ksft_print_header();
	ksft_set_plan(4);
	ksft_print_msg("KVM_CAP_NR_VCPUS: %d, KVM_CAP_MAX_VCPUS: %d, KVM_CAP_MAX_VCPU_ID: %d\n",
		       l.nr_vcpus, l.max_vcpus, l.max_vcpu_id);

	TEST_ASSERT(l.nr_vcpus >= 1 && l.nr_vcpus <= l.max_vcpus,
		    "KVM_CAP_NR_VCPUS %d not in [1, KVM_CAP_MAX_VCPUS %d]",
		    l.nr_vcpus, l.max_vcpus);
	TEST_ASSERT(l.max_vcpu_id >= l.max_vcpus,
		    "KVM_CAP_MAX_VCPU_ID %d < KVM_CAP_MAX_VCPUS %d",
		    l.max_vcpu_id, l.max_vcpus);
	ksft_test_result_pass("limits consistent\n");

	test_vcpu_creation(l, 0);
	ksft_test_result_pass("%d vCPUs from id 0\n", l.max_vcpus);

	test_vcpu_creation(l, l.max_vcpu_id - l.max_vcpus);
	ksft_test_result_pass("%d vCPUs up to id %d\n", l.max_vcpus, l.max_vcpu_id - 1);

	test_bad_ids(l);
	ksft_test_result_pass("out-of-range and duplicate ids refused\n");
	ksft_finished();
}

// SPDX-License-Identifier: GPL-2.0-only
/*
 * Host-only tests of the ioctl wrappers' targets and of how a dead VM is
 * reported.
 *
 * Compiled with -DWRONG_USE=N (1 to 4), this file must not compile: each
 * is a vCPU passed where a VM is expected or the other way round, which
 * the Makefile compiles and requires refused (with the wrappers' message)
 * before it builds this test.
 *
 * Run, it checks what a failing vm_ioctl() and vcpu_ioctl() say when the
 * error is EIO: a VM KVM has marked dead answers every VM ioctl with EIO
 * (Documentation/virt/kvm/api.rst), and the assertion says the VM is
 * dead; an EIO of the call alone (its VM answers) stays a bare EIO.  A
 * hung-up terminal stands in for a dead VM's file: the kernel answers
 * its ioctls with EIO too.
 */
#include <fcntl.h>
#include <stdlib.h>

#include "kvm_util.h"
#include "test_child.h"

#ifdef WRONG_USE
void wrong_use(struct kvm_vm *vm, struct kvm_vcpu *vcpu);
void wrong_use(struct kvm_vm *vm, struct kvm_vcpu *vcpu)
{
#if WRONG_USE == 1
	vm_ioctl(vcpu, KVM_CHECK_EXTENSION, KVM_CAP_USER_MEMORY);
#elif WRONG_USE == 2
	__vm_ioctl(vcpu, KVM_CHECK_EXTENSION, KVM_CAP_USER_MEMORY);
#elif WRONG_USE == 3
	vcpu_ioctl(vm, KVM_RUN, NULL);
#elif WRONG_USE == 4
	__vcpu_ioctl(vm, KVM_RUN, NULL);
#endif
}
#else

/* A terminal whose other side is gone: its ioctls fail with EIO; -1 if none. */
static int hung_up_fd(void)
{
	int master = posix_openpt(O_RDWR | O_NOCTTY), fd;

	if (master < 0 || grantpt(master) || unlockpt(master))
		return -1;
	fd = open(ptsname(master), O_RDWR | O_NOCTTY);
	close(master);
	return fd;
}

struct target {
	struct kvm_vm vm;
	struct kvm_vcpu vcpu;
	bool on_vcpu;
	bool not_ours;		/* the VM another process's */
};

static void child_ioctl(const void *arg)
{
	const struct target *t = arg;
	struct kvm_vm vm = t->vm;
	struct kvm_vcpu vcpu = t->vcpu;

	vcpu.vm = &vm;
	vm.pid = getpid() + t->not_ours;
	if (t->on_vcpu)
		vcpu_ioctl(&vcpu, KVM_RUN, NULL);
	else
		vm_ioctl(&vm, KVM_CHECK_EXTENSION, KVM_CAP_USER_MEMORY);
}

/* The failed ioctl's assertion: exit 1, @want in it (and @not not). */
static void expect(struct target *t, const char *want, const char *not)
{
	char out[8192];
	int status = run_child(child_ioctl, t, out, sizeof(out), NULL, 0);

	TEST_ASSERT(status == 1 && strstr(out, want) && (!not || !strstr(out, not)),
		    "exit %d, wanted '%s'%s%s, got:\n%s", status, want,
		    not ? " without " : "", not ? not : "", out);
}

static const char *dead = "KVM has marked the VM dead";

static void test_dead_vm(void)
{
	struct target t = { 0 };
	int hup = hung_up_fd();

	if (hup < 0)
		test_skip("no pseudo-terminal to stand in for a dead VM: %s", strerror(errno));
	t.vm.fd = hup;
	expect(&t, "KVM_CHECK_EXTENSION failed", NULL);
	expect(&t, dead, NULL);
	t.vcpu.fd = hup;
	t.on_vcpu = true;
	expect(&t, "KVM_RUN failed", NULL);
	expect(&t, dead, NULL);
	close(hup);
}

static void test_alive_vm(void)
{
	struct target t = { .on_vcpu = true };
	int hup = hung_up_fd();

	if (hup < 0)
		test_skip("no pseudo-terminal: %s", strerror(errno));
	/* The vCPU's ioctl fails with EIO, its VM's answer ENOTTY: not dead. */
	t.vcpu.fd = hup;
	t.vm.fd = open("/dev/null", O_RDWR);
	expect(&t, "errno: 5 (Input/output error)", dead);
	/* Another process's VM: EIO for that reason, said so. */
	t.vm.fd = hup;
	t.not_ours = true;
	expect(&t, "the VM is another process's", dead);
	close(hup);
}

static void test_note_keeps_errno(void)
{
	struct kvm_vm vm = { .fd = -1, .pid = getpid() };

	errno = EINVAL;
	TEST_ASSERT(!strcmp(kvm_vm_dead_note(&vm), "") && errno == EINVAL,
		    "EINVAL is no dead VM, errno %d", errno);
	errno = EIO;
	TEST_ASSERT(!strcmp(kvm_vm_dead_note(&vm), "") && errno == EIO,
		    "a VM whose fd is bad (EBADF) is not dead, errno %d", errno);
}

int main(int argc, char *argv[])
{
	parse_no_options(argc, argv, "Host-only tests of how the ioctl wrappers report a dead VM.");

	ksft_print_header();
	ksft_set_plan(3);
	test_dead_vm();
	ksft_test_result_pass("EIO from a dead VM: the assertion says KVM marked it dead\n");
	test_alive_vm();
	ksft_test_result_pass("EIO of a live VM's vCPU, another process's VM: not called dead\n");
	test_note_keeps_errno();
	ksft_test_result_pass("the note keeps errno and needs EIO from the VM itself\n");
	ksft_finished();
}
#endif

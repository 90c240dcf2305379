// SPDX-License-Identifier: GPL-2.0-only
/*
 * One thread per vCPU (or per simulated vCPU in host-only runs), passes
 * driven by the main thread.
 *
 * Threads start behind a barrier: none runs its first pass until every
 * thread exists, so creating threads (which takes mmap_lock for write)
 * does not stall vCPUs that are faulting memory in.  -B turns it off.
 *
 * A thread never exits the process: a failure (KVM_RUN error, guest
 * assert, unexpected exit) is recorded (perf_test_fail()) and the thread
 * returns; the main thread, which records its own failures the same way
 * while the threads run, joins every thread and then fails the test with
 * the record.
 */
#include <stdarg.h>
#include <pthread.h>
#include <sched.h>

#include "fault_inject.h"
#include "perf_test_util.h"

struct perf_test_thread {
	pthread_t thread;
	struct perf_test_vcpu_args *va;
	bool failed;
	bool guest_assert;
	bool guest_exception;	/* UCALL_UNHANDLED: uc holds the arch's details */
	struct ucall uc;
	char err[200];
};

static struct {
	pthread_mutex_t lock;
	pthread_cond_t cond;		/* any change below */
	perf_test_pass_fn fn;
	int nr_threads;
	int nr_started;
	bool barrier;
	uint64_t pass;			/* the pass asked for */
	bool stop;
	bool failed;
	struct perf_test_thread threads[KVM_MAX_VCPUS];
	char main_err[300];		/* the main thread's record */
} pt = {
	.lock = PTHREAD_MUTEX_INITIALIZER,
	.cond = PTHREAD_COND_INITIALIZER,
};

/* The calling thread's record: a vCPU thread's, or the main thread's. */
static __thread struct perf_test_thread *self;

static char *record(size_t *len)
{
	*len = self ? sizeof(self->err) : sizeof(pt.main_err);
	return self ? self->err : pt.main_err;
}

static int vrecord(bool append, const char *fmt, va_list ap)
{
	size_t len, used;
	char *err = record(&len);

	used = strlen(err);
	if (!append && used)
		return -1;
	vsnprintf(err + used, len - used, fmt, ap);
	return -1;
}

int perf_test_fail(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vrecord(false, fmt, ap);
	va_end(ap);
	return -1;
}

int perf_test_fail_more(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vrecord(true, fmt, ap);
	va_end(ap);
	return -1;
}

int __perf_test_vcpu_run(struct kvm_vcpu *vcpu)
{
	if (!__vcpu_run(vcpu))
		return 0;
	return perf_test_fail("KVM_RUN failed: %s, exit reason %u (%s)%s", strerror(errno),
			      vcpu->run->exit_reason, exit_reason_str(vcpu->run->exit_reason),
			      kvm_vm_dead_note(vcpu->vm));
}

int __perf_test_vcpu_sync(struct perf_test_vcpu_args *va, uint64_t pass)
{
	struct perf_test_thread *t = &pt.threads[va->vcpu_idx];
	struct kvm_vcpu *vcpu = va->vcpu;

	switch (__get_ucall(vcpu, &t->uc)) {
	case UCALL_SYNC:
		if (t->uc.args[1] == pass)
			return 0;
		return perf_test_fail("GUEST_SYNC(%lu) in pass %lu",
				      (unsigned long)t->uc.args[1], (unsigned long)pass);
	case UCALL_ABORT:
		t->guest_assert = true;
		return perf_test_fail("guest assertion");
	case UCALL_UNHANDLED:
		t->guest_exception = true;
		return perf_test_fail("unexpected guest exception");
	case UCALL_NONE:
		return perf_test_fail("unexpected exit %u (%s)", vcpu->run->exit_reason,
				      exit_reason_str(vcpu->run->exit_reason));
	default:
		return perf_test_fail("unexpected ucall %lu", (unsigned long)t->uc.cmd);
	}
}

int __perf_test_vcpu_pass(struct perf_test_vcpu_args *va, uint64_t pass)
{
	return __perf_test_vcpu_run(va->vcpu) ?: __perf_test_vcpu_sync(va, pass);
}

int __perf_test_host_pass(struct perf_test_vcpu_args *va, uint64_t pass)
{
	perf_test_touch_pages((uintptr_t)perf_test_args.host_region.host_mem, va->vcpu_idx);
	return 0;
}

void perf_test_set_vcpus(int nr_vcpus, struct kvm_vcpu *vcpus[])
{
	int i;

	for (i = 0; i < nr_vcpus; i++) {
		perf_test_args.vcpu_args[i].vcpu_idx = i;
		perf_test_args.vcpu_args[i].vcpu = vcpus ? vcpus[i] : NULL;
	}
	perf_test_args.nr_vcpus = nr_vcpus;
}

/* Wait for all threads to exist (the barrier), then for a new pass. */
static uint64_t wait_for_pass(struct perf_test_vcpu_args *va)
{
	uint64_t pass;

	pthread_mutex_lock(&pt.lock);
	while (!pt.stop && ((pt.barrier && pt.nr_started < pt.nr_threads) ||
			    pt.pass == va->passes))
		pthread_cond_wait(&pt.cond, &pt.lock);
	pass = pt.stop ? 0 : pt.pass;
	pthread_mutex_unlock(&pt.lock);
	return pass;
}

static void *perf_test_thread_fn(void *arg)
{
	struct perf_test_thread *t = arg;
	struct perf_test_vcpu_args *va = t->va;
	struct timespec start;
	uint64_t pass;
	bool ok;

	self = t;
	while ((pass = wait_for_pass(va))) {
		start = timespec_now();
		ok = !pt.fn(va, pass);
		pthread_mutex_lock(&pt.lock);
		va->pass_ns = timespec_to_ns(timespec_elapsed(start));
		va->passes = pass;
		if (!ok)
			t->failed = pt.failed = true;
		pthread_cond_broadcast(&pt.cond);
		pthread_mutex_unlock(&pt.lock);
		if (!ok)
			break;
	}
	return NULL;
}

static bool thread_create(struct perf_test_thread *t, const struct perf_test_options *o)
{
	pthread_attr_t attr;
	cpu_set_t set;
	int idx = t->va->vcpu_idx, err;

	TEST_ASSERT(!pthread_attr_init(&attr), "pthread_attr_init");
	if (o->pin) {
		CPU_ZERO(&set);
		CPU_SET(o->vcpu_cpus[idx], &set);
		TEST_ASSERT(!pthread_attr_setaffinity_np(&attr, sizeof(set), &set),
			    "Pinning vCPU %d thread to CPU %d", idx, o->vcpu_cpus[idx]);
	}
	err = test_thread_create(&t->thread, &attr, perf_test_thread_fn, t);
	pthread_attr_destroy(&attr);
	pthread_mutex_lock(&pt.lock);
	if (err) {
		/*
		 * The threads started so far stop (the join reaps them) and
		 * the test fails with this thread's record.
		 */
		snprintf(t->err, sizeof(t->err),
			 "pthread_create: %s (the %d threads started were stopped and joined)",
			 strerror(err), pt.nr_started);
		t->failed = pt.failed = pt.stop = true;
		pt.nr_threads = pt.nr_started;
	} else {
		pt.nr_started++;
	}
	pthread_cond_broadcast(&pt.cond);
	pthread_mutex_unlock(&pt.lock);
	return !err;
}

void perf_test_start_threads(const struct perf_test_options *o, perf_test_pass_fn fn)
{
	int i;

	pt.fn = fn;
	pt.nr_threads = o->nr_vcpus;
	pt.nr_started = 0;
	pt.barrier = o->barrier;
	pt.stop = false;
	pt.failed = false;
	pt.main_err[0] = '\0';
	perf_test_next_pass();
	for (i = 0; i < o->nr_vcpus; i++) {
		memset(&pt.threads[i], 0, sizeof(pt.threads[i]));
		pt.threads[i].va = &perf_test_args.vcpu_args[i];
		pt.threads[i].va->passes = 0;
		if (!thread_create(&pt.threads[i], o))
			break;
	}
}

static bool pass_done(uint64_t pass)
{
	int i;

	for (i = 0; i < pt.nr_threads; i++)
		if (pt.threads[i].va->passes < pass)
			return false;
	return true;
}

bool perf_test_wait_pass(uint64_t pass, bool (*abort)(void *arg), void *arg)
{
	struct timespec deadline;
	bool done;

	pthread_mutex_lock(&pt.lock);
	while (!(done = pass_done(pass)) && !pt.failed && !(abort && abort(arg))) {
		clock_gettime(CLOCK_REALTIME, &deadline);
		deadline = timespec_add_ns(deadline, 20 * 1000 * 1000);
		pthread_cond_timedwait(&pt.cond, &pt.lock, &deadline);
	}
	pthread_mutex_unlock(&pt.lock);
	return done;
}

void perf_test_next_pass(void)
{
	pthread_mutex_lock(&pt.lock);
	pt.pass++;
	perf_test_args.iteration = pt.pass;
	if (perf_test_args.vm)
		write_guest_global(perf_test_args.vm, perf_test_args.iteration, pt.pass);
	pthread_cond_broadcast(&pt.cond);
	pthread_mutex_unlock(&pt.lock);
}

bool perf_test_run_pass(uint64_t pass, uint64_t *ns)
{
	struct timespec start = timespec_now();
	bool done;

	perf_test_next_pass();
	done = perf_test_wait_pass(pass, NULL, NULL);
	*ns = timespec_to_ns(timespec_elapsed(start));
	return done;
}

void perf_test_join_threads(void)
{
	struct perf_test_thread *t;
	int i;

	pthread_mutex_lock(&pt.lock);
	pt.stop = true;
	pthread_cond_broadcast(&pt.cond);
	pthread_mutex_unlock(&pt.lock);
	for (i = 0; i < pt.nr_threads; i++)
		TEST_ASSERT(!pthread_join(pt.threads[i].thread, NULL),
			    "pthread_join(vCPU %d)", i);
	pt.nr_threads = 0;
	pt.pass = 0;
	for (i = 0; i < KVM_MAX_VCPUS; i++) {
		t = &pt.threads[i];
		if (!t->failed)
			continue;
		if (t->guest_assert)
			REPORT_GUEST_ASSERT(t->uc);
		if (t->guest_exception) {
			ksft_print_msg("vCPU %d, pass %lu: %s\n", i,
				       (unsigned long)t->va->passes, t->err);
			ucall_arch_report_unhandled(&t->uc);
		}
		TEST_FAIL("vCPU %d, pass %lu: %s", i, (unsigned long)t->va->passes, t->err);
	}
	if (pt.main_err[0])
		TEST_FAIL("%s", pt.main_err);
}

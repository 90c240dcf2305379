// SPDX-License-Identifier: GPL-2.0-only
/*
 * userfaultfd_util: a uffd over a memory range and the reader threads
 * that serve its faults (see userfaultfd_util.h).
 */
#include <fcntl.h>
#include <linux/userfaultfd.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>

#include "fault_inject.h"
#include "server_pool.h"
#include "userfaultfd_util.h"
#include "test_util.h"

#ifndef UFFD_USER_MODE_ONLY
#define UFFD_USER_MODE_ONLY	1
#endif

static const char * const uffd_mode_names[NUM_UFFD_MODES] = {
	[UFFD_MODE_NONE] = "NONE",
	[UFFD_MODE_MISSING] = "MISSING",
	[UFFD_MODE_MINOR] = "MINOR",
};

static const char * const uffd_wake_names[NUM_UFFD_WAKES] = {
	[UFFD_WAKE_EPOLL] = "epoll",
	[UFFD_WAKE_POLL] = "poll",
};

/* The index in [first, n) of @name in @names, or -EINVAL. */
static int name_index(const char * const *names, int first, int n, const char *name)
{
	int i;

	for (i = first; i < n; i++)
		if (!strcmp(name, names[i]))
			return i;
	return -EINVAL;
}

int try_parse_uffd_mode(const char *name)
{
	return name_index(uffd_mode_names, UFFD_MODE_MISSING, NUM_UFFD_MODES, name);
}

enum uffd_mode parse_uffd_mode(const char *name)
{
	int mode = try_parse_uffd_mode(name);

	if (mode < 0)
		test_usage_error("Unknown uffd mode '%s': use MISSING or MINOR", name);
	return mode;
}

const char *uffd_mode_name(enum uffd_mode mode)
{
	return mode < NUM_UFFD_MODES ? uffd_mode_names[mode] : "?";
}

int try_parse_uffd_wake(const char *name)
{
	return name_index(uffd_wake_names, 0, NUM_UFFD_WAKES, name);
}

enum uffd_wake parse_uffd_wake(const char *name)
{
	int wake = try_parse_uffd_wake(name);

	if (wake < 0)
		test_usage_error("Unknown wake mode '%s': use epoll or poll", name);
	return wake;
}

const char *uffd_wake_name(enum uffd_wake wake)
{
	return wake < NUM_UFFD_WAKES ? uffd_wake_names[wake] : "?";
}

static int uffd_open(bool user_only)
{
	return syscall(__NR_userfaultfd, O_CLOEXEC | O_NONBLOCK |
		       (user_only ? UFFD_USER_MODE_ONLY : 0));
}

/* The UFFDIO_API features @mode needs on @backing memory. */
static uint64_t uffd_features(enum uffd_mode mode, uint32_t backing)
{
	bool huge = backing_src_is_hugetlb(backing);

	if (mode == UFFD_MODE_MINOR)
		return huge ? UFFD_FEATURE_MINOR_HUGETLBFS : UFFD_FEATURE_MINOR_SHMEM;
	if (backing_src_is_shared(backing))
		return huge ? UFFD_FEATURE_MISSING_HUGETLBFS : UFFD_FEATURE_MISSING_SHMEM;
	return huge ? UFFD_FEATURE_MISSING_HUGETLBFS : 0;
}

static const char *uffd_open_refused(int err, char *why, size_t len)
{
	if (err == EPERM)
		snprintf(why, len,
			 "userfaultfd refused (EPERM): vm.unprivileged_userfaultfd is 0 and this process lacks CAP_SYS_PTRACE");
	else
		snprintf(why, len, "userfaultfd() failed: %s (CONFIG_USERFAULTFD?)",
			 strerror(err));
	return why;
}

const char *uffd_unavailable(enum uffd_mode mode, uint32_t backing, bool user_only,
			     char *why, size_t len)
{
	struct uffdio_api api = { .api = UFFD_API };
	uint64_t need = uffd_features(mode, backing);
	const char *ret = NULL;
	int fd;

	if (mode == UFFD_MODE_NONE)
		return NULL;
	if (mode == UFFD_MODE_MINOR && !backing_src_is_shared(backing)) {
		snprintf(why, len, "MINOR faults need shmem or shared_hugetlb memory");
		return why;
	}
	fd = uffd_open(user_only);
	if (fd < 0)
		return uffd_open_refused(errno, why, len);
	if (ioctl(fd, UFFDIO_API, &api)) {
		snprintf(why, len, "UFFDIO_API failed: %s", strerror(errno));
		ret = why;
	} else if ((api.features & need) != need) {
		snprintf(why, len, "userfaultfd lacks feature 0x%llx (%s %s faults)",
			 (unsigned long long)(need & ~api.features),
			 vm_mem_backing_src_alias(backing)->name, uffd_mode_name(mode));
		ret = why;
	}
	close(fd);
	return ret;
}

static enum serve_result reader_fail(struct pool_thread *t, const char *what, uint64_t addr,
				     int err)
{
	return server_pool_fail(t, "%s failed at 0x%lx: %s", what, (unsigned long)addr,
				strerror(err));
}

/* UFFDIO_COPY or UFFDIO_CONTINUE of the page at @addr. */
static enum serve_result reader_resolve(struct pool_thread *t, struct uffd_desc *u,
					uint64_t addr)
{
	struct uffd_reader_stats *st = &u->stats[t->id];
	struct uffdio_range range = { .start = addr, .len = u->page_size };
	struct uffdio_copy copy = {
		.dst = addr, .src = (uintptr_t)u->copy_src, .len = u->page_size,
	};
	struct uffdio_continue cont = { .range = range };
	const char *what;
	int ret;

	if (u->mode == UFFD_MODE_MISSING) {
		what = "UFFDIO_COPY";
		ret = ioctl(u->uffd, UFFDIO_COPY, &copy);
	} else {
		what = "UFFDIO_CONTINUE";
		ret = ioctl(u->uffd, UFFDIO_CONTINUE, &cont);
	}
	if (!ret) {
		st->served++;
		return SERVE_OK;
	}
	if (errno != EEXIST && errno != EAGAIN)
		return reader_fail(t, what, addr, errno);
	/* Served by another reader (or to retry): make sure the thread runs. */
	st->raced++;
	if (ioctl(u->uffd, UFFDIO_WAKE, &range))
		return reader_fail(t, "UFFDIO_WAKE", addr, errno);
	return SERVE_OK;
}

/* The uffd is readable: read one fault and serve it (a pool's serve). */
static enum serve_result reader_serve_one(struct pool_thread *t, int idx, void *arg)
{
	struct timespec woken = timespec_now();
	struct uffd_desc *u = arg;
	struct uffd_reader_stats *st = &u->stats[t->id];
	enum serve_result ret;
	struct uffd_msg msg;
	uint64_t addr;
	ssize_t n;

	(void)idx;
	n = read(u->uffd, &msg, sizeof(msg));
	if (n < 0 && errno == EAGAIN)
		return SERVE_EMPTY;
	if (n != sizeof(msg))
		return reader_fail(t, "read(uffd)", 0, n < 0 ? errno : EIO);
	if (msg.event != UFFD_EVENT_PAGEFAULT)
		return reader_fail(t, "unexpected uffd event", msg.event, EINVAL);
	addr = ALIGN_DOWN((uint64_t)msg.arg.pagefault.address, u->page_size);
	if (u->delay_us)
		usleep(u->delay_us);
	if (fault_inject("uffd_reader"))
		return reader_fail(t, "injected fault (KVM_SELFTEST_FAIL=uffd_reader)",
				   addr, EIO);
	ret = reader_resolve(t, u, addr);
	if (ret == SERVE_OK)
		latency_hist_add(&st->latency, timespec_to_ns(timespec_elapsed(woken)));
	return ret;
}

/*
 * A uffd with @features whose [hva, hva + len) is registered for @mode
 * (the register ioctl's answer in @reg): the fd, or -1 with errno set and
 * @step naming the call that failed.
 */
static int __uffd_open_registered(enum uffd_mode mode, uint64_t features, bool user_only,
				  void *hva, uint64_t len, struct uffdio_register *reg,
				  const char **step)
{
	struct uffdio_api api = { .api = UFFD_API, .features = features };
	int fd, err;

	*reg = (struct uffdio_register) {
		.range = { .start = (uintptr_t)hva, .len = len },
		.mode = mode == UFFD_MODE_MINOR ? UFFDIO_REGISTER_MODE_MINOR :
						  UFFDIO_REGISTER_MODE_MISSING,
	};
	*step = "userfaultfd()";
	fd = uffd_open(user_only);
	if (fd < 0)
		return -1;
	*step = "UFFDIO_API";
	if (!ioctl(fd, UFFDIO_API, &api)) {
		*step = "UFFDIO_REGISTER";
		if (!ioctl(fd, UFFDIO_REGISTER, reg))
			return fd;
	}
	err = errno;
	close(fd);
	errno = err;
	return -1;
}

const char *uffd_range_unavailable(enum uffd_mode mode, void *hva, uint64_t len,
				   char *why, size_t why_len)
{
	struct uffdio_register reg;
	const char *step;
	int fd = __uffd_open_registered(mode, 0, false, hva, len, &reg, &step);

	if (fd >= 0) {
		close(fd);
		return NULL;
	}
	snprintf(why, why_len, "%s for %s faults on [%p, +0x%lx): %s", step,
		 uffd_mode_name(mode), hva, (unsigned long)len, strerror(errno));
	return why;
}

static void uffd_register(struct uffd_desc *u, uint64_t backing_features, bool user_only)
{
	struct uffdio_register reg;
	uint64_t need = u->mode == UFFD_MODE_MINOR ? 1ULL << _UFFDIO_CONTINUE :
						       1ULL << _UFFDIO_COPY;
	const char *step;

	u->uffd = __uffd_open_registered(u->mode, backing_features, user_only, u->base,
					 u->len, &reg, &step);
	TEST_ASSERT(u->uffd >= 0, "%s (%s, features 0x%lx) of [%p, +0x%lx) failed",
		    step, uffd_mode_name(u->mode), (unsigned long)backing_features,
		    u->base, (unsigned long)u->len);
	TEST_ASSERT((reg.ioctls & need) == need,
		    "UFFDIO_REGISTER(%s): ioctls 0x%llx lack 0x%llx",
		    uffd_mode_name(u->mode), (unsigned long long)reg.ioctls,
		    (unsigned long long)need);
}

struct uffd_desc *uffd_create(enum uffd_mode mode, enum uffd_wake wake,
			       unsigned int delay_us, void *hva, uint64_t len,
			       uint32_t backing, int nr_readers, bool user_only)
{
	struct uffd_desc *u = calloc(1, sizeof(*u));
	uint64_t page_size = get_backing_src_pagesz(backing);

	TEST_ASSERT(u && nr_readers > 0, "uffd setup: out of memory or no readers");
	*u = (struct uffd_desc) {
		.mode = mode, .wake = wake, .page_size = page_size, .base = hva,
		.len = len, .delay_us = delay_us, .nr_readers = nr_readers,
	};
	uffd_register(u, uffd_features(mode, backing), user_only);
	if (mode == UFFD_MODE_MISSING) {
		u->copy_src = aligned_alloc(getpagesize(), page_size);
		TEST_ASSERT(u->copy_src, "Out of memory for a 0x%lx source page",
			    (unsigned long)page_size);
		memset(u->copy_src, 0, page_size);
	}
	u->stats = calloc(nr_readers, sizeof(*u->stats));
	TEST_ASSERT(u->stats, "Out of memory for %d uffd readers", nr_readers);
	u->pool = server_pool_create(wake == UFFD_WAKE_EPOLL ? POOL_WAIT_EPOLL : POOL_WAIT_POLL,
				     &u->uffd, 1, nr_readers, false, reader_serve_one, NULL, u);
	return u;
}

void uffd_start_readers(struct uffd_desc *u)
{
	/* A reader that cannot start is its failure, reported by the stop. */
	server_pool_start(u->pool);
}

bool uffd_failed(const struct uffd_desc *u)
{
	return READ_ONCE(u->pool->failed);
}

/*
 * Unregister the range and wake every fault waiting on it, so that threads
 * blocked in those faults go on as if the range was never registered.
 * Closing the uffd would wake them too, but a close while a vCPU faults on
 * the range through get_user_pages() was seen to hang for good in
 * userfaultfd_release() on 6.1 (it waits for mmap_lock for writing).
 */
static void uffd_release_faults(struct uffd_desc *u)
{
	struct uffdio_range range = { .start = (uintptr_t)u->base, .len = u->len };

	TEST_ASSERT(!ioctl(u->uffd, UFFDIO_UNREGISTER, &range),
		    "UFFDIO_UNREGISTER of [%p, +0x%lx)", u->base, (unsigned long)u->len);
	TEST_ASSERT(!ioctl(u->uffd, UFFDIO_WAKE, &range),
		    "UFFDIO_WAKE of [%p, +0x%lx)", u->base, (unsigned long)u->len);
}

void uffd_stop_readers(struct uffd_desc *u)
{
	if (u->uffd < 0)
		return;
	server_pool_stop(u->pool);
	uffd_release_faults(u);
	close(u->uffd);
	u->uffd = -1;
}

void uffd_check(const struct uffd_desc *u)
{
	const struct pool_thread *t = server_pool_failure(u->pool);

	if (t)
		TEST_FAIL("uffd reader %d of [%p, +0x%lx) (%s): %s", t->id, u->base,
			  (unsigned long)u->len, uffd_mode_name(u->mode), t->err);
}

void uffd_stop_demand_paging(struct uffd_desc *u)
{
	uffd_stop_readers(u);
	uffd_check(u);
}

void uffd_desc_stats(const struct uffd_desc *u, struct uffd_reader_stats *sum)
{
	const struct uffd_reader_stats *s;
	int i;

	for (i = 0; i < u->nr_readers; i++) {
		s = &u->stats[i];
		sum->served += s->served;
		sum->raced += s->raced;
		sum->empty_wakes += u->pool->threads[i].empty_wakes;
		latency_hist_merge(&sum->latency, &s->latency);
	}
}

void uffd_desc_free(struct uffd_desc *u)
{
	if (!u)
		return;
	server_pool_free(u->pool);
	free(u->copy_src);
	free(u->stats);
	free(u);
}

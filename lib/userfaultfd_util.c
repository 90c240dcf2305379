// SPDX-License-Identifier: GPL-2.0-only
/*
 * userfaultfd_util: a uffd over a memory range and the reader threads
 * that serve its faults (see userfaultfd_util.h).
 */
#include <fcntl.h>
#include <linux/userfaultfd.h>
#include <poll.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>

#include "fault_inject.h"
#include "userfaultfd_util.h"
#include "test_util.h"

#ifndef UFFD_USER_MODE_ONLY
#define UFFD_USER_MODE_ONLY	1
#endif

#define EPOLL_KEY_UFFD		0
#define EPOLL_KEY_EXIT		1

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

static bool reader_fail(struct uffd_reader *r, const char *what, uint64_t addr, int err)
{
	r->failed = true;
	r->err = err;
	r->fail_addr = addr;
	snprintf(r->fail_what, sizeof(r->fail_what), "%s", what);
	WRITE_ONCE(r->uffd->failed, true);
	return false;
}

/* UFFDIO_COPY or UFFDIO_CONTINUE of the page at @addr: false on failure. */
static bool reader_resolve(struct uffd_reader *r, uint64_t addr)
{
	struct uffd_desc *u = r->uffd;
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
		r->stats.served++;
		return true;
	}
	if (errno != EEXIST && errno != EAGAIN)
		return reader_fail(r, what, addr, errno);
	/* Served by another reader (or to retry): make sure the thread runs. */
	r->stats.raced++;
	if (ioctl(u->uffd, UFFDIO_WAKE, &range))
		return reader_fail(r, "UFFDIO_WAKE", addr, errno);
	return true;
}

/* Read one fault and serve it; false if the reader must stop. */
static bool reader_serve_one(struct uffd_reader *r, struct timespec woken)
{
	struct uffd_desc *u = r->uffd;
	struct uffd_msg msg;
	uint64_t addr;
	ssize_t n;

	n = read(u->uffd, &msg, sizeof(msg));
	if (n < 0 && errno == EAGAIN) {
		r->stats.empty_wakes++;
		return true;
	}
	if (n != sizeof(msg))
		return reader_fail(r, "read(uffd)", 0, n < 0 ? errno : EIO);
	if (msg.event != UFFD_EVENT_PAGEFAULT)
		return reader_fail(r, "unexpected uffd event", msg.event, EINVAL);
	addr = ALIGN_DOWN((uint64_t)msg.arg.pagefault.address, u->page_size);
	if (u->delay_us)
		usleep(u->delay_us);
	if (fault_inject("uffd_reader"))
		return reader_fail(r, "injected fault (KVM_SELFTEST_FAIL=uffd_reader)",
				   addr, EIO);
	if (!reader_resolve(r, addr))
		return false;
	latency_hist_add(&r->stats.latency, timespec_to_ns(timespec_elapsed(woken)));
	return true;
}

enum reader_event { READER_FAULT, READER_EXIT, READER_ERROR };

static enum reader_event reader_wait_epoll(struct uffd_reader *r)
{
	struct epoll_event ev[2];
	int n, i;

	do {
		n = epoll_wait(r->epoll_fd, ev, ARRAY_SIZE(ev), -1);
	} while (n < 0 && errno == EINTR);
	if (n <= 0) {
		reader_fail(r, "epoll_wait", 0, n < 0 ? errno : EIO);
		return READER_ERROR;
	}
	for (i = 0; i < n; i++)
		if (ev[i].data.u32 == EPOLL_KEY_EXIT)
			return READER_EXIT;
	if (ev[0].events & (EPOLLERR | EPOLLHUP)) {
		reader_fail(r, "epoll: uffd error/hangup", 0, EIO);
		return READER_ERROR;
	}
	return READER_FAULT;
}

static enum reader_event reader_wait_poll(struct uffd_reader *r)
{
	struct pollfd fds[2] = {
		{ .fd = r->uffd->uffd, .events = POLLIN },
		{ .fd = r->uffd->pipe_fds[0], .events = POLLIN },
	};
	int n;

	do {
		n = poll(fds, ARRAY_SIZE(fds), -1);
	} while (n < 0 && errno == EINTR);
	if (n <= 0) {
		reader_fail(r, "poll", 0, n < 0 ? errno : EIO);
		return READER_ERROR;
	}
	if (fds[1].revents)
		return READER_EXIT;
	if (fds[0].revents & (POLLERR | POLLHUP | POLLNVAL)) {
		reader_fail(r, "poll: uffd error/hangup", 0, EIO);
		return READER_ERROR;
	}
	return READER_FAULT;
}

static void *uffd_reader_thread(void *arg)
{
	struct uffd_reader *r = arg;
	enum reader_event ev;
	struct timespec woken;

	__atomic_add_fetch(&r->uffd->nr_ready, 1, __ATOMIC_RELEASE);
	for (;;) {
		if (r->uffd->wake == UFFD_WAKE_EPOLL)
			ev = reader_wait_epoll(r);
		else
			ev = reader_wait_poll(r);
		if (ev != READER_FAULT)
			break;
		woken = timespec_now();
		if (!reader_serve_one(r, woken))
			break;
	}
	return NULL;
}

static void reader_epoll_setup(struct uffd_reader *r)
{
	struct uffd_desc *u = r->uffd;
	struct epoll_event ev = {
		.events = EPOLLIN | EPOLLEXCLUSIVE, .data.u32 = EPOLL_KEY_UFFD,
	};

	r->epoll_fd = epoll_create1(EPOLL_CLOEXEC);
	TEST_ASSERT(r->epoll_fd >= 0, "epoll_create1 for uffd reader %d", r->id);
	TEST_ASSERT(!epoll_ctl(r->epoll_fd, EPOLL_CTL_ADD, u->uffd, &ev),
		    "epoll_ctl(ADD uffd, EPOLLEXCLUSIVE) for reader %d", r->id);
	ev.events = EPOLLIN;
	ev.data.u32 = EPOLL_KEY_EXIT;
	TEST_ASSERT(!epoll_ctl(r->epoll_fd, EPOLL_CTL_ADD, u->pipe_fds[0], &ev),
		    "epoll_ctl(ADD exit pipe) for reader %d", r->id);
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
	int i;

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
	TEST_ASSERT(!pipe2(u->pipe_fds, O_CLOEXEC), "pipe2 for the uffd exit pipe");
	u->readers = calloc(nr_readers, sizeof(*u->readers));
	TEST_ASSERT(u->readers, "Out of memory for %d uffd readers", nr_readers);
	for (i = 0; i < nr_readers; i++) {
		u->readers[i].uffd = u;
		u->readers[i].id = i;
		u->readers[i].epoll_fd = -1;
		if (wake == UFFD_WAKE_EPOLL)
			reader_epoll_setup(&u->readers[i]);
	}
	return u;
}

void uffd_start_readers(struct uffd_desc *u)
{
	int i, err, started;

	for (i = 0; i < u->nr_readers; i++) {
		err = test_thread_create(&u->readers[i].thread, NULL, uffd_reader_thread,
					 &u->readers[i]);
		if (err) {
			/* Reported as this reader's failure; the stop joins the rest. */
			reader_fail(&u->readers[i], "pthread_create", 0, err);
			break;
		}
		u->readers[i].started = true;
	}
	started = i;
	/* Thread start-up is set-up: keep it out of what the caller times. */
	while (__atomic_load_n(&u->nr_ready, __ATOMIC_ACQUIRE) < started)
		usleep(100);
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
	char c = 'x';
	int i;

	if (u->uffd < 0)
		return;
	TEST_ASSERT(write(u->pipe_fds[1], &c, 1) == 1, "write(uffd exit pipe)");
	for (i = 0; i < u->nr_readers; i++) {
		TEST_ASSERT(!u->readers[i].started ||
			    !pthread_join(u->readers[i].thread, NULL),
			    "pthread_join(uffd reader %d)", i);
		if (u->readers[i].epoll_fd >= 0)
			close(u->readers[i].epoll_fd);
	}
	close(u->pipe_fds[0]);
	close(u->pipe_fds[1]);
	uffd_release_faults(u);
	close(u->uffd);
	u->uffd = -1;
}

void uffd_check(const struct uffd_desc *u)
{
	const struct uffd_reader *r;
	int i;

	for (i = 0; i < u->nr_readers; i++) {
		r = &u->readers[i];
		errno = r->err;
		TEST_ASSERT(!r->failed,
			    "uffd reader %d of [%p, +0x%lx) (%s): %s failed at 0x%lx: %s",
			    r->id, u->base, (unsigned long)u->len,
			    uffd_mode_name(u->mode), r->fail_what,
			    (unsigned long)r->fail_addr, strerror(r->err));
	}
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
		s = &u->readers[i].stats;
		sum->served += s->served;
		sum->raced += s->raced;
		sum->empty_wakes += s->empty_wakes;
		latency_hist_merge(&sum->latency, &s->latency);
	}
}

void uffd_desc_free(struct uffd_desc *u)
{
	if (!u)
		return;
	free(u->copy_src);
	free(u->readers);
	free(u);
}

// SPDX-License-Identifier: GPL-2.0-only
/*
 * eventfd_serve: server threads for doorbell/irq eventfd pairs (see
 * eventfd_serve.h).
 */
#include <poll.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>

#include "eventfd_serve.h"
#include "fault_inject.h"
#include "test_util.h"

/* Added to a doorbell to stop its read-mode server: above any real count. */
#define EFD_STOP		(1ULL << 48)
#define EPOLL_KEY_EXIT		UINT32_MAX
#define EPOLL_BATCH		16

static const char * const efd_wait_names[NUM_EFD_WAITS] = {
	[EFD_WAIT_READ] = "read",
	[EFD_WAIT_EPOLL] = "epoll",
	[EFD_WAIT_POOL] = "pool",
	[EFD_WAIT_POOL_POLL] = "pool-poll",
};

enum efd_wait parse_efd_wait(const char *name)
{
	int i;

	for (i = 0; i < NUM_EFD_WAITS; i++)
		if (!strcmp(name, efd_wait_names[i]))
			return i;
	test_usage_error("Unknown wait mode '%s': use read, epoll, pool or pool-poll", name);
}

const char *efd_wait_name(enum efd_wait wait)
{
	return wait < NUM_EFD_WAITS ? efd_wait_names[wait] : "?";
}

static bool thread_fail(struct efd_server_thread *t, const char *what, int err)
{
	t->failed = true;
	snprintf(t->err, sizeof(t->err), "%s: %s", what, strerror(err));
	return false;
}

/* @v signals of @p's doorbell were read: answer with one interrupt. */
static bool serve(struct efd_server_thread *t, struct efd_pair *p, uint64_t v)
{
	struct timespec now = timespec_now();
	uint64_t one = 1;

	if (p->served)
		latency_hist_add(&p->latency, timespec_to_ns(timespec_sub(now, p->last)));
	p->last = now;
	/* The main thread's progress watch reads it meanwhile. */
	WRITE_ONCE(p->served, p->served + v);
	p->coalesced += v - 1;
	if (p->served_mirror)
		__atomic_store_n(p->served_mirror, p->served, __ATOMIC_RELEASE);
	/* Everything above is written before the other side can ring again. */
	if (write(p->irq_fd, &one, sizeof(one)) != sizeof(one))
		return thread_fail(t, "write(irq eventfd)", errno);
	return true;
}

/* A non-blocking read of @p's doorbell and its service. */
static bool serve_ready(struct efd_server_thread *t, struct efd_pair *p)
{
	uint64_t v;

	if (read(p->doorbell_fd, &v, sizeof(v)) == sizeof(v))
		return serve(t, p, v);
	if (errno != EAGAIN)
		return thread_fail(t, "read(doorbell eventfd)", errno);
	t->empty_wakes++;
	return true;
}

static void run_read(struct efd_server_thread *t)
{
	struct efd_pair *p = &t->server->pairs[t->id];
	bool stop = false;
	uint64_t v;

	while (!stop) {
		if (read(p->doorbell_fd, &v, sizeof(v)) != sizeof(v)) {
			if (errno == EINTR)
				continue;
			thread_fail(t, "read(doorbell eventfd)", errno);
			return;
		}
		t->wakes++;
		stop = v >= EFD_STOP;
		v %= EFD_STOP;
		if (v && !serve(t, p, v))
			return;
	}
}

static void run_epoll(struct efd_server_thread *t)
{
	struct epoll_event ev[EPOLL_BATCH];
	int n, i;

	for (;;) {
		n = epoll_wait(t->epoll_fd, ev, ARRAY_SIZE(ev), -1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			thread_fail(t, "epoll_wait", n < 0 ? errno : EIO);
			return;
		}
		t->wakes++;
		for (i = 0; i < n; i++)
			if (ev[i].data.u32 == EPOLL_KEY_EXIT)
				return;
		for (i = 0; i < n; i++)
			if (!serve_ready(t, &t->server->pairs[ev[i].data.u32]))
				return;
	}
}

static void run_poll(struct efd_server_thread *t)
{
	struct efd_server *s = t->server;
	struct pollfd *fds = calloc(s->nr_pairs + 1, sizeof(*fds));
	int n, i;

	if (!fds) {
		thread_fail(t, "calloc(pollfds)", ENOMEM);
		return;
	}
	for (i = 0; i < s->nr_pairs; i++)
		fds[i] = (struct pollfd) { .fd = s->pairs[i].doorbell_fd, .events = POLLIN };
	fds[s->nr_pairs] = (struct pollfd) { .fd = s->exit_fd, .events = POLLIN };
	for (;;) {
		n = poll(fds, s->nr_pairs + 1, -1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			thread_fail(t, "poll", n < 0 ? errno : EIO);
			break;
		}
		t->wakes++;
		if (fds[s->nr_pairs].revents)
			break;
		for (i = 0; i < s->nr_pairs; i++)
			if (fds[i].revents && !serve_ready(t, &s->pairs[i]))
				goto out;
	}
out:
	free(fds);
}

static void *server_thread(void *arg)
{
	struct efd_server_thread *t = arg;

	__atomic_add_fetch(&t->server->nr_ready, 1, __ATOMIC_RELEASE);
	switch (t->server->wait) {
	case EFD_WAIT_READ:
		run_read(t);
		break;
	case EFD_WAIT_POOL_POLL:
		run_poll(t);
		break;
	default:
		run_epoll(t);
		break;
	}
	return NULL;
}

static void epoll_add(struct efd_server_thread *t, int fd, uint32_t key, bool exclusive)
{
	struct epoll_event ev = {
		.events = EPOLLIN | (exclusive ? EPOLLEXCLUSIVE : 0), .data.u32 = key,
	};

	TEST_ASSERT(!epoll_ctl(t->epoll_fd, EPOLL_CTL_ADD, fd, &ev),
		    "epoll_ctl(ADD fd %d%s) for server thread %d", fd,
		    exclusive ? ", EPOLLEXCLUSIVE" : "", t->id);
}

/* EPOLL: the thread's own doorbell; POOL: every doorbell, exclusively. */
static void thread_epoll_setup(struct efd_server_thread *t)
{
	struct efd_server *s = t->server;
	int i;

	t->epoll_fd = epoll_create1(EPOLL_CLOEXEC);
	TEST_ASSERT(t->epoll_fd >= 0, "epoll_create1 for server thread %d", t->id);
	epoll_add(t, s->exit_fd, EPOLL_KEY_EXIT, false);
	if (s->wait == EFD_WAIT_EPOLL) {
		epoll_add(t, s->pairs[t->id].doorbell_fd, t->id, false);
		return;
	}
	for (i = 0; i < s->nr_pairs; i++)
		epoll_add(t, s->pairs[i].doorbell_fd, i, true);
}

static int efd_open(bool nonblock)
{
	int fd = eventfd(0, EFD_CLOEXEC | (nonblock ? EFD_NONBLOCK : 0));

	TEST_ASSERT(fd >= 0, "eventfd() failed");
	return fd;
}

struct efd_server *efd_server_create(enum efd_wait wait, int nr_pairs, int pool_threads)
{
	struct efd_server *s = calloc(1, sizeof(*s));
	int i;

	TEST_ASSERT(s && nr_pairs > 0, "eventfd server: out of memory or no pairs");
	s->wait = wait;
	s->nr_pairs = nr_pairs;
	s->nr_threads = efd_wait_pooled(wait) ? pool_threads : nr_pairs;
	TEST_ASSERT(s->nr_threads > 0, "eventfd server: no threads");
	s->pairs = aligned_alloc(64, nr_pairs * sizeof(*s->pairs));
	s->threads = calloc(s->nr_threads, sizeof(*s->threads));
	TEST_ASSERT(s->pairs && s->threads, "Out of memory for %d eventfd pairs", nr_pairs);
	memset(s->pairs, 0, nr_pairs * sizeof(*s->pairs));
	s->exit_fd = efd_open(false);
	for (i = 0; i < nr_pairs; i++) {
		s->pairs[i].doorbell_fd = efd_open(wait != EFD_WAIT_READ);
		s->pairs[i].irq_fd = efd_open(false);
	}
	for (i = 0; i < s->nr_threads; i++) {
		s->threads[i] = (struct efd_server_thread) {
			.server = s, .id = i, .epoll_fd = -1,
		};
		if (wait == EFD_WAIT_EPOLL || wait == EFD_WAIT_POOL)
			thread_epoll_setup(&s->threads[i]);
	}
	return s;
}

/* Stops and joins server threads 0..@nr-1. */
static void server_stop(struct efd_server *s, int nr)
{
	uint64_t v = EFD_STOP;
	int i;

	if (s->wait == EFD_WAIT_READ) {
		for (i = 0; i < s->nr_pairs; i++)
			TEST_ASSERT(write(s->pairs[i].doorbell_fd, &v, sizeof(v)) == sizeof(v),
				    "write(doorbell %d, stop)", i);
	} else {
		v = 1;
		TEST_ASSERT(write(s->exit_fd, &v, sizeof(v)) == sizeof(v), "write(exit eventfd)");
	}
	for (i = 0; i < nr; i++)
		TEST_ASSERT(!pthread_join(s->threads[i].thread, NULL),
			    "pthread_join(eventfd server %d)", i);
	for (i = 0; i < nr; i++)
		TEST_ASSERT(!s->threads[i].failed, "eventfd server thread %d (%s): %s", i,
			    efd_wait_name(s->wait), s->threads[i].err);
}

void efd_server_start(struct efd_server *s)
{
	int i, err = 0;

	for (i = 0; i < s->nr_threads; i++) {
		err = test_thread_create(&s->threads[i].thread, NULL, server_thread,
					 &s->threads[i]);
		if (err)
			break;
	}
	if (err) {
		/* Threads 0..i-1 started: they stop, and the test fails. */
		server_stop(s, i);
		TEST_FAIL("pthread_create(eventfd server %d): %s (the %d threads started were stopped and joined)",
			  i, strerror(err), i);
	}
	while (__atomic_load_n(&s->nr_ready, __ATOMIC_ACQUIRE) < s->nr_threads)
		usleep(100);
}

void efd_server_stop(struct efd_server *s)
{
	server_stop(s, s->nr_threads);
}

uint64_t efd_server_wakes(const struct efd_server *s, bool empty)
{
	uint64_t sum = 0;
	int i;

	for (i = 0; i < s->nr_threads; i++)
		sum += empty ? s->threads[i].empty_wakes : s->threads[i].wakes;
	return sum;
}

void efd_server_free(struct efd_server *s)
{
	int i;

	if (!s)
		return;
	for (i = 0; i < s->nr_threads; i++)
		if (s->threads[i].epoll_fd >= 0)
			close(s->threads[i].epoll_fd);
	for (i = 0; i < s->nr_pairs; i++) {
		close(s->pairs[i].doorbell_fd);
		close(s->pairs[i].irq_fd);
	}
	close(s->exit_fd);
	free(s->threads);
	free(s->pairs);
	free(s);
}

// SPDX-License-Identifier: GPL-2.0-only
/*
 * eventfd_serve: server threads for doorbell/irq eventfd pairs (see
 * eventfd_serve.h).
 */
#include <sys/eventfd.h>

#include "eventfd_serve.h"
#include "server_pool.h"
#include "test_util.h"

/* Added to a doorbell to stop its read-mode server: above any real count. */
#define EFD_STOP		(1ULL << 48)

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

static enum serve_result thread_fail(struct pool_thread *t, const char *what, int err)
{
	return server_pool_fail(t, "%s: %s", what, strerror(err));
}

/* @v signals of @p's doorbell were read: answer with one interrupt. */
static enum serve_result serve(struct pool_thread *t, struct efd_pair *p, uint64_t v)
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
	return SERVE_OK;
}

/*
 * Read doorbell @idx and serve it: blocking in read mode, where the stop
 * comes as EFD_STOP added to the count; non-blocking in the others, where
 * another thread may have taken the signal.
 */
static enum serve_result serve_doorbell(struct pool_thread *t, int idx, void *arg)
{
	struct efd_server *s = arg;
	struct efd_pair *p = &s->pairs[idx];
	bool stop;
	uint64_t v;

	if (read(p->doorbell_fd, &v, sizeof(v)) != sizeof(v)) {
		if (errno == EAGAIN)
			return SERVE_EMPTY;
		if (errno == EINTR)
			return SERVE_OK;
		return thread_fail(t, "read(doorbell eventfd)", errno);
	}
	stop = v >= EFD_STOP;
	v %= EFD_STOP;
	if (v && serve(t, p, v) != SERVE_OK)
		return SERVE_FAIL;
	return stop ? SERVE_STOP : SERVE_OK;
}

/* read: the stop, added to every doorbell. */
static void kick_readers(struct server_pool *pool, void *arg)
{
	struct efd_server *s = arg;
	uint64_t v = EFD_STOP;
	int i;

	(void)pool;
	for (i = 0; i < s->nr_pairs; i++)
		TEST_ASSERT(write(s->pairs[i].doorbell_fd, &v, sizeof(v)) == sizeof(v),
			    "write(doorbell %d, stop)", i);
}

static int efd_open(bool nonblock)
{
	int fd = eventfd(0, EFD_CLOEXEC | (nonblock ? EFD_NONBLOCK : 0));

	TEST_ASSERT(fd >= 0, "eventfd() failed");
	return fd;
}

static const enum pool_wait pool_waits[NUM_EFD_WAITS] = {
	[EFD_WAIT_READ] = POOL_WAIT_NONE,
	[EFD_WAIT_EPOLL] = POOL_WAIT_EPOLL,
	[EFD_WAIT_POOL] = POOL_WAIT_EPOLL,
	[EFD_WAIT_POOL_POLL] = POOL_WAIT_POLL,
};

struct efd_server *efd_server_create(enum efd_wait wait, int nr_pairs, int pool_threads)
{
	struct efd_server *s = calloc(1, sizeof(*s));
	bool pooled = efd_wait_pooled(wait);
	int i;

	TEST_ASSERT(s && nr_pairs > 0, "eventfd server: out of memory or no pairs");
	s->wait = wait;
	s->nr_pairs = nr_pairs;
	s->nr_threads = pooled ? pool_threads : nr_pairs;
	TEST_ASSERT(s->nr_threads > 0, "eventfd server: no threads");
	s->pairs = aligned_alloc(64, nr_pairs * sizeof(*s->pairs));
	s->doorbells = calloc(nr_pairs, sizeof(*s->doorbells));
	TEST_ASSERT(s->pairs && s->doorbells,
		    "Out of memory for %d eventfd pairs", nr_pairs);
	memset(s->pairs, 0, nr_pairs * sizeof(*s->pairs));
	for (i = 0; i < nr_pairs; i++) {
		s->pairs[i].doorbell_fd = efd_open(wait != EFD_WAIT_READ);
		s->pairs[i].irq_fd = efd_open(false);
		s->doorbells[i] = s->pairs[i].doorbell_fd;
	}
	s->pool = server_pool_create(pool_waits[wait], s->doorbells, nr_pairs, s->nr_threads,
				     !pooled, serve_doorbell,
				     wait == EFD_WAIT_READ ? kick_readers : NULL, s);
	return s;
}

/* Stop and join the threads, then fail the test if one failed. */
static void server_stop(struct efd_server *s)
{
	const struct pool_thread *t;

	server_pool_stop(s->pool);
	t = server_pool_failure(s->pool);
	if (t)
		TEST_FAIL("eventfd server thread %d (%s): %s", t->id, efd_wait_name(s->wait),
			  t->err);
}

void efd_server_start(struct efd_server *s)
{
	int err = server_pool_start(s->pool), started = 0;

	if (!err)
		return;
	while (s->pool->threads[started].started)
		started++;
	/* The threads that started stop, and the test fails. */
	server_pool_stop(s->pool);
	TEST_FAIL("pthread_create(eventfd server %d): %s (the %d threads started were stopped and joined)",
		  started, strerror(err), started);
}

void efd_server_stop(struct efd_server *s)
{
	server_stop(s);
}

uint64_t efd_server_wakes(const struct efd_server *s, bool empty)
{
	return server_pool_wakes(s->pool, empty);
}

void efd_server_free(struct efd_server *s)
{
	int i;

	if (!s)
		return;
	server_pool_free(s->pool);
	for (i = 0; i < s->nr_pairs; i++) {
		close(s->pairs[i].doorbell_fd);
		close(s->pairs[i].irq_fd);
	}
	free(s->doorbells);
	free(s->pairs);
	free(s);
}

/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * server_pool: threads that wait for file descriptors to become readable
 * and serve them, as a VMM's I/O threads do; userfaultfd_util serves its
 * page faults with one, eventfd_serve its doorbells.
 *
 * How the threads wait (enum pool_wait):
 *   epoll  each thread has an epoll set of the fds it serves and of the
 *          exit pipe; an fd every thread serves is added with
 *          EPOLLEXCLUSIVE (one thread woken per event)
 *   poll   each thread in poll() over its fds and the exit pipe (every
 *          thread woken by every event: the thundering herd)
 *   none   no wait: the serve function blocks on its own fd, and the
 *          user's kick() makes it return SERVE_STOP at the stop
 *
 * Either every thread serves every fd, or thread i serves fd i alone
 * (@own_fd).  A thread that fails records why (server_pool_fail()) and
 * stops; server_pool_stop() joins every thread, and server_pool_check()
 * then fails the test with the first thread's reason.
 */
#ifndef SELFTEST_KVM_SERVER_POOL_H
#define SELFTEST_KVM_SERVER_POOL_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "compiler.h"

enum pool_wait {
	POOL_WAIT_EPOLL,
	POOL_WAIT_POLL,
	POOL_WAIT_NONE,
};

enum serve_result {
	SERVE_OK,
	SERVE_EMPTY,	/* nothing to read: another thread took it (counted) */
	SERVE_STOP,
	SERVE_FAIL,
};

struct server_pool;

struct pool_thread {
	struct server_pool *pool;
	int id;
	pthread_t thread;
	bool started;		/* the thread exists: the stop joins it */
	int epoll_fd;		/* POOL_WAIT_EPOLL only */
	uint64_t wakes;		/* returns from the wait (none: serve calls) */
	uint64_t empty_wakes;	/* serve calls that found nothing (SERVE_EMPTY) */
	bool failed;
	char err[160];		/* the first failure */
};

/* fds[@idx] is readable (none: about to be read): serve it. */
typedef enum serve_result (*pool_serve_fn)(struct pool_thread *t, int idx, void *arg);
/* POOL_WAIT_NONE: make every thread's blocked serve return SERVE_STOP. */
typedef void (*pool_kick_fn)(struct server_pool *pool, void *arg);

struct server_pool {
	enum pool_wait wait;
	const int *fds;		/* the caller's, alive until the pool is freed */
	int nr_fds;
	bool own_fd;		/* thread i serves fds[i] only */
	pool_serve_fn serve;
	pool_kick_fn kick;
	void *arg;
	int exit_pipe[2];	/* written once to stop the threads */
	bool failed;		/* some thread failed (READ_ONCE) */
	int nr_threads;
	int nr_ready;		/* threads that reached their loop */
	struct pool_thread *threads;
};

/*
 * @nr_threads threads for @nr_fds fds (@own_fd: as many threads as fds).
 * Set up, epoll sets included, before any thread starts; nothing runs
 * until server_pool_start().
 */
struct server_pool *server_pool_create(enum pool_wait wait, const int *fds, int nr_fds,
				       int nr_threads, bool own_fd, pool_serve_fn serve,
				       pool_kick_fn kick, void *arg);
/*
 * Start the threads; returns once every started one runs.  A thread that
 * cannot be created is that thread's failure, and no later one starts:
 * the pthread_create error, or 0.
 */
int server_pool_start(struct server_pool *pool);
/* Stop and join every started thread (asserting only on the join itself). */
void server_pool_stop(struct server_pool *pool);
/* The first failed thread, or NULL. */
const struct pool_thread *server_pool_failure(const struct server_pool *pool);
void server_pool_free(struct server_pool *pool);
/* Sums over the threads: wakes, or with @empty the empty ones. */
uint64_t server_pool_wakes(const struct server_pool *pool, bool empty);

/* Record @t's failure (the first one counts): returns SERVE_FAIL. */
__printf(2, 3) enum serve_result server_pool_fail(struct pool_thread *t, const char *fmt, ...);

#endif /* SELFTEST_KVM_SERVER_POOL_H */

// SPDX-License-Identifier: GPL-2.0-only
/*
 * server_pool: threads serving readable file descriptors (see
 * server_pool.h).
 */
#include <fcntl.h>
#include <poll.h>
#include <stdarg.h>
#include <sys/epoll.h>

#include "fault_inject.h"
#include "server_pool.h"
#include "test_util.h"

#define EPOLL_KEY_EXIT		UINT32_MAX
#define EPOLL_BATCH		16

enum serve_result server_pool_fail(struct pool_thread *t, const char *fmt, ...)
{
	va_list ap;

	if (!t->failed) {
		va_start(ap, fmt);
		vsnprintf(t->err, sizeof(t->err), fmt, ap);
		va_end(ap);
		t->failed = true;
	}
	WRITE_ONCE(t->pool->failed, true);
	return SERVE_FAIL;
}

/* The fds thread @t serves: [*first, *first + n). */
static int thread_fds(const struct pool_thread *t, int *first)
{
	*first = t->pool->own_fd ? t->id : 0;
	return t->pool->own_fd ? 1 : t->pool->nr_fds;
}

/* Serve fds[@idx]; an empty read is counted and is no reason to stop. */
static enum serve_result serve(struct pool_thread *t, int idx)
{
	enum serve_result ret = t->pool->serve(t, idx, t->pool->arg);

	if (ret != SERVE_EMPTY)
		return ret;
	t->empty_wakes++;
	return SERVE_OK;
}

static enum serve_result wait_epoll(struct pool_thread *t)
{
	struct epoll_event ev[EPOLL_BATCH];
	enum serve_result ret;
	int n, i;

	do {
		n = epoll_wait(t->epoll_fd, ev, ARRAY_SIZE(ev), -1);
	} while (n < 0 && errno == EINTR);
	if (n <= 0)
		return server_pool_fail(t, "epoll_wait failed: %s", strerror(n < 0 ? errno : EIO));
	t->wakes++;
	for (i = 0; i < n; i++)
		if (ev[i].data.u32 == EPOLL_KEY_EXIT)
			return SERVE_STOP;
	for (i = 0; i < n; i++) {
		if (ev[i].events & (EPOLLERR | EPOLLHUP))
			return server_pool_fail(t, "epoll: fd %d error/hangup",
						t->pool->fds[ev[i].data.u32]);
		ret = serve(t, ev[i].data.u32);
		if (ret != SERVE_OK)
			return ret;
	}
	return SERVE_OK;
}

static enum serve_result wait_poll(struct pool_thread *t, struct pollfd *fds, int first,
				   int nr)
{
	enum serve_result ret;
	int n, i;

	do {
		n = poll(fds, nr + 1, -1);
	} while (n < 0 && errno == EINTR);
	if (n <= 0)
		return server_pool_fail(t, "poll failed: %s", strerror(n < 0 ? errno : EIO));
	t->wakes++;
	if (fds[nr].revents)
		return SERVE_STOP;
	for (i = 0; i < nr; i++) {
		if (!fds[i].revents)
			continue;
		if (fds[i].revents & (POLLERR | POLLHUP | POLLNVAL))
			return server_pool_fail(t, "poll: fd %d error/hangup", fds[i].fd);
		ret = serve(t, first + i);
		if (ret != SERVE_OK)
			return ret;
	}
	return SERVE_OK;
}

static void run_poll(struct pool_thread *t)
{
	struct server_pool *p = t->pool;
	struct pollfd *fds;
	int first, nr = thread_fds(t, &first), i;

	fds = calloc(nr + 1, sizeof(*fds));
	if (!fds) {
		server_pool_fail(t, "calloc(pollfds): %s", strerror(ENOMEM));
		return;
	}
	for (i = 0; i < nr; i++)
		fds[i] = (struct pollfd) { .fd = p->fds[first + i], .events = POLLIN };
	fds[nr] = (struct pollfd) { .fd = p->exit_pipe[0], .events = POLLIN };
	while (wait_poll(t, fds, first, nr) == SERVE_OK)
		;
	free(fds);
}

static void *pool_thread_main(void *arg)
{
	struct pool_thread *t = arg;
	struct server_pool *p = t->pool;

	__atomic_add_fetch(&p->nr_ready, 1, __ATOMIC_RELEASE);
	switch (p->wait) {
	case POOL_WAIT_EPOLL:
		while (wait_epoll(t) == SERVE_OK)
			;
		break;
	case POOL_WAIT_POLL:
		run_poll(t);
		break;
	case POOL_WAIT_NONE:
		do {
			t->wakes++;
		} while (serve(t, t->id) == SERVE_OK);
		break;
	}
	return NULL;
}

static void epoll_add(struct pool_thread *t, int fd, uint32_t key, bool exclusive)
{
	struct epoll_event ev = {
		.events = EPOLLIN | (exclusive ? EPOLLEXCLUSIVE : 0), .data.u32 = key,
	};

	TEST_ASSERT(!epoll_ctl(t->epoll_fd, EPOLL_CTL_ADD, fd, &ev),
		    "epoll_ctl(ADD fd %d%s) for server thread %d", fd,
		    exclusive ? ", EPOLLEXCLUSIVE" : "", t->id);
}

static void thread_epoll_setup(struct pool_thread *t)
{
	struct server_pool *p = t->pool;
	int first, nr = thread_fds(t, &first), i;

	t->epoll_fd = epoll_create1(EPOLL_CLOEXEC);
	TEST_ASSERT(t->epoll_fd >= 0, "epoll_create1 for server thread %d", t->id);
	epoll_add(t, p->exit_pipe[0], EPOLL_KEY_EXIT, false);
	for (i = first; i < first + nr; i++)
		epoll_add(t, p->fds[i], i, !p->own_fd);
}

struct server_pool *server_pool_create(enum pool_wait wait, const int *fds, int nr_fds,
				       int nr_threads, bool own_fd, pool_serve_fn serve,
				       pool_kick_fn kick, void *arg)
{
	struct server_pool *p = calloc(1, sizeof(*p));
	int i;

	TEST_ASSERT(p, "Out of memory for a server pool");
	TEST_ASSERT(nr_fds > 0 && nr_threads > 0 && (!own_fd || nr_threads == nr_fds),
		    "server pool: %d threads for %d fds%s", nr_threads, nr_fds,
		    own_fd ? ", one each" : "");
	TEST_ASSERT(wait != POOL_WAIT_NONE || (own_fd && kick),
		    "server pool: threads that block in serve need their own fd and a kick");
	*p = (struct server_pool) {
		.wait = wait, .fds = fds, .nr_fds = nr_fds, .own_fd = own_fd,
		.serve = serve, .kick = kick, .arg = arg, .nr_threads = nr_threads,
	};
	TEST_ASSERT(!pipe2(p->exit_pipe, O_CLOEXEC), "pipe2 for a server pool's exit pipe");
	p->threads = calloc(nr_threads, sizeof(*p->threads));
	TEST_ASSERT(p->threads, "Out of memory for %d server threads", nr_threads);
	for (i = 0; i < nr_threads; i++) {
		p->threads[i] = (struct pool_thread) { .pool = p, .id = i, .epoll_fd = -1 };
		if (wait == POOL_WAIT_EPOLL)
			thread_epoll_setup(&p->threads[i]);
	}
	return p;
}

int server_pool_start(struct server_pool *p)
{
	int i, err = 0;

	for (i = 0; i < p->nr_threads; i++) {
		err = test_thread_create(&p->threads[i].thread, NULL, pool_thread_main,
					 &p->threads[i]);
		if (err) {
			server_pool_fail(&p->threads[i], "pthread_create failed: %s", strerror(err));
			break;
		}
		p->threads[i].started = true;
	}
	/* Thread start-up is set-up: keep it out of what the caller times. */
	while (__atomic_load_n(&p->nr_ready, __ATOMIC_ACQUIRE) < i)
		usleep(100);
	return err;
}

void server_pool_stop(struct server_pool *p)
{
	char c = 'x';
	int i;

	if (p->exit_pipe[1] < 0)
		return;
	TEST_ASSERT(write(p->exit_pipe[1], &c, 1) == 1, "write(server pool exit pipe)");
	if (p->kick)
		p->kick(p, p->arg);
	for (i = 0; i < p->nr_threads; i++)
		TEST_ASSERT(!p->threads[i].started || !pthread_join(p->threads[i].thread, NULL),
			    "pthread_join(server thread %d)", i);
	close(p->exit_pipe[0]);
	close(p->exit_pipe[1]);
	p->exit_pipe[0] = p->exit_pipe[1] = -1;
}

const struct pool_thread *server_pool_failure(const struct server_pool *p)
{
	int i;

	for (i = 0; i < p->nr_threads; i++)
		if (p->threads[i].failed)
			return &p->threads[i];
	return NULL;
}

uint64_t server_pool_wakes(const struct server_pool *p, bool empty)
{
	uint64_t sum = 0;
	int i;

	for (i = 0; i < p->nr_threads; i++)
		sum += empty ? p->threads[i].empty_wakes : p->threads[i].wakes;
	return sum;
}

void server_pool_free(struct server_pool *p)
{
	int i;

	if (!p)
		return;
	server_pool_stop(p);
	for (i = 0; i < p->nr_threads; i++)
		if (p->threads[i].epoll_fd >= 0)
			close(p->threads[i].epoll_fd);
	free(p->threads);
	free(p);
}

/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * eventfd_serve: the host half of a notification ping-pong, as a VMM's
 * I/O threads do it for virtio.  Each pair has a doorbell eventfd (which
 * a vCPU signals through KVM_IOEVENTFD, or a host thread writes) and an
 * irq eventfd (which KVM_IRQFD turns into an interrupt, or a host thread
 * reads).  A server thread that finds a pair's doorbell signalled reads
 * it and writes the pair's irq eventfd once.
 *
 * How servers wait (enum efd_wait):
 *   read       one thread per pair, blocking read() of its doorbell
 *   epoll      one thread per pair, epoll_wait() on its doorbell
 *   pool       a pool of threads serving every doorbell, each thread with
 *              an epoll set of all of them, added with EPOLLEXCLUSIVE
 *              (one thread woken per signal)
 *   pool-poll  the same pool in poll() over every doorbell (every thread
 *              woken by every signal: the thundering herd)
 * All four are a server_pool (the same threads userfaultfd_util's readers
 * are): one thread per doorbell, or a pool over all of them.
 *
 * Per pair it counts the signals served, the signals that were read
 * together with another (coalesced: the other side rang twice), and the
 * round-trip latency from one doorbell to the next; the count can also be
 * mirrored where the other side reads it (guest memory), so an interrupt
 * can be told from one the server never sent.
 */
#ifndef SELFTEST_KVM_EVENTFD_SERVE_H
#define SELFTEST_KVM_EVENTFD_SERVE_H

#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "compiler.h"
#include "latency_hist.h"

enum efd_wait {
	EFD_WAIT_READ,
	EFD_WAIT_EPOLL,
	EFD_WAIT_POOL,
	EFD_WAIT_POOL_POLL,
	NUM_EFD_WAITS,
};

/* "read", "epoll", "pool", "pool-poll"; unknown names: usage error. */
enum efd_wait parse_efd_wait(const char *name);
const char *efd_wait_name(enum efd_wait wait);
static inline bool efd_wait_pooled(enum efd_wait wait)
{
	return wait == EFD_WAIT_POOL || wait == EFD_WAIT_POOL_POLL;
}

struct efd_pair {
	int doorbell_fd;
	int irq_fd;
	uint64_t served;	/* doorbell signals read */
	uint64_t coalesced;	/* of those, read together with an earlier one */
	struct timespec last;	/* when the last one was read */
	struct latency_hist latency;	/* doorbell to doorbell, ns */
	/* If set, @served is also stored here before each irq write. */
	uint64_t *served_mirror;
} __aligned(64);

struct server_pool;

struct efd_server {
	enum efd_wait wait;
	int nr_pairs;
	struct efd_pair *pairs;
	int *doorbells;		/* the pairs' doorbell fds, for the pool */
	int nr_threads;
	struct server_pool *pool;	/* the server threads (server_pool.h) */
};

/*
 * @nr_pairs pairs of fresh eventfds (the irq one blocking, for a host
 * thread on the other side), served by @pool_threads threads in the pool
 * modes, else one per pair.  Nothing runs until efd_server_start().
 */
struct efd_server *efd_server_create(enum efd_wait wait, int nr_pairs, int pool_threads);
/* Start the threads; returns once every one of them is running. */
void efd_server_start(struct efd_server *s);
/* Stop and join every thread, then fail the test if one failed. */
void efd_server_stop(struct efd_server *s);
void efd_server_free(struct efd_server *s);
/* Sums over the threads (after stop). */
uint64_t efd_server_wakes(const struct efd_server *s, bool empty);

#endif /* SELFTEST_KVM_EVENTFD_SERVE_H */

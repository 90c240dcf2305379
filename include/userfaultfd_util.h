/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * userfaultfd_util: serve the page faults of a memory range from user
 * space, as a VMM does for post-copy migration.
 *
 * MISSING mode: the range starts empty; each fault is served with
 * UFFDIO_COPY of one backing page.  MINOR mode: the range is shmem or
 * shared hugetlb whose page cache the caller filled through another
 * mapping (the alias); each fault maps that page with UFFDIO_CONTINUE.
 *
 * Each uffd has R reader threads, a server_pool: a reader waits for the
 * uffd and for the pool's exit pipe, in epoll with EPOLLEXCLUSIVE (one
 * reader woken per fault) or in poll() (every reader woken: the
 * thundering herd).  A fault another
 * reader has already served (EEXIST, EAGAIN) is counted, not an error.  A
 * reader that fails records why and stops; uffd_stop_demand_paging()
 * joins every reader and then fails the test with that reader's context.
 */
#ifndef SELFTEST_KVM_USERFAULTFD_UTIL_H
#define SELFTEST_KVM_USERFAULTFD_UTIL_H

#include <stdbool.h>
#include <stdint.h>

#include "latency_hist.h"

enum uffd_mode {
	UFFD_MODE_NONE,		/* no userfaultfd: plain faults */
	UFFD_MODE_MISSING,
	UFFD_MODE_MINOR,
	NUM_UFFD_MODES,
};

enum uffd_wake {
	UFFD_WAKE_EPOLL,	/* EPOLLEXCLUSIVE: one reader per fault */
	UFFD_WAKE_POLL,		/* poll(): every reader on every fault */
	NUM_UFFD_WAKES,
};

/*
 * "MISSING", "MINOR"; "epoll", "poll".  Unknown names: usage error; the
 * try_ cores return the enum value or -EINVAL and never exit.
 */
int try_parse_uffd_mode(const char *name);
enum uffd_mode parse_uffd_mode(const char *name);
const char *uffd_mode_name(enum uffd_mode mode);
int try_parse_uffd_wake(const char *name);
enum uffd_wake parse_uffd_wake(const char *name);
const char *uffd_wake_name(enum uffd_wake wake);

struct uffd_reader_stats {
	uint64_t served;	/* faults this reader resolved */
	uint64_t raced;		/* already resolved by another (EEXIST/EAGAIN) */
	uint64_t empty_wakes;	/* woken, but another reader took the fault */
	struct latency_hist latency;	/* wake-up to ioctl done, ns */
};

struct server_pool;

struct uffd_desc {
	int uffd;
	enum uffd_mode mode;
	enum uffd_wake wake;
	uint64_t page_size;	/* one backing page: the unit of service */
	void *base;		/* the registered range */
	uint64_t len;
	unsigned int delay_us;	/* sleep before serving each fault */
	void *copy_src;		/* MISSING: one page of contents */
	int nr_readers;
	struct uffd_reader_stats *stats;	/* per reader */
	struct server_pool *pool;	/* the readers (server_pool.h) */
};

/*
 * NULL if this host can serve @mode faults on @backing memory, else the
 * reason (in @why).  @user_only opens the uffd with UFFD_USER_MODE_ONLY,
 * which an unprivileged process may use when the sysctl
 * vm.unprivileged_userfaultfd is 0, but whose faults only user-space
 * accesses raise (not KVM's): host-only tests.
 */
const char *uffd_unavailable(enum uffd_mode mode, uint32_t backing, bool user_only,
			     char *why, size_t len);

/*
 * NULL if a userfaultfd can register the mapping [hva, hva + len) for
 * @mode faults, else the reason (in @why): the probe for memory whose
 * kind the backing type alone does not tell (a guest_memfd mapping).
 */
const char *uffd_range_unavailable(enum uffd_mode mode, void *hva, uint64_t len,
				   char *why, size_t why_len);

/*
 * Register [hva, hva + len) of @backing memory for @mode, with
 * @nr_readers readers to start later (uffd_start_readers()): set up every
 * uffd before starting any reader, and a failed setup leaves no thread
 * behind.  A fault is served one backing page at a time; the MISSING
 * source page holds zeroes.
 */
struct uffd_desc *uffd_create(enum uffd_mode mode, enum uffd_wake wake,
			      unsigned int delay_us, void *hva, uint64_t len,
			      uint32_t backing, int nr_readers, bool user_only);
/* Start the readers; returns once every one of them is running. */
void uffd_start_readers(struct uffd_desc *uffd);
/* Whether a reader has failed (any thread may ask, at any time). */
bool uffd_failed(const struct uffd_desc *uffd);
/*
 * Stop and join every reader, unregister the range, wake the faults
 * still waiting and close the uffd: those faults then resolve as if the
 * range was never registered, so threads blocked in them can be joined.
 * Then uffd_check() fails the test if a reader failed;
 * uffd_stop_demand_paging() does both.
 */
void uffd_stop_readers(struct uffd_desc *uffd);
void uffd_check(const struct uffd_desc *uffd);
void uffd_stop_demand_paging(struct uffd_desc *uffd);
/* Sum of the readers' stats (after stop). */
void uffd_desc_stats(const struct uffd_desc *uffd, struct uffd_reader_stats *sum);
void uffd_desc_free(struct uffd_desc *uffd);

#endif /* SELFTEST_KVM_USERFAULTFD_UTIL_H */

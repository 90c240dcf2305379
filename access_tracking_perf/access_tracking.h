/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * access_tracking: which pages of test memory the host's page aging found
 * young (accessed since the previous aging) or idle, through KVM's
 * clear_young/test_young MMU notifiers.
 *
 * Two mechanisms sit behind one table of operations: MGLRU aging through
 * debugfs lru_gen, in the test's own memory cgroup (access_mglru.c), and
 * page_idle's bitmap (access_page_idle.c).  What they share lives in
 * access_tracking.c: choosing one, the sysfs, mount and cgroup changes
 * each makes (undone at exit, in reverse order), and the check of a
 * count against its bound (fail, or warn where the host cannot be exact).
 *
 *	t = access_tracker_get(name);		// NULL name: the first usable
 *	access_tracker_setup(t);		// VM made, test memory untouched
 *	... guest touches test memory ...
 *	access_tracker_age(t, &c);		// then c.young / c.idle
 *	access_tracker_teardown(t);
 */
#ifndef SELFTEST_KVM_ACCESS_TRACKING_H
#define SELFTEST_KVM_ACCESS_TRACKING_H

#include "test_util.h"

/* Pages of test memory found young (accessed) or idle by one aging. */
struct access_counts {
	uint64_t young;
	uint64_t idle;
	uint64_t total;		/* test pages, in host pages */
};

/*
 * Test memory as the host sees it: @bytes at @hva, of which the guest
 * touches one host page every @stride bytes (a guest page larger than the
 * host's is touched in its first host page only).
 */
struct access_range {
	void *hva;
	uint64_t bytes;
	uint64_t stride;
};

struct access_ops {
	const char *name;
	/* NULL if this host can use the mechanism, else why not (in @why). */
	const char *(*unavailable)(char *why, size_t len);
	/*
	 * After the VM's own memory, before the guest touches test memory:
	 * e.g. join a memory cgroup, which then holds test memory alone.
	 */
	void (*setup)(void);
	/*
	 * Start a new aging period and count what the one ending found:
	 * pages accessed since the previous call are young, the rest idle.
	 */
	void (*age)(const struct access_range *r, struct access_counts *c);
	void (*teardown)(void);
};

extern const struct access_ops access_mglru_ops;
extern const struct access_ops access_page_idle_ops;

/*
 * The mechanism called @name ("mglru", "page_idle"), or with NULL the
 * first this host can use; a usage error for an unknown name, a skip
 * (with each mechanism's reason) when none can be used.
 */
const struct access_ops *access_tracker_get(const char *name);
void access_tracker_help(FILE *out, const char *flag);
void access_tracker_setup(const struct access_ops *t);
void access_tracker_age(const struct access_ops *t, const struct access_range *r,
			struct access_counts *c);
void access_tracker_teardown(const struct access_ops *t);

/*
 * Why the host cannot make the counts exact (false: it can): run nested
 * (the CPU says it is a guest: a TLB that aging does not flush may be
 * unlimited) or with NUMA balancing (it unmaps guest memory, dropping
 * Accessed bits).
 */
bool access_counts_inexact(char *why, size_t len);
/*
 * Check @got >= @min of @total for @what: with @warn_only a WARNING
 * line, else a test failure.  True if the bound held.
 */
bool access_check_bound(const char *what, uint64_t got, uint64_t min, uint64_t total,
			bool warn_only);

#endif /* SELFTEST_KVM_ACCESS_TRACKING_H */

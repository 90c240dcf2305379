/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Fault injection into the suite's own error paths, so each one is tried
 * in a test: KVM_SELFTEST_FAIL=SITE[:N][,SITE[:N]...] makes the Nth call
 * (default: the first) of fault_inject(SITE) return true.  Sites:
 *   pthread_create  test_thread_create() fails with EAGAIN
 *   uffd_reader     a uffd reader fails the fault it read
 *   guest_assert    vCPU 0 of a perf test fails a GUEST_ASSERT mid-pass
 *   split_expect    dirty_log_page_splitting_test expects the other splitting
 *   nx_expect       nx_huge_pages_test expects the other VM's stats at a step
 *   guest_check     the guest's check of private test memory expects another
 *                   pattern (perf_test_check_memory())
 *   punch_skip      mmu_stress_test and private_mem_conversions_test leave
 *                   out a guest_memfd punch (the guest must not read zeroes)
 *   host_write_skip private_mem_conversions_test leaves out the host's
 *                   writes to memory converted to shared
 */
#ifndef SELFTEST_KVM_FAULT_INJECT_H
#define SELFTEST_KVM_FAULT_INJECT_H

#include <pthread.h>
#include <stdbool.h>

bool fault_inject(const char *site);
/* pthread_create() through the "pthread_create" site: 0 or an errno. */
int test_thread_create(pthread_t *thread, const pthread_attr_t *attr,
		       void *(*fn)(void *), void *arg);

#endif /* SELFTEST_KVM_FAULT_INJECT_H */

/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * perf_test_util: a VM whose vCPUs walk test memory, for performance
 * tests (demand paging, dirty logging).
 *
 * Test memory is nr_vcpus * vcpu_memory_bytes, each vCPU its own slice,
 * or with -o every vCPU walking all of it (as upstream's -o), in one or
 * more memslots at the top of guest-physical space (or at -p), mapped at
 * PERF_TEST_GVA.  In each
 * pass a vCPU touches the first 8 bytes of each of its guest pages, in
 * order or in a seeded random order, writing (write_percent of the pages)
 * a value derived from the page's offset in test memory, then GUEST_SYNCs
 * the pass number.  The host drives passes: perf_test_next_pass().
 *
 * Host-only runs (no VM) map the same memory, and plain threads touch the
 * same pages in the same order with the same walker.
 */
#ifndef SELFTEST_KVM_PERF_TEST_UTIL_H
#define SELFTEST_KVM_PERF_TEST_UTIL_H

#include <stdio.h>

#include "kvm_util.h"

#define PERF_TEST_GVA		0xc0000000ULL
#define PERF_TEST_MEM_SLOT	1
#define PERF_TEST_MAX_SLOTS	32767	/* KVM's slot ids are 16 bits; the host may allow fewer */

/* What written pages hold: derived from the page's offset. */
#define PERF_TEST_PATTERN(off)	(0x7e57000000000000ULL ^ (uint64_t)(off))

struct perf_test_vcpu_args {
	uint64_t offset;	/* this vCPU's first byte in test memory */
	uint64_t pages;		/* guest pages it touches in a pass */
	uint32_t vcpu_idx;
	/* Host only. */
	struct kvm_vcpu *vcpu;
	uint64_t pass_ns;	/* its last pass, start to GUEST_SYNC */
	uint64_t passes;	/* passes completed */
};

struct perf_test_args {
	/* Read by the guest (a copy lives in guest memory). */
	uint64_t gva;
	uint64_t gpa;
	uint64_t size;		/* bytes of test memory */
	uint64_t page_size;	/* guest page size */
	uint32_t nr_vcpus;
	uint32_t write_percent;
	uint32_t seed;
	bool random_access;
	bool inject_guest_assert;	/* KVM_SELFTEST_FAIL=guest_assert */
	bool verify;		/* the next pass checks every written page instead */
	uint64_t verify_flip;	/* KVM_SELFTEST_FAIL=guest_check: expect another pattern */
	uint64_t iteration;	/* the pass the host asked for */
	struct perf_test_vcpu_args vcpu_args[KVM_MAX_VCPUS];
	/* Host only. */
	struct kvm_vm *vm;	/* NULL in host-only runs */
	struct userspace_mem_region host_region;	/* host-only memory */
	uint32_t backing;
	int nr_slots;
	bool partition;
	bool nested;
	bool own_guest_code;	/* the test's guest code, not the walker */
	uint64_t slots_ns;	/* adding the test memslots took */
};

extern struct perf_test_args perf_test_args;

/* Options every perf test spells the same way (perf_test_options.c). */
struct perf_test_options {
	const char *mode_arg;		/* -m */
	uint64_t vcpu_memory_bytes;	/* -b */
	bool auto_size;			/* -b auto */
	uint64_t auto_min_bytes;	/* set by the test: -b auto's least size */
	int nr_vcpus;			/* -v */
	bool partition;			/* cleared by -o */
	uint32_t backing;		/* -s */
	const char *cpu_list;		/* -c */
	bool barrier;			/* cleared by -B */
	bool nested;			/* -n */
	uint64_t phys_offset;		/* -p, 0: top of guest-physical space */
	bool large_pages;		/* -L */
	int numa_node;			/* -N, -1: none */
	int nr_slots;			/* -x (tests that offer it) */
	uint32_t dirty_ring_bytes;	/* set by the test: a dirty ring (bytes) per vCPU */
	void *guest_code;		/* set by the test: its own guest code(vcpu_idx), NULL: the walker */
	void (*vm_init)(struct kvm_vm *vm);	/* set by the test: on the VM before any memslot */
	const char *json_path;		/* --json */
	/* Filled in by perf_test_options_check(). */
	bool pin;
	int vcpu_cpus[KVM_MAX_VCPUS];
	int main_cpu;			/* -1: main thread not pinned */
};

#define PERF_TEST_OPTSTRING	"m:b:v:os:c:BnN:p:L"

void perf_test_options_init(struct perf_test_options *o, uint64_t bytes, int nr_vcpus);
/* Handle option @opt if it is a shared one; false if it is not. */
bool perf_test_parse_opt(struct perf_test_options *o, int opt, const char *arg);
void perf_test_options_help(FILE *out, const struct perf_test_options *defaults);
/*
 * The option loop of a perf test: test_getopt() over the shared options,
 * parsed into @o, and @test_opts, a getopt string of the test's own.
 * Returns the next option of the test's own, -1 at the end.
 */
int perf_test_getopt(int argc, char *argv[], const char *test_opts,
		     struct perf_test_options *o, test_help_fn help, const void *arg);
/*
 * Validate before any work: usage errors (exit 1) first, then what the
 * host lacks (skip, exit 4): backing pages, NUMA node, /dev/kvm and vCPUs
 * unless @host_only.  Enables the guest modes, pins the main thread.
 */
void perf_test_options_check(struct perf_test_options *o, bool host_only);
uint64_t perf_test_mem_size(const struct perf_test_options *o);
/* -p must be a multiple of @align (a page size): else a usage error. */
void perf_test_check_phys_align(const struct perf_test_options *o, uint64_t align);
/* Parse "0,2,4-6" into @cpus (at most @max); garbage is a usage error. */
int parse_cpu_list(const char *list, int *cpus, int max);
/* Its core: the count, or -EINVAL / -E2BIG with @why set; never exits. */
int try_parse_cpu_list(const char *list, int *cpus, int max, const char **why);

/* The VM, or host-only memory (perf_test_util.c). */
struct kvm_vm *perf_test_create_vm(enum vm_guest_mode mode,
				   const struct perf_test_options *o);
/* Prints the run's KVM stats (a RESULT_STATS line), then frees the VM. */
void perf_test_destroy_vm(struct kvm_vm *vm);
void perf_test_setup_host_mem(const struct perf_test_options *o, uint64_t page_size);
void perf_test_free_host_mem(void);
void perf_test_set_write_percent(uint32_t pct);
void perf_test_set_random_access(bool random, uint32_t seed);
/* Host views of test memory at @off: the mapping KVM uses, its alias. */
void *perf_test_hva(uint64_t off);
void *perf_test_alias(uint64_t off);
/* Walk vCPU @idx's pages at @base (GVA or host address); guest-safe. */
uint64_t perf_test_touch_pages(uint64_t base, uint32_t idx);
bool perf_test_page_written(uint64_t off);
/*
 * Assert every written page holds PERF_TEST_PATTERN, and with -n that
 * every vCPU's last exit came from L2; pages checked.  Where the host
 * cannot read test memory (private memory) vCPU 0 checks it in the guest:
 * call it with the threads joined.
 */
uint64_t perf_test_check_memory(void);
/* Assert every touched page of test memory is on NUMA node @node. */
void perf_test_numa_check(int node);

/*
 * vCPU (or host) threads and passes (perf_test_threads.c).
 *
 * While the threads run nothing asserts: a vCPU thread, or the main
 * thread between perf_test_start_threads() and perf_test_join_threads(),
 * calls the __ forms, which return a negative code with the reason
 * recorded by perf_test_fail(); the join fails the test with the record
 * (the vCPU threads' first, then the main thread's).
 */
/* A thread's pass: 0, or negative with the reason recorded. */
typedef int (*perf_test_pass_fn)(struct perf_test_vcpu_args *va, uint64_t pass);
/*
 * Record why the calling thread failed (a thread keeps its first reason);
 * perf_test_fail_more() appends to the reason.  Both return -1.
 */
__printf(1, 2) int perf_test_fail(const char *fmt, ...);
__printf(1, 2) int perf_test_fail_more(const char *fmt, ...);
/* KVM_RUN @vcpu (__vcpu_run()). */
int __perf_test_vcpu_run(struct kvm_vcpu *vcpu);
/*
 * After a KVM_RUN: 0 if the exit is the GUEST_SYNC ending @pass; a guest
 * assert or exception is kept for the report the join makes.
 */
int __perf_test_vcpu_sync(struct perf_test_vcpu_args *va, uint64_t pass);
int __perf_test_vcpu_pass(struct perf_test_vcpu_args *va, uint64_t pass);
int __perf_test_host_pass(struct perf_test_vcpu_args *va, uint64_t pass);
/*
 * For a test that makes its own VM (not perf_test_create_vm()): the
 * @nr_vcpus vCPUs the threads run, or NULL for host threads (-H).
 */
void perf_test_set_vcpus(int nr_vcpus, struct kvm_vcpu *vcpus[]);
/* Start one thread per vCPU; pass 1 begins as soon as all exist. */
void perf_test_start_threads(const struct perf_test_options *o, perf_test_pass_fn fn);
/*
 * Wait until every thread finished pass @pass; false if a thread failed
 * or @abort(@arg) became true first.
 */
bool perf_test_wait_pass(uint64_t pass, bool (*abort)(void *arg), void *arg);
void perf_test_next_pass(void);
/* Start pass @pass and wait for it: false if it did not complete; its time. */
bool perf_test_run_pass(uint64_t pass, uint64_t *ns);
/* Stop and join every thread, then fail the test if one (or main) failed. */
void perf_test_join_threads(void);

#endif /* SELFTEST_KVM_PERF_TEST_UTIL_H */

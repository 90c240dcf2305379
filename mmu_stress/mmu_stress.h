/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * mmu_stress_test's parameters (mmu_stress_params.c): the options,
 * the sizes they default to on this machine, and the checks made before
 * any work.
 */
#ifndef SELFTEST_KVM_MMU_STRESS_H
#define SELFTEST_KVM_MMU_STRESS_H

#include "test_util.h"

#define MMU_MAX_GUEST_MEM	(128ULL * GB)	/* upstream's default -m */
#define MMU_VICTIM_MAX		(16 * MB)

struct mmu_params {
	uint64_t guest_mem;	/* -m */
	uint64_t slot_size;	/* -s */
	uint32_t backing;	/* -t, -H */
	int nr_vcpus;		/* -c */
	const char *json_path;
};

/*
 * Fill @p from the command line and this machine's defaults; exits on a
 * usage error (1) or what the host lacks (skip, 4).
 */
void mmu_stress_params(int argc, char *argv[], struct mmu_params *p);

/* The unmap slot's size: as big as a slot, at most 16M, a page per vCPU. */
uint64_t mmu_victim_size(const struct mmu_params *p);

#endif /* SELFTEST_KVM_MMU_STRESS_H */

/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * NUMA placement of test memory (libnuma): whether a node can hold it,
 * binding a mapping to a node before first touch, and where a page is.
 */
#ifndef SELFTEST_KVM_NUMA_UTIL_H
#define SELFTEST_KVM_NUMA_UTIL_H

#include <stddef.h>
#include <stdint.h>

/* NULL if node @node can hold @size bytes of @backing, else why. */
const char *numa_util_unavailable(int node, uint32_t backing, uint64_t size,
				  char *why, size_t len);
/* MPOL_BIND [addr, addr + len) to @node; call before the first touch. */
void numa_util_bind(void *addr, uint64_t len, int node);
/* The node the page at @addr is on (it must be present). */
int numa_util_node_of(void *addr);

#endif /* SELFTEST_KVM_NUMA_UTIL_H */

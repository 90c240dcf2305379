// SPDX-License-Identifier: GPL-2.0-only
/*
 * NUMA placement of test memory: see numa_util.h.
 */
#include <numa.h>
#include <numaif.h>

#include "numa_util.h"
#include "test_util.h"

static uint64_t node_free_hugepages(int node, size_t pagesz)
{
	char path[160];

	snprintf(path, sizeof(path),
		 "/sys/devices/system/node/node%d/hugepages/hugepages-%zukB/free_hugepages",
		 node, pagesz / KB);
	return read_sys_u64(path);
}

const char *numa_util_unavailable(int node, uint32_t backing, uint64_t size,
				  char *why, size_t len)
{
	size_t pagesz = get_backing_src_pagesz(backing);
	long long free_bytes = 0;
	uint64_t need;

	if (numa_available() < 0) {
		snprintf(why, len, "NUMA is not available on this host");
		return why;
	}
	if (node > numa_max_node()) {
		snprintf(why, len, "NUMA node %d requested, this host has %d node(s)",
			 node, numa_max_node() + 1);
		return why;
	}
	if (!numa_bitmask_isbitset(numa_get_mems_allowed(), node)) {
		snprintf(why, len, "NUMA node %d is not in this process's allowed mems", node);
		return why;
	}
	if (backing_src_is_hugetlb(backing)) {
		need = DIV_ROUND_UP(size, pagesz);
		if (node_free_hugepages(node, pagesz) < need) {
			snprintf(why, len, "NUMA node %d has fewer than %lu free %zu kB hugepages",
				 node, (unsigned long)need, pagesz / KB);
			return why;
		}
	} else if (numa_node_size64(node, &free_bytes) <= 0 ||
		   (uint64_t)free_bytes < size) {
		snprintf(why, len, "NUMA node %d has %lld bytes free, %lu needed",
			 node, free_bytes, (unsigned long)size);
		return why;
	}
	return NULL;
}

void numa_util_bind(void *addr, uint64_t len, int node)
{
	unsigned long mask[16] = { 0 };
	unsigned long bits = 8 * sizeof(unsigned long);

	TEST_ASSERT(node >= 0 && (unsigned long)node < ARRAY_SIZE(mask) * bits,
		    "NUMA node %d out of range", node);
	mask[node / bits] = 1UL << (node % bits);
	TEST_ASSERT(!mbind(addr, len, MPOL_BIND, mask, ARRAY_SIZE(mask) * bits, 0),
		    "mbind([%p, +0x%lx), MPOL_BIND, node %d)", addr, (unsigned long)len, node);
}

int numa_util_node_of(void *addr)
{
	void *pages[1] = { addr };
	int status[1] = { -1 };

	TEST_ASSERT(!move_pages(0, 1, pages, NULL, status, 0),
		    "move_pages(query %p)", addr);
	TEST_ASSERT(status[0] >= 0, "Page at %p not present: %s", addr, strerror(-status[0]));
	return status[0];
}

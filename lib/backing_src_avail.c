// SPDX-License-Identifier: GPL-2.0-only
/*
 * backing_src_unavailable(): backing_src_require() as a question, with the
 * same reasons, so a test can skip one source and go on with the next.
 */
#include "backing_src_avail.h"
#include "test_util.h"

static const char *hugetlb_unavailable(size_t pagesz, uint64_t size, char *why,
				       size_t len)
{
	unsigned long long free_pages = 0, need = DIV_ROUND_UP(size, pagesz);
	char path[128], buf[32];

	snprintf(path, sizeof(path),
		 "/sys/kernel/mm/hugepages/hugepages-%zukB/free_hugepages", pagesz / KB);
	if (!read_sys_line(path, buf, sizeof(buf))) {
		snprintf(why, len, "%zu kB hugepages are not supported by this host",
			 pagesz / KB);
		return why;
	}
	free_pages = strtoull(buf, NULL, 10);
	if (free_pages >= need)
		return NULL;
	snprintf(why, len, "%llu free %zu kB hugepages needed, %llu available",
		 need, pagesz / KB, free_pages);
	return why;
}

const char *backing_src_unavailable(uint32_t type, uint64_t size, char *why,
				    size_t len)
{
	size_t pagesz = get_backing_src_pagesz(type);
	char buf[128];

	if (!pagesz) {
		snprintf(why, len, "%s is not supported by this host",
			 vm_mem_backing_src_alias(type)->name);
		return why;
	}
	if (type == VM_MEM_SRC_ANONYMOUS_THP &&
	    read_sys_line("/sys/kernel/mm/transparent_hugepage/enabled", buf, sizeof(buf)) &&
	    strstr(buf, "[never]")) {
		snprintf(why, len, "transparent hugepages are disabled");
		return why;
	}
	if (backing_src_is_hugetlb(type))
		return hugetlb_unavailable(pagesz, size, why, len);
	return NULL;
}

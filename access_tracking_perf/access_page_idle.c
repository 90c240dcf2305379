// SPDX-License-Identifier: GPL-2.0-only
/*
 * Access tracking with page_idle (Documentation/admin-guide/mm/idle_page_tracking.rst).
 *
 * Each host page of test memory is found by its PFN (/proc/self/pagemap,
 * root only).  Reading its bit in /sys/kernel/mm/page_idle/bitmap first
 * clears and tests the Accessed bits of every mapping of the page, KVM's
 * through clear_young: a bit still set means no access since it was set
 * (idle), a clear one an access (young).  Then the bit is set again,
 * which starts the next period.  Pages never marked count as young.
 */
#include <fcntl.h>

#include "access_tracking.h"

#define PAGE_IDLE_BITMAP	"/sys/kernel/mm/page_idle/bitmap"
#define PAGEMAP_PRESENT		(1ULL << 63)
#define PAGEMAP_PFN_MASK	((1ULL << 55) - 1)

static int bitmap_fd = -1, pagemap_fd = -1;

static const char *page_idle_unavailable(char *why, size_t len)
{
	int fd = open(PAGE_IDLE_BITMAP, O_RDWR | O_CLOEXEC);

	if (fd < 0) {
		snprintf(why, len, "%s: %s (CONFIG_IDLE_PAGE_TRACKING is not set?)",
			 PAGE_IDLE_BITMAP, strerror(errno));
		return why;
	}
	close(fd);
	if (geteuid()) {
		snprintf(why, len, "PFNs from /proc/self/pagemap need root");
		return why;
	}
	return NULL;
}

static void page_idle_setup(void)
{
	bitmap_fd = open(PAGE_IDLE_BITMAP, O_RDWR | O_CLOEXEC);
	TEST_ASSERT(bitmap_fd >= 0, "Opening %s failed", PAGE_IDLE_BITMAP);
	pagemap_fd = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
	TEST_ASSERT(pagemap_fd >= 0, "Opening /proc/self/pagemap failed");
	printf("page_idle: marking through %s\n", PAGE_IDLE_BITMAP);
}

static uint64_t pread_u64(int fd, const char *name, uint64_t index)
{
	uint64_t v;

	TEST_ASSERT(pread(fd, &v, sizeof(v), index * sizeof(v)) == sizeof(v),
		    "Reading %s at word %lu failed", name, (unsigned long)index);
	return v;
}

/* The PFN of the host page at @hva; 0 if none is mapped. */
static uint64_t hva_pfn(void *hva)
{
	uint64_t e = pread_u64(pagemap_fd, "pagemap", (uintptr_t)hva / getpagesize());

	if (!(e & PAGEMAP_PRESENT))
		return 0;
	TEST_ASSERT(e & PAGEMAP_PFN_MASK, "pagemap shows no PFNs (needs CAP_SYS_ADMIN)");
	return e & PAGEMAP_PFN_MASK;
}

static void page_idle_age(const struct access_range *r, struct access_counts *c)
{
	uint64_t off, pfn, bits, unmapped = 0;

	for (off = 0; off < r->bytes; off += r->stride) {
		pfn = hva_pfn((char *)r->hva + off);
		if (!pfn) {
			unmapped++;
			continue;
		}
		bits = pread_u64(bitmap_fd, PAGE_IDLE_BITMAP, pfn / 64);
		if (bits & (1ULL << (pfn % 64)))
			c->idle++;
		else
			c->young++;
		bits = 1ULL << (pfn % 64);
		TEST_ASSERT(pwrite(bitmap_fd, &bits, sizeof(bits), pfn / 64 * sizeof(bits)) ==
			    sizeof(bits), "Marking PFN 0x%lx idle failed", (unsigned long)pfn);
	}
	/* Swapped or migrated away under the test: at most 1% (as upstream). */
	TEST_ASSERT(unmapped <= c->total / 100, "%lu of %lu test pages have no PFN",
		    (unsigned long)unmapped, (unsigned long)c->total);
}

static void page_idle_teardown(void)
{
	if (bitmap_fd >= 0)
		close(bitmap_fd);
	if (pagemap_fd >= 0)
		close(pagemap_fd);
	bitmap_fd = pagemap_fd = -1;
}

const struct access_ops access_page_idle_ops = {
	.name = "page_idle",
	.unavailable = page_idle_unavailable,
	.setup = page_idle_setup,
	.age = page_idle_age,
	.teardown = page_idle_teardown,
};

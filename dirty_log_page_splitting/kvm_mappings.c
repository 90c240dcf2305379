// SPDX-License-Identifier: GPL-2.0-only
/*
 * kvm_mappings: KVM's counts of its mappings of guest memory.
 */
#include <fcntl.h>

#include "kvm_mappings.h"

bool kvm_mappings_read(struct kvm_vm *vm, struct kvm_mappings *m)
{
	struct kvm_stats_snapshot s = { 0 };
	bool ok;

	if (!kvm_has_cap(KVM_CAP_BINARY_STATS_FD))
		return false;
	kvm_stats_snapshot_add(&s, vm->fd);
	ok = kvm_stats_snapshot_find(&s, "pages_4k", &m->pages_4k) &&
	     kvm_stats_snapshot_find(&s, "pages_2m", &m->pages_2m) &&
	     kvm_stats_snapshot_find(&s, "pages_1g", &m->pages_1g);
	kvm_stats_snapshot_free(&s);
	return ok;
}

uint64_t kvm_mappings_huge_pages(const struct kvm_mappings *m)
{
	uint64_t page = getpagesize();

	return m->pages_2m * (2 * MB / page) + m->pages_1g * (GB / page);
}

bool kvm_page_tables_read(uint64_t *pages)
{
	int fd = open("/proc/sys/vm/stat_refresh", O_WRONLY);
	bool refreshed = fd >= 0 && write(fd, "1", 1) == 1;
	uint64_t bytes;

	if (fd >= 0)
		close(fd);
	if (!refreshed || !meminfo_read("SecPageTables", &bytes))
		return false;
	*pages = bytes / getpagesize();
	return true;
}

/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * kvm_mappings: how KVM maps a VM's memory, as far as it says: the VM
 * stats pages_4k, pages_2m and pages_1g (x86), or, host-wide, the memory
 * of KVM's page tables (SecPageTables in /proc/meminfo, 6.0+; exact once
 * the per-CPU counts are folded through /proc/sys/vm/stat_refresh).
 */
#ifndef SELFTEST_KVM_MAPPINGS_H
#define SELFTEST_KVM_MAPPINGS_H

#include "kvm_util.h"

struct kvm_mappings {
	uint64_t pages_4k, pages_2m, pages_1g;
};

/* The VM's pages_* stats; false if KVM has none. */
bool kvm_mappings_read(struct kvm_vm *vm, struct kvm_mappings *m);
/* Host pages the huge mappings cover. */
uint64_t kvm_mappings_huge_pages(const struct kvm_mappings *m);
/* Pages of KVM page tables on the host; false if it cannot be read exactly. */
bool kvm_page_tables_read(uint64_t *pages);

#endif /* SELFTEST_KVM_MAPPINGS_H */

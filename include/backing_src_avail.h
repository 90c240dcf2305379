/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Whether this host can back guest memory with a given source, without
 * exiting: for tests that report each source as its own TAP result.
 */
#ifndef SELFTEST_KVM_BACKING_SRC_AVAIL_H
#define SELFTEST_KVM_BACKING_SRC_AVAIL_H

#include <stddef.h>
#include <stdint.h>

/* NULL if @size bytes of @type can be had, else the reason (in @why). */
const char *backing_src_unavailable(uint32_t type, uint64_t size, char *why,
				    size_t len);

#endif /* SELFTEST_KVM_BACKING_SRC_AVAIL_H */

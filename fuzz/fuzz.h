/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Shared by the libFuzzer targets in fuzz/: each feeds its input to one
 * parser of user input (the non-exiting core the option parsing calls)
 * and checks what the parser promises about its result.  A failed check
 * is a TEST_ASSERT, which libFuzzer reports as a crash with the input.
 */
#ifndef SELFTEST_KVM_FUZZ_H
#define SELFTEST_KVM_FUZZ_H

#include <stddef.h>
#include <stdint.h>

#include "test_util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The input as a NUL-terminated string (what argv gives); free() it. */
static inline char *fuzz_str(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);

	TEST_ASSERT(s, "malloc(%zu)", size + 1);
	memcpy(s, data, size);
	s[size] = 0;
	return s;
}

#endif /* SELFTEST_KVM_FUZZ_H */

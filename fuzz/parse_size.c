// SPDX-License-Identifier: GPL-2.0-only
/*
 * Sizes (-b and friends): try_parse_size() accepts a non-zero number with
 * at most one K/M/G/T suffix, or says why not; it never exits.
 */
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = fuzz_str(data, size);
	const char *why = NULL;
	uint64_t v = 0;
	int ret = try_parse_size(s, &v, &why);

	if (ret) {
		TEST_ASSERT(ret == -EINVAL || ret == -ERANGE, "'%s': returned %d", s, ret);
		TEST_ASSERT(why && *why, "'%s': refused without a reason", s);
	} else {
		TEST_ASSERT(v && !why, "'%s': accepted as 0x%lx, why '%s'", s,
			    (unsigned long)v, why ? why : "");
	}
	free(s);
	return 0;
}

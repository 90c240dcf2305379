// SPDX-License-Identifier: GPL-2.0-only
/*
 * Counts and percentages (-v, -r, -i, -w, -x, -d...): try_parse_long()
 * returns a value in [min, max] or an error; never exits.  The first two
 * input bytes pick the range from the ones the tests use.
 */
#include "fuzz.h"

static const long ranges[][2] = {
	{ 0, 100 },		/* percentages (-w) */
	{ 1, 512 },		/* vCPUs (-v) */
	{ 1, 32767 },		/* memslots (-x) */
	{ 0, 1000000 },		/* delays in us (-d) */
	{ 0, UINT32_MAX },	/* seeds (-r) */
	{ 1, 1L << 30 },	/* ring entries (-R) */
	{ 2, 1 },		/* an empty range refuses everything */
	{ -1, 1 },
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	long min, max, v = 0x5a5a;
	char *s;
	int ret;

	if (!size)
		return 0;
	min = ranges[data[0] % ARRAY_SIZE(ranges)][0];
	max = ranges[data[0] % ARRAY_SIZE(ranges)][1];
	s = fuzz_str(data + 1, size - 1);
	ret = try_parse_long(s, min, max, &v);
	if (ret)
		TEST_ASSERT((ret == -EINVAL || ret == -ERANGE) && v == 0x5a5a,
			    "'%s': returned %d, changed the value to %ld", s, ret, v);
	else
		TEST_ASSERT(v >= min && v <= max, "'%s': %ld outside [%ld, %ld]", s, v,
			    min, max);
	free(s);
	return 0;
}

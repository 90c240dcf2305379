// SPDX-License-Identifier: GPL-2.0-only
/*
 * CPU lists (-c "0,2,4-6"): try_parse_cpu_list() fills at most @max CPUs,
 * each one a CPU number cpu_set_t can hold, or refuses with a reason.
 */
#include <sched.h>

#include "fuzz.h"
#include "perf_test_util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	int cpus[8], max, n, i;
	const char *why = NULL;
	char *s;

	if (!size)
		return 0;
	max = data[0] % ARRAY_SIZE(cpus) + 1;
	s = fuzz_str(data + 1, size - 1);
	n = try_parse_cpu_list(s, cpus, max, &why);
	if (n < 0) {
		TEST_ASSERT((n == -EINVAL || n == -E2BIG) && why, "'%s': returned %d", s, n);
	} else {
		TEST_ASSERT(n > 0 && n <= max, "'%s': %d CPUs, at most %d", s, n, max);
		for (i = 0; i < n; i++)
			TEST_ASSERT(cpus[i] >= 0 && cpus[i] < CPU_SETSIZE,
				    "'%s': CPU %d", s, cpus[i]);
	}
	free(s);
	return 0;
}

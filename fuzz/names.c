// SPDX-License-Identifier: GPL-2.0-only
/*
 * Names from fixed tables: backing sources (-s), uffd modes (-u), wake
 * modes (-w), guest modes (-m).  A name is accepted only if it is the
 * table's own spelling of the value returned; never an exit.
 */
#include "fuzz.h"
#include "kvm_util.h"
#include "userfaultfd_util.h"

static void check_backing(const char *s)
{
	int t = try_parse_backing_src_type(s);

	if (t < 0)
		return;
	TEST_ASSERT(t < NUM_SRC_TYPES && !strcmp(vm_mem_backing_src_alias(t)->name, s),
		    "'%s' accepted as backing source %d", s, t);
}

static void check_uffd(const char *s)
{
	int m = try_parse_uffd_mode(s), w = try_parse_uffd_wake(s);

	TEST_ASSERT(m < 0 || (m < NUM_UFFD_MODES && m != UFFD_MODE_NONE &&
			      !strcmp(uffd_mode_name(m), s)),
		    "'%s' accepted as uffd mode %d", s, m);
	TEST_ASSERT(w < 0 || (w < NUM_UFFD_WAKES && !strcmp(uffd_wake_name(w), s)),
		    "'%s' accepted as wake mode %d", s, w);
}

static void check_guest_mode(const char *s)
{
	int m = try_parse_guest_mode(s);

	TEST_ASSERT(m == -EINVAL || m == -EOPNOTSUPP ||
		    (m >= 0 && m < NUM_VM_MODES && guest_mode_arch_supported(m)),
		    "'%s' accepted as guest mode %d", s, m);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = fuzz_str(data, size);

	check_backing(s);
	check_uffd(s);
	check_guest_mode(s);
	free(s);
	return 0;
}

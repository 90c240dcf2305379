// SPDX-License-Identifier: GPL-2.0-only
/*
 * Which guest modes a test runs: by default every mode the arch supports
 * (guest_mode_arch_supported()), or the one of -m N; and the runner over
 * them.
 */
#include "kvm_util.h"

bool guest_modes_enabled[NUM_VM_MODES];

void guest_modes_append_default(void)
{
	int i;

	for (i = 0; i < NUM_VM_MODES; i++)
		guest_modes_enabled[i] = guest_mode_arch_supported(i);
}

void guest_modes_help(FILE *out)
{
	int i;

	fprintf(out, " -m: specify the guest mode ID to test, or first: the first listed\n"
		"     (default: all supported):\n");
	for (i = 0; i < NUM_VM_MODES; i++)
		if (guest_mode_arch_supported(i))
			fprintf(out, "     %2d: %s\n", i, vm_guest_mode_string(i));
}

int try_parse_guest_mode(const char *arg)
{
	long mode;

	if (try_parse_long(arg, 0, NUM_VM_MODES - 1, &mode))
		return -EINVAL;
	return guest_mode_arch_supported(mode) ? (int)mode : -EOPNOTSUPP;
}

void guest_modes_cmdline(const char *arg)
{
	int mode, i;

	for (mode = 0; !strcmp(arg, "first") && mode < NUM_VM_MODES - 1; mode++)
		if (guest_mode_arch_supported(mode))
			break;
	if (strcmp(arg, "first"))
		mode = parse_long("guest mode (-m)", arg, 0, NUM_VM_MODES - 1);
	if (!guest_mode_arch_supported(mode)) {
		guest_modes_help(stderr);
		test_usage_error("Guest mode %d (%s) is not supported by this host",
				 mode, vm_guest_mode_string(mode));
	}
	for (i = 0; i < NUM_VM_MODES; i++)
		guest_modes_enabled[i] = i == mode;
}

void for_each_guest_mode(guest_mode_fn fn, void *arg)
{
	int i;

	for (i = 0; i < NUM_VM_MODES; i++) {
		if (!guest_modes_enabled[i])
			continue;
		ksft_print_msg("Testing guest mode: %s\n", vm_guest_mode_string(i));
		fn(i, arg);
	}
}

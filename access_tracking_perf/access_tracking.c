// SPDX-License-Identifier: GPL-2.0-only
/*
 * access_tracking: what MGLRU and page_idle share (see access_tracking.h).
 */
#include "access_tracking.h"

static const struct access_ops *const trackers[] = {
	&access_mglru_ops,
	&access_page_idle_ops,
};

const struct access_ops *access_tracker_get(const char *name)
{
	char why[ARRAY_SIZE(trackers)][200], all[420] = "";
	size_t i;

	for (i = 0; i < ARRAY_SIZE(trackers); i++) {
		if (name && strcmp(name, trackers[i]->name))
			continue;
		if (!trackers[i]->unavailable(why[i], sizeof(why[i])))
			return trackers[i];
		if (name)
			test_skip("%s: %s", name, why[i]);
		snprintf(all + strlen(all), sizeof(all) - strlen(all), "%s%s: %s",
			 i ? "; " : "", trackers[i]->name, why[i]);
	}
	if (name)
		test_usage_error("Unknown access tracking mechanism (-t) '%s': use mglru or page_idle",
				 name);
	test_skip("No access tracking: %s", all);
}

void access_tracker_help(FILE *out, const char *flag)
{
	fprintf(out, " %s: access tracking: mglru (aging through debugfs lru_gen, in the\n"
		"     test's own memory cgroup) or page_idle (/sys/kernel/mm/page_idle);\n"
		"     default: the first of them this host can use\n", flag);
}

void access_tracker_setup(const struct access_ops *t)
{
	t->setup();
}

void access_tracker_age(const struct access_ops *t, const struct access_range *r,
			struct access_counts *c)
{
	*c = (struct access_counts) { .total = r->bytes / r->stride };
	t->age(r, c);
}

void access_tracker_teardown(const struct access_ops *t)
{
	t->teardown();
}

/* The "flags" line of /proc/cpuinfo names @flag (x86: "hypervisor"). */
static bool cpu_flag(const char *flag)
{
	char line[4096], *tok, *save;
	bool found = false;
	FILE *f = fopen("/proc/cpuinfo", "r");

	while (f && !found && fgets(line, sizeof(line), f)) {
		if (strncmp(line, "flags", 5))
			continue;
		for (tok = strtok_r(line, " \t\n", &save); tok && !found;
		     tok = strtok_r(NULL, " \t\n", &save))
			found = !strcmp(tok, flag);
	}
	if (f)
		fclose(f);
	return found;
}

bool access_counts_inexact(char *why, size_t len)
{
	if (cpu_flag("hypervisor")) {
		snprintf(why, len, "the host runs nested (CPU flag 'hypervisor')");
		return true;
	}
	if (read_sys_u64("/proc/sys/kernel/numa_balancing")) {
		snprintf(why, len, "NUMA balancing is on (/proc/sys/kernel/numa_balancing)");
		return true;
	}
	return false;
}

bool access_check_bound(const char *what, uint64_t got, uint64_t min, uint64_t total,
			bool warn_only)
{
	if (got >= min)
		return true;
	TEST_ASSERT(warn_only, "%s: %lu of %lu pages, expected at least %lu",
		    what, (unsigned long)got, (unsigned long)total, (unsigned long)min);
	printf("WARNING: %s: %lu of %lu pages, expected at least %lu\n", what,
	       (unsigned long)got, (unsigned long)total, (unsigned long)min);
	return false;
}

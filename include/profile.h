/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * profile: where the kernel spends a perf test's timed phases.
 *
 * With --profile FILE (every perf test, through perf_test_parse_opt()),
 * each CPU the test may run on is sampled with the software CPU clock
 * (perf_event_open, PERF_COUNT_SW_CPU_CLOCK: no PMU needed) while
 * perf_report_stats_begin() .. _end() brackets a timed phase; the kernel
 * samples of the test's own threads (vCPUs, uffd readers, the main
 * thread) are symbolized from /proc/kallsyms at the end of each run.
 * FILE is one JSON object:
 *
 *	{ "test", "event": "cpu-clock", "period_ns", "cpus": [ ... ],
 *	  "runs": [ { "result", "period_ns", "samples", "other_tasks", "idle", "lost",
 *		      "functions": { "name [module]": samples, ... },
 *		      "phases": { "populate": { "name [module]": samples, ... }, ... } } ] }
 *
 * and with --json each run there has the same "profile" object.  What
 * cannot be profiled (perf_event_paranoid, kptr_restrict, no perf events)
 * is a skip with the reason, before any work.
 */
#ifndef SELFTEST_KVM_PROFILE_H
#define SELFTEST_KVM_PROFILE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "json_writer.h"

/* Kernel text symbols, sorted by address. */
struct ksym {
	uint64_t addr;
	char *name;		/* "name" or "name [module]" */
};

struct ksyms {
	struct ksym *syms;
	size_t n;
};

/*
 * Read kallsyms lines ("ADDR TYPE NAME [MODULE]") from @f, keeping text
 * symbols (t, T, w, W).  Returns false, with the reason in @why, if
 * there are none or every address reads 0 (kptr_restrict).
 */
bool ksyms_load(struct ksyms *k, FILE *f, const char **why);
/* The symbol @addr lies in (the last one at or below it); NULL below all. */
const struct ksym *ksyms_find(const struct ksyms *k, uint64_t addr);
void ksyms_free(struct ksyms *k);

/* --profile FILE: profile the timed phases of every run into FILE. */
void profile_request(const char *path);
/* Probe that profiling works here, before any work: else skip, with why. */
void profile_open(const char *test);
void profile_start(void);
/* The samples from now on are phase @name's (the first: "populate"). */
void profile_phase(const char *name);
void profile_stop(void);
/* The current run's profile as the object @key of @w (nothing if off). */
void profile_write_run(struct json_writer *w, const char *key);
/* Keep the current run's profile for FILE and start a new one. */
void profile_run_end(const char *result_name);
/* Write FILE; a failed write fails the test. */
void profile_close(void);

#endif /* SELFTEST_KVM_PROFILE_H */

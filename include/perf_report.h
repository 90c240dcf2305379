/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * perf_report: a perf test's options and figures, in one place.
 *
 * Each run (one per guest mode) prints them as its "RESULT test=NAME
 * key=value ..." line, in the order given; with a JSON path (--json FILE)
 * the whole test is also one JSON object in FILE:
 *
 *	{ "test", "argv", "kernel": { "release", "version" }, "arch",
 *	  "kvm": { "api_version", "modules" },
 *	  "runs": [ { "result", "guest_mode", "options": { key: value },
 *		      "figures": { key: { "value", "unit" } },
 *		      "stats": { "vm" | "vcpu": { name: { "delta", "before",
 *				"after", "type", "unit" } } } } ] }
 *
 * "stats" holds the KVM binary stats that moved between
 * perf_report_stats_begin() and _end() (the timed phase), vCPU stats
 * summed over the vCPUs.  FILE appears only when the test completes
 * (perf_report_close()); a failed test leaves none.
 *
 *	perf_report_open("demand_paging_test", path, argc, argv);
 *	perf_report_stats_begin(vm); ... timed phase ...; perf_report_stats_end(vm);
 *	perf_report_opt_str("uffd", "MISSING");
 *	perf_report_u64("time_ns", ns, "ns");
 *	perf_report_double("rate", r, "pages/s");
 *	perf_report_run_end("demand_paging");
 *	perf_report_close();
 */
#ifndef SELFTEST_KVM_PERF_REPORT_H
#define SELFTEST_KVM_PERF_REPORT_H

#include "kvm_util.h"

/*
 * The figures the test reports: @keys, a NULL-terminated list, declared
 * before perf_report_open() so that they are known without a run: with
 * --figures (test_figures_wanted) perf_report_open() prints them, one a
 * line, and exits 0 once the options are checked; a figure reported and
 * not declared fails the test.
 */
void perf_report_figures(const char *const *keys);
/* A usage error if @json_path (NULL: no JSON) cannot be written. */
void perf_report_open(const char *test, const char *json_path, int argc, char *argv[]);
void perf_report_opt_str(const char *key, const char *value);
void perf_report_opt_int(const char *key, long value);
void perf_report_u64(const char *key, uint64_t value, const char *unit);
void perf_report_double(const char *key, double value, const char *unit);
/* The guest mode of this run (its name), for runs of several modes. */
void perf_report_guest_mode(const char *name);
void perf_report_stats_begin(struct kvm_vm *vm);
void perf_report_stats_end(struct kvm_vm *vm);
/*
 * Between _begin() and _end(): what follows is phase @name (the first
 * is "populate"), for --profile's samples by phase.
 */
void perf_report_phase(const char *name);
/*
 * The stats of this run that moved between _begin() and _end(): the
 * vCPUs' (summed) or the VM's, in descriptor order; 0 before _end().
 */
int perf_report_stats_moved(bool vcpu, const struct kvm_stat_delta **moved);
/*
 * Also end the RESULT line with the cumulative stats that moved (vCPU
 * stats as NAME=delta, VM stats as vm_NAME=delta), and print them again,
 * all as NAME=delta, on a RESULT_STATS line after it.
 */
void perf_report_stats_in_result(void);
/* Print the RESULT line and add the run to the JSON object. */
void perf_report_run_end(const char *result_name);
/* Finish the JSON file (if any); a failed write fails the test. */
void perf_report_close(void);

#endif /* SELFTEST_KVM_PERF_REPORT_H */

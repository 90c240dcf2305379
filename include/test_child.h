/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Child processes for tests that check what a failing run prints and
 * exits with.
 */
#ifndef SELFTEST_KVM_TEST_CHILD_H
#define SELFTEST_KVM_TEST_CHILD_H

#include <stddef.h>

/*
 * Run @fn(@arg) in a child process (exiting 0 if it returns).  Its stdout
 * goes to @out, its stderr to @errout, or to @out too if @errout is NULL; both
 * are NUL-terminated.  Returns its exit status, or 128 + the signal.
 */
int run_child(void (*fn)(const void *arg), const void *arg,
	      char *out, size_t out_size, char *errout, size_t errout_size);

/* Run this binary again with the one argument @arg; stdout and stderr to @out. */
int run_self(const char *arg, char *out, size_t out_size);

#endif /* SELFTEST_KVM_TEST_CHILD_H */

/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * kvm_params: KVM's module parameters (/sys/module/kvm/parameters/NAME),
 * read, and written by tests that need a setting, each changed one put
 * back as it was when the test exits: on success, on a failed assert
 * (exit()) and on SIGINT/SIGTERM; never by a forked child's exit.
 */
#ifndef SELFTEST_KVM_PARAMS_H
#define SELFTEST_KVM_PARAMS_H

#include <stdbool.h>
#include <stddef.h>

#define KVM_PARAM_LEN	32

/* @name's value (one line, no newline) in @buf; false if KVM has no such parameter. */
bool kvm_param_read(const char *name, char *buf, size_t len);
/* A boolean parameter: 1 (Y), 0 (N), -1 if absent or not a boolean. */
int kvm_param_bool(const char *name);
/*
 * Write @value to @name, the old value to be restored at exit; false with
 * the reason in @why if the parameter is absent or read-only here.
 */
bool kvm_param_set(const char *name, const char *value, char *why, size_t len);
/* Put back every parameter kvm_param_set() changed (also run at exit). */
void kvm_params_restore(void);

#endif /* SELFTEST_KVM_PARAMS_H */

/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * ucall: how guest code talks to the host.  The guest fills a struct ucall
 * taken from a per-VM pool in guest memory and exits with its address (the
 * exit is the arch's: port I/O on x86_64); the host copies it out and
 * returns the command from get_ucall().
 */
#ifndef SELFTEST_KVM_UCALL_COMMON_H
#define SELFTEST_KVM_UCALL_COMMON_H

#include <stdarg.h>
#include <stdint.h>

#include "bitmap.h"
#include "test_util.h"

enum {
	UCALL_NONE,		/* the exit was not a ucall */
	UCALL_SYNC,		/* GUEST_SYNC(arg): args[0] "hello", args[1] arg */
	UCALL_ABORT,		/* GUEST_ASSERT*: see REPORT_GUEST_ASSERT */
	UCALL_PRINTF,		/* GUEST_PRINTF: text in buffer */
	UCALL_DONE,
	UCALL_UNHANDLED,	/* unexpected exception: args are the arch's */
};

#define UCALL_MAX_ARGS		7
#define UCALL_BUFFER_LEN	1024
/*
 * ucalls in flight at once, per VM: one per vCPU (KVM_MAX_VCPUS), since a
 * vCPU holds its slot from the exit until it runs again, which may be the
 * next pass.  A guest that finds every slot taken UCALL_POOL_SCANS times
 * over reports that (a slot leak or nested ucalls) instead of spinning.
 */
#define UCALL_POOL_SIZE		512
#define UCALL_POOL_SCANS	(1 << 16)
extern int ucall_pool_scans;	/* guest global, UCALL_POOL_SCANS by default */

struct ucall {
	uint64_t cmd;
	uint64_t args[UCALL_MAX_ARGS];
	char buffer[UCALL_BUFFER_LEN];
	struct ucall *hva;	/* host view of this slot */
};

/* The pool in guest memory: ucall_init() makes it, the guest takes slots. */
struct ucall_header {
	unsigned long in_use[BITS_TO_LONGS(UCALL_POOL_SIZE)];
	struct ucall ucalls[UCALL_POOL_SIZE];
};

extern struct ucall_header *ucall_pool;	/* guest global: the pool's GVA */

/*
 * args[] of UCALL_ABORT: file and expression are GVAs in the guest;
 * get_ucall() turns them into host pointers.
 */
enum {
	GUEST_ERROR_FILE,
	GUEST_ERROR_LINE,
	GUEST_ERROR_EXPR,
};

/* Guest side. */
void ucall(uint64_t cmd, int nargs, ...);
__printf(2, 3) void ucall_fmt(uint64_t cmd, const char *fmt, ...);
__printf(4, 5) void ucall_assert(const char *file, unsigned int line,
				 const char *expr, const char *fmt, ...);
int guest_vsnprintf(char *buf, int n, const char *fmt, va_list args);
__printf(3, 4) int guest_snprintf(char *buf, int n, const char *fmt, ...);

#define GUEST_SYNC_ARGS(stage, a1, a2, a3, a4)				\
	ucall(UCALL_SYNC, 6, "hello", (uint64_t)(stage), (uint64_t)(a1),	\
	      (uint64_t)(a2), (uint64_t)(a3), (uint64_t)(a4))
#define GUEST_SYNC(stage)	ucall(UCALL_SYNC, 2, "hello", (uint64_t)(stage))
#define GUEST_DONE()		ucall(UCALL_DONE, 0)
#define GUEST_PRINTF(fmt, ...)	ucall_fmt(UCALL_PRINTF, fmt, ##__VA_ARGS__)

#define __GUEST_ASSERT(cond, expr, fmt, ...) do {			\
	if (!(cond))							\
		ucall_assert(__FILE__, __LINE__, expr, fmt, ##__VA_ARGS__); \
} while (0)

#define GUEST_ASSERT(cond)	__GUEST_ASSERT(cond, #cond, "%s", "")
#define GUEST_ASSERT_MSG(cond, fmt, ...)				\
	__GUEST_ASSERT(cond, #cond, fmt, ##__VA_ARGS__)
#define GUEST_FAIL(fmt, ...)						\
	ucall_assert(__FILE__, __LINE__, "Unconditional guest failure",	\
		     fmt, ##__VA_ARGS__)

#define GUEST_ASSERT_EQ(a, b) do {					\
	__typeof__(a) __ga = (a);					\
	__typeof__(b) __gb = (b);					\
	__GUEST_ASSERT(__ga == __gb, #a " == " #b,			\
		       "%#lx != %#lx (%s != %s)", (unsigned long)__ga,	\
		       (unsigned long)__gb, #a, #b);			\
} while (0)

/* Host side. */
struct kvm_vm;
struct kvm_vcpu;

void ucall_init(struct kvm_vm *vm);
/*
 * The ucall the vCPU's last exit made (copied to @uc if not NULL), or
 * UCALL_NONE.  An unexpected guest exception fails the test here;
 * __get_ucall() returns it as UCALL_UNHANDLED instead.
 */
uint64_t get_ucall(struct kvm_vcpu *vcpu, struct ucall *uc);
uint64_t __get_ucall(struct kvm_vcpu *vcpu, struct ucall *uc);

/* A failed GUEST_ASSERT as a host assertion failure at the guest's line. */
__noreturn void report_guest_assert(struct ucall *uc);
#define REPORT_GUEST_ASSERT(uc)		report_guest_assert(&(uc))

/*
 * Run @vcpu once: the ucall it made (copied to @uc), or UCALL_NONE for an
 * exit that is not a ucall.  A failed GUEST_ASSERT is reported here with
 * the guest's file:line and message.
 */
uint64_t vcpu_run_ucall(struct kvm_vcpu *vcpu, struct ucall *uc);
/* Run @vcpu once and expect ucall @cmd (in @uc); any other exit fails. */
void vcpu_run_expect(struct kvm_vcpu *vcpu, uint64_t cmd, struct ucall *uc);
/* The same for GUEST_DONE(). */
void vcpu_run_expect_done(struct kvm_vcpu *vcpu);
/* The same for GUEST_SYNC(): its stage (the first argument). */
uint64_t vcpu_run_expect_sync(struct kvm_vcpu *vcpu);

#endif /* SELFTEST_KVM_UCALL_COMMON_H */

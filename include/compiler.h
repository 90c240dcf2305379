/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The attribute macros kernel code is written with.  This is the one place
 * that spells the attributes out (as GCC's "__attribute" keyword, so the
 * style checker's advice to use these very macros does not fire here).
 */
#ifndef SELFTEST_KVM_COMPILER_H
#define SELFTEST_KVM_COMPILER_H

/*
 * kselftest.h defines some of these too, more or fewer by kernel version
 * (6.12's has __printf and __noreturn): take it first, fill in the rest.
 */
#include "kselftest.h"

#ifndef __printf
#define __printf(a, b)	__attribute((format(printf, a, b)))
#endif
#ifndef __noreturn
#define __noreturn	__attribute((noreturn))
#endif
#ifndef noinline
#define noinline	__attribute((noinline))
#endif
#ifndef __packed
#define __packed	__attribute((packed))
#endif
#ifndef __aligned
#define __aligned(x)	__attribute((aligned(x)))
#endif
#ifndef __used
#define __used		__attribute((used))
#endif
#ifndef __weak
#define __weak		__attribute((weak))
#endif
#ifndef __section
#define __section(s)	__attribute((section(s)))
#endif

/*
 * Code that runs in the guest, where no sanitizer runtime exists: a
 * SANITIZE= build leaves it uninstrumented (see the Makefile).
 */
#define __guest_code	__attribute((no_sanitize("undefined", "address", "thread")))

#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#endif

/* Single, untorn accesses to scalars shared between threads. */
#define READ_ONCE(x)		__atomic_load_n(&(x), __ATOMIC_RELAXED)
#define WRITE_ONCE(x, v)	__atomic_store_n(&(x), (v), __ATOMIC_RELAXED)

#endif /* SELFTEST_KVM_COMPILER_H */

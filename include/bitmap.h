/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Bitmaps as arrays of unsigned long, bit 0 the lowest bit of word 0: the
 * layout of KVM's dirty bitmaps.  Header-only, so guest code can use it.
 */
#ifndef SELFTEST_KVM_BITMAP_H
#define SELFTEST_KVM_BITMAP_H

#include <stdbool.h>
#include <stdint.h>

#include "compiler.h"

#define BITS_PER_LONG		(8 * sizeof(unsigned long))
#define BIT_WORD(nr)		((nr) / BITS_PER_LONG)
#define BIT_MASK(nr)		(1UL << ((nr) % BITS_PER_LONG))
#define BITS_TO_LONGS(nr)	(((nr) + BITS_PER_LONG - 1) / BITS_PER_LONG)

static inline bool test_bit(uint64_t nr, const unsigned long *map)
{
	return map[BIT_WORD(nr)] & BIT_MASK(nr);
}

static inline void set_bit(uint64_t nr, unsigned long *map)
{
	map[BIT_WORD(nr)] |= BIT_MASK(nr);
}

static inline void clear_bit(uint64_t nr, unsigned long *map)
{
	map[BIT_WORD(nr)] &= ~BIT_MASK(nr);
}

/* Atomic, for bitmaps shared between vCPUs: returns the old value. */
static inline __guest_code bool test_and_set_bit_atomic(uint64_t nr, unsigned long *map)
{
	return __atomic_fetch_or(&map[BIT_WORD(nr)], BIT_MASK(nr),
				 __ATOMIC_SEQ_CST) & BIT_MASK(nr);
}

static inline __guest_code void clear_bit_atomic(uint64_t nr, unsigned long *map)
{
	__atomic_fetch_and(&map[BIT_WORD(nr)], ~BIT_MASK(nr), __ATOMIC_SEQ_CST);
}

#endif /* SELFTEST_KVM_BITMAP_H */

// SPDX-License-Identifier: GPL-2.0-only
/*
 * ucall, arch-neutral guest side: taking a slot of the pool (an in-use
 * bitmap taken with atomics, so vCPUs can report at once), filling it and
 * exiting with ucall_arch_do_ucall().
 */
#include "bitmap.h"
#include "kvm_util.h"

_Static_assert(UCALL_POOL_SIZE >= KVM_MAX_VCPUS, "a ucall slot for every vCPU");

/* Guest: GVA of the pool, written by ucall_init(). */
struct ucall_header *ucall_pool;
/* Guest: where a full pool is reported from (its own slot, in .bss). */
static struct ucall ucall_pool_full_uc;
static unsigned long ucall_pool_full_taken;
/* Guest: scans before a full pool is reported (a test may lower it). */
int ucall_pool_scans = UCALL_POOL_SCANS;

/* Guest: a pool that stays full is a bug of the test: an abort says so. */
static __guest_code __noreturn void ucall_pool_full(void)
{
	struct ucall *uc = &ucall_pool_full_uc;

	while (test_and_set_bit_atomic(0, &ucall_pool_full_taken))
		;
	uc->args[GUEST_ERROR_FILE] = (uint64_t)__FILE__;
	uc->args[GUEST_ERROR_LINE] = __LINE__;
	uc->args[GUEST_ERROR_EXPR] = (uint64_t)"a free ucall slot";
	guest_snprintf(uc->buffer, UCALL_BUFFER_LEN,
		       "ucall pool full: all %d slots stayed in use over %d scans",
		       UCALL_POOL_SIZE, READ_ONCE(ucall_pool_scans));
	for (;;) {
		uc->cmd = UCALL_ABORT;
		ucall_arch_do_ucall((uint64_t)uc);
	}
}

/* Guest: a free slot; all busy means other vCPUs are reporting: retry. */
static __guest_code struct ucall *ucall_alloc(void)
{
	int scan, i;

	for (scan = 0; scan < READ_ONCE(ucall_pool_scans); scan++) {
		for (i = 0; i < UCALL_POOL_SIZE; i++) {
			if ((READ_ONCE(ucall_pool->in_use[BIT_WORD(i)]) & BIT_MASK(i)) ||
			    test_and_set_bit_atomic(i, ucall_pool->in_use))
				continue;
			return &ucall_pool->ucalls[i];
		}
	}
	ucall_pool_full();
}

static __guest_code void ucall_free(struct ucall *uc)
{
	clear_bit_atomic(uc - ucall_pool->ucalls, ucall_pool->in_use);
}

static __guest_code void ucall_exit(struct ucall *uc, uint64_t cmd)
{
	uc->cmd = cmd;
	ucall_arch_do_ucall((uint64_t)uc);
	ucall_free(uc);
}

__guest_code void ucall(uint64_t cmd, int nargs, ...)
{
	struct ucall *uc = ucall_alloc();
	va_list va;
	int i;

	if (nargs > UCALL_MAX_ARGS)
		nargs = UCALL_MAX_ARGS;
	va_start(va, nargs);
	for (i = 0; i < nargs; i++)
		uc->args[i] = va_arg(va, uint64_t);
	va_end(va);
	ucall_exit(uc, cmd);
}

__guest_code void ucall_fmt(uint64_t cmd, const char *fmt, ...)
{
	struct ucall *uc = ucall_alloc();
	va_list va;

	va_start(va, fmt);
	guest_vsnprintf(uc->buffer, UCALL_BUFFER_LEN, fmt, va);
	va_end(va);
	ucall_exit(uc, cmd);
}

__guest_code void ucall_assert(const char *file, unsigned int line, const char *expr,
		  const char *fmt, ...)
{
	struct ucall *uc = ucall_alloc();
	va_list va;

	uc->args[GUEST_ERROR_FILE] = (uint64_t)file;
	uc->args[GUEST_ERROR_LINE] = line;
	uc->args[GUEST_ERROR_EXPR] = (uint64_t)expr;
	va_start(va, fmt);
	guest_vsnprintf(uc->buffer, UCALL_BUFFER_LEN, fmt, va);
	va_end(va);
	ucall_exit(uc, UCALL_ABORT);
}

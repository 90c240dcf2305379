// SPDX-License-Identifier: GPL-2.0-only
/*
 * ucall, arch-neutral part: the per-VM pool of struct ucall in guest
 * memory (an in-use bitmap taken with atomics, so vCPUs can report at
 * once), the guest calls that fill a slot, and the host side that copies
 * it out.  The exit itself is ucall_arch_do_ucall().
 */
#include "bitmap.h"
#include "kvm_util.h"

struct ucall_header {
	unsigned long in_use[BITS_TO_LONGS(UCALL_POOL_SIZE)];
	struct ucall ucalls[UCALL_POOL_SIZE];
};

_Static_assert(UCALL_POOL_SIZE >= KVM_MAX_VCPUS, "a ucall slot for every vCPU");

/* Guest: GVA of the pool, written by ucall_init(). */
static struct ucall_header *ucall_pool;
/* Guest: where a full pool is reported from (its own slot, in .bss). */
static struct ucall ucall_pool_full_uc;
static unsigned long ucall_pool_full_taken;
/* Guest: scans before a full pool is reported (a test may lower it). */
int ucall_pool_scans = UCALL_POOL_SCANS;

void ucall_init(struct kvm_vm *vm)
{
	uint64_t gva = vm_vaddr_alloc(vm, sizeof(struct ucall_header), KVM_UTIL_MIN_VADDR);
	struct ucall_header *hdr = addr_gva2hva(vm, gva);
	int i;

	memset(hdr, 0, sizeof(*hdr));
	for (i = 0; i < UCALL_POOL_SIZE; i++)
		hdr->ucalls[i].hva = &hdr->ucalls[i];
	vm->ucall_pool = gva;
	write_guest_global(vm, ucall_pool, (struct ucall_header *)gva);
	ucall_arch_init(vm);
}

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

uint64_t __get_ucall(struct kvm_vcpu *vcpu, struct ucall *uc)
{
	uint64_t gva = ucall_arch_get_ucall(vcpu);
	struct kvm_vm *vm = vcpu->vm;

	memset(uc, 0, sizeof(*uc));
	if (!gva)
		return UCALL_NONE;
	memcpy(uc, addr_gva2hva(vm, gva), sizeof(*uc));
	if (uc->cmd == UCALL_ABORT) {
		uc->args[GUEST_ERROR_FILE] =
			(uint64_t)addr_gva2hva(vm, uc->args[GUEST_ERROR_FILE]);
		uc->args[GUEST_ERROR_EXPR] =
			(uint64_t)addr_gva2hva(vm, uc->args[GUEST_ERROR_EXPR]);
	}
	uc->buffer[UCALL_BUFFER_LEN - 1] = 0;
	return uc->cmd;
}

uint64_t get_ucall(struct kvm_vcpu *vcpu, struct ucall *uc)
{
	struct ucall tmp;

	if (!uc)
		uc = &tmp;
	if (__get_ucall(vcpu, uc) == UCALL_UNHANDLED)
		ucall_arch_report_unhandled(uc);
	return uc->cmd;
}

void report_guest_assert(struct ucall *uc)
{
	test_assert_fail((const char *)uc->args[GUEST_ERROR_FILE],
			 uc->args[GUEST_ERROR_LINE],
			 (const char *)uc->args[GUEST_ERROR_EXPR], "%s", uc->buffer);
}

/* Run @vcpu once: its ucall must be @cmd (a guest assert is reported). */
static void vcpu_run_expect(struct kvm_vcpu *vcpu, uint64_t cmd, struct ucall *uc)
{
	vcpu_run(vcpu);
	if (get_ucall(vcpu, uc) == cmd)
		return;
	if (uc->cmd == UCALL_ABORT)
		REPORT_GUEST_ASSERT(*uc);
	TEST_FAIL("vCPU %u: exit %u (%s), ucall %lu, expected ucall %lu", vcpu->id,
		  vcpu->run->exit_reason, exit_reason_str(vcpu->run->exit_reason),
		  (unsigned long)uc->cmd, (unsigned long)cmd);
}

void vcpu_run_expect_done(struct kvm_vcpu *vcpu)
{
	struct ucall uc;

	vcpu_run_expect(vcpu, UCALL_DONE, &uc);
}

uint64_t vcpu_run_expect_sync(struct kvm_vcpu *vcpu)
{
	struct ucall uc;

	vcpu_run_expect(vcpu, UCALL_SYNC, &uc);
	return uc.args[1];
}

// SPDX-License-Identifier: GPL-2.0-only
/*
 * TEST_ASSERT's failure block, skips and usage errors.
 *
 * The backtrace is walked with the unwinder and named from the binary's
 * own symbol table, so it works in a minimal VM without addr2line.
 */
#include <sys/syscall.h>
#include <unwind.h>

#include "elf_util.h"
#include "test_util.h"

#define MAX_FRAMES 32

struct frames {
	uintptr_t pc[MAX_FRAMES];
	int n;
};

static _Unwind_Reason_Code record_frame(struct _Unwind_Context *ctx, void *arg)
{
	struct frames *f = arg;

	if (f->n == MAX_FRAMES)
		return _URC_END_OF_STACK;
	f->pc[f->n++] = _Unwind_GetIP(ctx);
	return _URC_NO_REASON;
}

void test_dump_stack(FILE *out)
{
	struct elf_image img = { 0 };
	struct frames f = { .n = 0 };
	const char *name;
	uint64_t off;
	int i;

	_Unwind_Backtrace(record_frame, &f);
	if (elf_open("/proc/self/exe", &img))
		img.base = NULL;

	fprintf(out, "  Backtrace:\n");
	/* Frame 0 is this function: start from its caller. */
	for (i = 1; i < f.n && f.pc[i]; i++) {
		/* The return address may be one past the call's function. */
		name = img.base ? elf_symbolize(&img, f.pc[i] - 1, &off) : NULL;
		if (name)
			fprintf(out, "    #%-2d 0x%012lx %s+0x%lx\n", i - 1,
				(unsigned long)f.pc[i], name, (unsigned long)off + 1);
		else
			fprintf(out, "    #%-2d 0x%012lx ??\n", i - 1,
				(unsigned long)f.pc[i]);
	}
	if (img.base)
		elf_close(&img);
}

void test_assert_fail(const char *file, unsigned int line, const char *expr,
		      const char *fmt, ...)
{
	int err = errno;
	va_list ap;

	fflush(stdout);
	fprintf(stderr, "==== Test Assertion Failure ====\n");
	fprintf(stderr, "  %s:%u: %s\n", file, line, expr);
	fprintf(stderr, "  pid=%d tid=%ld errno=%d - %s\n", getpid(),
		(long)syscall(SYS_gettid), err, strerror(err));
	test_dump_stack(stderr);
	fprintf(stderr, "  ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\n");
	fflush(stderr);
	exit(KSFT_FAIL);
}

void test_skip(const char *fmt, ...)
{
	va_list ap;

	fflush(stderr);
	printf("1..0 # SKIP ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
	exit(KSFT_SKIP);
}

void test_usage_error(const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\n");
	exit(KSFT_FAIL);
}

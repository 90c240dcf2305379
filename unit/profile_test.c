// SPDX-License-Identifier: GPL-2.0-only
/*
 * Host-only tests of --profile's symbolizer on a fixed kallsyms sample:
 * text symbols kept and sorted, data symbols dropped, module names
 * kept, an address mapped to the symbol it lies in, and kallsyms with
 * hidden addresses (kptr_restrict) refused with the reason.
 */
#include "profile.h"
#include "test_util.h"

/* Out of order, as /proc/kallsyms is across modules; data and text mixed. */
static const char sample[] =
	"ffffffff81000000 T _stext\n"
	"ffffffff81001000 t kvm_flush_remote_tlbs_range\n"
	"ffffffff81002000 D some_data\n"
	"ffffffffc0a10000 t kvm_mmu_page_fault\t[kvm]\n"
	"ffffffff81000800 T native_flush_tlb_one_user\n"
	"ffffffffc0a10400 t svm_flush_tlb_current\t[kvm_amd]\n"
	"ffffffff81003000 W weak_text\n"
	"ffffffff81004000 r ro_data\n"
	"not a line\n";

static const char hidden[] =
	"0000000000000000 T _stext\n"
	"0000000000000000 t kvm_flush_remote_tlbs_range\n";

static void load(struct ksyms *k, const char *text, bool want, const char *why_want)
{
	FILE *f = fmemopen((void *)text, strlen(text), "r");
	const char *why;
	bool ok;

	TEST_ASSERT(f, "fmemopen");
	ok = ksyms_load(k, f, &why);
	fclose(f);
	TEST_ASSERT(ok == want, "ksyms_load returned %d, expected %d", ok, want);
	if (!want)
		TEST_ASSERT(!strcmp(why, why_want), "reason '%s', expected '%s'", why, why_want);
}

static void expect(const struct ksyms *k, uint64_t addr, const char *name)
{
	const struct ksym *s = ksyms_find(k, addr);

	if (!name) {
		TEST_ASSERT(!s, "0x%lx: '%s', expected none", (unsigned long)addr, s->name);
		return;
	}
	TEST_ASSERT(s && !strcmp(s->name, name), "0x%lx: '%s', expected '%s'",
		    (unsigned long)addr, s ? s->name : "none", name);
}

static void test_symbolize(void)
{
	struct ksyms k;
	size_t i;

	load(&k, sample, true, NULL);
	TEST_ASSERT_EQ(k.n, (size_t)6);
	for (i = 1; i < k.n; i++)
		TEST_ASSERT(k.syms[i - 1].addr <= k.syms[i].addr, "not sorted at %zu", i);
	expect(&k, 0xffffffff80ffffffULL, NULL);
	expect(&k, 0xffffffff81000000ULL, "_stext");
	expect(&k, 0xffffffff810007ffULL, "_stext");
	expect(&k, 0xffffffff81000800ULL, "native_flush_tlb_one_user");
	expect(&k, 0xffffffff81001234ULL, "kvm_flush_remote_tlbs_range");
	/* some_data is no text: its addresses belong to the function before. */
	expect(&k, 0xffffffff81002010ULL, "kvm_flush_remote_tlbs_range");
	expect(&k, 0xffffffff81003008ULL, "weak_text");
	expect(&k, 0xffffffffc0a10010ULL, "kvm_mmu_page_fault [kvm]");
	expect(&k, 0xffffffffc0a10400ULL, "svm_flush_tlb_current [kvm_amd]");
	expect(&k, 0xffffffffffffff00ULL, "svm_flush_tlb_current [kvm_amd]");
	ksyms_free(&k);
	ksft_test_result_pass("symbolize a fixed kallsyms sample\n");
}

static void test_refused(void)
{
	struct ksyms k;

	load(&k, hidden, false, "kallsyms shows every address as 0");
	load(&k, "ffffffff81002000 D some_data\n", false, "no kernel text symbols in kallsyms");
	ksft_test_result_pass("hidden addresses and no text refused with the reason\n");
}

int main(int argc, char *argv[])
{
	parse_no_options(argc, argv, "Host-only tests of --profile's kallsyms symbolizer.");

	ksft_print_header();
	ksft_set_plan(2);
	test_symbolize();
	test_refused();
	ksft_finished();
}

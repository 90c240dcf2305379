// SPDX-License-Identifier: GPL-2.0-only
/*
 * Host-only tests of the JSON writer: the exact text of nested objects
 * and arrays, string escapes, non-finite numbers, and misuse reported.
 */
#include <math.h>

#include "json_writer.h"
#include "test_util.h"

static char *buf;
static size_t len;

static FILE *open_buf(struct json_writer *w)
{
	FILE *f = open_memstream(&buf, &len);

	TEST_ASSERT(f, "open_memstream");
	json_writer_init(w, f);
	return f;
}

static void expect_text(FILE *f, bool ok, bool want_ok, const char *want)
{
	fclose(f);
	TEST_ASSERT(ok == want_ok, "writer reported %s", ok ? "success" : "failure");
	TEST_ASSERT(!want || !strcmp(buf, want), "wrote\n%s\nexpected\n%s", buf, want);
	free(buf);
}

static void test_nested(void)
{
	struct json_writer w;
	FILE *f = open_buf(&w);

	json_object_begin(&w, NULL);
	json_string(&w, "s", "a\"b\\c\nd\x01");
	json_array_begin(&w, "a");
	json_u64(&w, NULL, UINT64_MAX);
	json_i64(&w, NULL, -5);
	json_double(&w, NULL, 0.5);
	json_double(&w, NULL, NAN);
	json_bool(&w, NULL, true);
	json_array_end(&w);
	json_object_begin(&w, "empty");
	json_object_end(&w);
	json_object_end(&w);
	expect_text(f, json_writer_end(&w), true,
		    "{\n  \"s\": \"a\\\"b\\\\c\\nd\\u0001\",\n  \"a\": [\n"
		    "    18446744073709551615,\n    -5,\n    0.5,\n    null,\n    true\n"
		    "  ],\n  \"empty\": {}\n}\n");
	ksft_test_result_pass("nested objects, arrays, escapes, numbers\n");
}

static void test_misuse(void)
{
	struct json_writer w;
	FILE *f = open_buf(&w);
	int i;

	json_object_begin(&w, NULL);
	json_u64(&w, NULL, 1);		/* no key inside an object */
	json_object_end(&w);
	expect_text(f, json_writer_end(&w), false, NULL);

	f = open_buf(&w);
	json_array_begin(&w, NULL);
	json_u64(&w, "k", 1);		/* a key inside an array */
	json_object_end(&w);		/* wrong closer */
	expect_text(f, json_writer_end(&w), false, NULL);

	f = open_buf(&w);
	json_object_begin(&w, NULL);	/* never closed */
	expect_text(f, json_writer_end(&w), false, NULL);

	f = open_buf(&w);
	for (i = 0; i <= JSON_MAX_DEPTH; i++)
		json_array_begin(&w, NULL);
	expect_text(f, json_writer_end(&w), false, NULL);
	ksft_test_result_pass("misplaced keys, wrong closers, unclosed, too deep\n");
}

int main(int argc, char *argv[])
{
	parse_no_options(argc, argv, "Host-only tests of the JSON writer.");

	ksft_print_header();
	ksft_set_plan(2);
	test_nested();
	test_misuse();
	ksft_finished();
}

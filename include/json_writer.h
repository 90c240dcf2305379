/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * json_writer: a streaming JSON writer for figures a program reads.
 *
 * Values are written in order; inside an object each value has a key,
 * inside an array (and at the top) the key is NULL.  Strings are escaped;
 * a double that is not finite is written as null.  Errors (a failed write,
 * nesting deeper than JSON_MAX_DEPTH, a key where none belongs) make
 * json_writer_end() return false.
 *
 *	struct json_writer w;
 *
 *	json_writer_init(&w, file);
 *	json_object_begin(&w, NULL);
 *	json_string(&w, "test", "demand_paging_test");
 *	json_array_begin(&w, "argv");
 *	json_string(&w, NULL, "-b");
 *	json_array_end(&w);
 *	json_object_end(&w);
 *	ok = json_writer_end(&w);
 */
#ifndef SELFTEST_KVM_JSON_WRITER_H
#define SELFTEST_KVM_JSON_WRITER_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define JSON_MAX_DEPTH	16

struct json_writer {
	FILE *f;
	int depth;
	bool ok;
	bool in_object[JSON_MAX_DEPTH];	/* else in an array */
	bool has_items[JSON_MAX_DEPTH];
};

void json_writer_init(struct json_writer *w, FILE *f);
/* True if everything was written and every object and array was closed. */
bool json_writer_end(struct json_writer *w);

void json_object_begin(struct json_writer *w, const char *key);
void json_object_end(struct json_writer *w);
void json_array_begin(struct json_writer *w, const char *key);
void json_array_end(struct json_writer *w);

void json_string(struct json_writer *w, const char *key, const char *s);
void json_u64(struct json_writer *w, const char *key, uint64_t v);
void json_i64(struct json_writer *w, const char *key, int64_t v);
void json_double(struct json_writer *w, const char *key, double v);
void json_bool(struct json_writer *w, const char *key, bool v);

#endif /* SELFTEST_KVM_JSON_WRITER_H */

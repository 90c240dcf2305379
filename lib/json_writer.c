// SPDX-License-Identifier: GPL-2.0-only
/*
 * json_writer: streaming JSON (RFC 8259) for machine-readable figures.
 */
#include <math.h>

#include "json_writer.h"

void json_writer_init(struct json_writer *w, FILE *f)
{
	*w = (struct json_writer) { .f = f, .ok = true };
}

bool json_writer_end(struct json_writer *w)
{
	if (w->depth)
		w->ok = false;
	if (fflush(w->f) || ferror(w->f))
		w->ok = false;
	return w->ok;
}

static void put_string(struct json_writer *w, const char *s)
{
	const unsigned char *p;

	fputc('"', w->f);
	for (p = (const unsigned char *)s; *p; p++) {
		switch (*p) {
		case '"':
			fputs("\\\"", w->f);
			break;
		case '\\':
			fputs("\\\\", w->f);
			break;
		case '\n':
			fputs("\\n", w->f);
			break;
		case '\t':
			fputs("\\t", w->f);
			break;
		default:
			if (*p < 0x20)
				fprintf(w->f, "\\u%04x", *p);
			else
				fputc(*p, w->f);
		}
	}
	fputc('"', w->f);
}

/* Separator, indentation and key before a value; false if misplaced. */
static bool value_start(struct json_writer *w, const char *key)
{
	int d = w->depth;

	if (d) {
		if (w->in_object[d - 1] != !!key) {
			w->ok = false;
			return false;
		}
		fprintf(w->f, "%s\n%*s", w->has_items[d - 1] ? "," : "", 2 * d, "");
		w->has_items[d - 1] = true;
	} else if (key) {
		w->ok = false;
		return false;
	}
	if (key) {
		put_string(w, key);
		fputs(": ", w->f);
	}
	return true;
}

static void container_begin(struct json_writer *w, const char *key, bool object)
{
	if (w->depth == JSON_MAX_DEPTH || !value_start(w, key)) {
		w->ok = false;
		return;
	}
	fputc(object ? '{' : '[', w->f);
	w->in_object[w->depth] = object;
	w->has_items[w->depth] = false;
	w->depth++;
}

static void container_end(struct json_writer *w, bool object)
{
	int d = w->depth;

	if (!d || w->in_object[d - 1] != object) {
		w->ok = false;
		return;
	}
	w->depth--;
	if (w->has_items[d - 1])
		fprintf(w->f, "\n%*s", 2 * w->depth, "");
	fputc(object ? '}' : ']', w->f);
	if (!w->depth)
		fputc('\n', w->f);
}

void json_object_begin(struct json_writer *w, const char *key)
{
	container_begin(w, key, true);
}

void json_object_end(struct json_writer *w)
{
	container_end(w, true);
}

void json_array_begin(struct json_writer *w, const char *key)
{
	container_begin(w, key, false);
}

void json_array_end(struct json_writer *w)
{
	container_end(w, false);
}

void json_string(struct json_writer *w, const char *key, const char *s)
{
	if (value_start(w, key))
		put_string(w, s ? s : "");
}

void json_u64(struct json_writer *w, const char *key, uint64_t v)
{
	if (value_start(w, key))
		fprintf(w->f, "%llu", (unsigned long long)v);
}

void json_i64(struct json_writer *w, const char *key, int64_t v)
{
	if (value_start(w, key))
		fprintf(w->f, "%lld", (long long)v);
}

void json_double(struct json_writer *w, const char *key, double v)
{
	if (!value_start(w, key))
		return;
	if (isfinite(v))
		fprintf(w->f, "%.15g", v);
	else
		fputs("null", w->f);
}

void json_bool(struct json_writer *w, const char *key, bool v)
{
	if (value_start(w, key))
		fputs(v ? "true" : "false", w->f);
}

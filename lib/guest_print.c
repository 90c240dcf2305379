// SPDX-License-Identifier: GPL-2.0-only
/*
 * A small vsnprintf for guest code (no libc in the guest): %d %i %u %x %X
 * %p %s %c %%, flags '-', '0', '#', a width (or '*'), and the h, l, ll and
 * z length modifiers.
 */
#include <stdbool.h>
#include <stdint.h>

#include "ucall_common.h"

struct out {
	char *buf;
	int size;
	int len;
};

struct spec {
	bool left;
	bool zero;
	bool alt;
	int width;
	int lng;	/* 0: int, 1: long, 2: long long, -1: short */
};

static void put(struct out *o, char c)
{
	if (o->len + 1 < o->size)
		o->buf[o->len] = c;
	o->len++;
}

static void pad(struct out *o, int n, char c)
{
	while (n-- > 0)
		put(o, c);
}

static void put_str(struct out *o, const struct spec *s, const char *str)
{
	int n = 0;

	if (!str)
		str = "(null)";
	while (str[n])
		n++;
	if (!s->left)
		pad(o, s->width - n, ' ');
	while (*str)
		put(o, *str++);
	if (s->left)
		pad(o, s->width - n, ' ');
}

static void put_num(struct out *o, const struct spec *s, uint64_t v, int base,
		    bool neg, bool upper)
{
	const char *digits = upper ? "0123456789ABCDEF" : "0123456789abcdef";
	const char *prefix = neg ? "-" : (s->alt && base == 16 && v) ? (upper ? "0X" : "0x") : "";
	char tmp[24];
	int n = 0, plen = 0, fill;

	do {
		tmp[n++] = digits[v % base];
		v /= base;
	} while (v);
	while (prefix[plen])
		plen++;
	fill = s->width - n - plen;
	if (!s->left && !s->zero)
		pad(o, fill, ' ');
	while (*prefix)
		put(o, *prefix++);
	if (!s->left && s->zero)
		pad(o, fill, '0');
	while (n)
		put(o, tmp[--n]);
	if (s->left)
		pad(o, fill, ' ');
}

static uint64_t arg_unsigned(const struct spec *s, va_list *ap)
{
	if (s->lng > 0)
		return va_arg(*ap, unsigned long);
	if (s->lng < 0)
		return (unsigned short)va_arg(*ap, unsigned int);
	return va_arg(*ap, unsigned int);
}

static int64_t arg_signed(const struct spec *s, va_list *ap)
{
	if (s->lng > 0)
		return va_arg(*ap, long);
	if (s->lng < 0)
		return (short)va_arg(*ap, int);
	return va_arg(*ap, int);
}

/* Parse flags, width and length after '%'; returns the conversion. */
static const char *parse_spec(const char *f, struct spec *s, va_list *ap)
{
	*s = (struct spec) { 0 };
	for (;; f++) {
		if (*f == '-')
			s->left = true;
		else if (*f == '0')
			s->zero = true;
		else if (*f == '#')
			s->alt = true;
		else
			break;
	}
	if (*f == '*') {
		s->width = va_arg(*ap, int);
		f++;
	}
	for (; *f >= '0' && *f <= '9'; f++)
		s->width = s->width * 10 + (*f - '0');
	for (; *f == 'l' || *f == 'z' || *f == 'h'; f++)
		s->lng = *f == 'h' ? -1 : s->lng + 1;
	return f;
}

static void convert(struct out *o, struct spec *s, char c, va_list *ap)
{
	int64_t v;
	char ch[2] = { 0, 0 };

	switch (c) {
	case 'd':
	case 'i':
		v = arg_signed(s, ap);
		put_num(o, s, v < 0 ? -(uint64_t)v : (uint64_t)v, 10, v < 0, false);
		break;
	case 'u':
		put_num(o, s, arg_unsigned(s, ap), 10, false, false);
		break;
	case 'x':
	case 'X':
		put_num(o, s, arg_unsigned(s, ap), 16, false, c == 'X');
		break;
	case 'p':
		s->alt = true;
		put_num(o, s, (uint64_t)va_arg(*ap, void *), 16, false, false);
		break;
	case 's':
		put_str(o, s, va_arg(*ap, const char *));
		break;
	case 'c':
		ch[0] = (char)va_arg(*ap, int);
		put_str(o, s, ch);
		break;
	case '%':
		put(o, '%');
		break;
	default:
		put(o, '%');
		put(o, c);
	}
}

int guest_vsnprintf(char *buf, int n, const char *fmt, va_list args)
{
	struct out o = { .buf = buf, .size = n, .len = 0 };
	struct spec s;
	va_list ap;

	va_copy(ap, args);
	while (*fmt) {
		if (*fmt != '%') {
			put(&o, *fmt++);
			continue;
		}
		fmt = parse_spec(fmt + 1, &s, &ap);
		if (!*fmt)
			break;
		convert(&o, &s, *fmt++, &ap);
	}
	va_end(ap);
	if (n > 0)
		buf[o.len < n ? o.len : n - 1] = '\0';
	return o.len;
}

int guest_snprintf(char *buf, int n, const char *fmt, ...)
{
	va_list va;
	int len;

	va_start(va, fmt);
	len = guest_vsnprintf(buf, n, fmt, va);
	va_end(va);
	return len;
}

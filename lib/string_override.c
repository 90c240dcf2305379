// SPDX-License-Identifier: GPL-2.0-only
/*
 * memset, memcpy, memcmp, bcmp, strlen and strnlen for guest code.  libc's are
 * selected at run time (ifunc) and may use instructions or state the guest
 * has not; these plain loops replace them in the whole test binary.  Built
 * with -ffreestanding so the compiler does not turn them back into calls.
 * bcmp is there because clang turns memcmp() == 0 into a call to it.
 */
#include <stddef.h>

void *memset(void *s, int c, size_t n)
{
	unsigned char *p = s;

	while (n--)
		*p++ = (unsigned char)c;
	return s;
}

void *memcpy(void *dst, const void *src, size_t n)
{
	unsigned char *d = dst;
	const unsigned char *s = src;

	while (n--)
		*d++ = *s++;
	return dst;
}

int memcmp(const void *a, const void *b, size_t n)
{
	const unsigned char *p = a, *q = b;

	for (; n; n--, p++, q++)
		if (*p != *q)
			return *p - *q;
	return 0;
}

int bcmp(const void *a, const void *b, size_t n)
{
	return memcmp(a, b, n);
}

size_t strlen(const char *s)
{
	const char *p = s;

	while (*p)
		p++;
	return p - s;
}

size_t strnlen(const char *s, size_t max)
{
	size_t n = 0;

	while (n < max && s[n])
		n++;
	return n;
}

// SPDX-License-Identifier: GPL-2.0-only
/*
 * Static glibc on aarch64 reaches strlen() through its internal alias
 * __strlen too (rawmemchr does); if only lib/string_override.c defined
 * strlen, that reference would pull in libc's ifunc strlen and the link
 * would see two.  Giving __strlen here keeps the plain-loop strlen alone.
 */
#include <string.h>

size_t __strlen(const char *s);

size_t __strlen(const char *s)
{
	return strlen(s);
}

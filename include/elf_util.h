/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Read-only view of an ELF64 file (normally the test's own binary): its
 * program headers, for loading guest code, and its symbol table, for
 * naming the functions of a backtrace without external tools.
 */
#ifndef SELFTEST_KVM_ELF_UTIL_H
#define SELFTEST_KVM_ELF_UTIL_H

#include <elf.h>
#include <stddef.h>
#include <stdint.h>

struct elf_image {
	const uint8_t *base;
	size_t size;
	const Elf64_Ehdr *ehdr;
};

/* Map @path read-only and check it is a valid ELF64 file; 0 or -errno. */
int elf_open(const char *path, struct elf_image *img);
void elf_close(struct elf_image *img);
/* The same check of an image already in memory (not mapped by elf_open). */
int elf_init(struct elf_image *img, const void *base, size_t size);
/* Program header @i, NULL when out of range or outside the file. */
const Elf64_Phdr *elf_phdr(const struct elf_image *img, unsigned int i);
/* Name of the function containing @addr, NULL if none; sets @offset. */
const char *elf_symbolize(const struct elf_image *img, uint64_t addr,
			  uint64_t *offset);

#endif /* SELFTEST_KVM_ELF_UTIL_H */

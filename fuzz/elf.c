// SPDX-License-Identifier: GPL-2.0-only
/*
 * The ELF reader (what loads guest code and names backtrace frames): any
 * bytes either fail elf_init() or give program headers and symbols that
 * lie inside the image.
 */
#include "elf_util.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct elf_image img;
	const Elf64_Phdr *ph;
	const char *name;
	uint64_t off, addr;
	unsigned int i;
	void *copy;

	/* A page-aligned copy, as elf_open's mapping is. */
	copy = aligned_alloc(4096, ALIGN_UP(size + 1, 4096));
	TEST_ASSERT(copy, "aligned_alloc(%zu)", size);
	memcpy(copy, data, size);
	if (elf_init(&img, copy, size))
		goto out;
	for (i = 0; i <= img.ehdr->e_phnum; i++) {
		ph = elf_phdr(&img, i);
		if (ph && ph->p_type == PT_LOAD)
			TEST_ASSERT(ph->p_offset <= size && ph->p_filesz <= size - ph->p_offset,
				    "PT_LOAD %u outside the file", i);
	}
	/* Look up the entry point, next to it, and the input's last 8 bytes. */
	for (i = 0; i < 3; i++) {
		addr = img.ehdr->e_entry + i;
		if (i == 2 && size >= 8)
			memcpy(&addr, data + size - 8, 8);
		name = elf_symbolize(&img, addr, &off);
		if (name)
			TEST_ASSERT((const uint8_t *)name >= img.base &&
				    (const uint8_t *)name + strlen(name) < img.base + size,
				    "symbol name outside the file");
	}
out:
	free(copy);
	return 0;
}

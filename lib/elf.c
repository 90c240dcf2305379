// SPDX-License-Identifier: GPL-2.0-only
/*
 * ELF64 reading: mapping a file, bounds-checked access to its program
 * headers and a symbol lookup by address.  No error here is fatal: the
 * assertion path uses it and must not recurse into TEST_ASSERT.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "elf_util.h"

static bool in_file(const struct elf_image *img, uint64_t off, uint64_t len)
{
	return off <= img->size && len <= img->size - off;
}

static bool elf_header_valid(const struct elf_image *img)
{
	const Elf64_Ehdr *eh = img->ehdr;

	if (!in_file(img, 0, sizeof(*eh)))
		return false;
	if (memcmp(eh->e_ident, ELFMAG, SELFMAG) ||
	    eh->e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh->e_ident[EI_VERSION] != EV_CURRENT)
		return false;
	if (eh->e_phnum && eh->e_phentsize != sizeof(Elf64_Phdr))
		return false;
	if (eh->e_shnum && eh->e_shentsize != sizeof(Elf64_Shdr))
		return false;
	/* The tables are read in place: they must be aligned as the ABI has them. */
	if (eh->e_phoff % 8 || eh->e_shoff % 8)
		return false;
	return in_file(img, eh->e_phoff, (uint64_t)eh->e_phnum * sizeof(Elf64_Phdr)) &&
	       in_file(img, eh->e_shoff, (uint64_t)eh->e_shnum * sizeof(Elf64_Shdr));
}

int elf_open(const char *path, struct elf_image *img)
{
	struct stat st;
	void *map;
	int fd, err;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st)) {
		err = -errno;
		close(fd);
		return err;
	}
	map = mmap(NULL, st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	err = map == MAP_FAILED ? -errno : 0;
	close(fd);
	if (err)
		return err;

	err = elf_init(img, map, st.st_size);
	if (err)
		munmap(map, st.st_size);
	return err;
}

int elf_init(struct elf_image *img, const void *base, size_t size)
{
	img->base = base;
	img->size = size;
	img->ehdr = base;
	if (!elf_header_valid(img)) {
		memset(img, 0, sizeof(*img));
		return -ENOEXEC;
	}
	return 0;
}

void elf_close(struct elf_image *img)
{
	if (img->base)
		munmap((void *)img->base, img->size);
	memset(img, 0, sizeof(*img));
}

const Elf64_Phdr *elf_phdr(const struct elf_image *img, unsigned int i)
{
	const Elf64_Phdr *ph;

	if (i >= img->ehdr->e_phnum)
		return NULL;
	ph = (const Elf64_Phdr *)(img->base + img->ehdr->e_phoff) + i;
	if (ph->p_type == PT_LOAD && !in_file(img, ph->p_offset, ph->p_filesz))
		return NULL;
	return ph;
}

static const Elf64_Shdr *elf_shdr(const struct elf_image *img, unsigned int i)
{
	if (i >= img->ehdr->e_shnum)
		return NULL;
	return (const Elf64_Shdr *)(img->base + img->ehdr->e_shoff) + i;
}

static const char *sym_name(const struct elf_image *img,
			    const Elf64_Shdr *strtab, uint32_t off)
{
	const char *s;

	if (off >= strtab->sh_size)
		return NULL;
	s = (const char *)img->base + strtab->sh_offset + off;
	return memchr(s, 0, strtab->sh_size - off) ? s : NULL;
}

const char *elf_symbolize(const struct elf_image *img, uint64_t addr,
			  uint64_t *offset)
{
	const Elf64_Shdr *sh, *strtab;
	const Elf64_Sym *sym;
	unsigned int i;
	uint64_t n, j;

	for (i = 0; (sh = elf_shdr(img, i)); i++) {
		if (sh->sh_type != SHT_SYMTAB || sh->sh_entsize != sizeof(*sym))
			continue;
		strtab = elf_shdr(img, sh->sh_link);
		if (!strtab || sh->sh_offset % 8 || !in_file(img, sh->sh_offset, sh->sh_size) ||
		    !in_file(img, strtab->sh_offset, strtab->sh_size))
			continue;
		sym = (const Elf64_Sym *)(img->base + sh->sh_offset);
		n = sh->sh_size / sizeof(*sym);
		for (j = 0; j < n; j++, sym++) {
			if (ELF64_ST_TYPE(sym->st_info) != STT_FUNC ||
			    addr < sym->st_value ||
			    addr >= sym->st_value + sym->st_size)
				continue;
			*offset = addr - sym->st_value;
			return sym_name(img, strtab, sym->st_name);
		}
	}
	return NULL;
}

// SPDX-License-Identifier: GPL-2.0-only
/*
 * Loading the test binary into guest memory: every PT_LOAD segment at its
 * link address (the binary is not PIE), so GVA == HVA for its code and
 * data and guest_code can be any function of the test.
 */
#include "elf_util.h"
#include "kvm_util.h"

static void load_segment(struct kvm_vm *vm, const struct elf_image *img,
			 const Elf64_Phdr *ph)
{
	TEST_ASSERT(ph->p_filesz <= ph->p_memsz,
		    "PT_LOAD at 0x%lx: file size 0x%lx > memory size 0x%lx",
		    (unsigned long)ph->p_vaddr, (unsigned long)ph->p_filesz,
		    (unsigned long)ph->p_memsz);
	vm_vaddr_populate(vm, ph->p_vaddr, ph->p_memsz);
	guest_memcpy_to(vm, ph->p_vaddr, img->base + ph->p_offset, ph->p_filesz);
	guest_memcpy_to(vm, ph->p_vaddr + ph->p_filesz, NULL,
			ph->p_memsz - ph->p_filesz);
}

void kvm_vm_elf_load(struct kvm_vm *vm, const char *path)
{
	struct elf_image img = { 0 };
	const Elf64_Phdr *ph;
	unsigned int i;
	int ret;

	ret = elf_open(path, &img);
	TEST_ASSERT(!ret, "elf_open(%s) failed: %s", path, strerror(-ret));
	TEST_ASSERT(img.ehdr->e_type == ET_EXEC,
		    "%s is not a fixed-address executable (built as PIE?)", path);
	for (i = 0; i < img.ehdr->e_phnum; i++) {
		ph = elf_phdr(&img, i);
		TEST_ASSERT(ph, "%s: bad program header %u", path, i);
		if (ph->p_type == PT_LOAD && ph->p_memsz)
			load_segment(vm, &img, ph);
	}
	elf_close(&img);
}

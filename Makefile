# SPDX-License-Identifier: GPL-2.0-only
#
# KVM selftests.  Works two ways:
#  - in a kernel tree, as tools/testing/selftests/kvm: uses ../lib.mk,
#    ../kselftest.h and the kernel's installed headers;
#  - standalone, from this repo: takes lib.mk, kselftest.h and the runner
#    from a kernel source tree (KSRC=, default: Debian's linux-source-6.1
#    package, unpacked once into a cache) and uapi headers from the system.
#
# ARCH=x86_64 (default on x86 hosts) or ARCH=arm64 (CROSS_COMPILE defaults
# to aarch64-linux-gnu- on other hosts).  STATIC=1 links statically.
# O=DIR puts the output in DIR (standalone).

comma := ,
top_dir := $(patsubst %/,%,$(dir $(abspath $(lastword $(MAKEFILE_LIST)))))
host_arch := $(shell uname -m)

ifeq ($(ARCH),)
ARCH := $(host_arch)
endif
ifneq ($(filter x86 x86_64,$(ARCH)),)
ARCH_DIR := x86_64
else ifneq ($(filter arm64 aarch64,$(ARCH)),)
ARCH_DIR := aarch64
else
$(error Unsupported ARCH '$(ARCH)': use x86_64 or arm64)
endif

ifeq ($(CROSS_COMPILE)$(LLVM),)
ifeq ($(ARCH_DIR),aarch64)
ifneq ($(host_arch),aarch64)
CROSS_COMPILE := aarch64-linux-gnu-
endif
endif
endif

ifneq ($(wildcard $(top_dir)/../lib.mk $(top_dir)/../kselftest.h),)
IN_TREE := 1
KSFT_DIR := $(abspath $(top_dir)/..)
else
IN_TREE :=
include $(top_dir)/ksrc.mk
KSFT_DIR := $(KSRC)/tools/testing/selftests
ifneq ($(O),)
OUTPUT := $(abspath $(O))
endif
endif

SINGLE_PROGS := $(sort $(patsubst %.c,%,$(wildcard *.c) \
		  $(wildcard $(ARCH_DIR)/*.c) $(wildcard unit/*.c)))
# A test of more than one file has a directory (memslot_perf/): its
# *_test.c is the main and names the binary, its other .c and .h files
# are the test's own helpers.
TEST_DIRS := $(filter-out x86_64 aarch64 unit fuzz,$(patsubst %/,%,$(dir $(wildcard */*_test.c))))
DIR_MAINS := $(wildcard $(addsuffix /*_test.c,$(TEST_DIRS)))
TEST_GEN_PROGS := $(sort $(SINGLE_PROGS) $(notdir $(basename $(DIR_MAINS))))

# The cases (testcases/<test>/<name>.test) and their runner, installed
# as kvm/testcases/ beside the tests but not in the kselftest list (they
# run for minutes under emulation): vm/suite runs them, and so can anyone
# (kvm/testcases/run.sh).  The cases' helper also beside the tests, where
# upstream's runner (-p DIR_OF_THE_TESTS) finds it.
TEST_PROGS_EXTENDED := testcases/faults.sh
TEST_FILES := testcases

LIBKVM_C := $(wildcard lib/*.c lib/$(ARCH_DIR)/*.c)
LIBKVM_S := $(wildcard lib/$(ARCH_DIR)/*.S)
HDRS := $(wildcard include/*.h include/$(ARCH_DIR)/*.h)

# Our own link and compile rules below, not lib.mk's.
OVERRIDE_TARGETS := 1
include $(KSFT_DIR)/lib.mk

LIBKVM_OBJS := $(patsubst %.c,$(OUTPUT)/%.o,$(LIBKVM_C)) \
	       $(patsubst %.S,$(OUTPUT)/%.o,$(LIBKVM_S))
EXTRA_CLEAN += $(LIBKVM_OBJS) $(OUTPUT)/kselftest_install

# Guest exceptions push their frame right below RSP: no red zone.
ARCH_CFLAGS_x86_64 := -mno-red-zone
ARCH_CFLAGS_aarch64 := -mno-outline-atomics
ARCH_LIBDIR_aarch64 := $(if $(CROSS_COMPILE),-L/usr/lib/aarch64-linux-gnu)

# lib.mk defines _GNU_SOURCE itself in newer kernels (6.12: -D_GNU_SOURCE=).
GNU_SOURCE := $(if $(filter -D_GNU_SOURCE -D_GNU_SOURCE=%,$(CFLAGS)),,-D_GNU_SOURCE)

# Guest code is compiled into the test and loaded at its link addresses:
# no PIE, no stack protector (it reads TLS, which the guest has not).
CFLAGS += -Wall -Wextra -Werror -Wstrict-prototypes -Wuninitialized \
	  -Wno-unused-parameter -O2 -g -std=gnu99 $(GNU_SOURCE) \
	  -fno-PIE -fno-stack-protector -fno-strict-aliasing -pthread \
	  $(ARCH_CFLAGS_$(ARCH_DIR)) \
	  -I$(top_dir)/include -I$(top_dir)/include/$(ARCH_DIR) \
	  -I$(KSFT_DIR) $(KHDR_INCLUDES) -idirafter /usr/include
LDFLAGS += -pthread $(if $(STATIC),-static,-no-pie) $(ARCH_LIBDIR_$(ARCH_DIR))
LDLIBS += -lnuma

# Guest-safe string functions: keep the compiler from turning the loops
# back into calls (clang: -ffreestanding does it; gcc needs the flag).
cc_flag = $(shell $(CC) -Werror $(1) -x c -c /dev/null -o /dev/null 2>/dev/null && echo $(1))
NO_LOOP_CALLS := $(call cc_flag,-fno-tree-loop-distribute-patterns)
$(OUTPUT)/lib/string_override.o: CFLAGS += -ffreestanding $(NO_LOOP_CALLS)

# SANITIZE=undefined, address or thread (or a comma list): host code
# instrumented, guest code not: __guest_code functions and the guest-only
# objects below keep no checks, so UBSan builds still run their guests.
# ASan and TSan builds are for runs without a guest (unit tests, -H) and
# link dynamically (their runtimes do not link statically).
ifneq ($(SANITIZE),)
ifneq ($(filter-out undefined address thread,$(subst $(comma), ,$(SANITIZE))),)
$(error SANITIZE=$(SANITIZE): use undefined, address or thread)
endif
ifneq ($(and $(STATIC),$(filter address thread,$(subst $(comma), ,$(SANITIZE)))),)
$(error SANITIZE=$(SANITIZE) does not link statically: drop STATIC=1)
endif
SAN_FLAGS := -fsanitize=$(SANITIZE) -fno-omit-frame-pointer
ifneq ($(filter undefined,$(subst $(comma), ,$(SANITIZE))),)
SAN_FLAGS += -fno-sanitize-recover=undefined
endif
CFLAGS += $(SAN_FLAGS)
LDFLAGS += $(SAN_FLAGS)
endif
GUEST_ONLY_OBJS := $(OUTPUT)/lib/string_override.o $(OUTPUT)/lib/guest_print.o \
		   $(OUTPUT)/lib/aarch64/libc_override.o
$(GUEST_ONLY_OBJS): CFLAGS += -fno-sanitize=all

$(OUTPUT)/%.o: %.c $(HDRS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(CPPFLAGS) -c $< -o $@

$(OUTPUT)/%.o: %.S $(HDRS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(CPPFLAGS) -c $< -o $@

$(patsubst %,$(OUTPUT)/%,$(SINGLE_PROGS)): $(OUTPUT)/%: %.c $(LIBKVM_OBJS) $(HDRS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(CPPFLAGS) $(LDFLAGS) $< $(LIBKVM_OBJS) $(LDLIBS) -o $@

# unit/ioctl_target_test: its wrong uses of the ioctl wrappers (a vCPU
# for a VM and the other way round, -DWRONG_USE=1..4) must each be
# refused by the compiler, with the wrappers' message, before the test
# is built: a build in which one compiles fails.
$(OUTPUT)/unit/ioctl_target_test: $(OUTPUT)/unit/ioctl_target_test.refused
$(OUTPUT)/unit/ioctl_target_test.refused: unit/ioctl_target_test.c $(HDRS)
	@mkdir -p $(@D)
	@for n in 1 2 3 4; do \
		if $(CC) $(CFLAGS) $(CPPFLAGS) -DWRONG_USE=$$n -fsyntax-only $< 2>$@.log; then \
			echo "$<: WRONG_USE=$$n compiles: a wrong ioctl target got through" >&2; \
			exit 1; \
		fi; \
		grep -q 'target is not a struct kvm_v' $@.log || \
			{ cat $@.log >&2; exit 1; }; \
	done
	@touch $@
EXTRA_CLEAN += $(OUTPUT)/unit/ioctl_target_test.refused $(OUTPUT)/unit/ioctl_target_test.refused.log

# dir_test MAIN: the binary of a test directory, from all its .c files.
define dir_test
$(OUTPUT)/$(notdir $(basename $(1))): $(wildcard $(dir $(1))*.c $(dir $(1))*.h) \
				      $(LIBKVM_OBJS) $(HDRS)
	@mkdir -p $$(@D)
	$$(CC) $$(CFLAGS) $$(CPPFLAGS) $$(LDFLAGS) $(wildcard $(dir $(1))*.c) \
		$$(LIBKVM_OBJS) $$(LDLIBS) -o $$@
endef
$(foreach t,$(DIR_MAINS),$(eval $(call dir_test,$(t))))

# libFuzzer targets for the parsers of user input (clang): `make fuzz`
# builds every fuzz/*.c, linked with the library built again with ASan and
# UBSan, into $(OUTPUT)/fuzz/.  Seed corpora: fuzz/corpus/<target>/.
FUZZ_TARGETS := $(patsubst fuzz/%.c,%,$(wildcard fuzz/*.c))
ifeq ($(FUZZ_BUILD),)
fuzz:
	$(MAKE) -C $(top_dir) LLVM=1 FUZZ_BUILD=1 SANITIZE=address,undefined \
		STATIC= OUTPUT=$(OUTPUT)/fuzz fuzz_targets
else
CFLAGS += -fsanitize=fuzzer-no-link
fuzz_targets: $(patsubst %,$(OUTPUT)/%,$(FUZZ_TARGETS))
$(patsubst %,$(OUTPUT)/%,$(FUZZ_TARGETS)): $(OUTPUT)/%: fuzz/%.c fuzz/fuzz.h \
					   $(LIBKVM_OBJS) $(HDRS)
	$(CC) $(CFLAGS) $(CPPFLAGS) $(LDFLAGS) -fsanitize=fuzzer $< $(LIBKVM_OBJS) \
		$(LDLIBS) -o $@
endif
EXTRA_CLEAN += $(OUTPUT)/fuzz

# A kselftest install tree (what `make -C tools/testing/selftests
# TARGETS=kvm install` makes in-tree), for vm/run --dir.
# Copied again only when something it holds changed, so that runs which
# share a build (vm/suite's pool: bench/compare, bench/bisect-run, the
# README's examples) never find it half-copied.
KSFT_INSTALL_PATH ?= $(OUTPUT)/kselftest_install
KSFT_INSTALL_FROM := $(TEST_GEN_PROGS) $(TEST_PROGS_EXTENDED) settings config \
	$(shell find $(TEST_FILES) -type f) $(KSFT_DIR)/run_kselftest.sh \
	$(KSFT_DIR)/kselftest/runner.sh $(KSFT_DIR)/kselftest/prefix.pl
kselftest_install: all $(KSFT_INSTALL_PATH)/kselftest-list.txt
$(KSFT_INSTALL_PATH)/kselftest-list.txt: $(KSFT_INSTALL_FROM)
	rm -rf $(KSFT_INSTALL_PATH)
	mkdir -p $(KSFT_INSTALL_PATH)/kvm $(KSFT_INSTALL_PATH)/kselftest
	cp $(TEST_GEN_PROGS) $(TEST_PROGS_EXTENDED) settings config \
	   $(KSFT_INSTALL_PATH)/kvm/
	cp -r $(TEST_FILES) $(KSFT_INSTALL_PATH)/kvm/
	cp $(KSFT_DIR)/run_kselftest.sh $(KSFT_INSTALL_PATH)/
	cp $(KSFT_DIR)/kselftest/runner.sh $(KSFT_DIR)/kselftest/prefix.pl \
	   $(KSFT_INSTALL_PATH)/kselftest/
	for t in $(notdir $(TEST_GEN_PROGS)); do echo "kvm:$$t"; done >$@.tmp
	mv $@.tmp $@

.PHONY: kselftest_install fuzz fuzz_targets

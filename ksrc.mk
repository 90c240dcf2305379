# SPDX-License-Identifier: GPL-2.0-only
#
# Standalone builds: where the kselftest framework comes from.  KSRC= names
# any kernel source tree; by default the few files needed are unpacked once
# from Debian's linux-source-6.1 package into a cache.

KSRC_TARBALL ?= /usr/src/linux-source-6.1.tar.xz
KSRC_CACHE ?= $(or $(XDG_CACHE_HOME),$(HOME)/.cache)/kvm-selftests
KSRC_FILES := tools/testing/selftests/lib.mk \
	      tools/testing/selftests/kselftest.h \
	      tools/testing/selftests/kselftest_harness.h \
	      tools/testing/selftests/kselftest \
	      tools/testing/selftests/run_kselftest.sh \
	      scripts/checkpatch.pl scripts/spelling.txt \
	      scripts/const_structs.checkpatch

ifeq ($(KSRC),)
KSRC := $(KSRC_CACHE)/linux-source-6.1
ifeq ($(wildcard $(KSRC)/tools/testing/selftests/lib.mk),)
ifeq ($(wildcard $(KSRC_TARBALL)),)
$(error No kernel source for the kselftest framework: apt-get install linux-source-6.1, or pass KSRC=<kernel tree>)
endif
$(info Unpacking the kselftest framework from $(KSRC_TARBALL) into $(KSRC_CACHE))
# Whole or not at all, once: unpacked beside it and renamed into place
# under the cache's lock of it (kvmbench.kernels.fetch.landed's), which a second
# build at the same time waits for, then finds it there.
ksrc_err := $(shell set -e; mkdir -p $(KSRC_CACHE)/.locks; \
	flock $(KSRC_CACHE)/.locks/linux-source-6.1.lock sh -ec ' \
	test ! -e $(KSRC)/tools/testing/selftests/lib.mk || exit 0; \
	tmp=$$(mktemp -d $(KSRC_CACHE)/.unpack.XXXXXX); \
	tar -xJf $(KSRC_TARBALL) -C $$tmp \
		$(addprefix linux-source-6.1/,$(KSRC_FILES)) 2>&1; \
	rm -rf $(KSRC); mv $$tmp/linux-source-6.1 $(KSRC); rmdir $$tmp')
ifeq ($(wildcard $(KSRC)/tools/testing/selftests/lib.mk),)
$(error Unpacking $(KSRC_TARBALL) failed: $(ksrc_err))
endif
endif
else ifeq ($(wildcard $(KSRC)/tools/testing/selftests/lib.mk),)
$(error KSRC=$(KSRC) is not a kernel source tree (no tools/testing/selftests/lib.mk))
endif

CHECKPATCH := $(KSRC)/scripts/checkpatch.pl

# uapi headers: those of the newest kernel source at hand (Debian's
# linux-source-6.12), installed once per arch with `make headers_install`
# into the cache, so that every KVM API up to that kernel is visible; the
# tests decide at run time what the host's KVM offers.  KHDR_INCLUDES= or
# KHDR_TARBALL= choose others; without any tarball the system's are used.
KHDR_TARBALL ?= $(lastword $(shell ls /usr/src/linux-source-*.tar.xz 2>/dev/null | sort -V))
ifeq ($(KHDR_INCLUDES),)
ifneq ($(KHDR_TARBALL),)
khdr_src := $(patsubst %.tar.xz,%,$(notdir $(KHDR_TARBALL)))
khdr_top := $(KSRC_CACHE)/uapi-$(patsubst linux-source-%,%,$(khdr_src))
ifeq ($(wildcard $(khdr_top)/$(ARCH_DIR)/include/linux/kvm.h),)
$(info Installing the uapi headers of $(KHDR_TARBALL) into $(khdr_top))
khdr_err := $(shell set -e; mkdir -p $(khdr_top); \
	tmp=$$(mktemp -d $(KSRC_CACHE)/.uapi.XXXXXX); trap 'rm -rf $$tmp' EXIT; \
	tar -xJf $(KHDR_TARBALL) -C $$tmp --strip-components=1 \
		$(addprefix $(khdr_src)/,Makefile scripts include arch/x86 arch/arm64 \
			tools/include tools/arch/x86/include) 2>&1; \
	for a in x86:x86_64 arm64:aarch64; do \
		env -u MAKEFLAGS -u MAKELEVEL -u MFLAGS make -s -C $$tmp \
			ARCH=$${a%%:*} INSTALL_HDR_PATH=$$tmp/out-$${a#*:} \
			headers_install 2>&1 | tail -5; \
		test -e $$tmp/out-$${a#*:}/include/linux/kvm.h; \
		test -e $(khdr_top)/$${a#*:}/include/linux/kvm.h || \
			mv -T $$tmp/out-$${a#*:} $(khdr_top)/$${a#*:}; \
	done)
ifeq ($(wildcard $(khdr_top)/$(ARCH_DIR)/include/linux/kvm.h),)
$(error Installing the uapi headers of $(KHDR_TARBALL) failed: $(khdr_err))
endif
endif
KHDR_INCLUDES := -isystem $(khdr_top)/$(ARCH_DIR)/include
else
$(warning No /usr/src/linux-source-*.tar.xz: building against the system's uapi headers)
endif
endif

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
ksrc_err := $(shell set -e; mkdir -p $(KSRC_CACHE); \
	tmp=$$(mktemp -d $(KSRC_CACHE)/.unpack.XXXXXX); \
	tar -xJf $(KSRC_TARBALL) -C $$tmp \
		$(addprefix linux-source-6.1/,$(KSRC_FILES)) 2>&1; \
	rm -rf $(KSRC); mv $$tmp/linux-source-6.1 $(KSRC); rmdir $$tmp)
ifeq ($(wildcard $(KSRC)/tools/testing/selftests/lib.mk),)
$(error Unpacking $(KSRC_TARBALL) failed: $(ksrc_err))
endif
endif
else ifeq ($(wildcard $(KSRC)/tools/testing/selftests/lib.mk),)
$(error KSRC=$(KSRC) is not a kernel source tree (no tools/testing/selftests/lib.mk))
endif

CHECKPATCH := $(KSRC)/scripts/checkpatch.pl

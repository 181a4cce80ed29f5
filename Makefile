# SPDX-License-Identifier: GPL-2.0
#
# fabriq top-level Makefile: builds fabriq.ko (via Kbuild), the fabriq CLI
# and the selftests, and drives the checks, the tests and the demo.
#
#   make                 module + CLI + selftest programs
#   make check           static checks, then the kselftests on every guest kernel
#   make check-debug     the kselftests on a KASAN/lockdep/kmemleak 6.12 kernel (slow)
#   make demo            build, boot a VM with Soft-RoCE, load fabriq via DKMS, show it
#   make bench           collective bandwidth and latency against ib_write_bw/lat (figures)
#   make checkpatch      checkpatch.pl --strict over kernel/ and uapi/
#   make sparse          sparse over the module (C=2)
#
# KVER/KDIR pick the kernel to build against.  The default is the newest
# /lib/modules/*/build that has a bootable /boot/vmlinuz-*, never `uname -r`.
# DKMS passes KERNELRELEASE=, which is honoured as KVER.

SRC := $(abspath $(dir $(lastword $(MAKEFILE_LIST))))
BUILD := $(SRC)/build

ifneq ($(KERNELRELEASE),)
KVER ?= $(KERNELRELEASE)
endif
KVER ?= $(shell $(SRC)/tools/vm/kver)
KDIR ?= /lib/modules/$(KVER)/build

# checkpatch.pl and the kselftest harness come from Debian's linux-source
# tarball: 6.1's, the one tools/deps.list installs, even when a newer one
# (linux-source-6.12 for make check-debug) is there too.
LINUX_SRC_TAR ?= $(firstword $(wildcard /usr/src/linux-source-6.1.tar.xz) \
			     $(lastword $(sort $(wildcard /usr/src/linux-source-*.tar.xz))))
KSRC := $(BUILD)/linux-src

.PHONY: all module kmod-tree cli mpi selftests clean checkpatch sparse check demo bench deps \
	dkms-install dkms-remove ksrc check-debug bench-ab bench-profile

all: module cli selftests mpi

# Objects go to build/kmod/KVER (a tree of symlinks to the sources), so the
# module can be built for several kernels side by side.
KMOD := $(BUILD)/kmod/$(KVER)
KSOURCES := Kbuild $(wildcard kernel/*.[ch] kernel/*/*.[ch] uapi/linux/*.h)

kmod-tree:
	@test -d "$(KDIR)" || { echo "fabriq: no kernel build tree at '$(KDIR)' (KVER='$(KVER)'); install linux-headers or set KDIR=" >&2; exit 1; }
	@mkdir -p $(KMOD)
	@cd $(SRC) && for f in $(KSOURCES); do \
		mkdir -p $(KMOD)/$$(dirname $$f); ln -sfn $(SRC)/$$f $(KMOD)/$$f; done

# kbuild in parallel (a clean W=1 build: 34 s alone, 17 s on 2 cores),
# unless an outer make already shares its jobs with us
NPROC := $(shell nproc 2>/dev/null || echo 1)
KBUILD_JOBS = $(if $(findstring jobserver,$(MAKEFLAGS)),,-j$(NPROC))

module: kmod-tree
	$(MAKE) $(KBUILD_JOBS) -C $(KDIR) M=$(KMOD) modules
	@echo "fabriq: built $(KMOD)/fabriq.ko"

cli:
	$(MAKE) -C $(SRC)/tools/fabriq

# libfabriq_mpi.so (MPI collectives on fabriq by LD_PRELOAD) and its test program
mpi:
	$(MAKE) -C $(SRC)/tools/mpi

$(KSRC)/.stamp:
	@test -n "$(LINUX_SRC_TAR)" || { echo "fabriq: /usr/src/linux-source-*.tar.xz missing (apt-get install linux-source-6.1)" >&2; exit 1; }
	rm -rf $(KSRC) && mkdir -p $(KSRC)
	tar -C $(KSRC) --strip-components=1 --wildcards -xJf $(LINUX_SRC_TAR) \
		'*/scripts/checkpatch.pl' '*/scripts/spelling.txt' \
		'*/scripts/const_structs.checkpatch' \
		'*/tools/testing/selftests/kselftest_harness.h' \
		'*/tools/testing/selftests/kselftest.h'
	touch $@

ksrc: $(KSRC)/.stamp

selftests: ksrc
	$(MAKE) -C $(SRC)/selftests KSFT_DIR=$(KSRC)/tools/testing/selftests

# CAMELCASE: uapi and core names fabriq must use (tc_red_qopt.Wlog, struct Qdisc).
# MACRO_ARG_REUSE/PRECEDENCE: reduce.c's kernels take the element type as a
# macro argument (a type can be neither parenthesised nor evaluated twice).
checkpatch: ksrc
	$(KSRC)/scripts/checkpatch.pl --strict --no-tree --quiet --show-types \
		--ignore FILE_PATH_CHANGES --ignore CAMELCASE \
		--ignore MACRO_ARG_REUSE --ignore MACRO_ARG_PRECEDENCE \
		-f $(wildcard $(SRC)/kernel/*.[ch] $(SRC)/kernel/*/*.[ch] $(SRC)/uapi/linux/*.h)

sparse: kmod-tree
	$(MAKE) -C $(KDIR) M=$(KMOD) C=2 CF="-D__CHECK_ENDIAN__" modules

deps:
	$(SRC)/tools/deps.sh

check: deps
	$(SRC)/tools/check

check-debug: deps
	$(SRC)/tools/check-debug

demo: deps
	$(SRC)/tools/demo

bench: deps
	$(SRC)/tools/bench

# make bench-ab REVS="1714bca tree": those builds of fabriq.ko, interleaved in one guest
bench-ab: deps
	$(SRC)/tools/bench-ab $(REVS)

# make bench-profile WHAT=lat|bw: perf samples of every guest CPU during that bench shape
bench-profile: deps
	$(SRC)/tools/bench-profile $(WHAT)

dkms-install: deps
	$(SRC)/tools/dkms.sh install $(KVER)

dkms-remove:
	$(SRC)/tools/dkms.sh remove $(KVER)

clean:
	$(MAKE) -C $(SRC)/tools/fabriq clean
	$(MAKE) -C $(SRC)/tools/mpi clean
	$(MAKE) -C $(SRC)/selftests clean
	rm -rf $(BUILD)

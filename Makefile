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
#   make install         the CLI, libfabriq, libfabriq_mpi.so and the DKMS sources
#                        into DESTDIR (prefix=/usr; what the Debian packages ship)
#   make deb             Debian packages into build/deb (tools/deb/build), lintian-checked
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
	dkms-install dkms-remove ksrc check-debug bench-ab bench-profile deb \
	install install-utils install-lib install-mpi install-dkms-src

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

# the debug kernel is built from Debian's linux-source-6.12, with the kernel
# build's own tools (tools/vm/debug-kernel)
check-debug:
	$(SRC)/tools/deps.sh linux-source-6.12 flex bison bc libelf-dev libssl-dev
	$(SRC)/tools/check-debug

demo: deps
	$(SRC)/tools/demo

bench: deps
	$(SRC)/tools/bench

# make bench-ab REVS="1714bca tree": those builds of fabriq.ko, interleaved in one guest
bench-ab: deps
	$(SRC)/tools/bench-ab $(REVS)

# make bench-profile WHAT=lat|bw|trace: perf samples of every guest CPU during that bench shape;
# trace: an ftrace timeline of 8-byte calls, each hop of a message
bench-profile: deps
	$(SRC)/tools/bench-profile $(WHAT)

dkms-install: deps
	$(SRC)/tools/dkms.sh install $(KVER)

dkms-remove:
	$(SRC)/tools/dkms.sh remove $(KVER)

# Where `make install` puts things: Debian 12's places (units and udev
# rules under /lib, since bookworm still ships them there).
DESTDIR ?=
prefix ?= /usr
sbindir ?= $(prefix)/sbin
includedir ?= $(prefix)/include
MULTIARCH := $(shell $(CC) -print-multiarch 2>/dev/null)
libdir ?= $(prefix)/lib$(if $(MULTIARCH),/$(MULTIARCH))
datadir ?= $(prefix)/share
mandir ?= $(datadir)/man
sysconfdir ?= /etc
unitdir ?= /lib/systemd/system
udevrulesdir ?= /lib/udev/rules.d
completiondir ?= $(datadir)/bash-completion/completions
DKMS_VERSION := $(shell sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' $(SRC)/dkms.conf)
LIB_VERSION := $(shell sed -n 's/^\#define FABRIQ_VERSION "\(.*\)"/\1/p' $(SRC)/kernel/core/main.c)
# what DKMS builds: the module sources, nothing of the tools
DKMS_FILES := Kbuild dkms.conf kernel uapi

install: install-utils install-lib install-mpi install-dkms-src

install-utils: cli
	install -D -m 0755 tools/fabriq/fabriq $(DESTDIR)$(sbindir)/fabriq
	install -D -m 0755 tools/fabriq/fabriq-exporter $(DESTDIR)$(sbindir)/fabriq-exporter
	install -d $(DESTDIR)$(mandir)/man8 $(DESTDIR)$(mandir)/man5
	install -m 0644 Documentation/man/*.8 $(DESTDIR)$(mandir)/man8/
	install -m 0644 Documentation/man/*.5 $(DESTDIR)$(mandir)/man5/
	install -D -m 0644 tools/bash-completion/fabriq $(DESTDIR)$(completiondir)/fabriq
	rm -rf $(BUILD)/systemd
	tools/systemd/render $(BUILD)/systemd $(sbindir) $(sysconfdir)/fabriq
	install -d $(DESTDIR)$(unitdir) $(DESTDIR)$(udevrulesdir)
	install -m 0644 $(BUILD)/systemd/*.service $(BUILD)/systemd/*.timer $(DESTDIR)$(unitdir)/
	install -m 0644 $(BUILD)/systemd/*.rules $(DESTDIR)$(udevrulesdir)/
	install -D -m 0644 Documentation/grafana/fabriq.json $(DESTDIR)$(datadir)/fabriq/grafana/fabriq.json

install-lib:
	$(MAKE) -C tools/lib
	install -D -m 0644 tools/lib/libfabriq.so.$(LIB_VERSION) $(DESTDIR)$(libdir)/libfabriq.so.$(LIB_VERSION)
	ln -sfn libfabriq.so.$(LIB_VERSION) $(DESTDIR)$(libdir)/libfabriq.so.0
	ln -sfn libfabriq.so.0 $(DESTDIR)$(libdir)/libfabriq.so
	install -m 0644 tools/lib/libfabriq.a $(DESTDIR)$(libdir)/libfabriq.a
	install -D -m 0644 tools/lib/libfabriq.h $(DESTDIR)$(includedir)/libfabriq.h
	install -D -m 0644 uapi/linux/fabriq.h $(DESTDIR)$(includedir)/linux/fabriq.h
	install -D -m 0644 Documentation/man/libfabriq.3 $(DESTDIR)$(mandir)/man3/libfabriq.3

install-mpi: mpi
	install -D -m 0644 tools/mpi/libfabriq_mpi.so $(DESTDIR)$(libdir)/fabriq/libfabriq_mpi.so

# /usr/src/fabriq-VERSION, as dkms add wants it (tools/dkms.sh uses this too)
install-dkms-src:
	install -d $(DESTDIR)/usr/src/fabriq-$(DKMS_VERSION)
	cp -r $(DKMS_FILES:%=$(SRC)/%) $(DESTDIR)/usr/src/fabriq-$(DKMS_VERSION)/

# build/deb/*.deb: fabriq-dkms, fabriq-utils, libfabriq0, libfabriq-dev and
# fabriq-mpi, built from a copy of the tree and checked with lintian
deb: deps
	$(SRC)/tools/deb/build

clean:
	$(MAKE) -C $(SRC)/tools/fabriq clean
	$(MAKE) -C $(SRC)/tools/mpi clean
	$(MAKE) -C $(SRC)/tools/lib clean
	$(MAKE) -C $(SRC)/selftests clean
	rm -rf $(BUILD)

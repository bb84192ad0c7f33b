# SPDX-License-Identifier: GPL-2.0
#
# vgpu - a virtual PCIe GPU for QEMU and its Linux DRM/TTM driver.
# `make help` lists the targets.  Everything slow is cached under
# $(VGPU_CACHE), keyed by its inputs; build products go to build/.

VGPU_CACHE ?= $(HOME)/.cache/vgpu
export VGPU_CACHE

TOP := $(CURDIR)
B := build
KSFT_DIR := $(VGPU_CACHE)/kselftest/current
# The QEMU build `make qemu` keeps current (tools/lib/common.sh: QBUILD).
QBUILD := $(VGPU_CACHE)/qemu/current
GUEST := $(B)/guest/vgpu

CC ?= gcc
GUEST_CFLAGS := -std=gnu11 -O2 -g -Wall -Wextra -Wno-unused-parameter -Wno-clobbered -Wno-sign-compare \
	-static -pthread -I$(KSFT_DIR) -I/usr/include/libdrm \
	-Iinclude/uapi/drm -Idrivers/gpu/drm/vgpu -Itests/kselftest/vgpu
GUEST_LDLIBS := -ldrm

# libvgpu: a static library, linked into the guest programs and installed
# with its headers and a pkg-config file (mk/install.mk).
LIBVGPU_SRCS := $(wildcard tools/libvgpu/*.c)
LIBVGPU_HDRS := $(wildcard tools/libvgpu/*.h)
LIBVGPU := $(B)/libvgpu/libvgpu.a
ifneq ($(LIBVGPU_SRCS),)
GUEST_CFLAGS += -Itools/libvgpu
GUEST_LIBS := $(LIBVGPU)
endif

GUEST_TEST_SRCS := $(wildcard tests/kselftest/vgpu/*_test.c)
GUEST_TESTS := $(patsubst tests/kselftest/vgpu/%.c,$(GUEST)/bin/%,$(GUEST_TEST_SRCS))
GUEST_SCRIPTS := $(patsubst tests/guest/%,$(GUEST)/tests/%,$(wildcard tests/guest/*.sh tests/guest/lib/*.sh)) \
	$(patsubst tools/vm/guest/%,$(GUEST)/tools/%,$(wildcard tools/vm/guest/*.sh))
GUEST_HDRS := $(wildcard tests/kselftest/vgpu/*.h) include/uapi/drm/vgpu_drm.h \
	drivers/gpu/drm/vgpu/vgpu_hw.h drivers/gpu/drm/vgpu/vgpu_stats_list.h

.PHONY: all help setup deps qemu kernel module guest tools check check-qtest \
	check-guest demo shell bench clean distclean host-units

all: qemu module guest

help:
	@echo "vgpu targets:"
	@echo "  make demo        build everything, boot a guest, show the driver working"
	@echo "  make check       run every test tier; ends with 'N passed, N failed'"
	@echo "  make shell       interactive Debian guest with vgpu.ko loaded"
	@echo "                   (ROOTFS=busybox: the busybox guest)"
	@echo "  make bench       run vgpu-bench in a guest; CSV files in build/bench/"
	@echo "  make soak        reload vgpu.ko 100 times under load, resets, unplug (SOAK_RELOADS=N)"
	@echo "  make fuzz        run the fuzzers in a guest (FUZZ_SECONDS=N, default 300);"
	@echo "                   calls/s and the seed of every finding"
	@echo "  make setup       install Debian packages, fetch kernel/QEMU/headers (cached)"
	@echo "  make qemu        build QEMU with the vgpu device (incremental)"
	@echo "  make module      build vgpu.ko for Debian's 6.12 kernel (W=1, warning-free)"
	@echo "  make guest       build the guest test programs (static, libdrm.a)"
	@echo "  make tools       build the guest programs and libvgpu"
	@echo "  make install     install QEMU with vgpu, libvgpu, the tools and the DKMS"
	@echo "                   source (PREFIX=/usr/local, DESTDIR); also install-qemu,"
	@echo "                   install-libvgpu, install-tools, install-dkms; uninstall"
	@echo "  make dkms        install the DKMS source, dkms add/build/install it (KVER)"
	@echo "  make deb         Debian packages in build/deb/: vgpu-dkms, libvgpu-dev,"
	@echo "                   vgpu-tools, qemu-vgpu"
	@echo "  make debug-kernel build the debug kernel (KASAN, lockdep, kmemleak, KUnit)"
	@echo "                   and vgpu.ko in its tree (cached)"
	@echo "  make check-qtest host-side device tests only"
	@echo "  make host-units  build the host unit tests (build/host/*_unit)"
	@echo "  make fuzz-device run the device fuzzer (FUZZ_SECONDS=60, FUZZ_SEED=S)"
	@echo "  make check-guest guest-side tests only"
	@echo "  make clean       remove build/ (the cache stays)"
	@echo "  make distclean   also remove the cache $(VGPU_CACHE)"
	@echo "Run one command in a guest: tools/vm/vgpu-run [--vram 64M] -- CMD"

setup:
	@tools/vm/setup.sh all

deps:
	@tools/vm/setup.sh deps

qemu: deps
	@tools/vm/setup.sh qemu

kernel: deps
	@tools/vm/setup.sh kernel

module: deps
	+@tools/vm/flavour-debian.sh build

$(KSFT_DIR)/kselftest_harness.h:
	@tools/vm/setup.sh deps kselftest

$(B)/libvgpu/%.o: tools/libvgpu/%.c $(LIBVGPU_HDRS) include/uapi/drm/vgpu_drm.h
	@mkdir -p $(dir $@)
	@echo "  CC [lib] $@"
	@$(CC) $(filter-out -static,$(GUEST_CFLAGS)) -Wmissing-prototypes -c -o $@ $<

$(LIBVGPU): $(patsubst tools/libvgpu/%.c,$(B)/libvgpu/%.o,$(LIBVGPU_SRCS))
	@rm -f $@
	@ar rcs $@ $^

$(GUEST)/bin/%: tests/kselftest/vgpu/%.c $(GUEST_HDRS) $(GUEST_LIBS) $(KSFT_DIR)/kselftest_harness.h
	@mkdir -p $(dir $@)
	@echo "  CC [guest] $@"
	@$(CC) $(GUEST_CFLAGS) -o $@ $< $(GUEST_LIBS) $(GUEST_LDLIBS)

$(GUEST)/tests/%.sh: tests/guest/%.sh
	@mkdir -p $(dir $@)
	@cp $< $@

$(GUEST)/tools/%.sh: tools/vm/guest/%.sh
	@mkdir -p $(dir $@)
	@cp $< $@

# Guest tools: one directory per tool under tools/, one binary each.
GUEST_TOOLS := $(GUEST)/bin/vgpu-smi $(GUEST)/bin/vgpu-bench $(GUEST)/bin/vgpu-hold

$(GUEST)/bin/vgpu-hold: tools/vm/guest/vgpu-hold.c $(GUEST_HDRS) $(GUEST_LIBS)
	@mkdir -p $(dir $@)
	@echo "  CC [guest] $@"
	@$(CC) $(GUEST_CFLAGS) -o $@ $< $(GUEST_LIBS) $(GUEST_LDLIBS)

$(GUEST)/bin/vgpu-smi: $(wildcard tools/vgpu-smi/*.c tools/vgpu-smi/*.h) $(GUEST_HDRS) $(GUEST_LIBS)
	@mkdir -p $(dir $@)
	@echo "  CC [guest] $@"
	@$(CC) $(GUEST_CFLAGS) -o $@ $(filter %.c,$^) $(GUEST_LIBS) $(GUEST_LDLIBS)

$(GUEST)/bin/vgpu-bench: $(wildcard tools/vgpu-bench/*.c tools/vgpu-bench/*.h) $(GUEST_HDRS) $(GUEST_LIBS)
	@mkdir -p $(dir $@)
	@echo "  CC [guest] $@"
	@$(CC) $(GUEST_CFLAGS) -Itools/vgpu-bench -o $@ $(filter %.c,$^) $(GUEST_LIBS) $(GUEST_LDLIBS)

# Examples of libvgpu's managed memory: tools/examples/NAME.c, one
# program each (vgpu-example-NAME), run in the guest tier by
# tests/guest/examples.sh.
EXAMPLE_SRCS := $(wildcard tools/examples/*.c)
GUEST_EXAMPLES := $(patsubst tools/examples/%.c,$(GUEST)/bin/vgpu-example-%,$(EXAMPLE_SRCS))

$(GUEST)/bin/vgpu-example-%: tools/examples/%.c $(wildcard tools/examples/*.h) $(GUEST_HDRS) $(GUEST_LIBS)
	@mkdir -p $(dir $@)
	@echo "  CC [guest] $@"
	@$(CC) $(GUEST_CFLAGS) -o $@ $< $(GUEST_LIBS) $(GUEST_LDLIBS)

guest: $(GUEST_TESTS) $(GUEST_SCRIPTS) $(GUEST_TOOLS) $(GUEST_EXAMPLES)

# Host unit tests: tests/host/*_unit.c, each linked with the libvgpu
# sources of the logic it tests (its prerequisites below; that logic
# needs no device), with ASan and UBSan; tests/check.sh host runs them.
HOST_UNIT_SRCS := $(wildcard tests/host/*_unit.c)
HOST_UNITS := $(patsubst tests/host/%.c,$(B)/host/%,$(HOST_UNIT_SRCS))
HOST_UNIT_CFLAGS := $(filter-out -static,$(GUEST_CFLAGS)) -fsanitize=address,undefined

$(B)/host/mempool_unit: tools/libvgpu/mempool.c
$(B)/host/trace_unit: tools/vgpu-bench/trace.c tools/vgpu-bench/trace_gen.c
$(B)/host/trace_unit: HOST_UNIT_CFLAGS += -Itools/vgpu-bench

$(B)/host/%_unit: tests/host/%_unit.c $(LIBVGPU_HDRS) $(KSFT_DIR)/kselftest_harness.h
	@mkdir -p $(dir $@)
	@echo "  CC [host] $@"
	@$(CC) $(HOST_UNIT_CFLAGS) -o $@ $< $(filter %.c,$(filter-out $<,$^))

host-units: $(HOST_UNITS)

tools: guest $(LIBVGPU)

check: setup module tools
	@tests/check.sh

check-qtest: qemu
	@tests/check.sh qtest

check-guest: module guest
	@tests/check.sh guest

demo: setup module guest
	@tools/vm/demo.sh

bench: setup module guest
	@tools/vm/bench.sh

# The debian rootfs guest by default (ROOTFS=busybox for the small one).
ROOTFS ?= debian
shell: setup module guest
	@tools/vm/vgpu-run --rootfs $(ROOTFS) --shell

clean:
	rm -rf $(B)

distclean: clean
	rm -rf $(VGPU_CACHE)

-include $(wildcard mk/*.mk)

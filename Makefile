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
GUEST := $(B)/guest/vgpu

CC ?= gcc
GUEST_CFLAGS := -std=gnu11 -O2 -g -Wall -Wextra -Wno-unused-parameter -Wno-clobbered -Wno-sign-compare \
	-static -pthread -I$(KSFT_DIR) -I/usr/include/libdrm \
	-Iinclude/uapi/drm -Idrivers/gpu/drm/vgpu -Itests/kselftest/vgpu
GUEST_LDLIBS := -ldrm

# libvgpu: built twice, static for guest programs and as a host library with
# a pkg-config file (tools/libvgpu/libvgpu.pc.in).
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
	drivers/gpu/drm/vgpu/vgpu_hw.h

.PHONY: all help setup deps qemu kernel module guest tools check check-qtest \
	check-guest demo shell bench install-libvgpu clean distclean

all: qemu module guest

help:
	@echo "vgpu targets:"
	@echo "  make demo        build everything, boot a guest, show the driver working"
	@echo "  make check       run every test tier; ends with 'N passed, N failed'"
	@echo "  make shell       interactive guest with vgpu.ko loaded"
	@echo "  make bench       run vgpu-bench in a guest; CSV files in build/bench/"
	@echo "  make soak        reload vgpu.ko 100 times under load, resets, unplug (SOAK_RELOADS=N)"
	@echo "  make fuzz        run the fuzzers in a guest (FUZZ_SECONDS=N, default 300);"
	@echo "                   calls/s and the seed of every finding"
	@echo "  make setup       install Debian packages, fetch kernel/QEMU/headers (cached)"
	@echo "  make qemu        build QEMU with the vgpu device (incremental)"
	@echo "  make module      build vgpu.ko for Debian's 6.12 kernel (W=1, warning-free)"
	@echo "  make guest       build the guest test programs (static, libdrm.a)"
	@echo "  make tools       build the guest programs and libvgpu with its pkg-config file"
	@echo "  make install-libvgpu  install libvgpu (PREFIX=/usr/local, DESTDIR)"
	@echo "  make debug-kernel build the debug kernel (KASAN, lockdep, kmemleak, KUnit)"
	@echo "                   and vgpu.ko in its tree (cached)"
	@echo "  make check-qtest host-side device tests only"
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

guest: $(GUEST_TESTS) $(GUEST_SCRIPTS) $(GUEST_TOOLS)

# The host copy of libvgpu, staged as it installs: build/libvgpu/stage is a
# prefix (lib/libvgpu.a, include/libvgpu/*.h, lib/pkgconfig/libvgpu.pc).
PREFIX ?= /usr/local
LIBVGPU_VERSION := 0.1
LIBVGPU_STAGE := $(B)/libvgpu/stage

# The headers libvgpu.h includes: the uapi and the hardware contract.
LIBVGPU_PUBLIC_HDRS := $(LIBVGPU_HDRS) include/uapi/drm/vgpu_drm.h drivers/gpu/drm/vgpu/vgpu_hw.h

$(LIBVGPU_STAGE)/lib/pkgconfig/libvgpu.pc: tools/libvgpu/libvgpu.pc.in $(LIBVGPU) $(LIBVGPU_PUBLIC_HDRS)
	@mkdir -p $(LIBVGPU_STAGE)/lib/pkgconfig $(LIBVGPU_STAGE)/include/libvgpu
	@cp $(LIBVGPU) $(LIBVGPU_STAGE)/lib/
	@cp $(LIBVGPU_PUBLIC_HDRS) $(LIBVGPU_STAGE)/include/libvgpu/
	@sed -e 's|@PREFIX@|$(abspath $(LIBVGPU_STAGE))|' -e 's|@VERSION@|$(LIBVGPU_VERSION)|' $< > $@

tools: guest $(LIBVGPU_STAGE)/lib/pkgconfig/libvgpu.pc

install-libvgpu: $(LIBVGPU_STAGE)/lib/pkgconfig/libvgpu.pc
	install -d $(DESTDIR)$(PREFIX)/lib/pkgconfig $(DESTDIR)$(PREFIX)/include/libvgpu
	install -m 644 $(LIBVGPU) $(DESTDIR)$(PREFIX)/lib/
	install -m 644 $(LIBVGPU_PUBLIC_HDRS) $(DESTDIR)$(PREFIX)/include/libvgpu/
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@VERSION@|$(LIBVGPU_VERSION)|' tools/libvgpu/libvgpu.pc.in \
		> $(DESTDIR)$(PREFIX)/lib/pkgconfig/libvgpu.pc

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

shell: setup module guest
	@tools/vm/vgpu-run --shell

clean:
	rm -rf $(B)

distclean: clean
	rm -rf $(VGPU_CACHE)

-include $(wildcard mk/*.mk)

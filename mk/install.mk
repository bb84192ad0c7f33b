# SPDX-License-Identifier: GPL-2.0
#
# Installing vgpu for use outside this tree (included by the top Makefile).
#
#   make install [PREFIX=/usr/local] [DESTDIR=]   everything below
#   make install-qemu     $(PREFIX)/bin/qemu-system-x86_64-vgpu, a wrapper
#                         that runs the built QEMU ($(PREFIX)/libexec/vgpu/,
#                         found relative to the wrapper) with the firmware
#                         of Debian's seabios and qemu-system-data
#                         (FIRMWARE_DIRS); it does not clash with Debian's
#                         qemu-system-x86_64
#   make install-libvgpu  libvgpu.a, its headers (libvgpu.h, the uapi
#                         vgpu_drm.h, vgpu_hw.h) in $(PREFIX)/include/libvgpu
#                         and $(PREFIX)/lib/pkgconfig/libvgpu.pc
#   make install-tools    vgpu-smi, vgpu-bench, vgpu-fuzz (static binaries:
#                         they run in any guest)
#   make install-dkms     the module source and dkms.conf in
#                         $(DKMS_SRCDIR)/vgpu-$(VGPU_VERSION) (dkms looks in
#                         /usr/src, whatever PREFIX is)
#   make uninstall        remove what install installed (same variables)
#   make dkms [KVER=...]  install-dkms, then dkms add, build and install
#                         vgpu.ko for kernel KVER (default: the running one)
#   make deb              Debian packages in build/deb/ (tools/pkg/mkdeb.sh)
#
# Nothing here builds QEMU or the kernel: install-qemu copies the QEMU that
# `make qemu` built (QEMU_BIN).

PREFIX ?= /usr/local
DKMS_SRCDIR ?= /usr/src
VGPU_VERSION := 0.1
BINDIR := $(PREFIX)/bin
LIBDIR := $(PREFIX)/lib
INCLUDEDIR := $(PREFIX)/include
LIBEXECDIR := $(PREFIX)/libexec/vgpu
DKMS_DIR := $(DKMS_SRCDIR)/vgpu-$(VGPU_VERSION)
QEMU_BIN ?= $(QBUILD)/qemu-system-x86_64
FIRMWARE_DIRS ?= /usr/share/seabios /usr/share/qemu
USER_TOOLS := vgpu-smi vgpu-bench vgpu-fuzz
DKMS ?= dkms
KVER ?= $(shell uname -r)

# libvgpu.h and the headers it includes: the uapi and the hardware contract
# (tools/libvgpu/managed.h is internal).
LIBVGPU_PUBLIC_HDRS := tools/libvgpu/libvgpu.h include/uapi/drm/vgpu_drm.h drivers/gpu/drm/vgpu/vgpu_hw.h
# What vgpu.ko is built from, laid out as in the kernel.
DKMS_FILES := Kbuild include/uapi/drm/vgpu_drm.h drivers/gpu/drm/vgpu/Makefile \
	drivers/gpu/drm/vgpu/Kconfig $(wildcard drivers/gpu/drm/vgpu/*.[ch])

.PHONY: install install-qemu install-libvgpu install-tools install-dkms \
	uninstall dkms deb

install: install-qemu install-libvgpu install-tools install-dkms

install-qemu:
	@[ -x $(QEMU_BIN) ] || { echo "no QEMU at $(QEMU_BIN): run make qemu" >&2; exit 1; }
	install -d $(DESTDIR)$(LIBEXECDIR) $(DESTDIR)$(BINDIR)
	install -m 755 $(QEMU_BIN) $(DESTDIR)$(LIBEXECDIR)/qemu-system-x86_64
	strip --strip-debug $(DESTDIR)$(LIBEXECDIR)/qemu-system-x86_64
	sed -e 's|@FIRMWARE_ARGS@|$(foreach d,$(FIRMWARE_DIRS),-L $(d))|' \
		tools/pkg/qemu-system-x86_64-vgpu.in > $(DESTDIR)$(BINDIR)/qemu-system-x86_64-vgpu
	chmod 755 $(DESTDIR)$(BINDIR)/qemu-system-x86_64-vgpu

# Like the QEMU wrapper, the pkg-config file finds its prefix from where it
# lies (${pcfiledir}), so an installed tree works wherever it is copied,
# DESTDIR included.
install-libvgpu: $(LIBVGPU)
	install -d $(DESTDIR)$(LIBDIR)/pkgconfig $(DESTDIR)$(INCLUDEDIR)/libvgpu
	install -m 644 $(LIBVGPU) $(DESTDIR)$(LIBDIR)/
	install -m 644 $(LIBVGPU_PUBLIC_HDRS) $(DESTDIR)$(INCLUDEDIR)/libvgpu/
	sed -e 's|@VERSION@|$(VGPU_VERSION)|' tools/libvgpu/libvgpu.pc.in \
		> $(DESTDIR)$(LIBDIR)/pkgconfig/libvgpu.pc

install-tools: $(addprefix $(GUEST)/bin/,$(USER_TOOLS))
	install -d $(DESTDIR)$(BINDIR)
	install -m 755 $^ $(DESTDIR)$(BINDIR)/

install-dkms:
	install -d $(DESTDIR)$(DKMS_DIR)
	tar -cf - $(DKMS_FILES) | tar -xf - -C $(DESTDIR)$(DKMS_DIR)
	sed -e 's|@VERSION@|$(VGPU_VERSION)|' tools/pkg/dkms.conf.in > $(DESTDIR)$(DKMS_DIR)/dkms.conf

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/qemu-system-x86_64-vgpu \
		$(DESTDIR)$(LIBEXECDIR)/qemu-system-x86_64 \
		$(DESTDIR)$(LIBDIR)/libvgpu.a $(DESTDIR)$(LIBDIR)/pkgconfig/libvgpu.pc \
		$(addprefix $(DESTDIR)$(BINDIR)/,$(USER_TOOLS))
	rm -rf $(DESTDIR)$(INCLUDEDIR)/libvgpu $(DESTDIR)$(DKMS_DIR)
	-rmdir $(DESTDIR)$(LIBEXECDIR) 2>/dev/null

# dkms add is skipped when the version is already added; build and
# install are forced, so that a changed source is rebuilt.
dkms: install-dkms
	$(DKMS) status -m vgpu -v $(VGPU_VERSION) | grep -q . || \
		$(DKMS) add -m vgpu -v $(VGPU_VERSION)
	$(DKMS) build --force -m vgpu -v $(VGPU_VERSION) -k $(KVER)
	$(DKMS) install --force -m vgpu -v $(VGPU_VERSION) -k $(KVER)

deb: $(LIBVGPU) $(addprefix $(GUEST)/bin/,$(USER_TOOLS))
	@VGPU_VERSION=$(VGPU_VERSION) QEMU_BIN=$(QEMU_BIN) tools/pkg/mkdeb.sh $(B)/deb

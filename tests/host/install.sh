#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# install.sh - the host tier of tests/check.sh: vgpu as a user outside this
# tree gets it.  Prints TAP; details go to OUTDIR/host.log.
#
#   tests/host/install.sh OUTDIR
#
#   1 `make install DESTDIR=OUTDIR/dest` installs QEMU, libvgpu, the tools
#     and the DKMS source
#   2 a libvgpu program (tests/host/libvgpu-pkgconfig.c) builds against the
#     installed tree with nothing but `pkg-config --cflags --libs libvgpu`
#   3 it runs: without a device, opening fails cleanly with ENODEV
#   4 the installed qemu-system-x86_64-vgpu starts a q35 machine with
#     `-device vgpu` (its firmware found) and quits
#   5 dkms add, build and install of the installed source against the
#     headers of the guest kernel (Debian's 6.12, tools/lib/common.sh
#     debian_kver) in private dkms, source and install trees (no
#     /var/lib/dkms, no module signing, no depmod of the host), giving a
#     vgpu.ko whose vermagic is that kernel's
#   6 `make uninstall` with the same DESTDIR leaves no file behind
#
# Needs the products of `make qemu module tools` (check does that first).

set -uo pipefail

LOG_TAG=host
. "$(dirname "$0")/../../tools/lib/common.sh"

out=${1:?usage: install.sh OUTDIR}
dest=$out/dest
prefix=/usr/local
dk=$out/dkms
TAP_LOG=$out/host.log
: > "$TAP_LOG"
rm -rf "$dest" "$dk"

installed() {
	make -s -C "$TOP" install DESTDIR="$dest" PREFIX=$prefix &&
		for f in bin/qemu-system-x86_64-vgpu bin/vgpu-smi bin/vgpu-bench \
			 bin/vgpu-fuzz lib/libvgpu.a lib/pkgconfig/libvgpu.pc \
			 include/libvgpu/libvgpu.h include/libvgpu/vgpu_drm.h; do
			[ -f "$dest$prefix/$f" ] || { echo "missing $prefix/$f"; return 1; }
		done &&
		[ -f "$dest/usr/src/vgpu-0.1/dkms.conf" ]
}

pc_build() {
	local pc=$dest$prefix/lib/pkgconfig
	# shellcheck disable=SC2046
	gcc -std=c11 -Wall -Wextra -Werror -o "$out/libvgpu-pkgconfig" \
		"$TOP/tests/host/libvgpu-pkgconfig.c" \
		$(PKG_CONFIG_PATH=$pc pkg-config --cflags --libs libvgpu)
}

qemu_starts() {
	echo quit | "$dest$prefix/bin/qemu-system-x86_64-vgpu" -machine q35 \
		-accel tcg -display none -nodefaults -monitor stdio -S \
		-device pcie-root-port,id=rp0,chassis=1 \
		-device vgpu,bus=rp0,vram_size=64M > "$out/qemu.out" 2>&1
	local st=$?
	cat "$out/qemu.out"
	[ $st = 0 ] && ! grep -q 'qemu-system-x86_64: ' "$out/qemu.out"
}

dkms_builds() {
	local kver ko
	kver=$(debian_kver) || return 1
	local dkms=(dkms --dkmstree "$dk/tree" --sourcetree "$dest/usr/src"
		    --installtree "$dk/lib" -m vgpu -v 0.1 -k "$kver")
	mkdir -p "$dk/tree" "$dk/lib/$kver"
	"${dkms[@]}" add && sign_file=/nonexistent "${dkms[@]}" build &&
		sign_file=/nonexistent "${dkms[@]}" install --no-depmod || return 1
	ko=$(find "$dk/lib/$kver" -name 'vgpu.ko*' | head -n1)
	[ -n "$ko" ] && modinfo -F vermagic "$ko" | grep -q "^$kver "
}

uninstalled() {
	make -s -C "$TOP" uninstall DESTDIR="$dest" PREFIX=$prefix &&
		[ -z "$(find "$dest" -type f)" ]
}

echo "TAP version 13"
echo "1..6"
tap_check host.install_destdir installed
tap_check host.libvgpu_builds_with_pkg_config pc_build
tap_check host.libvgpu_open_without_device_enodev "$out/libvgpu-pkgconfig"
tap_check host.qemu_vgpu_starts_with_the_device qemu_starts
tap_check host.dkms_builds_vgpu_ko dkms_builds
tap_check host.uninstall_removes_everything uninstalled

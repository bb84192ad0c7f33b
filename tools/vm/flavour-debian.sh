#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# flavour-debian.sh - Debian's 6.12 kernel as a vgpu guest kernel.
#
#   flavour-debian.sh build   download the kernel if needed, build vgpu.ko
#   flavour-debian.sh paths   print KIMAGE= KMODDIR= VGPU_KO= KVER=
#
# vgpu.ko is built out of tree with the kernel's own Kbuild, from a copy of
# the sources under build/module/debian (6.12 builds external modules in
# place), and must build warning-free with W=1.

set -euo pipefail

LOG_TAG=module
. "$(dirname "$0")/../lib/common.sh"
OUT=$TOP/build/module/debian

case ${1:-} in
build)
	"$TOP/tools/vm/setup.sh" kernel
	KVER=$(debian_kver)
	mkdir -p "$OUT"
	rsync -rc --delete --exclude='*.o' --exclude='*.ko' --exclude='.*.cmd' \
		--exclude='*.mod*' --exclude=modules.order --exclude=Module.symvers \
		"$TOP/Kbuild" "$TOP/drivers" "$TOP/include" "$OUT/"
	say "building vgpu.ko for $KVER (W=1)"
	make -s -C "/lib/modules/$KVER/build" M="$OUT" CONFIG_DRM_VGPU=m \
		W=1 modules 2>&1 | tee "$OUT/build.log" >&2
	[ "${PIPESTATUS[0]}" = 0 ] || die "build failed"
	# Compiler and modpost warnings; make's own notes are not ours.
	if grep -v '^make\(\[[0-9]*\]\)\?: ' "$OUT/build.log" |
		grep -qi 'warning:'; then
		die "warnings are errors here"
	fi
	;;
paths)
	KVER=$(debian_kver)
	echo "KIMAGE=$CACHE/kernel/$KVER/vmlinuz"
	echo "KMODDIR=$CACHE/kernel/$KVER/root/lib/modules/$KVER"
	echo "VGPU_KO=$OUT/drivers/gpu/drm/vgpu/vgpu.ko"
	echo "KVER=$KVER"
	echo "KCMDLINE_EXTRA="
	;;
*)
	echo "usage: $0 build|paths" >&2
	exit 2
	;;
esac

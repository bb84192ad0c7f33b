#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# mkdeb.sh - build vgpu's Debian packages with dpkg-deb alone (no
# debhelper), from `make install-*` into one staging root per package.
#
#   tools/pkg/mkdeb.sh OUTDIR      (run by `make deb`)
#
#   vgpu-dkms     /usr/src/vgpu-V: vgpu.ko's source and dkms.conf; its
#                 postinst builds and installs the module for every
#                 installed kernel with headers (6.12 or later), as
#                 dh_dkms packages do, and its prerm removes it
#   libvgpu-dev   libvgpu.a, headers, libvgpu.pc under /usr
#   vgpu-tools    vgpu-smi, vgpu-bench, vgpu-fuzz (static) in /usr/bin
#   qemu-vgpu     /usr/bin/qemu-system-x86_64-vgpu and the QEMU binary it
#                 runs; Depends: the shared libraries' packages (dpkg -S
#                 of what ldd lists), seabios, qemu-system-data
#
# Environment: VGPU_VERSION (the packages' version), QEMU_BIN.

set -euo pipefail

LOG_TAG=deb
. "$(dirname "$0")/../lib/common.sh"

out=$(mkdir -p "${1:?usage: mkdeb.sh OUTDIR}" && cd "$1" && pwd)
ver=${VGPU_VERSION:?}
arch=$(dpkg --print-architecture)
maintainer="vgpu developers <vgpu@localhost>"

# stage PKG TARGET...: a fresh staging root with `make TARGET...` in it.
stage() {
	local pkg=$1
	shift
	rm -rf "${out:?}/$pkg"
	make -s -C "$TOP" DESTDIR="$out/$pkg" PREFIX=/usr DKMS_SRCDIR=/usr/src \
		QEMU_BIN="${QEMU_BIN:-$QBUILD/qemu-system-x86_64}" "$@" > /dev/null
	mkdir -p "$out/$pkg/DEBIAN"
}

# control PKG ARCH DEPENDS DESCRIPTION...: DEBIAN/control, then the .deb.
control() {
	local pkg=$1 a=$2 deps=$3 size
	shift 3
	size=$(du -sk --exclude=DEBIAN "$out/$pkg" | cut -f1)
	{
		echo "Package: $pkg"
		echo "Version: $ver"
		echo "Architecture: $a"
		echo "Maintainer: $maintainer"
		echo "Installed-Size: $size"
		[ -n "$deps" ] && echo "Depends: $deps"
		echo "Section: misc"
		echo "Priority: optional"
		echo "Description: $1"
		shift
		printf ' %s\n' "$@"
	} > "$out/$pkg/DEBIAN/control"
	dpkg-deb --root-owner-group -Zxz --build "$out/$pkg" \
		"$out/${pkg}_${ver}_$a.deb" > /dev/null
	say "$out/${pkg}_${ver}_$a.deb"
}

# The packages that hold the shared libraries binary $1 links.
lib_packages() {
	ldd "$1" | awk '$2 == "=>" && $3 ~ /^\// { print $3 }' |
		while read -r lib; do
			dpkg -S "$(readlink -f "$lib")" 2>/dev/null ||
				dpkg -S "$lib" 2>/dev/null || die "no package owns $lib"
		done | sed 's/:.*//' | sort -u | paste -sd, | sed 's/,/, /g'
}

stage vgpu-dkms install-dkms
cat > "$out/vgpu-dkms/DEBIAN/postinst" <<EOF
#!/bin/sh
set -e
if [ "\$1" = configure ]; then
	/usr/lib/dkms/common.postinst vgpu $ver "" "" "\$2"
fi
EOF
cat > "$out/vgpu-dkms/DEBIAN/prerm" <<EOF
#!/bin/sh
set -e
case "\$1" in
remove|upgrade|deconfigure)
	if dkms status -m vgpu -v $ver | grep -q .; then
		dkms remove -m vgpu -v $ver --all
	fi
	;;
esac
EOF
chmod 755 "$out/vgpu-dkms/DEBIAN/postinst" "$out/vgpu-dkms/DEBIAN/prerm"
control vgpu-dkms all "dkms, make, gcc" \
	"vgpu virtual GPU driver (vgpu.ko), DKMS source" \
	"The DRM/TTM driver of the vgpu virtual PCIe GPU, built by DKMS for" \
	"every installed Linux 6.12 or later kernel with its headers."

stage libvgpu-dev install-libvgpu
control libvgpu-dev "$arch" "libdrm-dev" \
	"vgpu virtual GPU userspace library (static) and headers" \
	"libvgpu: device discovery, BOs, VM_BIND, command submission, waits" \
	"and queries on a vgpu render node; headers include the uapi" \
	"vgpu_drm.h.  Build with: pkg-config --cflags --libs libvgpu"

stage vgpu-tools install-tools
control vgpu-tools "$arch" "" \
	"vgpu virtual GPU tools: vgpu-smi, vgpu-bench, vgpu-fuzz" \
	"vgpu-smi shows memory, faults, migrations and TLB hit rates per device" \
	"and process; vgpu-bench benchmarks oversubscription, batching and" \
	"migration; vgpu-fuzz fuzzes the uapi.  Statically linked."

stage qemu-vgpu install-qemu
control qemu-vgpu "$arch" \
	"$(lib_packages "$out/qemu-vgpu/usr/libexec/vgpu/qemu-system-x86_64"), seabios, qemu-system-data" \
	"QEMU 7.2 with the vgpu virtual PCIe GPU (-device vgpu)" \
	"qemu-system-x86_64-vgpu: Debian's QEMU 7.2 source built with the vgpu" \
	"device model (TCG only), installed beside Debian's qemu-system-x86_64."

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# setup.sh - install and cache everything vgpu needs on a Debian 12 host.
#
# Usage: tools/vm/setup.sh STEP...
#   deps       install missing Debian packages (apt, as root)
#   kver       print the guest kernel release (resolved from the archive)
#   kernel     download Debian's newest 6.12 guest kernel into the cache,
#              install its matching headers
#   kselftest  extract the kselftest harness headers from linux-source-6.12
#   qemu       fetch Debian's QEMU 7.2 source, overlay qemu-device/, build
#   all        all of the above
#
# Slow products live under $VGPU_CACHE (default ~/.cache/vgpu), each in a
# directory named after its inputs (package version, configure flags), so a
# second run skips them.  Nothing here is pinned to one archive version.

set -euo pipefail

LOG_TAG=setup
. "$(dirname "$0")/../lib/common.sh"
mkdir -p "$CACHE"

# Host packages, one per line so diffs stay readable.
HOST_PACKAGES="
bc
bison
busybox-static
cpio
dkms
dpkg-dev
flex
gcc
gnuplot-nox
kmod
libdrm-dev
libelf-dev
libfdt-dev
libglib2.0-dev
libpixman-1-dev
libssl-dev
make
meson
ninja-build
pkg-config
python3
qemu-system-data
rsync
seabios
xz-utils
zlib1g-dev
zstd
"

step_deps() {
	# shellcheck disable=SC2086
	apt_install $HOST_PACKAGES
}

# deb-src entries derived from the machine's own Debian sources: every
# deb822 stanza of type "deb" whose suites belong to this release.
step_debsrc() {
	local out=/etc/apt/sources.list.d/vgpu-deb-src.sources codename
	[ -f "$out" ] && return
	need_root "adding deb-src entries"
	codename=$(. /etc/os-release && echo "$VERSION_CODENAME")
	say "adding deb-src entries for $codename to $out"
	awk -v cn="$codename" '
		BEGIN { RS = ""; ORS = "\n\n" }
		/(^|\n)Types:[ \t]*deb([ \t]|\n|$)/ && $0 ~ ("Suites:[^\n]*" cn) {
			sub(/Types:[ \t]*deb/, "Types: deb-src"); print
		}' /etc/apt/sources.list.d/*.sources > "$out.tmp" 2>/dev/null || true
	if [ -f /etc/apt/sources.list ]; then
		awk -v cn="$codename" '$1 == "deb" && $3 ~ ("^" cn) {
			$1 = "deb-src"; print }' /etc/apt/sources.list > "$out.list.tmp"
		if [ -s "$out.list.tmp" ]; then
			mv "$out.list.tmp" /etc/apt/sources.list.d/vgpu-deb-src.list
		else
			rm -f "$out.list.tmp"
		fi
	fi
	[ -s "$out.tmp" ] || [ -f /etc/apt/sources.list.d/vgpu-deb-src.list ] ||
		die "no Debian deb entries found to derive deb-src from"
	mv "$out.tmp" "$out"
	apt_updated=
	apt_update_once
}

# The guest kernel: the release the meta-package names today.
resolve_kver() {
	local dep
	dep=$(apt-cache depends linux-headers-6.12-amd64 2>/dev/null |
	      sed -n 's/.*Depends: linux-headers-\(6\.12\.[^ ]*-amd64\)$/\1/p' |
	      head -n1)
	if [ -z "$dep" ]; then
		apt_update_once
		dep=$(apt-cache depends linux-headers-6.12-amd64 |
		      sed -n 's/.*Depends: linux-headers-\(6\.12\.[^ ]*-amd64\)$/\1/p' |
		      head -n1)
	fi
	[ -n "$dep" ] || die "cannot resolve the 6.12 kernel release"
	echo "$dep"
}

step_kernel() {
	local kver dir tmp deb
	kver=$(resolve_kver)
	dir=$CACHE/kernel/$kver
	[ -d "/lib/modules/$kver/build" ] || apt_install "linux-headers-$kver"
	if [ ! -f "$dir/.done" ]; then
		say "downloading guest kernel linux-image-$kver-unsigned"
		rm -rf "$dir"
		tmp=$(mktemp -d "$CACHE/kernel.XXXXXX")
		chmod a+rwx "$tmp"	# apt-get download drops to _apt
		(cd "$tmp" && apt-get download -q "linux-image-$kver-unsigned" \
			>/dev/null) || die "cannot download linux-image-$kver-unsigned"
		deb=$(ls "$tmp"/*.deb)
		mkdir -p "$tmp/root"
		dpkg-deb -x "$deb" "$tmp/root"
		say "decompressing guest modules"
		find "$tmp/root/lib/modules" -name '*.ko.xz' -print0 |
			xargs -0 -P "$(nproc)" -n 64 xz -d
		say "generating modules.dep"
		depmod -b "$tmp/root" "$kver" || die "depmod failed"
		mkdir -p "$dir/root/lib/modules"
		mv "$tmp/root/boot/vmlinuz-$kver" "$dir/vmlinuz"
		mv "$tmp/root/lib/modules/$kver" "$dir/root/lib/modules/$kver"
		rm -rf "$tmp"
		touch "$dir/.done"
	fi
	ln -sfn "$kver" "$CACHE/kernel/current"
}

step_kselftest() {
	local ver dir tarball
	deb_installed linux-source-6.12 ||
		{ say "linux-source-6.12 is about 150 MB"; apt_install linux-source-6.12; }
	ver=$(dpkg-query -W -f='${Version}' linux-source-6.12)
	dir=$CACHE/kselftest/$ver
	if [ ! -f "$dir/kselftest_harness.h" ]; then
		tarball=$(ls /usr/src/linux-source-6.12.tar.* | head -n1)
		say "extracting kselftest headers from $tarball"
		mkdir -p "$dir"
		tar -xf "$tarball" -C "$dir" --strip-components=4 \
			--wildcards '*/tools/testing/selftests/kselftest_harness.h' \
			'*/tools/testing/selftests/kselftest.h'
	fi
	ln -sfn "$ver" "$CACHE/kselftest/current"
}

QEMU_CONFIGURE="--target-list=x86_64-softmmu --without-default-features
--enable-tcg --disable-docs --disable-werror
--disable-install-blobs"

step_qemu() {
	local ver src bld key
	step_debsrc
	ver=$(apt-cache showsrc qemu 2>/dev/null |
	      sed -n 's/^Version: //p' | sort -V | tail -n1)
	[ -n "$ver" ] || die "no qemu source package in the archive"
	src=$CACHE/qemu/src-${ver#*:}	# no epoch colon in paths
	if [ ! -f "$src/.done" ]; then
		say "fetching Debian's QEMU source $ver (apt-get source)"
		rm -rf "$src" "$CACHE/qemu/tmp"
		mkdir -p "$CACHE/qemu/tmp"
		chmod a+rwx "$CACHE/qemu/tmp"	# apt-get drops to _apt
		(cd "$CACHE/qemu/tmp" && apt-get source -q "qemu=$ver" >/dev/null) ||
			die "apt-get source qemu failed"
		mv "$CACHE/qemu/tmp"/qemu-*/ "$src"
		rm -rf "$CACHE/qemu/tmp"
		touch "$src/.done"
	fi
	"$TOP/qemu-device/overlay.sh" "$src"
	key=$(echo "$QEMU_CONFIGURE" | sha1sum | cut -c1-12)
	bld=$src/build-$key
	if [ ! -f "$bld/build.ninja" ]; then
		say "configuring QEMU in $bld"
		mkdir -p "$bld"
		# shellcheck disable=SC2086
		(cd "$bld" && ../configure --meson=meson $QEMU_CONFIGURE \
			>configure.log 2>&1) ||
			{ tail -n 30 "$bld/configure.log"; die "QEMU configure failed"; }
	fi
	say "building QEMU, the vgpu qtests and the device fuzzer (ninja, incremental)"
	ninja -C "$bld" qemu-system-x86_64 tests/qtest/vgpu-test tests/qtest/vgpu-fuzz |
		awk '/^\[[0-9]+\/[0-9]+\]/ { if (++n % 200 == 0) printf "[setup] qemu %s\n", $1 > "/dev/stderr"; next } { print }' ||
		die "QEMU build failed"
	[ "${PIPESTATUS[0]}" = 0 ] || die "QEMU build failed"
	ln -sfn "$bld" "$CACHE/qemu/current"
}

[ $# -gt 0 ] || set -- all
for step in "$@"; do
	case $step in
	deps)      step_deps ;;
	debsrc)    step_debsrc ;;
	kver)      resolve_kver ;;
	kernel)    step_kernel ;;
	kselftest) step_kselftest ;;
	qemu)      step_qemu ;;
	all)       step_deps; step_kernel; step_kselftest; step_qemu ;;
	*)         die "unknown step '$step'" ;;
	esac
done

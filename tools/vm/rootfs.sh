#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# rootfs.sh - a Debian bookworm root filesystem for the vgpu guest.
#
#   rootfs.sh path    build the root filesystem if needed (cached), print the
#                     path of its initramfs archive (uncompressed newc cpio)
#   rootfs.sh key     print the cache key
#
# Beside the archive: files (its file names, for vgpu-run --add), packages,
# versions (dpkg-query -W of the result).
#
# mmdebstrap builds it from Debian's archive (the sources of the host's apt)
# with the packages below: the "essential" set, the DRM clients (libdrm's
# drmdevice, drm-info), python3, kmod, and busybox for the guest's /init.
# Documentation and locales are left out.  tools/vm/vgpu-run --rootfs debian
# appends its own small archive (init, modules, /vgpu) to this one; the
# kernel unpacks both into its rootfs.  The archive is cached under
# $VGPU_CACHE/rootfs/<key>, the key being a hash of this script (and so of
# the package list): changing either builds a new one.

set -euo pipefail

CACHE=${VGPU_CACHE:-$HOME/.cache/vgpu}
SUITE=bookworm
PACKAGES="libdrm2 libdrm-tests drm-info python3 kmod busybox"

key() {
	sha256sum "$0" | cut -c1-16
}

# Build into a temporary directory beside the entry and rename it into
# place, so that an interrupted build leaves nothing and two builds at once
# leave one entry.
tmp=
build() {
	local dir=$1
	command -v mmdebstrap >/dev/null ||
		{ echo "[rootfs] installing mmdebstrap" >&2; apt-get install -y -q mmdebstrap >&2; }
	tmp=$(mktemp -d "$dir.tmp.XXXXXX")
	trap 'rm -rf "$tmp"' EXIT
	echo "[rootfs] building Debian $SUITE ($PACKAGES) in $dir" >&2
	mmdebstrap --variant=essential --mode=root --include="${PACKAGES// /,}" \
		--dpkgopt='path-exclude=/usr/share/man/*' \
		--dpkgopt='path-exclude=/usr/share/doc/*' \
		--dpkgopt='path-include=/usr/share/doc/*/copyright' \
		--dpkgopt='path-exclude=/usr/share/info/*' \
		--dpkgopt='path-exclude=/usr/share/locale/*' \
		--dpkgopt='path-exclude=/usr/share/lintian/*' \
		--customize-hook='rm -rf "$1"/var/cache/apt/* "$1"/var/lib/apt/lists/*' \
		"$SUITE" "$tmp/root" >&2
	(cd "$tmp/root" && find . | cpio -o -H newc --quiet) > "$tmp/rootfs.cpio"
	(cd "$tmp/root" && find . ! -type d | sed 's|^\./||') > "$tmp/files"
	echo "$PACKAGES" > "$tmp/packages"
	chroot "$tmp/root" dpkg-query -W > "$tmp/versions"
	rm -rf "$tmp/root"
	chmod 755 "$tmp"
	mv -T "$tmp" "$dir" 2>/dev/null || rm -rf "$tmp"
	trap - EXIT
}

case ${1:-} in
key)
	key
	;;
path)
	dir=$CACHE/rootfs/debian-$SUITE-$(key)
	[ -f "$dir/rootfs.cpio" ] || { mkdir -p "$CACHE/rootfs"; build "$dir"; }
	echo "$dir/rootfs.cpio"
	;;
*)
	echo "usage: $0 path|key" >&2
	exit 2
	;;
esac

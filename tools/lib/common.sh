# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# common.sh - the shell library of vgpu's host scripts (bash).  Sourced, not
# run:
#
#   LOG_TAG=setup			# optional: the [tag] of say/die
#   . "$(dirname "$0")/../lib/common.sh"	# (path relative to the script)
#
# Paths:
#   TOP          the top of the source tree
#   CACHE        $VGPU_CACHE, default ~/.cache/vgpu
#   QBUILD       the current QEMU build directory ($CACHE/qemu/current)
#   QEMU         $VGPU_QEMU, default $QBUILD/qemu-system-x86_64
# Messages (stderr):
#   say MSG...   "[LOG_TAG] MSG"
#   die MSG...   "[LOG_TAG] error: MSG", exit $DIE_STATUS (default 1)
# Debian packages:
#   deb_installed PKG   true if PKG is installed
#   need_root WHAT      die unless root
#   apt_install PKG...  install the PKGs not installed yet (root; apt-get
#                       update first, once per script)
# The guest kernel:
#   debian_kver  the release of Debian's 6.12 kernel the guests boot
# The guest kernel log:
#   KLOG_DIRTY   what makes a guest kernel log dirty (ERE), shared with
#                the guest scripts (tests/guest/lib/klog.sh)
# TAP, for host tiers that print TAP themselves:
#   tap_check NAME CMD...   run CMD (output to $TAP_LOG, default
#                           /dev/null), print "ok N NAME" or "not ok N NAME"

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
CACHE=${VGPU_CACHE:-$HOME/.cache/vgpu}
QBUILD=$CACHE/qemu/current
# shellcheck disable=SC2034 # for the scripts that source this
QEMU=${VGPU_QEMU:-$QBUILD/qemu-system-x86_64}

say() { printf '[%s] %s\n' "${LOG_TAG:-vgpu}" "$*" >&2; }
die() { say "error: $*"; exit "${DIE_STATUS:-1}"; }

deb_installed() {
	dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "install ok installed"
}

need_root() {
	[ "$(id -u)" = 0 ] || die "$1 needs root (apt); run as root"
}

apt_updated=
apt_update_once() {
	[ -n "$apt_updated" ] && return
	say "apt-get update"
	apt-get update -q >/dev/null || die "apt-get update failed"
	apt_updated=1
}

apt_install() {
	local missing=() p
	for p in "$@"; do
		deb_installed "$p" || missing+=("$p")
	done
	[ ${#missing[@]} -eq 0 ] && return
	need_root "installing ${missing[*]}"
	apt_update_once
	say "installing ${missing[*]}"
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
		--no-install-recommends "${missing[@]}" >/dev/null ||
		die "apt-get install ${missing[*]} failed"
}

# The release of Debian's 6.12 guest kernel: the cached one, else the one
# the archive names today.
debian_kver() {
	if [ -L "$CACHE/kernel/current" ]; then
		basename "$(readlink "$CACHE/kernel/current")"
	else
		"$TOP/tools/vm/setup.sh" kver
	fi
}

# shellcheck source=../../tests/guest/lib/klog.sh
. "$TOP/tests/guest/lib/klog.sh"

tap_n=0
tap_check() {
	local name=$1
	shift
	tap_n=$((tap_n + 1))
	if "$@" >> "${TAP_LOG:-/dev/null}" 2>&1; then
		echo "ok $tap_n $name"
	else
		echo "not ok $tap_n $name"
	fi
}

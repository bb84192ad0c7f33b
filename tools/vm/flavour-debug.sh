#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# flavour-debug.sh - the vgpu debug kernel as a guest kernel flavour
# (tools/vm/vgpu-run --kernel debug).
#
#   flavour-debug.sh build   build whatever is stale: the debug kernel from
#                            linux-source-6.12 (KASAN, lockdep, kmemleak,
#                            DEBUG_OBJECTS, KUnit, fault injection) and
#                            vgpu.ko + vgpu_kunit.ko built in its tree
#   flavour-debug.sh paths   print KIMAGE= KMODDIR= VGPU_KO= KVER=
#                            KCMDLINE_EXTRA=
#
# The work is done by tools/vm/debug-kernel.sh; see it for the cache layout.

set -euo pipefail

TOP=$(cd "$(dirname "$0")/../.." && pwd)

case ${1:-} in
build|paths)
	exec "$TOP/tools/vm/debug-kernel.sh" "$1"
	;;
*)
	echo "usage: $0 build|paths" >&2
	exit 2
	;;
esac

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# overlay.sh - overlay the vgpu device model onto a QEMU 7.2 source tree.
#
# Usage: qemu-device/overlay.sh QEMU_SRC_DIR
#
# Copies qemu-device/hw and tests/qtest (the qtests) into the tree with rsync -c (files whose
# content did not change keep their mtime, so ninja rebuilds only what
# changed), installs the shared hardware contract header as
# include/hw/vgpu/vgpu_hw.h, and hooks the device into the build:
#   hw/Kconfig              source vgpu/Kconfig
#   hw/meson.build          subdir('vgpu')
#   meson.build             'hw/vgpu' in trace_events_subdirs
#   tests/qtest/meson.build vgpu-test and vgpu-fuzz in qtests_x86_64
#                           (ninja targets tests/qtest/vgpu-test and
#                           tests/qtest/vgpu-fuzz), and their sources
#                           besides vgpu-test.c / vgpu-fuzz.c in the
#                           qtests dictionary
# Every edit is guarded by a grep, so running it twice changes nothing.

set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
src=${1:?usage: overlay.sh QEMU_SRC_DIR}
src=$(cd "$src" && pwd)

LOG_TAG=overlay
. "$top/tools/lib/common.sh"

[ -f "$src/hw/meson.build" ] && [ -f "$src/tests/qtest/meson.build" ] ||
	die "$src does not look like a QEMU source tree"

# 1. Sources.  No --delete: the trees are shared with upstream files.
rsync -rc "$here/hw/" "$src/hw/"
rsync -rc "$top/tests/qtest/" "$src/tests/qtest/"
mkdir -p "$src/include/hw/vgpu"
rsync -c "$top/drivers/gpu/drm/vgpu/vgpu_hw.h" "$src/include/hw/vgpu/vgpu_hw.h"

# 2. hw/Kconfig: source vgpu/Kconfig.
grep -q '^source vgpu/Kconfig' "$src/hw/Kconfig" ||
	echo 'source vgpu/Kconfig' >> "$src/hw/Kconfig"

# 3. hw/meson.build: subdir('vgpu').
grep -q "^subdir('vgpu')" "$src/hw/meson.build" ||
	echo "subdir('vgpu')" >> "$src/hw/meson.build"

# 4. Top-level meson.build: trace events for hw/vgpu, added right after
#    the 'hw/misc' entry of trace_events_subdirs.
if ! grep -q "'hw/vgpu'," "$src/meson.build"; then
	grep -q "^    'hw/misc',$" "$src/meson.build" ||
		die "cannot find 'hw/misc' in trace_events_subdirs"
	sed -i "s|^    'hw/misc',$|    'hw/misc',\n    'hw/vgpu',|" "$src/meson.build"
fi

# 5. tests/qtest/meson.build: build vgpu-test and vgpu-fuzz for x86_64 when
#    the device is configured in (older overlays added vgpu-test alone).
qm=$src/tests/qtest/meson.build
if ! grep -q "has_key('CONFIG_VGPU')" "$qm"; then
	grep -q "^qtests_x86_64 = qtests_i386" "$qm" ||
		die "cannot find qtests_x86_64 in $qm"
	sed -i "s|^qtests_x86_64 = qtests_i386|qtests_x86_64 = qtests_i386 + \\\\\n  (config_all_devices.has_key('CONFIG_VGPU') ? ['vgpu-test', 'vgpu-fuzz'] : [])|" "$qm"
fi
sed -i "s|has_key('CONFIG_VGPU') ? \['vgpu-test'\] : \[\]|has_key('CONFIG_VGPU') ? ['vgpu-test', 'vgpu-fuzz'] : []|" "$qm"

# 6. tests/qtest/meson.build: the other sources of vgpu-test (the helper
#    library and the topic files) and of vgpu-fuzz (the helper library),
#    as the qtests dictionary allows: qtests += {'vgpu-test': files(...)}.
#    The lines are marked and rewritten on every run, so adding a topic
#    file needs no manual step.
srcs=$(cd "$top/tests/qtest" && ls libvgpu-qtest.c vgpu-test-*.c 2>/dev/null |
	sed "s/.*/'&'/" | paste -sd, - | sed 's/,/, /g')
line="qtests += {'vgpu-test': files($srcs)}  # vgpu (overlay.sh)"
fuzz="qtests += {'vgpu-fuzz': files('libvgpu-qtest.c')}  # vgpu (overlay.sh)"
if ! grep -qxF "$line" "$qm" || ! grep -qxF "$fuzz" "$qm"; then
	grep -q "^qtest_executables = {}" "$qm" ||
		die "cannot find qtest_executables in $qm"
	sed -i "/# vgpu (overlay.sh)\$/d" "$qm"
	sed -i "s|^qtest_executables = {}|$line\n$fuzz\n\nqtest_executables = {}|" "$qm"
fi

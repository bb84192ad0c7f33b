#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# run.sh - device-level COPY benchmark (not a test).
#
# Runs the /vgpu/bench/copy case of the vgpu qtest binary: a 64 MiB COPY
# VRAM->VRAM through 2 MiB pages and through 4 KiB pages, each timed from
# doorbell to fence (best of 5, after a warm-up), against a host memcpy of
# the same size in the same run.  Needs the QEMU build from
# `tools/vm/setup.sh qemu` (or `make qemu`).
#
# Usage: tools/bench-device/run.sh
set -euo pipefail

LOG_TAG=bench-device
. "$(dirname "$0")/../lib/common.sh"
[ -x "$QBUILD/tests/qtest/vgpu-test" ] ||
	die "no QEMU build in $QBUILD; run tools/vm/setup.sh qemu"

VGPU_BENCH=1 QTEST_QEMU_BINARY=$QBUILD/qemu-system-x86_64 \
	"$QBUILD/tests/qtest/vgpu-test" --tap -p /x86_64/vgpu/bench/copy 2>&1 |
	sed -n 's/^# \(host memcpy\|COPY\)/\1/p'

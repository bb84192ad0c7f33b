#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bench.sh - run vgpu-bench in a fresh guest and leave its CSV files (and
# plots, where a suite has one) under build/bench/ on the host.
#
#   tools/vm/bench.sh [vgpu-bench arguments]
#
# VGPU_BENCH_VRAM and VGPU_BENCH_MEM size the device and the guest.

set -euo pipefail
TOP=$(cd "$(dirname "$0")/../.." && pwd)
OUT=$TOP/build/bench
mkdir -p "$OUT"

"$TOP/tools/vm/vgpu-run" --vram "${VGPU_BENCH_VRAM:-256M}" \
	--mem "${VGPU_BENCH_MEM:-2G}" --timeout "${VGPU_BENCH_TIMEOUT:-1800}" \
	--quiet-log --out-dir "$OUT" -- vgpu-bench --csv /out "$@"
echo
echo "CSV files:"
ls -1 "$OUT"/*.csv | sed 's/^/  /'
if [ -f "$OUT/oversub.csv" ] && [ -x "$TOP/tools/vgpu-bench/plot-oversub.sh" ]; then
	"$TOP/tools/vgpu-bench/plot-oversub.sh" "$OUT/oversub.csv" "$OUT/oversub.png"
	echo "plot: $OUT/oversub.png"
fi

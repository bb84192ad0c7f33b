#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# One run of a workload for the deterministic-mode check (hardware.rst,
# "Deterministic mode"): a BFS trace of 150 % of VRAM on one queue, every
# lane, replayed with prefetch and thrashing detection on, then every
# device counter that does not measure wall time, one "det NAME VALUE"
# line each.  tests/check.sh boots two guests with the device property
# deterministic=on, runs this in each and compares the lines: the same
# workload must give the same counters and modeled times, bit for bit.

. "$(dirname "$0")/lib/node.sh"

node=$(vgpu_node)
if [ -z "$node" ] || ! command -v vgpu-bench > /dev/null; then
	echo "det error no-vgpu-device"
	exit 0
fi
vram=$(cat "$node/device/vram_total")
dir=/tmp/deterministic
rm -rf "$dir"
mkdir -p "$dir"
echo "det deterministic $(cat "$node/device/deterministic")"
if ! vgpu-bench gen-trace bfs --footprint $((vram * 3 / 2)) --seed 7 \
	--vertices 1024 --degree 4 > "$dir/bfs.trace" ||
   ! vgpu-bench --csv "$dir" replay "$dir/bfs.trace" > "$dir/out" 2>&1; then
	echo "det error replay-failed"
	cat "$dir/out"
	exit 0
fi
# The replay's row, wall time (seconds) left out.
awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) n[i] = $i; next }
	 { for (i = 1; i <= NF; i++) if (n[i] != "seconds") print "det replay." n[i], $i }' \
	"$dir/replay.csv"
# Every counter but those in wall time (fault_ns, fault_copy_wait_ns).
for f in "$node/device/counters/"*; do
	name=$(basename "$f")
	case $name in
	fault_ns|fault_copy_wait_ns) continue ;;
	esac
	echo "det $name $(cat "$f")"
done

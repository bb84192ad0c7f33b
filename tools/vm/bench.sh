#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bench.sh - run vgpu-bench in a fresh guest and leave its CSV files (and
# plots, where a suite has one) under build/bench/ on the host, with
# the oversubscription results set against their published figures
# (tools/vgpu-bench/anchors.sh, into build/bench/anchors.txt).
#
#   tools/vm/bench.sh [vgpu-bench arguments]
#
# VGPU_BENCH_VRAM and VGPU_BENCH_MEM size the device and the guest.
#
# When the run wrote bfs.csv or gemm.csv, the same problems run again on
# a device four times larger (VGPU_BENCH_FIT_VRAM), where they fit
# (vgpu-bench --vram-base), into build/bench/fit/: anchors.sh sets the
# oversubscribed runs against those.
#
# Without arguments (make bench) it also runs the batching suite (quick)
# on devices of each size in VGPU_BENCH_SCALE_VRAM (default 64M to 2G),
# into build/bench/vram-<size>/, and prints the cost of a fault and of a
# migrated MiB at batch limit 1 (private buffers, one lane) against the
# smallest device's: work done per fault that grows with VRAM shows up
# there (paging.rst, "Cost at scale").

set -euo pipefail
TOP=$(cd "$(dirname "$0")/../.." && pwd)
OUT=$TOP/build/bench
mkdir -p "$OUT"
sweep=$(( $# == 0 ))

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
# MiB of a size with an optional K, M or G suffix, as vgpu-run takes it.
mib() {
	local n=${1%[KkMmGg]}
	case $1 in
	*[Kk]) echo $(( n / 1024 )) ;;
	*[Gg]) echo $(( n * 1024 )) ;;
	*[Mm]) echo "$n" ;;
	*) echo $(( n >> 20 )) ;;
	esac
}
suites=()
for s in bfs gemm; do
	[ -f "$OUT/$s.csv" ] && suites+=("$s")
done
if [ ${#suites[@]} -gt 0 ]; then
	base=$(mib "${VGPU_BENCH_VRAM:-256M}")
	fitv=${VGPU_BENCH_FIT_VRAM:-$(( base * 4 ))M}
	echo
	echo "The same problems fitting, on ${fitv} of VRAM (build/bench/fit/):"
	mkdir -p "$OUT/fit"
	quick=
	for a in "$@"; do
		[ "$a" = --quick ] && quick=--quick
	done
	"$TOP/tools/vm/vgpu-run" --vram "$fitv" --visible 64M --mem 4G \
		--timeout "${VGPU_BENCH_TIMEOUT:-1800}" --quiet-log \
		--out-dir "$OUT/fit" -- vgpu-bench $quick --vram-base "${base}M" \
		--csv /out "${suites[@]}" > "$OUT/fit/log" 2>&1 ||
		echo "  failed: see $OUT/fit/log"
fi
if [ -f "$OUT/oversub.csv" ] || [ ${#suites[@]} -gt 0 ]; then
	echo
	echo "Results against published figures (modeled time; $OUT/anchors.txt):"
	"$TOP/tools/vgpu-bench/anchors.sh" "$OUT" "$OUT/fit" | tee "$OUT/anchors.txt" | sed 's/^/  /'
fi

[ "$sweep" = 1 ] || exit 0
echo
echo "Fault cost against VRAM size (batching, private, one lane, batch limit 1):"
printf '  %-6s %12s %12s %12s %8s\n' vram ns_per_fault handling_ns ns_per_mib x
base=
for v in ${VGPU_BENCH_SCALE_VRAM:-64M 256M 1G 2G}; do
	d=$OUT/vram-$v
	mkdir -p "$d"
	"$TOP/tools/vm/vgpu-run" --vram "$v" --visible 64M --mem 4G \
		--timeout 900 --quiet-log --out-dir "$d" -- \
		vgpu-bench --quick --csv /out batching > "$d/log" 2>&1 || true
	row=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
		$c["scenario"] == "private" && $c["lanes"] == 1 &&
		$c["batch_limit"] == 1 {
			printf "%.0f %.0f %.0f\n", $c["total_ns_per_fault"],
			       $c["ns_per_fault"],
			       $c["total_ns_per_fault"] * $c["faults"] /
			       ($c["bytes_migrated"] / 1048576)
		}' "$d/batching.csv" 2>/dev/null || true)
	if [ -z "$row" ]; then
		printf '  %-6s %12s (no result, see %s)\n' "$v" - "$d/log"
		continue
	fi
	set -- $row
	base=${base:-$1}
	printf '  %-6s %12s %12s %12s %8.2f\n' "$v" "$1" "$2" "$3" \
		"$(awk -v a="$1" -v b="$base" 'BEGIN { print a / b }')"
done

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# anchors.sh - set vgpu-bench's oversubscription results next to the
# published figures they are meant to be compared with.
#
#   anchors.sh CSV_DIR [FIT_DIR]
#
# Reads oversub.csv, bfs.csv and gemm.csv from CSV_DIR (the output of
# `vgpu-bench --csv DIR oversub bfs gemm`, as `make bench` writes them)
# and bfs.csv and gemm.csv from FIT_DIR (`vgpu-bench --vram-base V --csv
# FIT_DIR bfs gemm` on a device larger than V, the VRAM of CSV_DIR's:
# the same problems, fitting), and prints one line per result: what was measured, the goal, and the
# published figure it stands for where there is one (user-guide.rst,
# "Results against published figures").  Times are modeled time (the
# device's cost model), never wall time.  A result whose rows are
# missing shows "-".

set -euo pipefail
dir=$1
fit=${2:-}

# val FILE FILTER EXPR: EXPR (awk, columns by name as c["name"]) of the
# first row of FILE matching FILTER; empty if there is none.
val() {
	[ -f "$1" ] || return 0
	awk -F, -v filter="$2" -v expr="$3" '
		function get(name) { return $c[name] }
		NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
		{
			split(filter, conds, "&")
			ok = 1
			for (k in conds) {
				split(conds[k], kv, "=")
				if (get(kv[1]) != kv[2])
					ok = 0
			}
			if (!ok)
				next
			split(expr, e, ":")
			print get(e[1])
			exit
		}' "$1"
}

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a == "" || b == "" || b == 0) print "-"; else printf "%.2fx", a / b }'; }
diff_pts() { awk -v a="$1" -v b="$2" 'BEGIN { if (a == "" || b == "") print "-"; else printf "%+.1f pt", (a - b) * 100 }'; }
row() { printf '%-52s %10s  %-9s %s\n' "$1" "${2:--}" "$3" "$4"; }

ov=$dir/oversub.csv
row result measured goal "published anchor"

# Sequential at 125 %: modeled time without prefetch over with it.
for pol in lru lru2; do
	off=$(val "$ov" "pattern=sequential&policy=$pol&prefetch=0&oversub_pct=125" modeled_s)
	on=$(val "$ov" "pattern=sequential&policy=$pol&prefetch=1&oversub_pct=125" modeled_s)
	row "sequential 125 %, prefetch speed-up ($pol)" "$(ratio "$off" "$on")" ">= 3x" \
		"UVM 2.7-3.4x at 116-125 %"
done

# BFS and GEMM at 150 %: modeled time per access over that of the same
# problem fitting (FIT_DIR's row of the same footprint), as the published
# figures compare.
for s in bfs gemm; do
	v=$(val "$dir/$s.csv" "footprint_pct=150" modeled_ns_per_access)
	mib=$(val "$dir/$s.csv" "footprint_pct=150" footprint_mib)
	f=
	[ -z "$fit" ] || [ -z "$mib" ] ||
		f=$(val "$fit/$s.csv" "footprint_mib=$mib" modeled_ns_per_access)
	row "$s 150 %, per-access cost / same problem fitting" "$(ratio "$v" "$f")" "<= 2.5x" \
		"UVM 4-10x, DREAM 1.5-2.5x"
done

# LRU-2 over LRU, scan-polluted, prefetch on.
for pct in 125 150 200; do
	l=$(val "$ov" "pattern=scan&policy=lru&prefetch=1&oversub_pct=$pct" vram_hit_ratio)
	l2=$(val "$ov" "pattern=scan&policy=lru2&prefetch=1&oversub_pct=$pct" vram_hit_ratio)
	row "scan $pct %, prefetch on: LRU-2 hit ratio - LRU's" "$(diff_pts "$l2" "$l")" \
		">= +5 pt" "-"
done

# Strided at 400 %: bytes moved with prefetch over without.
for pol in lru lru2; do
	off=$(val "$ov" "pattern=strided&policy=$pol&prefetch=0&oversub_pct=400" bytes_migrated)
	on=$(val "$ov" "pattern=strided&policy=$pol&prefetch=1&oversub_pct=400" bytes_migrated)
	row "strided 400 %, bytes with prefetch / without ($pol)" "$(ratio "$on" "$off")" \
		"<= 1.25x" "-"
done

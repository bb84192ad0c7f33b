#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# anchors.sh - TAP test of tools/vgpu-bench/anchors.sh on crafted CSV
# files: columns are found by name in any order, each ratio and
# difference comes from the right rows, and a result without rows says
# "-".
#
#   tests/host/anchors.sh

set -uo pipefail
TOP=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

cat > "$tmp/oversub.csv" <<'CSV'
vram_hit_ratio,policy,pattern,oversub_pct,prefetch,bytes_migrated,modeled_s
0.000,lru,sequential,125,0,100,0.3000
0.000,lru,sequential,125,1,100,0.1000
0.000,lru,sequential,150,1,100,0.0001
0.100,lru,scan,125,1,100,1
0.200,lru2,scan,125,1,100,1
0.300,lru,scan,150,1,100,1
0.250,lru2,scan,150,1,100,1
0,lru,strided,400,0,1000,1
0,lru,strided,400,1,1200,1
CSV
cat > "$tmp/bfs.csv" <<'CSV'
footprint_pct,vs_fit,modeled_s
50,1.000,1
150,2.100,1
CSV

out=$("$TOP/tools/vgpu-bench/anchors.sh" "$tmp")
n=0
check() {
	n=$((n + 1))
	if grep -E -q "$2" <<< "$out"; then
		echo "ok $n - anchors: $1"
	else
		echo "not ok $n - anchors: $1"
		sed 's/^/# /' <<< "$out"
	fi
}
check "prefetch speed-up from the 125 % rows" '^sequential 125 %, prefetch speed-up \(lru\) +3\.00x'
check "no rows, no figure" '^sequential 125 %, prefetch speed-up \(lru2\) +- '
check "BFS from vs_fit at 150 %" '^bfs 150 %.* 2\.10x'
check "GEMM without a CSV" '^gemm 150 %.* +- '
check "LRU-2 ahead by 10 points" '^scan 125 %.* \+10\.0 pt'
check "LRU-2 behind by 5 points" '^scan 150 %.* -5\.0 pt'
check "strided bytes ratio" '^strided 400 %.*\(lru\) +1\.20x'

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# anchors.sh - TAP test of tools/vgpu-bench/anchors.sh on crafted CSV
# files: columns are found by name in any order, each ratio and
# difference comes from the right rows, and a result without rows says
# "-"; BFS and GEMM are set against the same footprint in the fitting
# directory, and without it say "-".
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
footprint_pct,footprint_mib,modeled_ns_per_access,vs_fit
50,128,4.000,1.000
150,384,84.000,21.000
CSV
# The same problems on a larger device: 384 MiB fits there.
mkdir "$tmp/fit"
cat > "$tmp/fit/bfs.csv" <<'CSV'
footprint_mib,footprint_pct,modeled_ns_per_access
128,50,4.000
384,150,70.000
CSV
cat > "$tmp/gemm.csv" <<'CSV'
footprint_pct,footprint_mib,modeled_ns_per_access
150,364,0.300
CSV

out=$("$TOP/tools/vgpu-bench/anchors.sh" "$tmp" "$tmp/fit")
nofit=$("$TOP/tools/vgpu-bench/anchors.sh" "$tmp")
n=0
# check NAME REGEX [REPORT]: REPORT (default: the one with the fitting
# directory) has a line matching REGEX.
check() {
	local report=${3:-$out}

	n=$((n + 1))
	if grep -E -q "$2" <<< "$report"; then
		echo "ok $n - anchors: $1"
	else
		echo "not ok $n - anchors: $1"
		sed 's/^/# /' <<< "$report"
	fi
}
check "prefetch speed-up from the 125 % rows" '^sequential 125 %, prefetch speed-up \(lru\) +3\.00x'
check "no rows, no figure" '^sequential 125 %, prefetch speed-up \(lru2\) +- '
check "BFS against the same graph fitting" '^bfs 150 %.* 1\.20x'
check "GEMM without a fitting run" '^gemm 150 %.* +- '
check "LRU-2 ahead by 10 points" '^scan 125 %.* \+10\.0 pt'
check "LRU-2 behind by 5 points" '^scan 150 %.* -5\.0 pt'
check "strided bytes ratio" '^strided 400 %.*\(lru\) +1\.20x'
check "no fitting directory, no BFS figure" '^bfs 150 %.* +- ' "$nofit"

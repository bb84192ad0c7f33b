#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# vgpu-bench gen-trace and replay (user-guide.rst, "Traces"), small: a
# BFS and a training-loop trace of 150 % of VRAM and a GEMM trace of 25 %
# are generated and replayed.  Each replay must finish, report every
# access of its trace, and fault (first touches at least); beyond VRAM it
# must evict and migrate, and the fitting one must not evict; modeled
# time must pass, the compute time be the busiest queue's sum, and the
# modeled time include it (it runs on the device, as COMPUTE).  A trace
# written by hand must give the TOUCHes, jobs, bytes read and written
# and compute time it works out to, and one with a wait the FENCE and
# WAIT it works out to and the modeled time the WAIT carries over, and
# two queues without a wait a longest queue of one queue's time.  A
# trace with a bad line must fail, naming the file and line.  The sweep
# suites' --vram-base: gemm at 50 and 150 % of an eighth of VRAM runs
# problems of those sizes, which fit (no eviction); a base of 0, a bad
# suffix or a missing value is refused.  Prints TAP.

. "$(dirname "$0")/lib/tap.sh"
. "$(dirname "$0")/lib/node.sh"

node=$(vgpu_node)
echo "TAP version 13"
echo "1..9"
if [ -z "$node" ] || ! command -v vgpu-bench > /dev/null; then
	for i in 1 2 3 4 5 6 7 8 9; do tap_result not-ok bench_replay "no vgpu device or no vgpu-bench"; done
	exit 0
fi
vram=$(cat "$node/device/vram_total")
dir=/tmp/bench-replay
rm -rf "$dir"
mkdir -p "$dir"

# The value of column $2 in CSV file $1's first row.
col() {
	awk -F, -v c="$2" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == c) k = i }
			   NR == 2 { print (k ? $k : "") }' "$1"
}

# replay NAME PCT KIND WANT COMPUTE OPTIONS...: generate, replay, check.
# WANT is "evict" (beyond VRAM) or "fit"; COMPUTE the compute_s column
# expected, or "".
replay() {
	name=$1 pct=$2 kind=$3 want=$4 compute=$5
	shift 5
	tr=$dir/$name.trace
	fp=$((vram * pct / 100))
	if ! vgpu-bench gen-trace "$kind" --footprint $fp "$@" > "$tr"; then
		diag "gen-trace $kind failed"
		tap_result not-ok "bench_replay.$name"
		return
	fi
	lines=$(grep -c -E '^[0-9]+ (r|w|rw) ' "$tr")
	mkdir -p "$dir/$name"
	out=$(vgpu-bench --csv "$dir/$name" replay "$tr" 2>&1)
	st=$?
	echo "$out" | sed 's/^/# /'
	csv=$dir/$name/replay.csv
	ok=1
	[ $st -eq 0 ] && [ -f "$csv" ] || { diag "replay exited with $st"; ok=0; }
	if [ $ok = 1 ]; then
		acc=$(col "$csv" accesses) faults=$(col "$csv" faults)
		ev=$(col "$csv" evictions) mig=$(col "$csv" bytes_migrated)
		ms=$(col "$csv" modeled_s)
		diag "$name: $acc accesses of $lines, $faults faults," \
		     "$ev evictions, $mig bytes migrated, modeled $ms s"
		[ "$acc" = "$lines" ] || ok=0
		[ "${faults:-0}" -gt 0 ] || ok=0
		awk -v m="$ms" 'BEGIN { exit !(m > 0) }' || ok=0
		[ -z "$compute" ] || [ "$(col "$csv" compute_s)" = "$compute" ] || ok=0
		awk -v m="$ms" -v c="$(col "$csv" compute_s)" 'BEGIN { exit !(m >= c) }' ||
			ok=0
		if [ "$want" = evict ]; then
			[ "${ev:-0}" -gt 0 ] && [ "${mig:-0}" -gt "$vram" ] || ok=0
		else
			[ "$ev" = 0 ] || ok=0
		fi
	fi
	if [ $ok = 1 ]; then
		tap_result ok "bench_replay.$name"
	else
		tap_result not-ok "bench_replay.$name"
	fi
}

replay bfs_150 150 bfs evict 0.000000 --vertices 1024 --degree 4 --queues 2 --seed 7
# 2 steps x 4 layers x 2 passes x 1 us, all on queue 0.
replay train_150 150 train evict 0.000016 --layers 4 --steps 2 --queues 2 --compute-ns 1000
replay gemm_25 25 gemm fit "" --tiles 2

# replay_columns NAME COLUMN...: replay $dir/NAME.trace (its output as
# "#" lines) and print " COLUMN=VALUE" for each column of its CSV row,
# nothing if the replay failed.
replay_columns() {
	name=$1
	shift
	mkdir -p "$dir/$name"
	out=$(vgpu-bench --csv "$dir/$name" replay "$dir/$name.trace" 2>&1)
	st=$?
	echo "$out" | sed 's/^/# /' >&2
	[ $st -eq 0 ] && [ -f "$dir/$name/replay.csv" ] || return 0
	for c in "$@"; do
		printf ' %s=%s' "$c" "$(col "$dir/$name/replay.csv" "$c")"
	done
}

# By hand: 2 + 1 + 1 + 1 accesses on queue 0 make 4 TOUCHes (the first
# two continue each other; an op change or compute time starts a new
# one), 1 on queue 1; 128 + 1 + 1024 + 1 lines read, 2 + 1 written, and
# the device reads the 5 TOUCHes' 36 bytes each and the COMPUTE's 8 from
# the command streams.
cat > "$dir/hand.trace" <<EOT
vgpu-trace 1 footprint=4194304
# queue op offset size [compute_ns]
0 r 0 4096
0 r 4096 4096
0 w 8192 100
0 rw 0x100000 64 2000
1 r 0x200000 65536
0 r 0x100040 64
EOT
got=$(replay_columns hand accesses commands jobs bytes_read bytes_written compute_s)
want=" accesses=6 commands=5 jobs=2 bytes_read=$((1154 * 64 + 5 * 36 + 8)) bytes_written=$((3 * 64)) compute_s=0.000002"
diag "by hand:$got"
t bench_replay.by_hand "[ \"$got\" = \"$want\" ]"

# A wait: queue 1 reads after queue 0's access and its 1 ms of compute.
# Queue 0's stream ends with a FENCE of its semaphore (8 bytes written),
# queue 1's starts with a WAIT for it (one poll: its job is queued once
# queue 0's is done): 2 x 64 lines read, the streams' 2 TOUCHes, COMPUTE,
# FENCE and WAIT fetched (36, 36, 8, 20, 20 bytes) and the poll's 8; the
# WAIT moves queue 1's modeled clock up to queue 0's, so the VM's modeled
# time is at least twice the compute.
cat > "$dir/wait.trace" <<EOT
vgpu-trace 1 footprint=4194304
0 r 0 4096 1000000
1 wait 0
1 r 0x200000 4096
EOT
got=$(replay_columns wait accesses commands waits jobs bytes_read bytes_written)
h=$dir/wait/replay.csv
want=" accesses=2 commands=2 waits=1 jobs=2 bytes_read=$((128 * 64 + 120 + 8)) bytes_written=8"
diag "wait:$got modeled_s=$(col "$h" modeled_s) longest_queue_s=$(col "$h" longest_queue_s)"
# Queue 1 catches up with queue 0 and reads after it: its queue is the
# longer, at least queue 0's 1 ms of compute, and no longer than the two.
t bench_replay.wait_orders_queues "[ \"$got\" = \"$want\" ] &&
	awk -v m=\"$(col "$h" modeled_s)\" -v l=\"$(col "$h" longest_queue_s)\" \
		'BEGIN { exit !(m >= 0.002 && l >= 0.001 && l <= m) }'"

# Side by side: two queues of 1 ms of compute and a read each, no wait.
# The VM's modeled time sums them (2 ms and more); the longest queue is
# one of them: its compute at least, less than the sum (a stall counts
# the work the device did meanwhile, the other queue's compute perhaps).
cat > "$dir/side.trace" <<EOT
vgpu-trace 1 footprint=4194304
0 r 0 4096 1000000
1 r 0x200000 4096 1000000
EOT
got=$(replay_columns side accesses jobs modeled_s longest_queue_s)
diag "side by side:$got"
h=$dir/side/replay.csv
t bench_replay.queues_side_by_side "[ \"$(col "$h" jobs)\" = 2 ] &&
	awk -v m=\"$(col "$h" modeled_s)\" -v l=\"$(col "$h" longest_queue_s)\" \
		'BEGIN { exit !(m >= 0.002 && l >= 0.001 && l < m) }'"

printf 'vgpu-trace 1 footprint=4096\n0 r 0 64\n0 q 0 64\n' > "$dir/bad.trace"
out=$(vgpu-bench replay "$dir/bad.trace" 2>&1)
st=$?
echo "$out" | sed 's/^/# /'
t bench_replay.bad_line_refused "[ $st -ne 0 ] && echo \"\$out\" | grep -q 'bad.trace:3: unknown op'"

# --vram-base: the footprints are percentages of the base, here an eighth
# of VRAM, so even the 150 % run fits.
base=$((vram / 8))
mkdir -p "$dir/base"
out=$(vgpu-bench --quick --vram-base $base --csv "$dir/base" gemm 2>&1)
st=$?
echo "$out" | sed 's/^/# /'
rows=$(awk -F, -v b=$((base >> 20)) '
	NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
	{ printf " %s:%s", $c["footprint_pct"],
	  ($c["footprint_mib"] > 0 && $c["footprint_mib"] * 100 <= $c["footprint_pct"] * b &&
	   $c["evictions"] == 0 && $c["faults"] > 0) ? "fits" : "bad" }' "$dir/base/gemm.csv" 2>/dev/null)
diag "vram-base $base:$rows"
t bench_sweep.vram_base_sizes_footprints "[ $st -eq 0 ] && [ \"$rows\" = ' 50:fits 150:fits' ]"

refused=0
for arg in 0 12Q 0x; do
	out=$(vgpu-bench --vram-base $arg gemm 2>&1)
	[ $? -eq 2 ] && echo "$out" | grep -q "bad --vram-base '$arg'" && refused=$((refused + 1))
done
vgpu-bench --vram-base > /dev/null 2>&1
[ $? -eq 2 ] && refused=$((refused + 1))
t bench_sweep.vram_base_refused "[ $refused = 4 ]"
exit 0

#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The observability interfaces from a shell, as a user meets them: a
# process's fdinfo, sysfs policy files written with echo, debugfs, and
# vgpu-smi's text mode, refresh loop and signals.  (vgpu_observe_test
# checks the numbers and the JSON.)  Prints TAP.

. "$(dirname "$0")/lib/tap.sh"
. "$(dirname "$0")/lib/node.sh"

node=$(vgpu_node)
echo "TAP version 13"
echo "1..11"
if [ -z "$node" ]; then
	for i in 1 2 3 4 5 6 7 8 9 10 11; do tap_skip observe "no vgpu device"; done
	exit 0
fi
sys=$node/device
dbg=/sys/kernel/debug/dri/$(basename "$(readlink -f "$sys")")

# A process holding a quarter of VRAM for six seconds, after jobs of 1
# and 3 ms of modeled time on exec queues 0 and 1.
hold_out=/tmp/observe-hold.out
vgpu-hold $(( $(cat "$sys/vram_total") / 4 )) 6 1000000 3000000 > $hold_out &
pid=$!
i=0
while ! grep -qs '^holding' $hold_out && [ $i -lt 50 ]; do
	sleep 0.1
	i=$((i + 1))
done
sleep 0.5
quarter=$(( $(cat "$sys/vram_total") / 4 ))

fdinfo_total() {
	for f in /proc/$1/fdinfo/*; do
		grep -qs 'drm-driver:.vgpu' "$f" || continue
		awk '/^drm-total-vram:/ { v = $2; if ($3 == "KiB") v *= 1024; if ($3 == "MiB") v *= 1048576; print v }' "$f"
		return
	done
	echo 0
}

t "observe.fdinfo_shows_the_process" "[ \$(fdinfo_total $pid) -ge $quarter ]"
t "observe.smi_lists_the_process" "vgpu-smi | grep -q ' vgpu-hold '"
# Its modeled time split by exec queue (each job plus microseconds of overheads).
t "observe.smi_splits_modeled_time_by_queue" "vgpu-smi | grep -Eq ' vgpu-hold .* 4\.0[0-9] ms \(q0 1\.0[0-9] ms, q1 3\.0[0-9] ms\)'"
t "observe.smi_device_filter" "vgpu-smi -P -d $(basename "$node") | grep -q '^GPU 0 '"
wait $pid
# The device's modeled time (the cost model), in sysfs and in vgpu-smi.
t "observe.smi_shows_modeled_time" "[ \$(cat $sys/counters/modeled_ns) -gt 0 ] && vgpu-smi -P | grep -q '^  GPU time .* modeled, of it .* stalled on faults'"

t "observe.smi_loop_count" "[ \$(vgpu-smi -P -l 0.2 -n 3 | grep -c '^vgpu-smi ') = 3 ]"
vgpu-smi -P -l 1 > /dev/null &
spid=$!
sleep 0.5
kill -INT $spid
t "observe.smi_sigint_exits_0" "wait $spid"

pol=$(cat "$sys/eviction_policy")
t "observe.policy_bad_echo_refused" "! echo bogus 2>/dev/null > $sys/eviction_policy && [ \"\$(cat $sys/eviction_policy)\" = $pol ]"
t "observe.policy_echo_roundtrip" "echo $pol > $sys/eviction_policy && [ \"\$(cat $sys/eviction_policy)\" = $pol ]"

if [ -d "$dbg" ]; then
	t "observe.debugfs_reset" "echo 1 > $dbg/reset_counters && [ \$(cat $sys/counters/commands) -lt 100 ]"
	t "observe.debugfs_map" "grep -q '^fragmentation: ' $dbg/vram_mm && grep -q '^map: ' $dbg/vram_mm"
else
	tap_skip observe.debugfs_reset "no debugfs"
	tap_skip observe.debugfs_map "no debugfs"
fi
exit 0

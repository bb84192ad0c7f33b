#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Unload and reload vgpu.ko VGPU_RELOADS times (default 10; `make soak`
# runs 100), with the device busy between reloads: odd rounds run a job
# load to the end (copy+checksum through VRAM, eviction), even rounds start
# one with a job that hangs on its ring and kill the process while its jobs
# are in flight.  Each round the render node goes and comes back, and the
# driver reports all VRAM returned.  At the end nothing has leaked:
# unreclaimable slab (SUnreclaim, after dropping caches), measured from
# the end of the second reload (the first ones warm caches up by about
# 300 KiB), grew by less than 256 KiB plus VGPU_RELOAD_SLAB_KIB_PER
# (16 KiB) per later reload (noise is about 3 KiB per reload), the DRM
# core modules' reference counts and the number of DRM minors are what
# they were, and the device still answers.  vgpu-run fails the run on a
# dirty kernel log.  Prints TAP.
#
# Under kmemleak (the debug kernel) the leak check is kmemleak's instead:
# KASAN's quarantine keeps freed objects in slab, so SUnreclaim grows by
# hundreds of KiB there without a leak, while kmemleak names every
# unreferenced object.  Suspects from before the first reload are cleared.

. "$(dirname "$0")/lib/tap.sh"

reloads=${VGPU_RELOADS:-10}
per_kib=${VGPU_RELOAD_SLAB_KIB_PER:-16}

unreclaimable_kib() {
	sync
	echo 3 > /proc/sys/vm/drop_caches
	sleep 0.2
	awk '/^SUnreclaim:/ { print $2 }' /proc/meminfo
}

# Reference counts of the modules vgpu.ko uses (vgpu itself excluded).
core_refs() {
	awk '$1 ~ /^(drm|ttm|drm_ttm_helper|gpu_sched|drm_exec|drm_gpuvm|drm_buddy|gpu_buddy|drm_suballoc_helper)$/ { print $1, $3 }' /proc/modules | sort
}

minors() {
	ls /sys/class/drm | grep -c -E '^(card|renderD)[0-9]+$'
}

wait_node() {
	i=0
	while [ $i -lt 50 ]; do
		vgpu_param_test -r param.version_name_is_vgpu >/dev/null 2>&1 && return 0
		sleep 0.1
		i=$((i + 1))
	done
	return 1
}

busy_round() {
	if [ $(($1 % 2)) -eq 1 ]; then
		vgpu_exec_test -r exec.vram.copy_and_checksum \
			-r exec.vram.integrity_across_eviction >/dev/null 2>&1
		return
	fi
	# Jobs in flight, one of them hung, when the process (the harness
	# and the child it forks for the test: a group of their own) dies.
	setsid vgpu_exec_test -r exec.vram.hang_times_out_other_queues_carry_on \
		>/dev/null 2>&1 &
	pid=$!
	sleep 0.5
	kill -9 -- -$pid 2>/dev/null
	wait $pid 2>/dev/null
	return 0
}

# rmmod, retried while the killed processes are still closing their files
# (a close waits up to a second for its jobs).
unload() {
	i=0
	while ! rmmod vgpu 2>/dev/null; do
		i=$((i + 1))
		[ $i -lt 50 ] || return 1
		sleep 0.1
	done
}

echo "TAP version 13"
echo "1..9"
t "module_reload.loaded" "grep -q '^vgpu ' /proc/modules"

KMEMLEAK=/sys/kernel/debug/kmemleak
[ -w "$KMEMLEAK" ] || KMEMLEAK=

dmesg -c >/dev/null 2>&1
busy_round 1
[ -n "$KMEMLEAK" ] && echo clear > "$KMEMLEAK"
slab0=
refs0=$(core_refs)
minors0=$(minors)

failed=""
returned=0
r=1
start=$(date +%s)
while [ $r -le "$reloads" ]; do
	busy_round $r
	if ! unload; then
		failed="$failed rmmod@$r"
		break
	fi
	if grep -q '^vgpu ' /proc/modules || [ -e /sys/bus/pci/drivers/vgpu ]; then
		failed="$failed still-there@$r"
		break
	fi
	dmesg | grep -q 'VRAM manager: all VRAM returned' && returned=$((returned + 1))
	dmesg -c >/dev/null 2>&1
	if ! modprobe vgpu || ! wait_node; then
		failed="$failed reload@$r"
		break
	fi
	[ $r -eq 2 ] && slab0=$(unreclaimable_kib)
	[ $((r % 25)) -eq 0 ] && echo "# after $r reloads: SUnreclaim $(unreclaimable_kib) KiB"
	r=$((r + 1))
done
echo "# $((r - 1)) of $reloads reloads in $(($(date +%s) - start)) s${failed:+, failed:$failed}"
t "module_reload.reloads_$reloads" "[ -z '$failed' ] && [ $((r - 1)) -eq $reloads ]"
t "module_reload.vram_returned_every_time" "[ $returned -eq $reloads ]"

busy_round 1
if [ -n "$KMEMLEAK" ]; then
	# kmemleak reports an object only once it is 5 s old and was
	# unreferenced in two scans.
	# A scan kmemleak refuses (it turned itself off) fails the test.
	sleep 6
	scanned=1
	{ echo scan > "$KMEMLEAK" && echo scan > "$KMEMLEAK"; } 2>/dev/null || scanned=0
	leaks=$(grep -c '^unreferenced object' "$KMEMLEAK")
	echo "# kmemleak: $leaks unreferenced objects after $reloads reloads (scanned: $scanned)"
	head -n 40 "$KMEMLEAK" | sed 's/^/# /'
	t "module_reload.kmemleak_finds_nothing" "[ $scanned -eq 1 ] && [ $leaks -eq 0 ]"
else
	slab1=$(unreclaimable_kib)
	bound=$((256 + per_kib * (reloads - 2)))
	echo "# SUnreclaim ${slab0:-?} KiB after 2 reloads -> ${slab1} KiB after $reloads (bound +$bound KiB)"
	t "module_reload.no_slab_growth" "[ -n '$slab0' ] && [ $((slab1 - ${slab0:-0})) -lt $bound ]"
fi
t "module_reload.core_module_refs_unchanged" "[ \"\$(core_refs)\" = \"\$refs0\" ]"
t "module_reload.drm_minors_unchanged" "[ \$(minors) -eq $minors0 ]"
t "module_reload.unload" "rmmod vgpu && ! grep -q '^vgpu ' /proc/modules"
t "module_reload.reload" "modprobe vgpu && wait_node"
t "module_reload.device_answers" "vgpu_param_test >/dev/null 2>&1"
exit 0

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# check.sh - run the vgpu test tiers and print one summary line.
#
#   tests/check.sh [host] [host-units] [qtest] [guest] [clients]
#                  (default: host qtest guest; host-units is part of host,
#                   clients part of guest)
#
# Tier 0, host: `make install` into a DESTDIR, a libvgpu program built
#   with pkg-config against it, the installed QEMU starting with the
#   device, and a DKMS build of the installed module source against the
#   guest kernel's headers (tests/host/install.sh); the counter registry
#   against the documentation (tests/host/docs-counters.sh); the host unit
#   tests of libvgpu's device-free logic (tests/host/*_unit.c).
# Tier 1, qtest: the device's qtests (QEMU libqtest, TAP) and a short
#   fixed-seed run of the device fuzzer (one TAP line per seed).
# Tier 2, guest: the kselftest suites and guest scripts, run by
#   tools/vm/vgpu-run in fresh guests, once per kernel flavour and device
#   configuration below.  A guest run that fails as a whole (module load,
#   dirty kernel log, timeout) counts as one more failed test.
#   Two more small guests (1 GiB, one without swap and one with a swap
#   disk) run only the memory admission test, vgpu_admit_test: filling
#   memory until BO_CREATE fails must end in -ENOMEM, not the OOM killer.
#   Two more run one workload with the device in deterministic mode and
#   must give the same counters and modeled times.
#   Last, programs from outside the suite: a host-built libvgpu program
#   added to a guest (vgpu-run --add), and Debian's DRM clients in the
#   debian rootfs guest (vgpu-run --rootfs debian, built once and cached).
# Every TAP "ok" is a pass, "not ok" a failure, "ok ... # SKIP" a skip.
# The last line is "N passed, N failed" (", N skipped" when any); the exit
# status is non-zero when anything failed.

set -uo pipefail

. "$(dirname "$0")/../tools/lib/common.sh"
OUT=$TOP/build/check
mkdir -p "$OUT"
rm -f "$OUT"/*.tap "$OUT"/*.log

tiers=("$@")
[ ${#tiers[@]} -gt 0 ] || tiers=(host qtest guest)

# Guest configurations: "flavour vram visible [fuzz]".  Every guest runs
# the device in strict mode, so a stale-TLB use anywhere in the suite shows
# up in the strict counters that tests/guest/check-strict.sh asserts are
# zero.  128M behind 64M makes BOs larger than the non-visible part of VRAM.
# "fuzz" also runs the driver fuzzer (tests/guest/fuzz.sh) there for
# VGPU_FUZZ_SECONDS (default 60), with seed VGPU_FUZZ_SEED (default 1):
# once per kernel, where VRAM is small and BOs move all the time.
GUEST_CONFIGS=${VGPU_GUEST_CONFIGS:-"debian 64M 64M fuzz
debian 256M 256M
debian 256M 64M
debian 128M 64M"}
# The debug kernel runs the fuzzer too (VGPU_FUZZ_DEBUG=0 turns it off):
# its drm_syncobj carries tools/vm/debug-kernel-patches/0004-*, so there
# the fuzzer also passes the syncobj counts Linux 6.12 WARNs on.
if [ -x "$TOP/tools/vm/flavour-debug.sh" ] && [ "${VGPU_DEBUG_KERNEL:-1}" = 1 ]; then
	GUEST_CONFIGS+="
debug 128M 128M"
	[ "${VGPU_FUZZ_DEBUG:-1}" = 1 ] && GUEST_CONFIGS+=" fuzz"
fi

# Run one qtest-tier binary: $1 the name of its TAP and log files, the
# rest its command line.  A binary that fails without saying which test
# failed counts as one more failure.
run_qtest_binary() {
	local name=$1 st
	shift
	QTEST_QEMU_BINARY=$QBUILD/qemu-system-x86_64 timeout 600 "$@" \
		> "$OUT/$name.tap" 2> "$OUT/$name.log"
	st=$?
	grep -E '^(not )?ok ' "$OUT/$name.tap"
	if [ $st -ne 0 ] && ! grep -q '^not ok' "$OUT/$name.tap"; then
		echo "not ok - $name binary exited with status $st" | tee -a "$OUT/$name.tap"
		tail -n 20 "$OUT/$name.log"
	fi
}

# The device fuzzer's fixed seeds for the check (about 30 s); `make
# fuzz-device` runs it for longer.
FUZZ_DEVICE_SEEDS=${VGPU_FUZZ_DEVICE_SEEDS:-1,2,3,4}
FUZZ_DEVICE_PROGRAMS=${VGPU_FUZZ_DEVICE_PROGRAMS:-100}

run_qtest() {
	echo "== qtest: host-side device tests"
	run_qtest_binary qtest "$QBUILD/tests/qtest/vgpu-test" --tap -k
	echo "== qtest: device fuzzer, seeds $FUZZ_DEVICE_SEEDS"
	run_qtest_binary fuzz-device "$QBUILD/tests/qtest/vgpu-fuzz" --tap \
		--seeds "$FUZZ_DEVICE_SEEDS" --programs "$FUZZ_DEVICE_PROGRAMS"
	grep '^not ok' "$OUT/fuzz-device.tap" >/dev/null && tail -n 20 "$OUT/fuzz-device.log"
	return 0
}

# tests/host/libvgpu-pkgconfig.c, built against an installed libvgpu with
# nothing but its pkg-config file (dynamically linked against the host's
# libdrm).  The host tier builds it; the clients tier builds it itself when
# run alone.
LIBVGPU_PROGRAM=$OUT/libvgpu-pkgconfig
build_libvgpu_program() {
	local dest=$OUT/clients-dest pc
	make -s -C "$TOP" install-libvgpu DESTDIR="$dest" PREFIX=/usr || return
	pc=$dest/usr/lib/pkgconfig
	# shellcheck disable=SC2046
	gcc -std=c11 -Wall -Wextra -Werror -o "$LIBVGPU_PROGRAM" \
		"$TOP/tests/host/libvgpu-pkgconfig.c" \
		$(PKG_CONFIG_PATH=$pc pkg-config --cflags --libs libvgpu)
}

# Host: vgpu installed as a user gets it (tests/host/install.sh): make
# install into a DESTDIR, a libvgpu program built with pkg-config against
# it, the installed QEMU, a DKMS build of the installed source.
run_host() {
	echo "== host: make install, pkg-config, QEMU, DKMS; counters documented; bench anchors"
	"$TOP/tests/host/install.sh" "$OUT" | grep -E '^(not )?ok ' | tee "$OUT/host.tap"
	grep -q '^not ok' "$OUT/host.tap" && tail -n 40 "$OUT/host.log"
	"$TOP/tests/host/docs-counters.sh" "$OUT" | grep -E '^(not )?ok ' | tee "$OUT/docs.tap"
	grep -q '^not ok' "$OUT/docs.tap" && cat "$OUT/docs-counters.log"
	"$TOP/tests/host/anchors.sh" | tee "$OUT/anchors.tap"
	run_host_units
	return 0
}

# Host unit tests (tests/host/*_unit.c, `make host-units`): libvgpu logic
# that needs no device, each a kselftest-harness program printing TAP.  A
# program that fails to build, or exits non-zero without a "not ok" line,
# counts as one failure.
run_host_units() {
	local u name st
	echo "== host: unit tests"
	if ! make -s -C "$TOP" host-units > "$OUT/host-units.log" 2>&1; then
		echo "not ok - host unit tests: build failed" | tee "$OUT/host-units.tap"
		tail -n 20 "$OUT/host-units.log"
		return 0
	fi
	: > "$OUT/host-units.tap"
	for u in "$TOP"/build/host/*_unit; do
		name=$(basename "$u")
		"$u" > "$OUT/$name.log" 2>&1
		st=$?
		grep -E '^(not )?ok ' "$OUT/$name.log" | tee -a "$OUT/host-units.tap"
		if [ $st -ne 0 ]; then
			grep -q '^not ok' "$OUT/$name.log" ||
				echo "not ok - $name exited with status $st" | tee -a "$OUT/host-units.tap"
			grep '^#' "$OUT/$name.log" | tail -n 20
		fi
	done
}

# The TAP lines of guest run $1 ($OUT/$1.log), tagged [$2]; a run that
# failed as a whole (status $3) counts as one more failure.
guest_tap() {
	local name=$1 tag=$2 st=$3
	grep -E '^(not )?ok ' "$OUT/$name.log" | sed "s/^\(\(not \)\{0,1\}ok [0-9]*\)/\1 [$tag]/" |
		tee "$OUT/$name.tap"
	if [ "$st" -ne 0 ]; then
		echo "not ok - $name: guest run failed (status $st)" | tee -a "$OUT/$name.tap"
		grep -v -E '^(not )?ok ' "$OUT/$name.log" | tail -n 60
	else
		grep -B 30 '^not ok' "$OUT/$name.log" | grep '^#' | tail -n 60
	fi
}

# One guest configuration, "flavour vram visible [fuzz]": its header, its
# TAP lines (tagged) and, when it fails, what it printed.
run_guest_config() {
	local flavour=$1 vram=$2 visible=$3 extra=${4:-} name fuzz timeout
	name=guest-$flavour-$vram-$visible
	fuzz=()
	[ "$extra" = fuzz ] && fuzz=(--env "VGPU_FUZZ_SECONDS=${VGPU_FUZZ_SECONDS:-60}"
				    --env "VGPU_FUZZ_SEED=${VGPU_FUZZ_SEED:-1}")
	echo "== guest: $flavour kernel, VRAM $vram, CPU-visible $visible"
	# The debug kernel (KASAN, lockdep) runs KUnit and fault injection
	# as well, at a third of the speed.
	timeout=900
	[ "$flavour" = debian ] || timeout=2400
	if [ "$flavour" != debian ]; then
		"$TOP/tools/vm/flavour-$flavour.sh" build > "$OUT/$name.build.log" 2>&1 || {
			echo "not ok - $name: building the $flavour kernel failed" |
				tee "$OUT/$name.tap"
			tail -n 30 "$OUT/$name.build.log"
			return
		}
	fi
	"$TOP/tools/vm/vgpu-run" --kernel "$flavour" --vram "$vram" \
		--visible "$visible" --prop strict=on \
		--mem "${VGPU_GUEST_MEM:-2G}" \
		--timeout "${VGPU_GUEST_TIMEOUT:-$timeout}" "${fuzz[@]}" \
		--quiet-log -- sh tests/run-suite.sh \
		> "$OUT/$name.log" 2>&1
	guest_tap "$name" "$flavour,$vram,$visible" $?
}

# The configurations of other kernels than Debian's (the debug kernel,
# which alone takes longer than every other tier together) run in the
# background from the start, beside the host and qtest tiers and the
# Debian guests: each guest runs its vCPUs on one host thread, so two
# guests keep the two cores busy.  Their output is printed at the end of
# the guest tier.
GUEST_BG_PID=
start_guest_bg() {
	local flavour vram visible extra
	(
		while read -r flavour vram visible extra; do
			[ -n "$flavour" ] && [ "$flavour" != debian ] || continue
			run_guest_config "$flavour" "$vram" "$visible" "$extra"
		done <<< "$GUEST_CONFIGS"
	) > "$OUT/guest-bg.out" 2>&1 &
	GUEST_BG_PID=$!
}

run_guest() {
	local flavour vram visible extra
	while read -r flavour vram visible extra; do
		[ "$flavour" = debian ] || continue
		run_guest_config "$flavour" "$vram" "$visible" "$extra"
	done <<< "$GUEST_CONFIGS"
	run_admit "" admit-noswap
	run_admit 512M admit-swap
	run_deterministic
	run_clients
	if [ -n "$GUEST_BG_PID" ]; then
		wait "$GUEST_BG_PID"
		cat "$OUT/guest-bg.out"
	fi
}

# Programs that are not the suite's: the libvgpu program above, added to
# the busybox guest with --add (its shared libraries too), must run a job;
# in the debian rootfs guest, tests/rootfs/drm-clients.sh checks Debian's
# drmdevice, drm_info and python3 against the device (vgpu_hw.h's ids).
run_clients() {
	local prog=$LIBVGPU_PROGRAM id
	id=$(awk '$2 == "VGPU_PCI_VENDOR_ID" { v = $3 } $2 == "VGPU_PCI_DEVICE_ID" { d = $3 }
		END { printf "%04x:%04x", v, d }' "$TOP/drivers/gpu/drm/vgpu/vgpu_hw.h")
	echo "== guest: a host-built libvgpu program through --add"
	[ -x "$prog" ] || build_libvgpu_program > "$OUT/guest-added.log" 2>&1
	"$TOP/tools/vm/vgpu-run" --quiet-log --add "$prog" -- \
		sh -c 'out=$(libvgpu-pkgconfig) && echo "$out" && echo "$out" | grep -q "^ran a job" &&
			echo "ok 1 added.libvgpu_program_runs_a_job" ||
			echo "not ok 1 added.libvgpu_program_runs_a_job"' \
		>> "$OUT/guest-added.log" 2>&1
	guest_tap guest-added busybox,added $?
	echo "== guest: DRM clients in the debian rootfs"
	"$TOP/tools/vm/vgpu-run" --rootfs debian --quiet-log --env "VGPU_PCI_ID=$id" \
		--add "$TOP/tests/rootfs/drm-clients.sh:/vgpu/tests/" --out-dir "$OUT/rootfs" \
		--timeout "${VGPU_GUEST_TIMEOUT:-900}" -- sh tests/drm-clients.sh \
		> "$OUT/guest-rootfs.log" 2>&1
	guest_tap guest-rootfs debian $?
}

# The admission test alone in a 1 GiB guest (the suite's guests have 2 GiB
# and no swap), with a swap disk of $1 or none.
run_admit() {
	local swap=$1 name=guest-$2
	echo "== guest: memory admission, 1 GiB${swap:+, swap $swap}"
	"$TOP/tools/vm/vgpu-run" --vram 256M --prop strict=on --mem 1G \
		${swap:+--swap "$swap"} --timeout "${VGPU_GUEST_TIMEOUT:-900}" \
		--quiet-log -- vgpu_admit_test > "$OUT/$name.log" 2>&1
	guest_tap "$name" "$2" $?
}

# Deterministic mode (hardware.rst, "Deterministic mode"): the workload
# of tests/guest/deterministic.sh in two guests whose device has the
# property deterministic=on must give the same counters and modeled
# times, bit for bit.
run_deterministic() {
	local name=guest-deterministic i st=0 n
	echo "== guest: deterministic mode, one workload in two guests"
	for i in 1 2; do
		"$TOP/tools/vm/vgpu-run" --vram 64M --prop strict=on \
			--prop deterministic=on --mem 1G \
			--timeout "${VGPU_GUEST_TIMEOUT:-900}" --quiet-log \
			-- sh tests/deterministic.sh > "$OUT/$name-$i.log" 2>&1 || st=$?
		grep '^det ' "$OUT/$name-$i.log" > "$OUT/$name-$i.det"
	done
	{
		if [ "$st" -ne 0 ]; then
			echo "not ok - $name: guest run failed (status $st)"
		fi
		if grep -qx 'det deterministic 1' "$OUT/$name-1.det" &&
		   grep -qx 'det deterministic 1' "$OUT/$name-2.det"; then
			echo "ok 1 [deterministic] deterministic.mode_is_on"
		else
			echo "not ok 1 [deterministic] deterministic.mode_is_on"
		fi
		n=$(awk '$2 == "replay.faults" { print $3 }' "$OUT/$name-1.det")
		if ! grep -q '^det error' "$OUT/$name-1.det" "$OUT/$name-2.det" &&
		   [ "${n:-0}" -gt 0 ]; then
			echo "ok 2 [deterministic] deterministic.workload_ran ($n faults)"
		else
			echo "not ok 2 [deterministic] deterministic.workload_ran"
		fi
		n=$(wc -l < "$OUT/$name-1.det")
		if [ "$n" -gt 20 ] && cmp -s "$OUT/$name-1.det" "$OUT/$name-2.det"; then
			echo "ok 3 [deterministic] deterministic.same_counters_twice ($n values)"
		else
			echo "not ok 3 [deterministic] deterministic.same_counters_twice"
			diff "$OUT/$name-1.det" "$OUT/$name-2.det" | sed 's/^/# /'
		fi
	} | tee "$OUT/$name.tap"
	[ "$st" -eq 0 ] || tail -n 60 "$OUT/$name-2.log"
}

for t in "${tiers[@]}"; do
	[ "$t" = guest ] && start_guest_bg
done
for t in "${tiers[@]}"; do
	case $t in
	host) run_host ;;
	host-units) run_host_units ;;
	qtest) run_qtest ;;
	guest) run_guest ;;
	clients) run_clients ;;
	*) echo "unknown tier $t" >&2; exit 2 ;;
	esac
done

cat "$OUT"/*.tap 2>/dev/null | awk '
	/^not ok/ { failed++; next }
	/^ok .*# [Ss][Kk][Ii][Pp]/ { skipped++; next }
	/^ok/ { passed++ }
	END {
		line = sprintf("%d passed, %d failed", passed, failed)
		if (skipped) line = line sprintf(", %d skipped", skipped)
		print line
		exit failed ? 1 : 0
	}'

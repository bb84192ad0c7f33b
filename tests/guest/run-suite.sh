#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Run every guest test program and script; each prints TAP.  Always exits 0:
# the host counts the TAP lines, and a non-zero guest status is kept for
# infrastructure failures (module load, dirty log, timeout).  After each
# suite a "# suite NAME: N s" comment says how long it took (guest time).

# Programs that reset or unplug the device (which zeroes its counters) run
# after the strict-mode check, which reads the counters the others left.

late="bin/vgpu_robust_test"

uptime_s() { cut -d. -f1 /proc/uptime; }

# suite NAME CMD...: run one suite, timed.
suite() {
	name=$1
	shift
	echo "# suite: $name"
	t0=$(uptime_s)
	"$@"
	echo "# suite $name: $(($(uptime_s) - t0)) s"
}

cd /vgpu
for t in bin/*_test; do
	[ -x "$t" ] || continue
	case " $late " in *" $t "*) continue ;; esac
	suite "${t#bin/}" "$t"
done
suite check-strict.sh sh tests/check-strict.sh
for t in $late; do
	suite "${t#bin/}" "$t"
done
for s in tests/*.sh; do
	# deterministic.sh is no test of its own: tests/check.sh runs it in
	# two guests of their own and compares what it prints.
	case "$s" in tests/run-suite.sh|tests/check-strict.sh|tests/deterministic.sh) continue ;; esac
	suite "${s#tests/}" sh "$s"
done
if [ "$VGPU_KERNEL" = debug ]; then
	for s in tools/kunit.sh tools/fault-inject.sh; do
		suite "${s#tools/}" sh "$s"
	done
fi
exit 0

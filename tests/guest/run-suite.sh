#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Run every guest test program and script; each prints TAP.  Always exits 0:
# the host counts the TAP lines, and a non-zero guest status is kept for
# infrastructure failures (module load, dirty log, timeout).

# Programs that reset or unplug the device (which zeroes its counters) run
# after the strict-mode check, which reads the counters the others left.

late="bin/vgpu_robust_test"

cd /vgpu
for t in bin/*_test; do
	[ -x "$t" ] || continue
	case " $late " in *" $t "*) continue ;; esac
	echo "# suite: ${t#bin/}"
	"$t"
done
echo "# suite: check-strict.sh"
sh tests/check-strict.sh
for t in $late; do
	echo "# suite: ${t#bin/}"
	"$t"
done
for s in tests/*.sh; do
	case "$s" in tests/run-suite.sh|tests/check-strict.sh) continue ;; esac
	echo "# suite: ${s#tests/}"
	sh "$s"
done
# The debug kernel's tiers: KUnit, then fault injection last, because it
# unloads and reloads the module.
if [ "$VGPU_KERNEL" = debug ]; then
	for s in tools/kunit.sh tools/fault-inject.sh; do
		echo "# suite: ${s#tools/}"
		sh "$s"
	done
fi
exit 0

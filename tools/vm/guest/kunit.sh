#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# kunit.sh - run vgpu's KUnit suites in the guest and print TAP.
#
# Usage (in a debug-kernel guest): sh kunit.sh [MODULE]
#
# Loads MODULE (default vgpu_kunit), whose suites KUnit runs at load time,
# reads /sys/kernel/debug/kunit/vgpu*/results and prints one TAP line per
# test case, "ok N suite.case" or "not ok N suite.case" (with the case's
# KUnit log as "# " lines), then "1..N", then unloads the module.  Skips
# with one "ok 1 ... # SKIP" line on a kernel without KUnit (Debian's).
# Exit status: 0 if every case passed or was skipped, 1 otherwise.

. "$(dirname "$0")/../tests/lib/tap.sh"

mod=${1:-vgpu_kunit}
dbg=/sys/kernel/debug

[ -d $dbg/kunit ] || mount -t debugfs debugfs $dbg 2>/dev/null
if [ ! -d $dbg/kunit ]; then
	tap_skip kunit "kernel $(uname -r) has no KUnit (CONFIG_KUNIT_DEBUGFS)"
	echo "1..$n"
	exit 0
fi

# A left-over instance would hold stale results.
rmmod "$mod" 2>/dev/null

if ! modprobe "$mod" 2>/tmp/kunit-load.err; then
	ko=$(find /lib/modules/"$(uname -r)" -name "$mod.ko" 2>/dev/null | head -n1)
	if [ -z "$ko" ] || ! insmod "$ko" 2>>/tmp/kunit-load.err; then
		tap_result not-ok "$mod: load failed"
		sed 's/^/# /' /tmp/kunit-load.err
		echo "1..$n"
		exit 1
	fi
fi

# KUnit runs the suites synchronously in the module's init, so the results
# are complete once the load returns.
for dir in $dbg/kunit/vgpu*; do
	[ -r "$dir/results" ] || continue
	suite=${dir##*/}
	out=$(awk -v suite="$suite" -v base="$n" '
		# Case-level results are indented by exactly four spaces;
		# parameter results (eight) and the suite line (none) are not
		# counted.  The log of a case precedes its result line.
		/^    (not )?ok [0-9]+ / && !/^     / {
			line = $0
			sub(/^    /, "", line)
			notok = (line ~ /^not ok/)
			sub(/^(not )?ok [0-9]+ /, "", line)
			n++
			printf "%sok %d %s.%s\n", notok ? "not " : "", base + n, suite, line
			if (notok)
				printf "%s", msgs
			msgs = ""
			next
		}
		# Keep the diagnostics of a case, minus KTAP framing and the
		# parameters that passed.
		/^ +(KTAP version|# Subtest:|1\.\.[0-9]|ok [0-9]+ )/ { next }
		/^    / { l = $0; sub(/^ +/, "", l); msgs = msgs "# " l "\n" }
		END { printf "COUNT %d\n", n }
	' "$dir/results")
	echo "$out" | grep -v '^COUNT '
	c=$(echo "$out" | sed -n 's/^COUNT //p')
	n=$((n + ${c:-0}))
	if echo "$out" | grep -q '^not ok'; then
		fail=1
	fi
	if [ "${c:-0}" = 0 ]; then
		tap_result not-ok "$suite: no test results"
		sed 's/^/# /' "$dir/results"
	fi
done

if [ "$n" = 0 ]; then
	tap_result not-ok "$mod: no vgpu KUnit suites registered"
fi
echo "1..$n"

rmmod "$mod" || fail=1
exit $fail

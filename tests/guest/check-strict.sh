#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# After every test program has run (and before any script reloads the
# module, which resets the device): the device's strict-mode counters
# (stale TLB uses, work on an invalid context root) must still be zero.
# Meaningful when the guest runs with --prop strict=on; otherwise the
# counters stay zero by construction and the test says so.  Prints TAP.

. "$(dirname "$0")/lib/tap.sh"

echo "TAP version 13"
echo "1..1"
if vgpu_exec_test -r exec.vram.strict_counters_stay_zero >/tmp/strict.log 2>&1; then
	grep 'stale TLB' /tmp/strict.log | sed 's/^#.*counters_stay_zero:/# /'
	tap_result ok strict.counters_zero_after_suite
else
	grep "^#" /tmp/strict.log
	tap_result not-ok strict.counters_zero_after_suite
fi
exit 0

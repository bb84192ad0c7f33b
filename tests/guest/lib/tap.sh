# SPDX-License-Identifier: GPL-2.0
#
# TAP helpers for the guest scripts.  Sourced, not run (run-suite.sh runs
# tests/*.sh only):  . "$(dirname "$0")/lib/tap.sh"
#
# t NAME EXPR: evaluate EXPR with eval; print "ok N NAME" or "not ok N NAME"
# and set fail=1 on failure.

n=0
fail=0
t() {
	n=$((n + 1))
	if eval "$2"; then
		echo "ok $n $1"
	else
		echo "not ok $n $1"
		fail=1
	fi
}

# SPDX-License-Identifier: GPL-2.0
#
# TAP helpers for the guest scripts (busybox sh).  Sourced, not run
# (run-suite.sh runs tests/*.sh only):  . "$(dirname "$0")/lib/tap.sh"
#
# tap_result ok|not-ok NAME [DIRECTIVE]
#              print "ok N NAME" or "not ok N NAME" (with " # DIRECTIVE"
#              when given) for the next N; not-ok sets fail=1
# tap_skip NAME REASON   "ok N NAME # SKIP REASON"
# t NAME EXPR  evaluate EXPR with eval: ok if it is true, else not ok
# diag MSG...  a "# MSG" line
# The caller prints the plan ("1..N"; N is $n after the last test).

n=0
fail=0
tap_result() {
	n=$((n + 1))
	if [ "$1" = ok ]; then
		echo "ok $n $2${3:+ # $3}"
	else
		echo "not ok $n $2${3:+ # $3}"
		fail=1
	fi
}
tap_skip() { tap_result ok "$1" "SKIP $2"; }
t() {
	if eval "$2"; then
		tap_result ok "$1"
	else
		tap_result not-ok "$1"
	fi
}
diag() { echo "# $*"; }

# SPDX-License-Identifier: GPL-2.0
#
# What makes a kernel log dirty: one extended regular expression, read by
# tools/vm/vgpu-run on the host (through tools/lib/common.sh), which fails
# a guest run whose log matches it, and by the guest scripts that check
# the log of one step (busybox sh).  Sourced, not run:
#   . "$(dirname "$0")/lib/klog.sh"
#
# WARN, BUG, Oops, KASAN, UBSAN, lockdep, hung tasks and soft lockups, RCU
# stalls, kmemleak's reports (not "kmemleak:" alone: kmemleak says so
# harmlessly when an injected failure hits its own bookkeeping),
# DEBUG_OBJECTS, list corruption, sleeping in atomic context, a module the
# kernel could not load, a panic, the OOM killer.

KLOG_DIRTY='WARNING:|BUG:|Oops|general protection|Call Trace|KASAN|UBSAN|possible circular locking|possible recursive locking|INFO: possible|INFO: task .* blocked|soft lockup|rcu.*stall|kmemleak: .* new suspected|ODEBUG:|list_del corruption|list_add corruption|sleeping function called from invalid context|Invalid ELF header|Kernel panic|Out of memory|oom-kill'

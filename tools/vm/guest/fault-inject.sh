#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# fault-inject.sh - fail every allocation on vgpu's driver paths, one at a
# time, and check that each failure ends cleanly.  Prints TAP.
#
# Usage (in a debug-kernel guest, vgpu.ko loaded):
#   sh fault-inject.sh [TEST...]      default: all tests, in this order
#
#   probe        sweep device probe (unbind, then bind under injection)
#   open         sweep open() of the render node
#   get-param    sweep DRM_IOCTL_VGPU_GET_PARAM
#   bo-create    sweep BO_CREATE + GEM_CLOSE, VRAM and system placements
#   bo-mmap      sweep mmap() of a BO and CPU faults on every page
#   vm-bind      sweep VM_BIND MAP + UNMAP of a 2 MiB BO
#   exec         sweep EXEC of a FILL on a bound BO, and its fence wait
#   close        sweep close() of a file with live mappings, then force
#                evictions from another file
#   random       probabilistic: failslab + fail_page_alloc at 10%, limited
#                to the test process by task-filter/make-it-fail, over
#                bind/unbind, open and ioctl loops
#   reload       rmmod + modprobe vgpu after all of the above
#
# An ioctl sweep whose operation fails even without injection (an ioctl
# not implemented yet, say) is skipped, saying so.
#
# A sweep runs the operation with /proc/<tid>/fail-nth = 1, 2, 3, ...:
# run N makes the Nth allocation the operation reaches fail (failslab and
# fail_page_alloc, sleeping allocations included), until a run completes
# without reaching N.  Only allocations made with a vgpu.ko function on
# the stack count (stack filter ranges,
# CONFIG_FAULT_INJECTION_STACKTRACE_FILTER), which keeps the sweep on
# vgpu's paths, what vgpu calls (DRM, TTM, PCI core) included.  One code
# range is excluded as well, per test:
#  - probe: the ACPI interpreter, which is not robust against failed
#    allocations (use-after-free of AML operands when the _PRT evaluation
#    in pci_enable_device() fails; not ours to fix);
#  - ioctls: vmalloc's internals (__vmalloc_node_range_noprof()), whose
#    failures print a stack dump (warn_alloc) that would make the log
#    dirty although the caller handles them; kvmalloc()'s kmalloc attempt
#    is still failed.  Each run must either succeed (the failure was
# absorbed) or return an errno; a probe that failed must leave the device
# unbound, and a later bind must succeed.  Each test also fails on a new
# WARNING/BUG/KASAN/lockdep/ODEBUG line in the kernel log; the launcher
# adds a kmemleak scan at the end.  Each sweep prints one "# " line with
# the number of injection points visited and the errnos returned.
#
# Environment: FI_MAX (sweep limit, default 3000), FI_STEP (visit every
# FI_STEP-th injection point from a random start, default 1),
# FI_PROBE_STEP (the same for the probe sweep, which has hundreds of
# points at about 1.5 s each under TCG: default 8), FI_HELPER (default
# vgpu-failnth on PATH or beside this script).  Skips on kernels without
# fault injection (Debian's).  Note: reads and clears the kernel ring
# buffer (dmesg -c); what it clears is kept in /tmp/fault-inject.dmesg
# and the console log has everything.

FI_MAX=${FI_MAX:-3000}
FI_STEP=${FI_STEP:-1}
FI_PROBE_STEP=${FI_PROBE_STEP:-8}
dbg=/sys/kernel/debug
drv=/sys/bus/pci/drivers/vgpu
here=$(cd "$(dirname "$0")" && pwd)
helper=${FI_HELPER:-$(command -v vgpu-failnth || echo "$here/vgpu-failnth")}
# TAP, and what the launcher counts as a dirty log (KLOG_DIRTY): the guest
# script library, in /vgpu/tests/lib.
. "$here/../tests/lib/tap.sh"
. "$here/../tests/lib/klog.sh"

[ -d $dbg/failslab ] || mount -t debugfs debugfs $dbg 2>/dev/null
if [ ! -d $dbg/failslab ] || [ ! -d $dbg/fail_page_alloc ] ||
   [ ! -e /proc/self/fail-nth ]; then
	tap_skip fault-inject "kernel $(uname -r) has no failslab/fail_page_alloc"
	echo "1..$n"
	exit 0
fi
if [ ! -x "$helper" ]; then
	tap_result not-ok "fault-inject: helper vgpu-failnth not found"
	echo "1..$n"
	exit 1
fi

# ---- configuration -------------------------------------------------------

# Both capabilities: sleeping allocations included, no size/order limits,
# quiet (a stack dump per injected fault would drown the log), and, for
# the probabilistic test, only tasks with make-it-fail set.
fi_defaults() {
	for a in failslab fail_page_alloc; do
		echo 0 > $dbg/$a/probability
		echo 1 > $dbg/$a/interval
		echo -1 > $dbg/$a/times
		echo 0 > $dbg/$a/space
		echo 0 > $dbg/$a/verbose
		echo Y > $dbg/$a/task-filter
		echo N > $dbg/$a/ignore-gfp-wait
	done
	echo N > $dbg/failslab/cache-filter
	echo N > $dbg/fail_page_alloc/ignore-gfp-highmem
	echo 0 > $dbg/fail_page_alloc/min-order
	fi_ranges
}

# "start end" of the ACPI code in the kernel text (ACPICA and the ACPI
# drivers linked around it), from /proc/kallsyms; empty without ACPI.
acpi_range=$(awk '
	$3 == "_stext" { text = $1 } $3 == "_etext" { etext = $1 }
	$2 ~ /^[tT]$/ && $3 ~ /^acpi_(ds|ev|ex|hw|ns|ps|rs|tb|ut)_/ { a[++n] = $1 }
	END {
		for (i = 1; i <= n; i++) {
			if (a[i] < text || a[i] >= etext) continue
			if (lo == "" || a[i] < lo) lo = a[i]
			if (hi == "" || a[i] > hi) hi = a[i]
		}
		# hi is the start of the last function: reach past its end
		if (lo != "") print "0x" lo, "0x" substr(hi, 1, 12) "ffff"
	}' /proc/kallsyms 2>/dev/null)

# "start end" of __vmalloc_node_range_noprof(): up to the next text symbol.
vmalloc_range=$(awk '
	$2 ~ /^[tT]$/ && $3 == "__vmalloc_node_range_noprof" { start = $1 }
	$2 ~ /^[tT]$/ && $4 == "" { a[++n] = $1 }
	END {
		if (start == "") exit
		for (i = 1; i <= n; i++)
			if (a[i] > start && (end == "" || a[i] < end)) end = a[i]
		if (end != "") print "0x" start, "0x" end
	}' /proc/kallsyms 2>/dev/null)

# "start end" of vgpu.ko in memory: text base and total size from
# /proc/modules (the range may cover vgpu's data too, which no return
# address points into).  Module space is in the top 2 GiB, so the upper
# 32 bits are all ones and the sum is done on the lower half.
vgpu_range() {
	awk '$1 == "vgpu" { print $6, $2 }' /proc/modules | {
		read base size || return
		lo=$(echo "$base" | cut -c11-18)
		printf '%s 0xffffffff%08x\n' "$base" $((0x$lo + size))
	}
}

fi_ranges() {
	rs=0 re=0xffffffffffffffff js=0 je=0
	if [ -n "${FI_CONFINE:-}" ]; then
		set -- $(vgpu_range)
		[ $# = 2 ] && rs=$1 re=$2
		case ${FI_REJECT:-acpi} in
		acpi)		set -- $acpi_range ;;
		vmalloc)	set -- $vmalloc_range ;;
		esac
		[ $# = 2 ] && js=$1 je=$2
	fi
	for a in failslab fail_page_alloc; do
		[ -e $dbg/$a/require-start ] || continue
		echo 32 > $dbg/$a/stacktrace-depth
		echo $rs > $dbg/$a/require-start
		echo $re > $dbg/$a/require-end
		echo $js > $dbg/$a/reject-start
		echo $je > $dbg/$a/reject-end
	done
}

# Restrict injection to one capability: fail-nth counts every enabled
# injection point, so disable the other one outright.
fi_only() {
	FI_CONFINE=1
	fi_defaults
	case $1 in
	failslab)	echo 64 > $dbg/fail_page_alloc/min-order ;;
	fail_page_alloc) echo Y > $dbg/failslab/cache-filter ;;
	both)		;;
	esac
}

fi_off() {
	FI_CONFINE=
	fi_defaults
	echo 0 > $dbg/failslab/probability
	echo 0 > $dbg/fail_page_alloc/probability
}

# ---- kernel log ----------------------------------------------------------

dmesg -c >> /tmp/fault-inject.dmesg 2>/dev/null

# Prints new splat lines (and keeps the full new log); true if any.
new_splats() {
	dmesg -c > /tmp/fi.new 2>/dev/null
	cat /tmp/fi.new >> /tmp/fault-inject.dmesg
	grep -E "$KLOG_DIRTY" /tmp/fi.new | head -n 20 | sed 's/^/#   /'
	grep -qE "$KLOG_DIRTY" /tmp/fi.new
}

# ---- the device ----------------------------------------------------------

if [ ! -d $drv ]; then
	modprobe vgpu || { tap_result not-ok "fault-inject: modprobe vgpu"; echo "1..$n"; exit 1; }
fi
bdf=
for d in $drv/0000:*; do
	[ -e "$d" ] && bdf=${d##*/} && break
done
if [ -z "$bdf" ]; then
	tap_result not-ok "fault-inject: no device bound to vgpu"
	echo "1..$n"
	exit 1
fi

render_node() {
	for r in /sys/bus/pci/devices/$bdf/drm/renderD*; do
		[ -e "$r" ] && echo "/dev/dri/${r##*/}" && return 0
	done
	return 1
}

# The render minor registered in sysfs is what the driver promises; the
# /dev node is devtmpfs's, and the driver core ignores a failure to create
# it (device_add() does not check devtmpfs_create_node()), which injection
# into the probing task can cause.  Create a missing node from sysfs, as
# udev would, rather than blame the driver for it.
wait_render_node() {
	i=0
	while ! node=$(render_node); do
		i=$((i + 1))
		[ $i -gt 50 ] && return 1
		sleep 0.1
	done
	if [ ! -e "$node" ]; then
		sleep 0.5
		if [ ! -e "$node" ]; then
			mm=$(cat "/sys/bus/pci/devices/$bdf/drm/${node##*/}/dev") || return 1
			mkdir -p /dev/dri
			mknod "$node" c "${mm%%:*}" "${mm##*:}" || return 1
			diag "  ${node##*/}: devtmpfs did not create the node; made it from sysfs" >&2
		fi
	fi
	echo "$node"
}

bound() { [ -e $drv/$bdf ]; }

# ---- sweeps --------------------------------------------------------------

# sweep NAME CAPABILITY AFTER_EACH OP ARGS...   (uses $step)
# Runs the helper with -n 1, 2, ... until it reports fired=0.  AFTER_EACH
# is a shell function called with the helper's exit status after each run;
# it returns non-zero to flag a broken state.
sweep() {
	name=$1 cap=$2 after=$3
	shift 3
	fi_only "$cap"
	# with a step > 1, start at a random offset so that runs differ
	k=$((0 - ${RANDOM:-0} % step)) errs= bad= done=
	while [ $k -lt "$FI_MAX" ]; do
		k=$((k + step))
		res=$("$helper" -n $k "$@" 2>&1)
		rc=$?
		case $res in
		*fired=0*) done=1 ;;
		esac
		if [ $rc -gt 1 ]; then
			bad="helper: status $rc: $res"
			break
		fi
		if [ $rc = 1 ]; then
			e=${res#result=}
			e=${e%% *}
			case ",$errs," in *",$e,"*) ;; *) errs=${errs:+$errs,}$e ;; esac
		fi
		if ! $after $rc; then
			bad="run $k ($res): $state"
			break
		fi
		if [ -n "$done" ] && [ $rc != 0 ]; then
			bad="run $k failed without an injected fault: $res"
			break
		fi
		[ -n "$done" ] && break
	done
	fi_off
	diag "$name ($cap): $((k - 1)) injection points$([ "$step" = 1 ] || echo " (every ${step}th)"), errors returned: ${errs:-none}"
	if [ -n "$bad" ]; then
		tap_result not-ok "fault-inject $name ($cap)"
		diag "  $bad"
		# A helper killed by the kernel (oops) may have died holding
		# locks that every further test would block on: stop here.
		if [ $rc -gt 2 ] || new_splats; then
			echo "1..$n"
			exit 1
		fi
	elif [ -z "$done" ]; then
		tap_result not-ok "fault-inject $name ($cap)"
		diag "  did not finish within FI_MAX=$FI_MAX injection points"
	elif new_splats; then
		tap_result not-ok "fault-inject $name ($cap): kernel log splat"
	else
		tap_result ok "fault-inject $name ($cap)"
	fi
}

# After a bind attempt: failed -> still unbound; succeeded -> bound, with a
# render node; then unbind for the next run.
after_bind() {
	if [ "$1" = 0 ]; then
		if ! bound; then state="bind returned success, device unbound"; return 1; fi
		if ! wait_render_node > /dev/null; then state="bound without a render node"; return 1; fi
		echo "$bdf" > $drv/unbind || { state="unbind failed"; return 1; }
	elif bound; then
		state="bind failed but the device is bound"
		return 1
	fi
	return 0
}

after_nothing() { return 0; }

test_probe() {
	for cap in failslab fail_page_alloc; do
		echo "$bdf" > $drv/unbind || { tap_result not-ok "fault-inject probe: unbind"; return; }
		step=$FI_PROBE_STEP FI_REJECT=acpi
		sweep probe $cap after_bind write $drv/bind "$bdf"
		bound || echo "$bdf" > $drv/bind
		if ! bound || ! wait_render_node > /dev/null; then
			tap_result not-ok "fault-inject probe ($cap): clean bind afterwards"
			return
		fi
	done
}

test_open() {
	node=$(wait_render_node) || { tap_result not-ok "fault-inject open: no render node"; return; }
	step=$FI_STEP FI_REJECT=vmalloc
	for cap in failslab fail_page_alloc; do
		sweep open $cap after_nothing open "$node"
	done
}

# test_op NAME OP [ARG...]: sweep a helper operation on the render node
# (passed as its first argument), both capabilities.
test_op() {
	name=$1 op=$2
	shift 2
	node=$(wait_render_node) || { tap_result not-ok "fault-inject $name: no render node"; return; }
	fi_off
	if ! res=$("$helper" "$op" "$node" "$@" 2>&1); then
		tap_skip "fault-inject $name" "fails without injection: $res"
		return
	fi
	step=$FI_STEP FI_REJECT=vmalloc
	for cap in failslab fail_page_alloc; do
		sweep "$name" $cap after_nothing "$op" "$node" "$@"
	done
}

# Probabilistic injection limited to the helper's task (task-filter):
# every allocation fails with probability 10%.
test_random() {
	node=$(wait_render_node) || { tap_result not-ok "fault-inject random: no render node"; return; }
	FI_REJECT=vmalloc
	fi_only both
	echo 10 > $dbg/failslab/probability
	echo 10 > $dbg/fail_page_alloc/probability
	# the helper sets make-it-fail around the operations only
	out=$(
		"$helper" -m -r 200 open "$node" 2>&1
		"$helper" -m -r 200 get-param "$node" 2>&1
		"$helper" -m -r 50 bo-create "$node" both 2>&1
		"$helper" -m -r 50 vm-bind "$node" vram 2>&1
		"$helper" -m -r 20 exec "$node" vram 2>&1
	)
	FI_REJECT=acpi
	fi_only both
	echo 10 > $dbg/failslab/probability
	echo 10 > $dbg/fail_page_alloc/probability
	binds=$(
		# make-it-fail is inherited: unbind and bind under it
		echo 1 > /proc/self/make-it-fail
		i=0 ok=0
		while [ $i -lt 20 ]; do
			echo "$bdf" > $drv/unbind 2>/dev/null
			"$helper" write $drv/bind "$bdf" >/dev/null 2>&1 && ok=$((ok + 1))
			i=$((i + 1))
		done
		echo "binds=$i ok=$ok"
	)
	fi_off
	echo "$out" | sed 's/^/# random: /'
	echo "# random: $binds"
	bound || echo "$bdf" > $drv/bind
	if ! bound || ! wait_render_node > /dev/null; then
		tap_result not-ok "fault-inject random: device usable afterwards"
	elif new_splats; then
		tap_result not-ok "fault-inject random: kernel log splat"
	else
		tap_result ok "fault-inject random (failslab + fail_page_alloc, 10%, task-filter)"
	fi
}

test_reload() {
	if ! rmmod vgpu; then
		tap_result not-ok "fault-inject reload: rmmod vgpu"
		return
	fi
	if ! modprobe vgpu || ! wait_render_node > /dev/null; then
		tap_result not-ok "fault-inject reload: modprobe vgpu"
		return
	fi
	if new_splats; then
		tap_result not-ok "fault-inject reload: kernel log splat"
	else
		tap_result ok "fault-inject reload"
	fi
}

[ $# -gt 0 ] || set -- probe open get-param bo-create bo-mmap vm-bind exec close random reload
fi_off
for t in "$@"; do
	case $t in
	probe)		test_probe ;;
	open)		test_open ;;
	get-param)	test_op get-param get-param ;;
	bo-create)	test_op "bo-create vram" bo-create vram
			test_op "bo-create system" bo-create system ;;
	bo-mmap)	test_op "bo-mmap vram" bo-mmap vram
			test_op "bo-mmap system" bo-mmap system ;;
	vm-bind)	test_op "vm-bind vram" vm-bind vram
			test_op "vm-bind system" vm-bind system ;;
	exec)		test_op "exec vram" exec vram ;;
	close)		test_op "close vram" close vram ;;
	random)		test_random ;;
	reload)		test_reload ;;
	*)		tap_result not-ok "fault-inject: unknown test '$t'" ;;
	esac
done
fi_off
echo "1..$n"
exit $fail

#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The driver fuzzer (tools/vgpu-fuzz) for VGPU_FUZZ_SECONDS seconds, as an
# unprivileged user: the render node is given to group FUZZ_GID, and
# vgpu-fuzz drops to FUZZ_UID:FUZZ_GID before it opens it.  Runs only when
# VGPU_FUZZ_SECONDS is set (tests/check.sh sets it in one configuration
# per kernel, `make fuzz` for its run); otherwise it plans no test.
# VGPU_FUZZ_SEED picks the seed (default: a random one), VGPU_FUZZ_ARGS
# adds options.  On the debug kernel (VGPU_KERNEL=debug), whose
# drm_syncobj carries the fix, vgpu-fuzz also passes the huge syncobj
# counts that Linux 6.12 WARNs on.  Prints TAP; the fuzzer's own output
# as comments.

. "$(dirname "$0")/lib/tap.sh"
. "$(dirname "$0")/lib/klog.sh"

if [ -z "${VGPU_FUZZ_SECONDS:-}" ]; then
	echo "1..0 # SKIP VGPU_FUZZ_SECONDS not set"
	exit 0
fi

FUZZ_UID=${FUZZ_UID:-65534}
FUZZ_GID=${FUZZ_GID:-65534}
out=/tmp/fuzz.out
seed=${VGPU_FUZZ_SEED:+--seed $VGPU_FUZZ_SEED}

echo "TAP version 13"
echo "1..4"

# busybox's init mounts devtmpfs: the node is root's, mode 0600.
t "fuzz.render_node_for_group" \
	"chgrp $FUZZ_GID /dev/dri/renderD* && chmod 0660 /dev/dri/renderD*"

log_before=$(dmesg | wc -l)
# shellcheck disable=SC2086
vgpu-fuzz --seconds "$VGPU_FUZZ_SECONDS" --user "$FUZZ_UID:$FUZZ_GID" \
	$seed ${VGPU_FUZZ_ARGS:-} > "$out" 2>&1
status=$?
sed 's/^/# /' "$out"

t "fuzz.ran_unprivileged" "grep -q 'as uid $FUZZ_UID gid $FUZZ_GID' '$out'"
t "fuzz.no_findings" "[ $status = 0 ] && grep -q '^vgpu-fuzz: 0 findings' '$out'"
t "fuzz.kernel_log_clean" \
	"! dmesg | tail -n +$((log_before + 1)) | grep -E \"\$KLOG_DIRTY\""
exit 0

#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The examples of tools/examples/ (vgpu-example-*): vecadd and stencil
# compute on managed memory larger than VRAM, svm on malloc'd memory as
# large as VRAM mirrored at its own address; each checks its result and
# exits 0 only when it is right.  One TAP line per example; its output
# goes to "#" lines.

. "$(dirname "$0")/lib/tap.sh"

cd /vgpu
set -- bin/vgpu-example-*
echo "TAP version 13"
echo "1..$#"
for e in "$@"; do
	name=examples.${e#bin/vgpu-example-}
	if [ ! -x "$e" ]; then
		tap_result not-ok "$name" "not built"
		continue
	fi
	out=$("$e" 2>&1)
	st=$?
	echo "$out" | sed 's/^/# /'
	if [ $st -eq 0 ] && echo "$out" | grep -q ': ok$'; then
		tap_result ok "$name"
	else
		diag "$e exited with status $st"
		tap_result not-ok "$name"
	fi
done
exit 0

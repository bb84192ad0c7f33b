#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# demo.sh - the story `make demo` tells, on one screen: a guest boots with
# the vgpu device, the driver comes up, a workload oversubscribes VRAM 2x
# under each eviction policy, vgpu-smi watches it, a summary compares the
# runs, and the oversubscription sweep is plotted to a PNG on the host.
#
# VGPU_DEMO_VRAM sizes the device (default 64M: small VRAM keeps the demo
# under three minutes under TCG).  Files land in build/demo/.

set -euo pipefail
TOP=$(cd "$(dirname "$0")/../.." && pwd)
VRAM=${VGPU_DEMO_VRAM:-64M}
OUT=$TOP/build/demo
mkdir -p "$OUT"
rm -f "$OUT/oversub.csv" "$OUT/oversub.png"

echo "vgpu demo: Debian's 6.12 kernel under QEMU (TCG) with a vgpu of $VRAM VRAM; vgpu.ko loads at boot"
echo
start=$(date +%s)
"$TOP/tools/vm/vgpu-run" --vram "$VRAM" --mem 1G --timeout 600 --quiet-log \
	--out-dir "$OUT" -- sh tools/demo.sh
echo
echo "== 6. The oversubscription sweep, plotted"
if [ ! -s "$OUT/oversub.csv" ]; then
	echo "   no sweep came back from the guest" >&2
	exit 1
fi
if command -v gnuplot > /dev/null; then
	"$TOP/tools/vgpu-bench/plot-oversub.sh" "$OUT/oversub.csv" "$OUT/oversub.png"
	echo "   plot:  $OUT/oversub.png  (run time and VRAM hit ratio against % of VRAM)"
else
	echo "   gnuplot is not installed (apt-get install gnuplot-nox): no plot"
fi
echo "   data:  $OUT/oversub.csv"
echo
echo "Done in $(( $(date +%s) - start )) s.  Next: make shell, then vgpu-smi -l 1;" \
     "every file and key is explained in Documentation/gpu/vgpu/user-guide.rst"

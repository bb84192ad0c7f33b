#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# demo.sh - the story `make demo` tells: a guest boots with the vgpu device,
# the driver finds it and reports its VRAM.

set -euo pipefail
TOP=$(cd "$(dirname "$0")/../.." && pwd)
VRAM=${VGPU_DEMO_VRAM:-512M}

echo "vgpu demo: booting Debian's 6.12 kernel under QEMU (TCG) with a vgpu of $VRAM VRAM"
echo
"$TOP/tools/vm/vgpu-run" --vram "$VRAM" --quiet-log -- sh tools/demo.sh
echo
echo "Done.  Try: make shell   (or tools/vm/vgpu-run --vram 1G -- vgpu-smi --json)"

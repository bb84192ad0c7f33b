#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Unload and reload vgpu.ko: the render node goes and comes back, and the
# device answers again.  Prints TAP.

. "$(dirname "$0")/lib/tap.sh"

echo "TAP version 13"
echo "1..5"
t "module_reload.loaded" "grep -q '^vgpu ' /proc/modules"
t "module_reload.unload" "rmmod vgpu && ! grep -q '^vgpu ' /proc/modules"
t "module_reload.node_gone" "! ls /sys/bus/pci/drivers/vgpu >/dev/null 2>&1"
t "module_reload.reload" "modprobe vgpu && sleep 0.5 && ls /dev/dri/renderD* >/dev/null 2>&1"
t "module_reload.device_answers" "vgpu_param_test >/dev/null 2>&1"
exit 0

# SPDX-License-Identifier: GPL-2.0
#
# The vgpu render node's sysfs directory for the guest scripts (busybox
# sh).  Sourced, not run:  . "$(dirname "$0")/lib/node.sh"
#
# vgpu_node    print /sys/class/drm/renderDN of the first vgpu, or nothing

vgpu_node() {
	for d in /sys/class/drm/renderD*; do
		if [ "$(basename "$(readlink "$d/device/driver" 2>/dev/null)")" = vgpu ]; then
			echo "$d"
			return
		fi
	done
}

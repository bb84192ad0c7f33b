#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Debian's DRM clients against vgpu, in the debian rootfs guest
# (tests/check.sh adds this script with vgpu-run --rootfs debian --add).
# drmdevice (libdrm-tests) must find one device with the vendor:device id
# VGPU_PCI_ID (from vgpu_hw.h), at the PCI address of the vgpu driver's
# device, with both nodes, card0 and renderD128, each time it prints the
# device (listed, then opened from each node); drm_info finds no KMS;
# python3 opens the render node.  Prints TAP; drmdevice's and drm_info's
# output go to /out.

. /vgpu/tests/lib/tap.sh

echo "TAP version 13"
echo "1..7"
mkdir -p /out
drmdevice > /out/drmdevice.txt 2>&1
st=$?
drm_info > /out/drm_info.txt 2>&1
d=/out/drmdevice.txt

# The vgpu driver's device in sysfs, as drmdevice prints PCI addresses.
bdf=$(basename "$(readlink -f /sys/class/drm/renderD128/device)")
drv=$(basename "$(readlink /sys/class/drm/renderD128/device/driver)")
addr=$(awk '/^device\[0\]/ { s = 1 } s && /domain/ { D = $NF } s && /bus / { b = $NF }
	s && /dev / { v = $NF } s && /func/ { f = $NF; print D ":" b ":" v "." f; exit }' $d)
vendor=${VGPU_PCI_ID%:*} device=${VGPU_PCI_ID#*:}

t drmdevice.exits_0 '[ $st = 0 ]'
t drmdevice.reports_one_device 'grep -qx -- "--- Devices reported 1 ---" $d'
t drmdevice.names_card0_and_renderD128 \
	'grep -q "nodes\[0\] /dev/dri/card0$" $d && grep -q "nodes\[2\] /dev/dri/renderD128$" $d'
t drmdevice.pci_id_$vendor:$device \
	'[ -n "$vendor" ] && [ "$(grep -c -- "-> vendor_id *$vendor$" $d)" = 3 ] &&
	 [ "$(grep -c -- "-> device_id *$device$" $d)" = 3 ] && [ "$(grep -c -- "-> vendor_id" $d)" = 3 ]'
t drmdevice.pci_address_is_the_vgpu_device '[ "$drv" = vgpu ] && [ "$addr" = "$bdf" ]'
t drm_info.finds_no_kms 'grep -q "drmModeGetResources: Operation not supported" /out/drm_info.txt'
t python3.opens_the_render_node \
	'python3 -c "import os; fd = os.open(\"/dev/dri/renderD128\", os.O_RDWR); print(open(\"/proc/self/fdinfo/%d\" % fd).read())" |
	 grep -q "^drm-driver:.vgpu$"'
[ $fail = 0 ] || cat $d /out/drm_info.txt | sed 's/^/# /'
exit 0

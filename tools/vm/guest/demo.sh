#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The guest half of `make demo`: show the device, the driver that bound to
# it, and what the driver reports.

dev=
for d in /sys/bus/pci/devices/*; do
	if [ "$(cat "$d/vendor")" = 0x1b36 ] && [ "$(cat "$d/device")" = 0x0120 ]; then
		dev=$d
	fi
done
if [ -z "$dev" ]; then
	echo "demo: no vgpu PCI device found" >&2
	exit 1
fi

echo "== 1. The device on the PCI bus"
echo "   $(basename "$dev"): vendor $(cat "$dev/vendor") device $(cat "$dev/device") class $(cat "$dev/class")"
i=0
while read -r start end flags; do
	if [ "$start" != 0x0000000000000000 ]; then
		printf '   BAR%d: %s..%s (%d KiB)\n' $i "$start" "$end" \
			$(( (end - start + 1) / 1024 ))
	fi
	i=$((i + 1))
done < "$dev/resource"
echo
echo "== 2. The driver bound to it (kernel log)"
echo "   driver: $(basename "$(readlink "$dev/driver")")"
dmesg | grep -E 'vgpu' | sed 's/^/   /'
echo
echo "== 3. Its render node"
ls -l /dev/dri/ | sed 's/^/   /'
echo
echo "== 4. vgpu-smi: what the driver reports"
vgpu-smi | sed 's/^/   /'

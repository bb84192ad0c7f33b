# SPDX-License-Identifier: GPL-2.0
#
# Long robustness runs (included by the top Makefile).
#
#   make soak [SOAK_RELOADS=N] [SOAK_VRAM=64M]
#       boots a guest (device in strict mode) and runs
#       tests/guest/module-reload.sh with N reloads (default 100, the
#       device busy between each: about 5 minutes under TCG), then
#       vgpu_robust_test (resets under load, hot-unplug and re-plug);
#       fails if any test did.
#
# `make check` runs the same script with 10 reloads.

SOAK_RELOADS ?= 100
SOAK_VRAM ?= 64M

.PHONY: soak
soak: setup module guest
	@tools/vm/vgpu-run --vram $(SOAK_VRAM) --mem 2G --prop strict=on \
		--timeout $$(( $(SOAK_RELOADS) * 6 + 300 )) --quiet-log \
		--env VGPU_RELOADS=$(SOAK_RELOADS) \
		-- sh -c 'sh /vgpu/tests/module-reload.sh > /tmp/soak.tap; \
			cat /tmp/soak.tap; vgpu_robust_test && \
			! grep -q "^not ok" /tmp/soak.tap'

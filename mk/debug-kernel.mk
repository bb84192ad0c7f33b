# SPDX-License-Identifier: GPL-2.0
#
# The debug-kernel test tier (included by the top Makefile).
#
#   make debug-kernel   build the debug kernel (KASAN, lockdep, kmemleak,
#                       DEBUG_OBJECTS, KUnit, fault injection) from
#                       linux-source-6.12 and vgpu.ko in its tree; cached
#                       under $(VGPU_CACHE)/debug-kernel, incremental
#
# Guests on it: tools/vm/vgpu-run --kernel debug -- CMD

DEBUG_KERNEL_BUILD := tools/vm/flavour-debug.sh build
DEBUG_KERNEL_PATHS := tools/vm/flavour-debug.sh paths
# Guest-side commands of this tier, relative to /vgpu in the guest.
DEBUG_KUNIT_CMD := sh tools/kunit.sh
DEBUG_FAULT_CMD := sh tools/fault-inject.sh

.PHONY: debug-kernel
debug-kernel: deps
	@$(DEBUG_KERNEL_BUILD)

# Helper for tools/vm/guest/fault-inject.sh: arms fail-nth around one
# driver operation.
$(GUEST)/bin/vgpu-failnth: tools/vm/guest/vgpu-failnth.c include/uapi/drm/vgpu_drm.h \
		drivers/gpu/drm/vgpu/vgpu_hw.h
	@mkdir -p $(dir $@)
	@echo "  CC [guest] $@"
	@$(CC) $(GUEST_CFLAGS) -o $@ $<

guest: $(GUEST)/bin/vgpu-failnth

# SPDX-License-Identifier: GPL-2.0
#
# The device fuzzer (included by the top Makefile).
#
#   make fuzz-device [FUZZ_SECONDS=N] [FUZZ_SEED=S]
#       run tests/qtest/vgpu-fuzz (built with the qtests in the QEMU tree)
#       for N seconds (default 60), seed after seed from S (default: the
#       time); it prints executions per second and the seeds of anything
#       it found, and fails if it found anything
#
# `make fuzz` runs every fuzzer; a short fixed-seed run of this one is part
# of the qtest tier (tests/check.sh).

FUZZ_SECONDS ?= 60
FUZZ_SEED ?=
FUZZ_DEVICE := $(QBUILD)/tests/qtest/vgpu-fuzz

.PHONY: fuzz fuzz-device
fuzz: fuzz-device

fuzz-device: qemu
	@QTEST_QEMU_BINARY=$(QBUILD)/qemu-system-x86_64 \
		$(FUZZ_DEVICE) --seconds $(FUZZ_SECONDS) \
		$(if $(FUZZ_SEED),--seed $(FUZZ_SEED))

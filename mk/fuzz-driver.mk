# SPDX-License-Identifier: GPL-2.0
#
# The driver fuzzer (included by the top Makefile).
#
#   make fuzz [FUZZ_SECONDS=N] [FUZZ_SEED=S] [FUZZ_ARGS=...]
#       boots a guest (64 MiB of VRAM, so that BOs move all the time) and
#       runs vgpu-fuzz in it as an unprivileged user for N seconds
#       (default 300); prints calls per second and every finding with its
#       seed.  `fuzz` runs every fuzzer; this file adds `fuzz-driver`.
#
# A one-minute run is part of `make check` (tests/guest/fuzz.sh, enabled
# by VGPU_FUZZ_SECONDS in one guest configuration of tests/check.sh).

FUZZ_SECONDS ?= 300
FUZZ_SEED ?=
FUZZ_ARGS ?=
FUZZ_VRAM ?= 64M

.PHONY: fuzz fuzz-driver
fuzz: fuzz-driver

fuzz-driver: setup module guest
	@tools/vm/vgpu-run --vram $(FUZZ_VRAM) --mem 2G --prop strict=on \
		--timeout $$(( $(FUZZ_SECONDS) + 600 )) --quiet-log \
		--env VGPU_FUZZ_SECONDS=$(FUZZ_SECONDS) \
		$(if $(FUZZ_SEED),--env VGPU_FUZZ_SEED=$(FUZZ_SEED)) \
		$(if $(FUZZ_ARGS),--env "VGPU_FUZZ_ARGS=$(FUZZ_ARGS)") \
		-- sh tests/fuzz.sh

$(GUEST)/bin/vgpu-fuzz: $(wildcard tools/vgpu-fuzz/*.c tools/vgpu-fuzz/*.h) $(GUEST_HDRS) $(GUEST_LIBS)
	@mkdir -p $(dir $@)
	@echo "  CC [guest] $@"
	@$(CC) $(GUEST_CFLAGS) -D_GNU_SOURCE -Itools/vgpu-fuzz -o $@ \
		$(filter %.c,$^) $(GUEST_LIBS) $(GUEST_LDLIBS)

guest: $(GUEST)/bin/vgpu-fuzz

# SPDX-License-Identifier: GPL-2.0
#
# `make demo` helpers (included by the top Makefile).
#
# vgpu-oversub: the oversubscription workload tools/vm/guest/demo.sh runs
# when vgpu-bench has no oversub suite.

$(GUEST)/bin/vgpu-oversub: tools/vm/guest/vgpu-oversub.c $(GUEST_HDRS) $(GUEST_LIBS)
	@mkdir -p $(dir $@)
	@echo "  CC [guest] $@"
	@$(CC) $(GUEST_CFLAGS) -o $@ $< $(GUEST_LIBS) $(GUEST_LDLIBS)

guest: $(GUEST)/bin/vgpu-oversub

// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Copyright (c) 2026 The vgpu authors
 */

#include <linux/module.h>

/**
 * DOC: vgpu KUnit tests
 *
 * vgpu_kunit.ko collects the KUnit suites for the parts of the driver that
 * need no device, one vgpu_kunit_<concept>.c per concept.  KUnit runs every
 * suite when the module is loaded and prints KTAP to the kernel log; with
 * CONFIG_KUNIT_DEBUGFS the results stay readable in
 * /sys/kernel/debug/kunit/<suite>/results until the module is unloaded.
 * In the debug guest, tools/vm/guest/kunit.sh loads the module and turns
 * the results into TAP lines.
 *
 * A test that needs a driver function rather than a header-only helper
 * reaches it through EXPORT_SYMBOL_IF_KUNIT() in the driver (from
 * <kunit/visibility.h>) and MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING)
 * here.
 */

MODULE_DESCRIPTION("KUnit tests for the vgpu driver");
MODULE_LICENSE("Dual MIT/GPL");
MODULE_AUTHOR("The vgpu authors");

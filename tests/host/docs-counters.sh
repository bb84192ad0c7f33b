#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# docs-counters.sh - the counter registry and the documentation agree.
# Part of the host tier of tests/check.sh; prints TAP, details go to
# OUTDIR/docs-counters.log.
#
#   tests/host/docs-counters.sh OUTDIR
#
#   1 every counter of the registry (drivers/gpu/drm/vgpu/vgpu_stats_list.h)
#     that sysfs shows has a row ``name``  unit in user-guide.rst's
#     counters/ table, with the registry's unit
#   2 every row of that table is a sysfs counter of the registry
#   3 every fdinfo key of the registry has a row ``drm-vgpu-key``  unit
#     in user-guide.rst's fdinfo table, with the registry's unit
#   4 every counter shown only in debugfs is named in user-guide.rst
#
# The registry is read by compiling it: a small C program includes the
# header and prints one line per counter.

set -uo pipefail

LOG_TAG=docs
. "$(dirname "$0")/../../tools/lib/common.sh"

out=${1:?usage: docs-counters.sh OUTDIR}
mkdir -p "$out"
TAP_LOG=$out/docs-counters.log
: > "$TAP_LOG"
doc=$TOP/Documentation/gpu/vgpu/user-guide.rst
list=$out/counters.list

# name fdinfo-key|- unit sysfs debugfs, one line per counter
registry() {
	cat > "$out/counters-list.c" <<'EOF'
#include <stdio.h>
#include "vgpu_stats_list.h"
static const char *const units[] = { "count", "bytes", "ns" };
#define LINE(id, name, fdinfo, unit, group, dev, client, views, doc)	\
	printf("%s %s %s %d %d\n", #name, fdinfo ? fdinfo : "-",	\
	       units[VGPU_STAT_UNIT_##unit], !!((views) & VGPU_STAT_SYSFS), \
	       !!((views) & VGPU_STAT_DEBUGFS));
int main(void)
{
	VGPU_STATS_LIST(LINE)
	return 0;
}
EOF
	gcc -std=c11 -Wall -Werror -I"$TOP/drivers/gpu/drm/vgpu" \
		-o "$out/counters-list" "$out/counters-list.c" &&
		"$out/counters-list" > "$list" && [ -s "$list" ]
}

# The rows of the first table under the section titled $1: "``name``  unit".
table_rows() {
	awk -v title="$1" '
		$0 == title { getline; if ($0 ~ /^-+$/) in_sec = 1; next }
		in_sec && /^=+  / && ++borders == 3 { exit }
		in_sec && borders && /^``[^`]*``  +[a-z]+  / {
			name = $1; gsub(/``/, "", name); print name, $2
		}' "$doc"
}

# The fdinfo table: rows "``drm-vgpu-key``  unit".
fdinfo_rows() {
	grep -E '^``drm-vgpu-[a-z0-9-]+``  +[a-z]+' "$doc" |
		sed -E 's/^``drm-vgpu-([a-z0-9-]+)``  +([a-z]+).*/\1 \2/'
}

sysfs_documented() {
	local rows name key unit sysfs debugfs bad=0
	rows=$(table_rows "counters/")
	while read -r name key unit sysfs debugfs; do
		[ "$sysfs" = 1 ] || continue
		grep -qx "$name $unit" <<< "$rows" ||
			{ echo "counters/$name ($unit) not in user-guide.rst"; bad=1; }
	done < "$list"
	return $bad
}

sysfs_table_registered() {
	local name unit bad=0
	while read -r name unit; do
		grep -q "^$name [^ ]* [^ ]* 1 " "$list" ||
			{ echo "user-guide.rst counters/$name is not a sysfs counter"; bad=1; }
	done < <(table_rows "counters/")
	[ -n "$(table_rows "counters/")" ] || { echo "no counters/ table"; bad=1; }
	return $bad
}

fdinfo_documented() {
	local rows name key unit sysfs debugfs bad=0
	rows=$(fdinfo_rows)
	while read -r name key unit sysfs debugfs; do
		[ "$key" != - ] || continue
		grep -qx "$key $unit" <<< "$rows" ||
			{ echo "drm-vgpu-$key ($unit) not in user-guide.rst"; bad=1; }
	done < "$list"
	return $bad
}

debugfs_documented() {
	local name key unit sysfs debugfs bad=0
	while read -r name key unit sysfs debugfs; do
		[ "$debugfs" = 1 ] && [ "$sysfs" = 0 ] || continue
		grep -q "\`\`$name\`\`" "$doc" ||
			{ echo "debugfs $name not in user-guide.rst"; bad=1; }
	done < "$list"
	return $bad
}

if ! registry >> "$TAP_LOG" 2>&1; then
	echo "not ok 1 docs.registry_compiles"
	exit 0
fi
tap_check docs.sysfs_counters_documented sysfs_documented
tap_check docs.sysfs_table_is_the_registry sysfs_table_registered
tap_check docs.fdinfo_counters_documented fdinfo_documented
tap_check docs.debugfs_counters_documented debugfs_documented

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# plot-oversub.sh - plot vgpu-bench's oversubscription sweep.
#
#   plot-oversub.sh OVERSUB.CSV OUT.PNG
#
# One panel per access pattern: run time against oversubscription (percent
# of VRAM), one line per eviction policy and prefetch setting.  Needs the
# columns pattern, policy, prefetch, oversub_pct, seconds, vram_hit_ratio.

set -euo pipefail
csv=$1 png=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

col() { head -n1 "$csv" | tr ',' '\n' | grep -n -x "$1" | cut -d: -f1; }
cp=$(col pattern) cpol=$(col policy) cpf=$(col prefetch)
cx=$(col oversub_pct) cy=$(col seconds) ch=$(col vram_hit_ratio)
[ -n "$cp" ] && [ -n "$cpol" ] && [ -n "$cpf" ] && [ -n "$cx" ] && [ -n "$cy" ] && [ -n "$ch" ] ||
	{ echo "plot-oversub: $csv lacks a needed column" >&2; exit 1; }

patterns=$(tail -n +2 "$csv" | cut -d, -f"$cp" | sort -u)
series=$(tail -n +2 "$csv" | cut -d, -f"$cpol","$cpf" | sort -u)
npat=$(echo "$patterns" | wc -l)

{
	echo "set terminal pngcairo size 1400,$((360 * npat)) font 'sans,10'"
	echo "set output '$png'"
	echo "set datafile separator ','"
	echo "set multiplot layout $npat,2 title 'vgpu oversubscription sweep'"
	echo "set key top left"
	echo "set grid"
	echo "set xlabel 'working set (% of VRAM)'"
	for p in $patterns; do
		for what in seconds hit; do
			if [ "$what" = seconds ]; then
				echo "set ylabel 'seconds'; set title '$p: run time'"
				y=$cy
			else
				echo "set ylabel 'VRAM hit ratio'; set title '$p: VRAM hit ratio'"
				y=$ch
			fi
			plot="plot"
			sep=""
			while IFS=, read -r pol pf; do
				f=$tmp/$p-$pol-$pf.csv
				awk -F, -v p="$p" -v pol="$pol" -v pf="$pf" \
					-v a="$cp" -v b="$cpol" -v c="$cpf" \
					'NR > 1 && $a == p && $b == pol && $c == pf' "$csv" |
					sort -t, -k"$cx" -n > "$f"
				[ -s "$f" ] || continue
				plot+="$sep '$f' using $cx:$y with linespoints title '$pol prefetch=$pf'"
				sep=","
			done <<< "$series"
			echo "$plot"
		done
	done
	echo "unset multiplot"
} > "$tmp/plot.gp"
gnuplot "$tmp/plot.gp"

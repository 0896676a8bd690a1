#!/bin/sh
# card-run.sh BINARY OUTDIR [NOTEBOOK...]
#
# Runs the notebooks whose outputs come from a GPU card at PATHNOTES_SCALE=1
# with BINARY, one CUDA build of pathnotes (go build -tags cuda, with
# CGO_CFLAGS as .ci/run sets them), one notebook after another, so that all
# their outputs come from one build on one card. Each notebook is written to
# OUTDIR with its log (NAME.log) and its run time (in OUTDIR/times.txt).
# Without NOTEBOOK arguments it runs all six card notebooks, the longest last;
# 05-apsp-lab.ipynb is handed out without outputs and is never run.
#
# A notebook already in OUTDIR is skipped, so a run cut short by a time
# limit goes on where it stopped when called again with the same OUTDIR.
# Run times on an H100 (the last full run): 00 10 s, 02 1m41s,
# 05-apsp-lab-solutions 50 s, 04 2m51s, 01 4m12s, 03 8m32s.
#
# The environment passes through, and with it the notebooks' own knobs:
#   PATHNOTES_CAP_SECONDS=600  03: runs the cells of Tables 1 and 3 that the
#                              default cap of 60 s leaves out (Bodra's
#                              largest road network "e" with |V|−1 passes,
#                              Table 3's cells on gnutella25 and 30), about
#                              25 more minutes;
#   PATHNOTES_CPU_MAX_N=N      01: the thesis's CPU triple loop up to |V| = N
#                              (2000 by default; 12,500 is the thesis's
#                              largest, hours of CPU time).
#
# After a full run, copy the notebooks from OUTDIR into notebooks/, empty the
# emulated=[...] lists of the generators in src/ (their outputs are the
# card's again) and run go generate ./notebooks.
set -eu

if [ $# -lt 2 ]; then
	echo "usage: card-run.sh BINARY OUTDIR [NOTEBOOK...]" >&2
	exit 2
fi
bin=$1
out=$2
shift 2
here=$(cd "$(dirname "$0")" && pwd)
if [ $# -eq 0 ]; then
	set -- 00-tour 02-musap-dijkstra 05-apsp-lab-solutions 04-gaioso-fw 01-karaula-fw 03-bodra-cuda-sp
fi
mkdir -p "$out"
"$bin" version
for name in "$@"; do
	name=${name%.ipynb}
	if [ "$name" = 05-apsp-lab ]; then
		echo "05-apsp-lab is handed out without outputs: not run" >&2
		continue
	fi
	if [ -f "$out/$name.ipynb" ]; then
		echo "$name: done already, in $out"
		continue
	fi
	start=$(date +%s)
	# pathnotes run writes the notebook even when a cell fails: write it
	# aside, and keep it only when every cell ran.
	mkdir -p "$out/.partial"
	if PATHNOTES_SCALE=1 "$bin" run --timeout 0 --out "$out/.partial" "$here/$name.ipynb" >"$out/$name.log" 2>&1; then
		mv "$out/.partial/$name.ipynb" "$out/$name.ipynb"
		echo "$name $(($(date +%s) - start)) s" >>"$out/times.txt"
		echo "$name: $(($(date +%s) - start)) s"
	else
		echo "$name: FAILED after $(($(date +%s) - start)) s; see $out/$name.log and $out/.partial/$name.ipynb" >&2
		exit 1
	fi
done

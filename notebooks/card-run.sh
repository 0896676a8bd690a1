#!/bin/bash
# card-run.sh [-j N] BINARY OUTDIR [NOTEBOOK... | capped]
#
# Runs the notebooks whose outputs come from a GPU card at PATHNOTES_SCALE=1
# with BINARY, one CUDA build of pathnotes (go build -tags cuda, with
# CGO_CFLAGS as .ci/run sets them), so that all their outputs come from one
# build. Each notebook is written to OUTDIR with its log (NAME.log) and its
# run time (in OUTDIR/times.txt). Without NOTEBOOK arguments it runs all six
# card notebooks; 05-apsp-lab.ipynb is handed out without outputs and is
# never run.
#
# -j N runs up to N notebooks at once, each alone on a GPU of its own
# (CUDA_VISIBLE_DEVICES), dealt longest first to the GPU whose queue ends
# first; without it they run one after another on GPU 0. Each notebook's
# first cell names the card it ran on.
#
# "capped" runs notebooks/internal/capped instead (built with -tags cuda,
# next to BINARY as "capped"): the cells that the notebooks' caps leave out
# at scale 1 (03's Table 1 "e" with |V|−1 passes and Table 3's four capped
# cells, on every GPU of the host; 01's CPU column beyond |V| = 2000 on its
# cores), into OUTDIR/capped.json, under its -deadline (9 minutes; set
# CAPPED_DEADLINE to change it). It resumes what an earlier call with the
# same OUTDIR and build left, so that a one-GPU host can finish it in
# several calls. Run it alone, not beside notebooks: it takes every GPU.
#
# A notebook already in OUTDIR is skipped, so a run cut short by a time
# limit goes on where it stopped when called again with the same OUTDIR.
# Run times on one H100 (the last full run): 00 10 s, 02 1m41s,
# 05-apsp-lab-solutions 50 s, 04 2m51s, 01 4m12s, 03 8m32s; with -j 4 on
# four H100s of one host, about 9 minutes for all six. capped: about 8
# minutes on four H100s (03's jobs; fw-row on gnutella30 alone ≈ 7 min);
# on one H100 its GPU jobs take about 25 minutes, three calls; on two H200s
# they took two calls (the longest, bf-naive on "e", 240 s). 01's CPU
# column on one core: 5 to 6.5 min at |V| = 5000 on a 32-CPU Xeon host, an
# hour and more at 12,500, so the runs that one core would not end before
# the deadline split their rows over the cores left: 7500 to 12,500 take
# 1 to 4.5 min each on 26 to 29 cores; only what ends before the deadline
# runs.
#
# The environment passes through, and with it the notebooks' own knobs:
#   PATHNOTES_CAP_SECONDS=600  03: runs the capped cells of Tables 1 and 3
#                              inside the notebook (about 25 more minutes:
#                              more than one call may run; "capped" runs
#                              them apart instead);
#   PATHNOTES_CPU_MAX_N=N      01: the thesis's CPU triple loop up to |V| = N
#                              inside the notebook (2000 by default).
#
# Then fold the outputs into notebooks/ (see notebooks/fold.py): copy
# OUTDIR/capped.json to notebooks/capped.json, run go generate ./notebooks,
# and python3 notebooks/fold.py OUTDIR/*.ipynb for whole card runs (then
# empty the emulated=[...] lists of their generators in src/ and run go
# generate ./notebooks again); the "run apart" cells read capped.json and
# take their outputs from any run, the emulator's too (fold.py --cells
# apart).
set -eu

jobs=1
if [ "${1:-}" = -j ]; then
	jobs=$2
	shift 2
fi
if [ $# -lt 2 ]; then
	echo "usage: card-run.sh [-j N] BINARY OUTDIR [NOTEBOOK... | capped]" >&2
	exit 2
fi
bin=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
out=$2
shift 2
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out"
out=$(cd "$out" && pwd)
"$bin" version

if [ "${1:-}" = capped ]; then
	start=$(date +%s)
	# capped reads data/snap from the repository root.
	set +e
	(cd "$here/.." && "$(dirname "$bin")/capped" -out "$out/capped.json" -resume \
		-deadline "${CAPPED_DEADLINE:-9m}") 2>&1 | tee "$out/capped.log"
	rc=${PIPESTATUS[0]}
	echo "capped $(($(date +%s) - start)) s, exit status $rc" >>"$out/times.txt"
	exit "$rc"
fi

if [ $# -eq 0 ]; then
	set -- 03-bodra-cuda-sp 01-karaula-fw 04-gaioso-fw 02-musap-dijkstra 05-apsp-lab-solutions 00-tour
fi

# seconds is a notebook's run time on one H100 in the last full run.
seconds() {
	case $1 in
	00-tour) echo 10 ;;
	02-musap-dijkstra) echo 101 ;;
	05-apsp-lab-solutions) echo 50 ;;
	04-gaioso-fw) echo 171 ;;
	01-karaula-fw) echo 252 ;;
	03-bodra-cuda-sp) echo 512 ;;
	*) echo 60 ;;
	esac
}

# runone runs one notebook on GPU $2.
runone() {
	local name=$1 gpu=$2 start
	if [ -f "$out/$name.ipynb" ]; then
		echo "$name: done already, in $out"
		return 0
	fi
	start=$(date +%s)
	# pathnotes run writes the notebook even when a cell fails: write it
	# aside, and keep it only when every cell ran.
	mkdir -p "$out/.partial-$gpu"
	if CUDA_VISIBLE_DEVICES=$gpu PATHNOTES_SCALE=1 "$bin" run --timeout 0 --out "$out/.partial-$gpu" "$here/$name.ipynb" >"$out/$name.log" 2>&1; then
		mv "$out/.partial-$gpu/$name.ipynb" "$out/$name.ipynb"
		echo "$name $(($(date +%s) - start)) s on GPU $gpu" >>"$out/times.txt"
		echo "$name: $(($(date +%s) - start)) s on GPU $gpu"
	else
		echo "$name: FAILED after $(($(date +%s) - start)) s on GPU $gpu; see $out/$name.log and $out/.partial-$gpu/$name.ipynb" >&2
		return 1
	fi
}

# Deal the notebooks, longest first, to the GPU whose queue ends first.
declare -a queue load
for ((g = 0; g < jobs; g++)); do
	queue[g]="" load[g]=0
done
for name in $(for n in "$@"; do n=${n%.ipynb}; echo "$(seconds "$n") $n"; done | sort -rn | cut -d' ' -f2); do
	if [ "$name" = 05-apsp-lab ]; then
		echo "05-apsp-lab is handed out without outputs: not run" >&2
		continue
	fi
	best=0
	for ((g = 1; g < jobs; g++)); do
		if [ "${load[g]}" -lt "${load[best]}" ]; then best=$g; fi
	done
	queue[best]="${queue[best]} $name"
	load[best]=$((load[best] + $(seconds "$name")))
done
pids=()
for ((g = 0; g < jobs; g++)); do
	[ -n "${queue[g]}" ] || continue
	echo "GPU $g:${queue[g]} (≈ ${load[g]} s on an H100)"
	(for name in ${queue[g]}; do runone "$name" "$g" || exit 1; done) &
	pids+=($!)
done
status=0
for p in "${pids[@]}"; do
	wait "$p" || status=1
done
exit $status

#!/usr/bin/env bash
# Sets pathnotes up on this machine and runs its main job:
#   1. builds and installs the `pathnotes` command into Go's bin directory;
#   2. installs the Jupyter kernelspec "pathnotes" (display name "Go (pathnotes)")
#      for the current user;
#   3. runs the tour notebook headlessly, writing it with its outputs to out/.
# Needs only Go. Jupyter is needed later, to open notebooks in a front end.
set -euo pipefail
cd "$(dirname "$0")"

bin="$(go env GOBIN)"
[ -n "$bin" ] || bin="$(go env GOPATH)/bin"
mkdir -p "$bin"

# With an NVIDIA GPU visible and the CUDA headers present, build the CUDA
# driver in (-tags cuda). Only then: a cuda binary needs a working GPU driver
# to start at all. The compatibility headers come first so that CUDA 13
# headers work as well as 11.x and 12.x.
cuda_header=""
for d in /usr/local/cuda/include /usr/include; do
  [ -f "$d/cuda.h" ] && { cuda_header="$d"; break; }
done
# The commit the build comes from, for `pathnotes version` and the notebooks'
# first cell, also where go build does not stamp it (-buildvcs=false).
ldflags=""
if commit=$(git rev-parse --short=12 HEAD 2>/dev/null); then
  ldflags="-X github.com/pathnotes/pathnotes/lab.linkedCommit=$commit"
fi
built=""
if [ -n "$cuda_header" ] && command -v nvidia-smi >/dev/null && nvidia-smi -L 2>/dev/null | grep -q '^GPU'; then
  echo "== building pathnotes with CUDA (headers in $cuda_header) into $bin"
  if CGO_ENABLED=1 CGO_CFLAGS="-I$PWD/gpu/cudacompat -I$cuda_header ${CGO_CFLAGS:-}" \
     go build -tags cuda -ldflags "$ldflags" -o "$bin/pathnotes" .; then
    built=cuda
  else
    echo "   the CUDA build failed; building without CUDA instead"
  fi
fi
if [ -z "$built" ]; then
  echo "== building pathnotes into $bin (no CUDA: no GPU or no CUDA headers found)"
  go build -ldflags "$ldflags" -o "$bin/pathnotes" .
fi
"$bin/pathnotes" info

echo "== installing the Jupyter kernelspec"
"$bin/pathnotes" install --user

echo "== running the tour notebook"
mkdir -p out
"$bin/pathnotes" run notebooks/00-tour.ipynb --out out

cat <<MSG

Done. The tour with its outputs is out/00-tour.ipynb. To open it in Jupyter:
    jupyter lab out/00-tour.ipynb        (or: jupyter notebook, or VS Code)
and pick the kernel "Go (pathnotes)". A terminal console:
    jupyter console --kernel pathnotes
MSG

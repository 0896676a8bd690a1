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
echo "== building pathnotes into $bin"
go build -o "$bin/pathnotes" .

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

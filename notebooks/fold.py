#!/usr/bin/env python3
"""fold.py copies cell outputs from run notebooks into the committed ones.

    python3 notebooks/fold.py [--cells all|apart|profile] RUN.ipynb...

Each RUN.ipynb is a notebook that `pathnotes run` wrote (card-run.sh's
OUTDIR, or a run on the emulator); the committed notebook of the same name
in notebooks/ gets the outputs and execution counts of its code cells whose
source is the same as a cell of the run:

  all      every such cell (a card run of the whole notebook);
  apart    only the "run apart" cells (those that read capped.json with lab.ReadApart), whose
           outputs depend on that file and not on the device: a run on the
           emulator gives them;
  profile  only the %%profile cells (issue #28's outputs from the emulator,
           which the notebook's emulator note must then name).

A cell of the run that matches no committed cell is reported and left out:
regenerate the notebooks first (go generate ./notebooks) so that both
have the same sources. Afterwards run go generate ./notebooks again; it
keeps these outputs.
"""
import argparse
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))

WANTED = {
    "all": lambda src: True,
    "apart": lambda src: "lab.ReadApart(" in src,
    "profile": lambda src: src.lstrip().startswith("%%profile"),
}


def source(cell):
    s = cell.get("source", "")
    return "".join(s) if isinstance(s, list) else s


def fold(run_path, wanted):
    name = os.path.basename(run_path)
    target = os.path.join(HERE, name)
    if not os.path.exists(target):
        sys.exit("fold: %s: no notebook %s in notebooks/" % (run_path, name))
    with open(run_path) as f:
        run = json.load(f)
    with open(target) as f:
        nb = json.load(f)
    by_source = {}
    for c in run["cells"]:
        if c["cell_type"] == "code":
            by_source.setdefault(source(c), []).append(c)
    copied = 0
    for c in nb["cells"]:
        if c["cell_type"] != "code" or not WANTED[wanted](source(c)):
            continue
        got = by_source.get(source(c))
        if not got:
            print("fold: %s: a cell with no match in the run: %.60r" % (name, source(c)))
            continue
        r = got.pop(0)
        c["outputs"], c["execution_count"] = r.get("outputs", []), r.get("execution_count")
        copied += 1
    with open(target, "w") as f:
        json.dump(nb, f, indent=1, ensure_ascii=False)
        f.write("\n")
    print("fold: %s: %d cells' outputs from %s" % (name, copied, run_path))


def main():
    ap = argparse.ArgumentParser(description="copy cell outputs from run notebooks into notebooks/")
    ap.add_argument("--cells", choices=sorted(WANTED), default="all")
    ap.add_argument("runs", nargs="+")
    a = ap.parse_args()
    for r in a.runs:
        fold(r, a.cells)


if __name__ == "__main__":
    main()

"""What the notebook generators in this folder share: the Notebook writer and
the Go helpers that several notebooks define in their first cells.

Each generator builds its cells with a Notebook and writes them with
Notebook.write, into notebooks/ or into the folder given as its first
argument. Writing keeps the outputs of every code cell whose source is
unchanged, so that regenerating a notebook after a text fix keeps the outputs
of its last run. notebooks/generate.go has the command that runs them all.
"""

import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


# MAX_LINES is the longest a code cell may be unless it is marked as the
# subject of its section (Notebook.code's subject).
MAX_LINES = 40


class Notebook:
    """Collects cells and writes them as an nbformat 4.5 notebook."""

    def __init__(self, prefix, idfmt="%s-%02d", outputs=True):
        """outputs=False writes every code cell without outputs, for a
        notebook handed out to be run by its reader (an exercise sheet)."""
        self.prefix = prefix
        self.outputs = outputs
        self.idfmt = idfmt
        self.cells = []
        self.subjects = {}  # cell index → why that cell may run long

    def md(self, text):
        """Adds a markdown cell."""
        self.cells.append(("markdown", text.strip("\n")))

    def code(self, text, subject=None):
        """Adds a Go cell. A code cell of more than MAX_LINES lines holds
        helper code that belongs in a package, unless the cell is the
        subject of its section (the algorithm or the experiment that the
        section is about): then subject says so, in words, and the cell's
        metadata carries it (pathnotes.subject), which
        notebooks_test.go's TestCellLength reads."""
        if subject is not None:
            self.subjects[len(self.cells)] = subject
        self.cells.append(("code", text.strip("\n")))

    def write(self, name):
        """Writes <dir>/<name>, where <dir> is the first command-line argument
        or notebooks/, keeping the outputs of the code cells that an existing
        <dir>/<name> already has with the same source (none when the notebook
        was made with outputs=False)."""
        folder = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "..")
        path = os.path.normpath(os.path.join(folder, name))
        kept = previous_outputs(path)
        cells = []
        for i, (kind, text) in enumerate(self.cells, 1):
            meta = {"pathnotes": {"subject": self.subjects[i - 1]}} if i - 1 in self.subjects else {}
            cell = {"cell_type": kind, "id": self.idfmt % (self.prefix, i), "metadata": meta,
                    "source": text.splitlines(True)}
            if kind == "code":
                cell["execution_count"], cell["outputs"] = None, []
                if self.outputs and kept.get(text):
                    cell["execution_count"], cell["outputs"] = kept[text].pop(0)
            cells.append(cell)
        data = {
            "cells": cells,
            "metadata": {
                "kernelspec": {"display_name": "Go (pathnotes)", "language": "go", "name": "pathnotes"},
                "language_info": {"file_extension": ".go", "mimetype": "text/x-go", "name": "go"},
            },
            "nbformat": 4,
            "nbformat_minor": 5,
        }
        with open(path, "w", encoding="utf-8") as f:
            json.dump(data, f, indent=1, ensure_ascii=False, sort_keys=True)
            f.write("\n")
        print("wrote", path)


SOURCES = os.path.join(HERE, "..", "..", "docs", "sources.md")


def sources():
    """Maps each key of docs/sources.md ("[Karaula 2017]") to the bullet
    lines that describe its document (author, title, kind, year...), each
    joined into one line."""
    entries, key, lines = {}, None, []
    with open(SOURCES, encoding="utf-8") as f:
        for line in f:
            line = line.rstrip("\n")
            if line.startswith("## ["):
                key, lines = line[3:].strip(), []
                entries[key] = lines
            elif key and line.startswith("What pathnotes takes"):
                key = None
            elif key and line.startswith("- "):
                lines.append(line[2:].strip())
            elif key and line.startswith("  ") and lines:
                lines[-1] += " " + line.strip()
    return entries


def references(nb):
    """Adds the References cell that ends every notebook: each key of
    docs/sources.md that the notebook's cells cite, with the document as
    docs/sources.md describes it."""
    text = "\n".join(t for _, t in nb.cells)
    known = sources()
    cited = [k for k in known if k in text]
    if not cited:
        raise SystemExit("%s: the notebook cites no document of docs/sources.md" % nb.prefix)
    out = ["## References", "",
           "The documents this notebook cites, by the keys of `docs/sources.md` in this repository, which "
           "says what pathnotes takes from each (the documents themselves are not stored here).", ""]
    for k in cited:
        out.append("**%s**" % k)
        out.append("")
        out.extend("- " + line for line in known[k])
        out.append("")
    nb.md("\n".join(out))


def previous_outputs(path):
    """Maps the source of each code cell of the notebook at path (none if
    there is no file) to its (execution_count, outputs), in cell order for
    sources that repeat."""
    if not os.path.exists(path):
        return {}
    with open(path, encoding="utf-8") as f:
        data = json.load(f)
    kept = {}
    for cell in data["cells"]:
        if cell["cell_type"] == "code":
            source = cell["source"]
            if isinstance(source, list):
                source = "".join(source)
            kept.setdefault(source, []).append((cell.get("execution_count"), cell.get("outputs", [])))
    return kept


def scale_cell(bad, want):
    """The Go lines that read PATHNOTES_SCALE into scale (1 when unset),
    panicking with "want <want>" when the condition bad holds for its value v."""
    return r'''import (
	"os"
	"strconv"
)

scale := 1.0
if s := os.Getenv("PATHNOTES_SCALE"); s != "" {
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || %s {
		panic(fmt.Sprintf("PATHNOTES_SCALE=%%q: want %s", s))
	}
	scale = v
}''' % (bad, want)


# HEADER_NOTE ends every notebook's title, and HEADER is the code cell right
# after it: the pathnotes build (lab.Build, with its commit) and the GPU
# driver and devices (gpu.Describe) that produced the outputs.
HEADER_NOTE = """The first code cell, right below, names the pathnotes commit that produced this notebook's
outputs and the GPU behind them: its driver (with the NVIDIA driver's version) and its device."""

# HEADER_NOTE_CLEAN replaces HEADER_NOTE in a notebook handed out without
# outputs (outputs=False), which has none to vouch for.
HEADER_NOTE_CLEAN = """The notebook comes without outputs: you make them by running its cells. The first code cell,
right below, names the pathnotes build you run and the GPU behind it: its driver (with the NVIDIA
driver's version) and its device."""

HEADER = r'''fmt.Println(lab.Build())
fmt.Println(gpu.Describe())'''


def title(nb, text, emulated=()):
    """Adds the title markdown, ending with HEADER_NOTE, and the HEADER
    cell; then, when emulated names cells (by their sections) whose
    outputs came from the emulator after the card run that the HEADER
    cell names, a note that says so."""
    nb.md(text.strip("\n") + "\n\n" + (HEADER_NOTE if nb.outputs else HEADER_NOTE_CLEAN))
    nb.code(HEADER)
    if emulated:
        nb.md("**Outputs not from that run.** The code of these cells, or the code that draws them, changed "
              "after the run on a card that the cell above names, and their outputs come from the emulator at "
              "`PATHNOTES_SCALE=0.05` "
              "(the kernels' PTX run on the CPU; its times are not GPU times), until the next run on a card:\n\n"
              + "\n".join("- " + e for e in emulated) +
              "\n\nDrawings that do not depend on the device (graphs, schematics) were redrawn by the "
              "current code; the other outputs, plots included, are the card run's, drawn as pathnotes "
              "drew them then.")


# The Go helpers below are pasted into the first cells of the notebooks that
# use them, each as one block without a trailing newline.

CHECK = r'''// check panics with the formatted message unless ok.
func check(ok bool, format string, args ...any) {
	if !ok {
		panic(fmt.Sprintf(format, args...))
	}
}'''

SCALE = scale_cell("!(v > 0) || v > 1", "a number in (0, 1] such as 0.05 or 1")

VERTEX = r'''// vertex returns the vertex of g labelled name.
func vertex(g *graph.Graph, name string) int {
	v, err := g.Vertex(name)
	if err != nil {
		panic(err)
	}
	return v
}'''

SCALE_POSITIVE = scale_cell("!(v > 0)", "a positive number such as 0.05 or 1")


def machine(what, emu, decls=""):
    """The Go of a notebook's machine cell, which says which CPU produced the
    outputs (HEADER has named the GPU): lab.OpenMachine names the CPU and
    opens the default GPU device (what names the GPU side in the lines it
    prints, as "GPU variants"), and the cell keeps what the cells after it
    read in dev, gpuErr, noGPU, gpuTag, gpuHost and host; then come the
    declarations decls (which end with a newline) and emu, the emulator's
    case: Go lines that shrink the experiment and print what runs there."""
    return r"""// The packages the notebook's cells use, imported once for all of them.
import (
	"runtime"
	"strings"
)

machine := lab.OpenMachine("WHAT")
fmt.Println(machine)
dev, gpuErr := machine.Device, machine.Err
noGPU := machine.NoGPU // what the GPU cells say when there is no GPU
gpuTag := machine.Tag  // added to the GPU columns' "(here" on the emulator
gpuHost := machine.GPU // the GPU side of the notes under the tables
host := machine.CPU    // the CPU side
""".replace("WHAT", what) + ("\n" + decls if decls else "") + r"""if machine.Emulated() {
""" + emu.strip("\n") + r"""
}"""



def profile_fw(variants, why):
    """A %%profile cell that runs the Floyd-Warshall variants (Go
    expressions naming them) on one 128-vertex graph, on the device the
    notebook opened (dev, noGPU); why is the comment that opens it."""
    return r'''%%profile
// ''' + why + r'''
if noGPU != "" {
	fmt.Println(noGPU + ": nothing to profile")
} else {
	gp, err := graph.GNM(128, 16*128, graph.WeightRange{Min: 1, Max: 100}, 1)
	if err != nil {
		panic(err)
	}
	for _, v := range []string{''' + ", ".join(variants) + r'''} {
		if _, err := gpu.AllPairs(Ctx(), v, gp, gpu.Options{Device: dev}); err != nil {
			panic(err)
		}
	}
}'''

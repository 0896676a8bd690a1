"""Execute one notebook with nbclient on the pathnotes kernel and check it.

usage: run_notebook.py NOTEBOOK.ipynb

A cell fails the run if it raises, unless it is tagged raises-exception (as
nbclient understands). A code cell whose metadata has a "pathnotes_expect"
object must also produce what it says:

    "output_types": the output types, in order ("stream", "execute_result", ...),
                    after consecutive stream outputs of one name are merged,
                    as Jupyter front ends show them
    "text":         a string that the concatenated stream text must contain
    "mimes":        MIME types some output's data must hold
    "ename":        the ename of the cell's error

The notebook is not rewritten.
"""

import os
import sys

import nbformat
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError


def merged_streams(outputs):
    """Return outputs with each run of stream outputs of one name as one.

    The kernel gathers what a cell prints for a short while before it sends
    a stream message, so a slow loop's lines may come in several messages;
    front ends show them as one output, and so does this check.
    """
    merged = []
    for o in outputs:
        last = merged[-1] if merged else None
        if (o.output_type == "stream" and last is not None
                and last.output_type == "stream" and last.name == o.name):
            merged[-1] = nbformat.from_dict({**last, "text": last.text + o.text})
        else:
            merged.append(o)
    return merged


def problems_of(nb):
    problems = []
    for index, cell in enumerate(nb.cells):
        expect = cell.metadata.get("pathnotes_expect")
        if cell.cell_type != "code" or expect is None:
            continue
        where = f"cell {index} ({cell.source.splitlines()[0] if cell.source else ''!r})"
        types = [o.output_type for o in merged_streams(cell.outputs)]
        if "output_types" in expect and types != expect["output_types"]:
            problems.append(f"{where}: outputs {types}, want {expect['output_types']}")
        text = "".join(o.get("text", "") for o in cell.outputs if o.output_type == "stream")
        if "text" in expect and expect["text"] not in text:
            problems.append(f"{where}: stream text {text!r} lacks {expect['text']!r}")
        mimes = set()
        for o in cell.outputs:
            mimes.update(o.get("data", {}).keys())
        for mime in expect.get("mimes", []):
            if mime not in mimes:
                problems.append(f"{where}: no {mime} among {sorted(mimes)}")
        if "ename" in expect:
            enames = [o.ename for o in cell.outputs if o.output_type == "error"]
            if enames != [expect["ename"]]:
                problems.append(f"{where}: errors {enames}, want {expect['ename']}")
    return problems


def main(path):
    nb = nbformat.read(path, as_version=4)
    client = NotebookClient(
        nb,
        kernel_name="pathnotes",
        timeout=300,
        startup_timeout=60,
        resources={"metadata": {"path": os.path.dirname(path)}},
    )
    try:
        client.execute()
    except CellExecutionError as e:
        print(f"{path}: a cell failed:\n{e}")
        return 1
    problems = problems_of(nb)
    for p in problems:
        print(f"{path}: {p}")
    if problems:
        return 1
    cells = sum(1 for c in nb.cells if c.cell_type == "code")
    print(f"{path}: {cells} code cells ran")
    return 0


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    sys.exit(main(sys.argv[1]))

"""Run lesson notebooks top to bottom with nbclient, as on a learner's computer, and say what each cell showed.

    python run_lessons.py FOLDER 00_welcome.ipynb 02_graphs_chain_rule.ipynb ... > report.json

Run by ``test_learner_install.py`` with the learner's own Python (a clean venv holding only the
installed wheel): it imports nothing from the repository. For each notebook the report has
the seconds it took, the error that stopped it (None when every cell ran) and, per cell id,
the output types, the mime types, the stderr text, and how many graphs drawn in the browser
(``widgets.draw.browser_view.GraphView`` models with candidate pictures) the cell's widgets hold.
"""

import json
import sys
import time
from pathlib import Path

import nbformat
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError

WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
WIDGET_STATE = "application/vnd.jupyter.widget-state+json"
GRAPH_VIEW = "widgets.draw.browser_view.GraphView"


def reachable(state, model_id, seen=None):
    """The model ``model_id`` and every model its state refers to ("IPY_MODEL_<id>"), recursively."""
    seen = set() if seen is None else seen
    if model_id in seen or model_id not in state:
        return seen
    seen.add(model_id)
    values = list(state[model_id].get("state", {}).values())
    while values:
        value = values.pop()
        if isinstance(value, list):
            values.extend(value)
        elif isinstance(value, str) and value.startswith("IPY_MODEL_"):
            reachable(state, value[len("IPY_MODEL_") :], seen)
    return seen


def graphs_in(state, model_ids):
    """How many browser-drawn graphs with at least one DOT picture the models hold."""
    found = set()
    for model_id in model_ids:
        for other in reachable(state, model_id):
            model = state[other].get("state", {})
            levels = model.get("levels") or []
            if model.get("_anywidget_id") == GRAPH_VIEW and levels and levels[0]["pictures"][0]["dot"]:
                found.add(other)
    return len(found)


def run(path):
    nb = nbformat.read(path, as_version=4)
    start, error = time.perf_counter(), None
    client = NotebookClient(
        nb,
        timeout=600,
        kernel_name="python3",
        store_widget_state=True,
        resources={"metadata": {"path": str(path.parent)}},
    )
    try:
        client.execute()
    except CellExecutionError as exc:
        error = str(exc)[-3000:]
    state = nb.metadata.get("widgets", {}).get(WIDGET_STATE, {}).get("state", {})
    cells = {}
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        outputs = cell.get("outputs", [])
        views = [o["data"][WIDGET_VIEW]["model_id"] for o in outputs if WIDGET_VIEW in o.get("data", {})]
        cells[cell.id] = {
            "output_types": sorted({o["output_type"] for o in outputs}),
            "mimetypes": sorted({m for o in outputs for m in o.get("data", {})}),
            "stderr": "".join(o.get("text", "") for o in outputs if o.get("name") == "stderr")[:2000],
            "graphs": graphs_in(state, views),
        }
    return {"seconds": round(time.perf_counter() - start, 1), "error": error, "cells": cells}


def main(argv):
    folder = Path(argv[0]).resolve()
    json.dump({name: run(folder / name) for name in argv[1:]}, sys.stdout)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

"""Generate the learner notebooks ``lessons/NN_name.ipynb`` from ``lessons/solutions/``.

A solution notebook is the single source of a lesson. Its exercise code sits between
nbgrader's markers::

    def mul_backward(ctx, grad_output):
        ### BEGIN SOLUTION
        a, b = ctx.saved_tensors
        return grad_output * b, grad_output * a
        ### END SOLUTION

The learner copy replaces each region (markers included) with ``# YOUR CODE HERE`` and
``raise NotImplementedError()`` at the BEGIN line's indentation, and has its outputs,
execution counts and saved widget state cleared. Cell ids are kept, so a copy is the same
on every run.

    python -m tools.make_learner_copies           # write lessons/*.ipynb
    python -m tools.make_learner_copies --check   # exit 1 if a committed copy is stale
"""

import argparse
import re
import sys
from pathlib import Path

import nbformat

LESSONS = Path(__file__).resolve().parent.parent / "lessons"
SOLUTIONS = LESSONS / "solutions"
# One exercise region: the BEGIN line (its indentation captured) through the END line.
REGION = re.compile(r"^([ \t]*)### BEGIN SOLUTION[^\n]*\n.*?^[ \t]*### END SOLUTION[^\n]*(\n|$)", re.M | re.S)
# Cell metadata that records one particular run (nbclient's timings), never wanted in a copy.
RUN_METADATA = ("execution", "collapsed", "scrolled")


def strip_solutions(source):
    """``source`` with every solution region replaced by the learner's placeholder."""
    return REGION.sub(lambda m: f"{m[1]}# YOUR CODE HERE\n{m[1]}raise NotImplementedError(){m[2]}", source)


def learner_copy(solution):
    """The learner notebook (a new NotebookNode) for a solution notebook."""
    nb = nbformat.from_dict(solution)  # a deep copy: the solution is left untouched
    nb.metadata.pop("widgets", None)  # widget views of the solution's run (random model ids)
    for cell in nb.cells:
        for key in RUN_METADATA:
            cell.metadata.pop(key, None)
        if cell.cell_type == "code":
            cell.source = strip_solutions(cell.source)
            cell.outputs = []
            cell.execution_count = None
    return nb


def render(solution_path):
    """The exact text the learner copy of ``solution_path`` should have."""
    solution = nbformat.read(solution_path, as_version=4)
    return nbformat.writes(learner_copy(solution)) + "\n"


def main(argv=None):
    """Write every learner copy, or with ``--check`` list those that are out of date."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="only report stale learner copies")
    args = parser.parse_args(argv)
    stale = []
    for solution_path in sorted(SOLUTIONS.glob("*.ipynb")):
        target = LESSONS / solution_path.name
        text = render(solution_path)
        if target.exists() and target.read_text(encoding="utf-8") == text:
            continue
        stale.append(target)
        if not args.check:
            target.write_text(text, encoding="utf-8")
    verb = "out of date (run `make lessons`)" if args.check else "written"
    for target in stale:
        print(f"{target.relative_to(LESSONS.parent)}: {verb}")
    return 1 if args.check and stale else 0


if __name__ == "__main__":
    sys.exit(main())

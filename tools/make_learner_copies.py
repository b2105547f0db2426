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

It also writes each translated lesson: the translated solution
``lessons/solutions/zh/NN_name.ipynb`` (``tools.translated_notebooks``: the English solution
with its markdown translated and the widgets set to Chinese) and its learner copy
``lessons/zh/NN_name.ipynb``, made by the same ``learner_copy``. A lesson whose translation is
incomplete is not written (the reason is printed). A translated solution whose code changed
keeps its outputs only for the unchanged cells and is reported until its outputs are
refreshed: ``python -m tools.refresh_outputs lessons/solutions/zh/NN_name.ipynb``.
"""

import argparse
import re
import sys
from pathlib import Path

import nbformat

from tools import translated_notebooks

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
    nb.metadata.pop(translated_notebooks.OUTPUTS_KEY, None)  # which run a translation's outputs are from
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


def translated(lang, solution_path):
    """[(path, text)] of the translated solution of ``solution_path`` and its learner copy.

    Raises ``ValueError`` (saying which cells) when the lesson's translation is incomplete.
    """
    text = translated_notebooks.render(lang, solution_path)
    copy = nbformat.writes(learner_copy(nbformat.reads(text, as_version=4))) + "\n"
    solution = translated_notebooks.solution_path(lang, solution_path)
    return [(solution, text), (LESSONS / lang / solution_path.name, copy)]


def generated():
    """[(path, text)] of every generated notebook, and the problems that kept some from being generated."""
    files, problems = [], []
    for solution_path in sorted(SOLUTIONS.glob("*.ipynb")):
        files.append((LESSONS / solution_path.name, render(solution_path)))
        for lang in translated_notebooks.LANGUAGES:
            try:
                files += translated(lang, solution_path)
            except ValueError as exc:  # an incomplete translation: say so, write nothing for it
                lines = str(exc).splitlines()
                first = lines[0].rstrip(":") + (f", e.g. {lines[1].strip()}" if len(lines) > 1 else "")
                problems.append(f"lessons/solutions/{lang}/{solution_path.name}: not written: {first}")
    return files, problems


def main(argv=None):
    """Write every learner copy and translated notebook, or with ``--check`` list those that are out of date."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="only report stale generated notebooks")
    args = parser.parse_args(argv)
    files, problems = generated()
    stale = []
    for target, text in files:
        if target.exists() and target.read_text(encoding="utf-8") == text:
            continue
        stale.append(target)
        if not args.check:
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text, encoding="utf-8")
    verb = "out of date (run `make lessons`)" if args.check else "written"
    for target in stale:
        print(f"{target.relative_to(LESSONS.parent)}: {verb}")
    to_run = [str(target.relative_to(LESSONS.parent)) for target, text in files
              if target.parent.name in translated_notebooks.LANGUAGES and target.parent.parent == SOLUTIONS
              and translated_notebooks.outputs_stale(nbformat.reads(text, as_version=4))]
    problems += [f"{path}: its stored outputs are not from this code" for path in to_run]
    for line in problems:
        print(line)
    if to_run:  # one command for them all (then `make lessons` again is a no-op for them)
        print(f"refresh them: python -m tools.refresh_outputs {' '.join(to_run)}")
    return 1 if args.check and (stale or problems) else 0


if __name__ == "__main__":
    sys.exit(main())

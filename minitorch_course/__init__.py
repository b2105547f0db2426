"""The course around the framework: ``minitorch-course lessons | lab | doctor``.

``pip install minitorch-course`` (the wheel, or a git URL) brings the framework (``minitorch``),
the visual layer (``widgets``) and this package, whose command writes the lesson notebooks of
the installed version where the learner wants them, opens JupyterLab on lesson 00, and says
what the machine has and lacks. Standard library only at import: ``make system-deps`` runs
``python3 -m minitorch_course.system_packages`` before any virtual environment exists.
"""

from importlib import metadata

DISTRIBUTION = "minitorch-course"


def version() -> str:
    """The installed version of minitorch-course ("unknown" in a checkout that was never installed)."""
    try:
        return metadata.version(DISTRIBUTION)
    except metadata.PackageNotFoundError:
        return "unknown"

"""nbgrader configuration of the MiniTorch course (run nbgrader commands from this folder).

``source/`` is generated from ``lessons/solutions/`` by ``make course`` (tools/make_course.py):
never edit it by hand. Everything else nbgrader writes here (release/, submitted/,
autograded/, feedback/, gradebook.db) is git-ignored. On the classroom hub (`make hub` as
root) this folder is copied to the teacher's course folder, and these settings apply there.
"""

import os
import sys
from pathlib import Path

c = get_config()  # noqa: F821 (nbgrader provides get_config)

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))  # minitorch_grading.py, next to this file

c.CourseDirectory.course_id = os.environ.get("NBGRADER_COURSE_ID", "minitorch")
c.CourseDirectory.root = str(HERE)
c.CourseDirectory.db_url = f"sqlite:///{HERE / 'gradebook.db'}"

# The exchange is where release_assignment puts assignments and learners' submit puts
# their work: on a shared JupyterHub, a folder every user can reach (the classroom hub sets
# NBGRADER_EXCHANGE to its own). Without a hub, a folder next to this file.
c.Exchange.root = os.environ.get("NBGRADER_EXCHANGE", str(HERE / "exchange"))

# A submission counts only for the OS user who made it (one user per learner on the hub):
# `nbgrader submit --student someone-else` is left out at collect time, not collected.
c.ExchangeFactory.collect = "minitorch_grading.OwnerCheckedCollect"

# Untouched check cells come back with their hidden tests without a checksum warning.
c.Autograde.sanitize_preprocessors = [
    "nbgrader.preprocessors.ClearOutput",
    "nbgrader.preprocessors.DeduplicateIds",
    "nbgrader.preprocessors.OverwriteKernelspec",
    "minitorch_grading.HiddenTestsOverwriteCells",
    "nbgrader.preprocessors.CheckCellMetadata",
]

# Lessons train small models: give a cell more than nbgrader's 30 s default.
c.Execute.timeout = 300
# A lesson may write plots; keep autograded notebooks from growing without bound.
c.LimitOutput.max_lines = 2000

"""nbgrader configuration of the MiniTorch course (run nbgrader commands from this folder).

``source/`` is generated from ``lessons/solutions/`` by ``make course`` (tools/make_course.py):
never edit it by hand. Everything else nbgrader writes here (release/, submitted/,
autograded/, feedback/, gradebook.db) is git-ignored.
"""

import os
from pathlib import Path

c = get_config()  # noqa: F821 (nbgrader provides get_config)

HERE = Path(__file__).resolve().parent

c.CourseDirectory.course_id = os.environ.get("NBGRADER_COURSE_ID", "minitorch")
c.CourseDirectory.root = str(HERE)
c.CourseDirectory.db_url = f"sqlite:///{HERE / 'gradebook.db'}"

# The exchange is where release_assignment puts assignments and learners' submit puts
# their work: on a shared JupyterHub, a folder every user can reach (nbgrader's default is
# /srv/nbgrader/exchange). Locally, a folder next to this file.
c.Exchange.root = os.environ.get("NBGRADER_EXCHANGE", str(HERE / "exchange"))

# Lessons train small models: give a cell more than nbgrader's 30 s default.
c.Execute.timeout = 300
# A lesson may write plots; keep autograded notebooks from growing without bound.
c.LimitOutput.max_lines = 2000

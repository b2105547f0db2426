"""The teacher's round, one command each (the Makefile's release, collect, ... targets).

    python hub/teacher.py release   02_graphs_chain_rule   # generate + due date + release
    python hub/teacher.py collect   02_graphs_chain_rule
    python hub/teacher.py autograde 02_graphs_chain_rule
    python hub/teacher.py feedback  02_graphs_chain_rule   # generate + release feedback
    python hub/teacher.py export    grades.csv             # scores with names, late submissions
    python hub/teacher.py roster    students.csv           # id,first_name,last_name,email
    python hub/teacher.py due       02_graphs_chain_rule "2027-01-15 23:59 UTC"

On the classroom hub (run as root, MINITORCH_HUB_SITE or /srv/minitorch holds a course
folder) each command runs as the teacher's OS user in the teacher's course folder, with the
hub's exchange; without a hub, in the repository's course/ as the current user.
Due dates per lesson come from course/schedule.csv (lesson,due) at release time.
"""

import argparse
import csv
import os
import pwd
import shutil
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import classroom_site  # noqa: E402

REPO = Path(__file__).resolve().parent.parent
SCHEDULE = Path(os.environ.get("MINITORCH_COURSE_DIR", REPO / "course")) / "schedule.csv"


class Course:
    """Where nbgrader runs and as whom."""

    def __init__(self):
        site = classroom_site.Site(os.environ.get("MINITORCH_HUB_SITE", "/srv/minitorch"))
        self.site = site if os.getuid() == 0 and (site.course / "nbgrader_config.py").exists() else None
        self.root = site.course if self.site else Path(os.environ.get("MINITORCH_COURSE_DIR", REPO / "course"))
        self.teacher = pwd.getpwuid(self.root.stat().st_uid) if self.site else None

    def nbgrader(self, *args, capture=False):
        """Run ``nbgrader ARGS`` in the course folder (as the teacher on the hub)."""
        if self.site is None:
            env = dict(os.environ, PATH=f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}")
            command, preexec = [sys.executable, "-m", "nbgrader", *args], None
        else:
            env = dict(self.site.learner_env(teacher=True), HOME=self.teacher.pw_dir, USER=self.teacher.pw_name)
            command, preexec = [str(self.site.venv_bin / "python"), "-m", "nbgrader", *args], self._become_teacher
        return subprocess.run(command, cwd=self.root, env=env, preexec_fn=preexec, check=True,
                              capture_output=capture, text=True)

    def _become_teacher(self):
        os.setgid(self.teacher.pw_gid)
        os.initgroups(self.teacher.pw_name, self.teacher.pw_gid)
        os.setuid(self.teacher.pw_uid)


def due_date(lesson, schedule=SCHEDULE):
    """The lesson's due date in course/schedule.csv, or None."""
    if not Path(schedule).exists():
        return None
    with open(schedule, newline="") as f:
        for row in csv.DictReader(f):
            if row["lesson"].strip() == lesson:
                return row["due"].strip() or None
    return None


def release(course, lesson):
    if course.site is not None:  # the teacher's gradebook learns the lesson from its source
        classroom_site.sync_course(course.site, course.teacher.pw_name)
        course.nbgrader("generate_assignment", lesson, "--force", "--create")
    set_due(course, lesson, due_date(lesson))
    course.nbgrader("release_assignment", lesson, "--force")


def set_due(course, lesson, due):
    args = ["db", "assignment", "add", lesson] + ([f"--duedate={due}"] if due else [])
    course.nbgrader(*args)


def roster(course, path):
    """Import the students (nbgrader db student import); on the hub, only they may log in."""
    target = course.root / "roster.csv"
    shutil.copy(path, target)
    if course.teacher:
        shutil.chown(target, user=course.teacher.pw_uid, group=course.teacher.pw_gid)
    course.nbgrader("db", "student", "import", "roster.csv")
    if course.site is not None:
        with open(path, newline="") as f:
            ids = [row["id"].strip() for row in csv.DictReader(f) if row.get("id", "").strip()]
        allowed = course.site.state / "roster.txt"
        allowed.write_text("\n".join(ids) + "\n")
        os.chmod(allowed, 0o600)


def export(course, path):
    course.nbgrader("export", "--to", "grades.csv")
    shutil.copy(course.root / "grades.csv", path)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("step", choices=["release", "collect", "autograde", "feedback", "export", "roster", "due"])
    parser.add_argument("name", help="the lesson (or the CSV file for export and roster)")
    parser.add_argument("when", nargs="?", help="due: the due date")
    args = parser.parse_args(argv)
    course = Course()
    print(f"course folder: {course.root}" + (f" (as {course.teacher.pw_name})" if course.teacher else ""))
    if args.step == "release":
        release(course, args.name)
    elif args.step == "collect":
        course.nbgrader("collect", args.name, "--update")
    elif args.step == "autograde":
        course.nbgrader("autograde", args.name, "--create")
    elif args.step == "feedback":
        course.nbgrader("generate_feedback", args.name)
        course.nbgrader("release_feedback", args.name)
    elif args.step == "export":
        export(course, Path(args.name).resolve())
    elif args.step == "roster":
        roster(course, Path(args.name).resolve())
    elif args.step == "due":
        set_due(course, args.name, args.when)
    return 0


if __name__ == "__main__":
    sys.exit(main())

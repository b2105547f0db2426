"""Two nbgrader plugins for the MiniTorch course (configured in ``nbgrader_config.py``).

``HiddenTestsOverwriteCells``
    nbgrader stores a check cell's checksum *with* its hidden tests, but learners receive the
    cell without them; so ``nbgrader autograde`` warned "checksum ... has changed!" for every
    check cell of every submission, untouched ones included. This version first recognises an
    untouched check cell (its source is the released one: the stored source less the hidden
    tests) and puts the stored source back silently; a check cell the learner really edited
    still gets nbgrader's warning, and is restored all the same.

``OwnerCheckedCollect``
    nbgrader's collect only *warns* when a submission folder is not owned by the student it
    names (``alice`` running ``nbgrader submit --student bob``) and then collects it as bob's,
    possibly replacing bob's own newest submission. On a hub with one OS user per learner the
    owner is who really submitted: this collect leaves such submissions out, before choosing
    each student's newest one, and says so.
"""

import glob
import os
import pwd
from collections import defaultdict

import nbformat
from nbgrader.api import Gradebook, MissingEntry
from nbgrader.exchange.default.collect import ExchangeCollect
from nbgrader.preprocessors import ClearHiddenTests, OverwriteCells
from nbgrader.utils import check_mode, is_locked


class HiddenTestsOverwriteCells(OverwriteCells):
    """OverwriteCells without the spurious checksum warning for untouched hidden-test cells."""

    def preprocess_cell(self, cell, resources, cell_index):
        grade_id = cell.metadata.get("nbgrader", {}).get("grade_id")
        if grade_id is not None and is_locked(cell):
            try:
                stored = self.gradebook.find_source_cell(grade_id, self.notebook_id, self.assignment_id)
            except MissingEntry:
                stored = None
            if stored is not None and stored.locked and cell.source == released_source(stored.source):
                cell.source = stored.source  # untouched: the hidden tests go back without a warning
        return super().preprocess_cell(cell, resources, cell_index)


def released_source(source):
    """``source`` as learners received it: nbgrader's hidden-test regions removed."""
    released = nbformat.from_dict({"cell_type": "code", "source": source, "metadata": {}})
    ClearHiddenTests()._remove_hidden_test_region(released)
    return released.source


def submission_owner(path):
    """The user name that owns ``path`` on this machine ("" if the uid has no name)."""
    try:
        return pwd.getpwuid(os.stat(path).st_uid).pw_name
    except KeyError:
        return ""


class OwnerCheckedCollect(ExchangeCollect):
    """nbgrader's collect, but a submission counts only for the OS user who made it."""

    def init_src(self):
        if self.coursedir.course_id == "":
            self.fail("No course id specified. Re-run with --course flag.")
        self.course_path = os.path.join(self.root, self.coursedir.course_id)
        self.inbound_path = os.path.join(self.course_path, "inbound")
        if not os.path.isdir(self.inbound_path):
            self.fail(f"Course not found: {self.inbound_path}")
        if not check_mode(self.inbound_path, read=True, execute=True):
            self.fail(f"You don't have read permissions for the directory: {self.inbound_path}")
        student = self.coursedir.student_id or "*"
        pattern = os.path.join(self.inbound_path, f"{student}+{self.coursedir.assignment_id}+*")
        by_student = defaultdict(list)
        for path in glob.glob(pattern):
            record = self._path_to_record(path)
            owner = submission_owner(path)
            if owner != record["username"]:
                self.log.warning("refused: %s names student %r but was submitted by %r",
                                 record["filename"], record["username"], owner or "an unknown uid")
                continue
            by_student[record["username"]].append(record)
        with Gradebook(self.coursedir.db_url, self.coursedir.course_id) as gradebook:
            try:
                self.duedate = gradebook.find_assignment(self.coursedir.assignment_id).duedate
            except MissingEntry:
                self.duedate = None
        self.src_records = [self._choose(records) for records in by_student.values()]

    def _choose(self, records):
        """The newest record; with ``--before-duedate``, the newest one in time if there is one."""
        records = self._sort_by_timestamp(records)
        if self.duedate is not None and self.before_duedate:
            in_time = [r for r in records if r["timestamp"] <= self.duedate]
            return in_time[0] if in_time else records[0]
        return records[0]

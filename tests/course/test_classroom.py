"""The classroom round on the real hub (``make hub`` as root), as a teacher and three learners do it.

The hub starts on 127.0.0.1 in a folder of its own, one OS user per learner. The teacher
imports a roster and releases lesson 02 (hub/teacher.py, as ``make release`` does). Three
learners log in through the browser (headless Chromium), open nbgrader's Assignments tab
and fetch the lesson: ada solves every exercise, bob half of them, and cy tries from a
terminal to submit as ada and to read ada's notebook, the solutions, the course source, the
exchange's inbox and the hub's secrets -- all refused -- then submits their own work after
the due date. The teacher collects (cy's forgery is left out), autogrades (no checksum
warnings), releases feedback and exports; each learner fetches their feedback and sees only
their own score. The teacher's Formgrader lists the lesson. Every process is stopped and
every user and folder removed at the end.
"""

import csv
import datetime
import os
import re
import shutil
import sys
import time
from pathlib import Path

import nbformat
import pytest
from classroom import REPO, require  # tests/course/classroom.py
from classroom_hub import ClassroomHub, missing_classroom

sys.path.insert(0, str(REPO))
from tools import make_course  # noqa: E402

LESSON = "02_graphs_chain_rule"
PASSWORD = "learner-secret-1"
CHROMIUM = os.environ.get("MINITORCH_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update", "--disable-sync"]
WAIT_MS = 120_000  # any one browser wait, two cores shared by four servers


def _missing():
    reason = missing_classroom()
    if reason:
        return reason
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "playwright is not installed (never `playwright install`: Debian's chromium is used)"
    if not os.access(CHROMIUM, os.X_OK):
        return f"no Chromium at {CHROMIUM} (apt-get install chromium)"
    return None


def build_course(folder):
    """An nbgrader course folder with lesson 02 only (as `make course` builds for every lesson)."""
    for name in ("nbgrader_config.py", "minitorch_grading.py"):
        shutil.copy(REPO / "course" / name, folder)
    make_course.write_source(course=folder, lessons=[LESSON])
    (folder / "schedule.csv").write_text(f"lesson,due\n{LESSON},2099-12-31 23:59:00 UTC\n")
    return folder


def answered(notebook, solution, fraction):
    """``notebook`` with the first ``fraction`` of its answer cells filled in from the solution."""
    sources = {cell.id: cell.source for cell in solution.cells}
    answers = [c for c in notebook.cells if c.metadata.get("nbgrader", {}).get("solution")]
    for cell in answers[: round(len(answers) * fraction)]:
        cell.source = sources[cell.id]
    return notebook


def open_assignments(page, name):
    """JupyterLab's Nbgrader > Assignment List, listing lesson 02 in some state."""
    page.wait_for_selector(".jp-LabShell", timeout=WAIT_MS)
    page.locator(".lm-MenuBar-itemLabel", has_text="Nbgrader").click()
    page.locator(".lm-Menu-itemLabel", has_text="Assignment List").click()
    page.wait_for_selector(f".list_container :text('{LESSON}')", timeout=WAIT_MS)


def click_in_list(page, list_id, button):
    """Click ``button`` of lesson 02 in one of the Assignments tab's lists."""
    page.locator(f"#{list_id} .list_item", has_text=LESSON).locator("button", has_text=button).click()


def submit(page):
    click_in_list(page, "fetched_assignments_list", "Submit")
    page.wait_for_selector(f"#submitted_assignments_list .list_item:has-text('{LESSON}')", timeout=WAIT_MS)


@pytest.fixture(scope="module")
def round_(tmp_path_factory):
    """Run the whole round once; the tests below look at what it recorded."""
    require(_missing())
    from playwright.sync_api import sync_playwright

    course = build_course(tmp_path_factory.mktemp("course"))
    hub = ClassroomHub(course)
    ada, bob, cy = (hub.names[role] for role in ("ada", "bob", "cy"))
    started = time.monotonic()
    record = {"hub": hub, "names": hub.names, "seconds": {}}

    def mark(step):  # how long the round took up to each step (shown when a test fails)
        record["seconds"][step] = round(time.monotonic() - started, 1)
        print(f"classroom round: {step} after {record['seconds'][step]} s", flush=True)
    try:
        hub.wait_ready()
        mark("hub up")
        roster = tmp_path_factory.mktemp("roster") / "students.csv"
        roster.write_text("id,first_name,last_name,email\n" + "".join(
            f"{name},{role.title()},Learner,{name}@example.org\n" for role, name in hub.names.items()))
        hub.teacher("roster", str(roster))
        record["release_log"] = hub.teacher("release", LESSON)
        mark("released")
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_FLAGS)
            pages = {}

            def login(name, password=PASSWORD):
                page = browser.new_context().new_page()
                page.set_default_timeout(WAIT_MS)
                page.goto(f"{hub.url}/hub/login")
                page.fill("input[name=username]", name)
                page.fill("input[name=password]", password)
                page.click("#login_submit")
                return page

            stranger = login("mallory")  # not on the roster
            record["stranger_url"] = stranger.url
            for name in (ada, bob, cy):
                pages[name] = login(name)
                pages[name].wait_for_url(re.compile(f"/user/{name}/lab"), timeout=WAIT_MS)
                open_assignments(pages[name], name)
                click_in_list(pages[name], "released_assignments_list", "Fetch")
                pages[name].wait_for_selector(f"#fetched_assignments_list .list_item:has-text('{LESSON}')")
            mark("fetched")
            record["services"] = hub.api("GET", "/hub/api/services")[1]
            user = hub.api("GET", f"/hub/api/users/{ada}")[1]
            cgroups = Path(f"/proc/{user['servers']['']['state']['pid']}/cgroup").read_text()
            record["server_cgroups"] = dict(line.split(":", 2)[1:] for line in cgroups.splitlines())
            memory = Path("/sys/fs/cgroup/memory", record["server_cgroups"].get("memory", "/").lstrip("/"))
            if (memory / "memory.limit_in_bytes").exists():  # cgroup v1 (v2: memory.max)
                record["memory_limit"] = int((memory / "memory.limit_in_bytes").read_text())
            tokens = {name: hub.user_token(name) for name in (ada, bob, cy)}
            record["homes"] = {name: sorted(p.name for p in (hub.site / "home" / name).iterdir()
                                            if not p.name.startswith(".")) for name in tokens}
            path = f"{LESSON}/{LESSON}.ipynb"
            solution = nbformat.read(make_course.SOLUTIONS / f"{LESSON}.ipynb", as_version=4)
            for name, fraction in ((ada, 1.0), (bob, 0.5)):  # they work in the fetched copy, save, submit
                status, model = hub.api("GET", f"/user/{name}/api/contents/{path}", token=tokens[name])
                assert status == 200, (status, model)
                notebook = answered(nbformat.from_dict(model["content"]), solution, fraction)
                status, _ = hub.api("PUT", f"/user/{name}/api/contents/{path}", token=tokens[name],
                                    body={"type": "notebook", "format": "json", "content": notebook})
                assert status == 200
                submit(pages[name])
            site = hub.site
            record["cy_terminal"] = hub.terminal(cy, tokens[cy], " ; ".join([
                "which nbgrader", "python3 -c 'import sys; print(\"PREFIX\", sys.prefix)'",
                f"cat {site}/home/{ada}/{path} | head -c 100",
                f"ls {REPO}/lessons/solutions", f"ls {site}/course", f"ls {site}/course/source",
                f"cat {site}/state/jupyterhub_cookie_secret", f"ls {site}/exchange/minitorch/inbound",
                f"nbgrader submit {LESSON} --student {ada} 2>&1 | tail -3",
            ]))
            hub.teacher("due", LESSON, datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M:%S UTC"))
            submit(pages[cy])  # their own, unfilled, after the due date
            mark("submitted")
            record["collect_log"] = hub.teacher("collect", LESSON)
            record["autograde_log"] = hub.teacher("autograde", LESSON)
            mark("autograded")
            hub.teacher("feedback", LESSON)
            grades = tmp_path_factory.mktemp("grades") / "grades.csv"
            hub.teacher("export", str(grades))
            with open(grades, newline="") as f:
                record["grades"] = {row["student_id"]: row for row in csv.DictReader(f) if row["assignment"] == LESSON}
            record["feedback"] = {}
            for name in (ada, bob, cy):
                hub.terminal(name, tokens[name], f"nbgrader fetch_feedback {LESSON}")
                found = sorted((hub.site / "home" / name / LESSON / "feedback").glob(f"*/{LESSON}.html"))
                record["feedback"][name] = [p.read_text(encoding="utf-8") for p in found]
            record["cy_feedback_dir"] = hub.terminal(cy, tokens[cy], f"ls {site}/exchange/minitorch/feedback")
            claimed = login(hub.teacher_name)  # a learner cannot claim the teacher's name first
            record["teacher_claim_url"] = claimed.url
            teacher_page = login(hub.teacher_name, (hub.site / "state" / "teacher-password").read_text().strip())
            teacher_page.wait_for_url(re.compile(f"/user/{hub.teacher_name}/formgrader"), timeout=WAIT_MS)
            teacher_page.wait_for_selector(f"text={LESSON}", timeout=WAIT_MS)
            record["formgrader"] = teacher_page.content()
            learner_formgrader = pages[ada].goto(f"{hub.url}/user/{ada}/formgrader")
            record["learner_formgrader_status"] = learner_formgrader.status
            browser.close()
            mark("formgrader")
        yield record
    finally:
        hub.close()
    import pwd

    for name in [*hub.names.values(), hub.teacher_name]:  # nothing of the round is left
        with pytest.raises(KeyError):
            pwd.getpwnam(name)
    assert not hub.site.exists() and hub.proc.poll() is not None


def test_login_and_fetch(round_):
    """Roster names log in and fetch the lesson; a home holds only what was fetched; others are refused."""
    assert "/hub/login" in round_["stranger_url"]
    for name, listing in round_["homes"].items():
        assert listing == [LESSON], f"{name}'s home: {listing}"


def test_idle_culler_and_limits(round_):
    """The culler runs as a hub service; a server's memory and CPU are capped where cgroups allow."""
    assert "idle-culler" in round_["services"]
    sys.path.insert(0, str(REPO / "hub"))
    import classroom_limits

    enforced = classroom_limits.supported()
    groups = round_["server_cgroups"]
    if "memory" in enforced and "memory" in groups:  # cgroup v1: the memory hierarchy
        assert groups["memory"].endswith(f"minitorch-{round_['names']['ada']}")
        assert round_["memory_limit"] == 2 * 1024**3  # MINITORCH_HUB_MEM_LIMIT's default, 2G
    elif enforced:  # cgroup v2
        assert groups[""].endswith(f"minitorch-{round_['names']['ada']}")
    else:
        pytest.skip("this machine lets the hub set no cgroup limits (an unprivileged container)")


def test_learner_terminal_has_the_course_tools(round_):
    out = round_["cy_terminal"]
    runtime = round_["hub"].site / "runtime"
    assert re.search(rf"{re.escape(str(runtime))}/venv/bin/nbgrader", out), out[-3000:]
    assert f"PREFIX {runtime}/venv" in out, out[-3000:]


def test_learner_cannot_read_what_is_not_theirs(round_):
    out = round_["cy_terminal"]
    denied = out.count("Permission denied")
    # ada's notebook, the solutions, the course folder (twice), the hub's secret, the inbox
    assert denied >= 6, out[-3000:]
    assert '"cells"' not in out and "BEGIN SOLUTION" not in out


def test_impersonation_is_refused_at_collect(round_):
    names = round_["names"]
    assert f"names student {names['ada']!r} but was submitted by {names['cy']!r}" in round_["collect_log"]


def test_scores_lateness_and_names(round_):
    names, grades = round_["names"], round_["grades"]
    total = make_course.points_per_lesson()[LESSON]
    ada, bob, cy = (grades[names[role]] for role in ("ada", "bob", "cy"))
    assert float(ada["raw_score"]) == total and float(ada["max_score"]) == total
    assert float(bob["raw_score"]) == total / 2  # half the answers, half the checks
    assert float(cy["raw_score"]) == 0
    assert ada["first_name"] == "Ada" and bob["last_name"] == "Learner"
    due = datetime.datetime.fromisoformat(cy["duedate"])
    assert datetime.datetime.fromisoformat(cy["timestamp"]) > due  # cy's is late
    assert datetime.datetime.fromisoformat(ada["timestamp"]) < due


def test_autograde_has_no_spurious_checksum_warnings(round_):
    assert "has changed" not in round_["autograde_log"]


def test_each_learner_sees_only_their_own_feedback(round_):
    names, grades = round_["names"], round_["grades"]
    total = make_course.points_per_lesson()[LESSON]
    for name in names.values():
        pages = round_["feedback"][name]
        assert len(pages) == 1, f"{name} got {len(pages)} feedback pages"
        score = float(grades[name]["raw_score"])
        assert f"Score: {score:.1f} / {total:.1f}" in pages[0]
        assert f"{score:.0f} of {total} exercises passed" in pages[0]  # the lesson's own scoreboard
    assert "Permission denied" in round_["cy_feedback_dir"]


def test_teacher_formgrader_lists_the_lesson_learners_have_none(round_):
    assert "/hub/login" in round_["teacher_claim_url"]  # the hub-made password only
    assert LESSON in round_["formgrader"]
    assert round_["learner_formgrader_status"] == 404


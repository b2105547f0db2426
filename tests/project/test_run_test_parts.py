"""``make test``'s runner (tools/run_test_parts.py): every part on every core, and the slowest tests reported."""

import subprocess
import sys

from tools import run_test_parts as runner


def test_every_pytest_part_runs_on_all_workers_with_whole_files_per_worker(monkeypatch):
    monkeypatch.setattr(runner, "narrowed_cpu_env", lambda: {"NPY_DISABLE_CPU_FEATURES": "X86_V3",
                                                             "OPENBLAS_CORETYPE": "Sandybridge"})
    for name in (*runner.BLAS_THREADS, "MINITORCH_FAST_KERNELS"):
        monkeypatch.delenv(name, raising=False)
    table = runner.parts(2)
    assert list(table) == list(runner.PART_NAMES)
    for name in runner.PART_NAMES[1:]:
        (command, env), = table[name]
        assert command[command.index("-n") + 1] == "2" and command[command.index("--dist") + 1] == "loadfile"
        assert env["OPENBLAS_NUM_THREADS"] == "1"  # two workers on two cores: one BLAS thread each
    assert table["narrow-cpu"][0][1]["NPY_DISABLE_CPU_FEATURES"] == "X86_V3"
    # the package tests twice: with the fast kernels, and on the ops as taught alone
    assert table["package-reference"][0][0] == table["package"][0][0]
    assert table["package-reference"][0][1]["MINITORCH_FAST_KERNELS"] == "0"
    assert "MINITORCH_FAST_KERNELS" not in table["package"][0][1]
    assert all("-n" not in command for command, _ in runner.parts(1)["package"])


def test_the_reference_run_is_in_ci_and_on_request_only():
    assert "package-reference" not in runner.default_parts({})
    assert runner.default_parts({"CI": "true"}) == list(runner.PART_NAMES)
    assert "package-reference" in runner.default_parts({"MINITORCH_TEST_REFERENCE": "1"})


def test_one_blas_thread_per_worker_unless_the_environment_chose(monkeypatch):
    assert runner.worker_env({}, 2)["OPENBLAS_NUM_THREADS"] == "1"
    assert runner.worker_env({"OPENBLAS_NUM_THREADS": "4"}, 2)["OPENBLAS_NUM_THREADS"] == "4"
    assert "OPENBLAS_NUM_THREADS" not in runner.worker_env({}, 1)
    monkeypatch.setenv("MINITORCH_TEST_WORKERS", "3")
    assert runner.workers() == 3


def test_the_slowest_tests_come_from_pytests_junit_report(tmp_path):
    tests = tmp_path / "test_timed.py"
    tests.write_text("import time\n\ndef test_slow():\n    time.sleep(0.3)\n\ndef test_fast():\n    pass\n")
    report = tmp_path / "report.xml"
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *runner.spread(2),
                           str(tests), f"--junitxml={report}"], cwd=tmp_path, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    (slow_time, slow_name), (_, fast_name) = runner.slowest(report)
    assert slow_name.endswith("::test_slow") and fast_name.endswith("::test_fast") and slow_time >= 0.3
    (both, name), = runner.slowest(report, by_file=True)
    assert both >= 0.3 and "test_timed" in name


def test_a_test_id_with_a_memory_address_is_refused():
    """The workers of pytest-xdist must collect the same ids; ``<lambda> at 0x7f...`` differs per process."""
    import types

    import pytest

    from tests.conftest import pytest_collection_modifyitems

    fine = [types.SimpleNamespace(nodeid="tests/a.py::test_x[LambdaLR-lambda]")]
    pytest_collection_modifyitems(fine)
    with pytest.raises(pytest.UsageError, match="memory address"):
        bad = types.SimpleNamespace(nodeid="tests/a.py::test_x[<function <lambda> at 0x7f3>]")
        pytest_collection_modifyitems([bad])

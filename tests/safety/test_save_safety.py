"""minitorch.save never destroys the checkpoint it replaces; a damaged archive is refused.

- A save that fails half-way (here: a 4 KiB file-size limit, as a full disk) leaves the old
  file exactly as it was, and no temporary file behind. ``torch.save`` writes in place and
  leaves a truncated file; the child-process test shows that too, as the reason for this.
- An ``.npz`` holding two entries of one name is refused as damaged (zipfile would silently
  read the last one).
- ``save(obj, folder)`` says a file path was expected.
- Saving to a file object (BytesIO) still works, with nothing written to the disk.
"""

import io
import os
import subprocess
import sys
import textwrap
import zipfile

import numpy as np
import pytest

import minitorch
from minitorch.errors import MiniTorchError

resource = pytest.importorskip("resource")  # POSIX only: the file-size limit

CHILD = textwrap.dedent(
    """
    import resource, signal, sys
    import numpy as np
    path, library = sys.argv[1], sys.argv[2]
    big = np.arange(10_000, dtype=np.float32)  # 40 KB: over the 4 KiB limit below
    # A write past RLIMIT_FSIZE sends SIGXFSZ (which kills); ignored, the write raises OSError instead.
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_FSIZE, (4096, 4096))
    try:
        if library == "minitorch":
            import minitorch
            minitorch.save({"w": minitorch.tensor(big)}, path)
        else:
            import torch
            torch.save({"w": torch.tensor(big)}, path)
    except OSError as exc:
        print("OSError", exc.errno)
        sys.exit(0)
    except RuntimeError as exc:  # torch.save reports the failed write as a RuntimeError
        print("RuntimeError", type(exc).__name__)
        sys.exit(0)
    print("no error")
    """
)


def _save_in_a_child_with_a_4k_limit(path, library):
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    done = subprocess.run(
        [sys.executable, "-c", CHILD, str(path), library], capture_output=True, text=True, timeout=120, env=env
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.split()


def test_a_failed_save_leaves_the_old_checkpoint_as_it_was(tmp_path):
    path = tmp_path / "model.pt"
    old = {"w": minitorch.tensor([1.0, 2.0, 3.0])}
    minitorch.save(old, path)
    before = path.read_bytes()
    assert _save_in_a_child_with_a_4k_limit(path, "minitorch")[0] == "OSError"
    assert path.read_bytes() == before
    np.testing.assert_array_equal(minitorch.load(path)["w"].numpy(), [1.0, 2.0, 3.0])
    assert sorted(p.name for p in tmp_path.iterdir()) == ["model.pt"]  # the temporary file is gone


def test_torch_save_loses_the_old_file_in_the_same_failure(tmp_path):
    """Why the rename matters: PyTorch writes in place, so the same failure truncates its file."""
    torch = pytest.importorskip("torch")
    path = tmp_path / "model.pt"
    torch.save({"w": torch.tensor([1.0, 2.0, 3.0])}, path)
    before = path.read_bytes()
    words = _save_in_a_child_with_a_4k_limit(path, "torch")
    assert words[0] == "RuntimeError"
    assert path.read_bytes() != before


def test_a_successful_save_replaces_the_file_and_keeps_its_permissions(tmp_path):
    path = tmp_path / "model.pt"
    minitorch.save({"w": minitorch.zeros(2)}, path)
    os.chmod(path, 0o640)
    minitorch.save({"w": minitorch.ones(3)}, path)
    assert minitorch.load(path)["w"].tolist() == [1.0, 1.0, 1.0]
    assert os.stat(path).st_mode & 0o777 == 0o640
    assert sorted(p.name for p in tmp_path.iterdir()) == ["model.pt"]


def test_a_new_file_gets_the_usual_permissions(tmp_path):
    mask = os.umask(0o022)
    try:
        minitorch.save({"w": minitorch.zeros(2)}, tmp_path / "new.pt")
    finally:
        os.umask(mask)
    assert os.stat(tmp_path / "new.pt").st_mode & 0o777 == 0o644  # as open(path, "wb") gives


def test_saving_through_a_symlink_replaces_the_file_it_points_to(tmp_path):
    real = tmp_path / "real.pt"
    minitorch.save({"w": minitorch.zeros(1)}, real)
    link = tmp_path / "latest.pt"
    link.symlink_to(real)
    minitorch.save({"w": minitorch.ones(1)}, link)
    assert link.is_symlink() and minitorch.load(real)["w"].tolist() == [1.0]


def test_saving_to_a_directory_says_a_file_path_is_expected(tmp_path):
    with pytest.raises(MiniTorchError, match="is a directory.*give a file path") as info:
        minitorch.save({"w": minitorch.zeros(1)}, tmp_path)
    assert isinstance(info.value, IsADirectoryError)  # what it raised before, still catchable as such
    assert list(tmp_path.iterdir()) == []


def test_saving_to_a_file_object_still_works(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    buffer = io.BytesIO()
    minitorch.save({"w": minitorch.tensor([4.0, 5.0])}, buffer)
    buffer.seek(0)
    assert minitorch.load(buffer)["w"].tolist() == [4.0, 5.0]
    assert list(tmp_path.iterdir()) == []  # nothing on the disk, no rename


def test_an_archive_with_two_entries_of_one_name_is_refused(tmp_path):
    path = tmp_path / "model.pt"
    minitorch.save({"w": minitorch.tensor([1.0, 2.0])}, path)
    with zipfile.ZipFile(path) as archive:
        entries = [(info.filename, archive.read(info)) for info in archive.infolist()]
    array_entry = next(data for name, data in entries if name == "a0.npy")
    replacement = io.BytesIO()
    np.lib.format.write_array(replacement, np.array([9.0, 9.0], dtype=np.float32))
    with pytest.warns(UserWarning, match="Duplicate name"), zipfile.ZipFile(path, "w") as archive:
        for name, data in entries:
            archive.writestr(name, data)
        archive.writestr("a0.npy", replacement.getvalue())  # the second a0.npy: a silent swap before
    assert array_entry  # the first one is still there too
    with pytest.raises(MiniTorchError, match="damaged.*more than one entry named 'a0.npy'") as info:
        minitorch.load(path)
    assert str(path) in str(info.value)

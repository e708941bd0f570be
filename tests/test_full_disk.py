"""Full disks (issue 29): ``export --out`` and ``random-states`` write every
file through a temporary file in the same folder and a rename
(``solver.jsonio.write_atomic``), so a full disk leaves no partial file and
gives a one-line error naming the file, exit status 2.

Two ways to fill a disk: a real one, a 64 kB tmpfs (needs root and a
kernel that lets this process mount; skipped with the reason otherwise, CI
runs as root), and ``os.write`` made to fail with ENOSPC or to write short,
which runs everywhere.
"""

from __future__ import annotations

import errno
import json
import os
from pathlib import Path

import pytest

from apps import cli
from apps.record import new_record
from bots.spec import BotSpec
from solver import jsonio, state_io
from conftest import run_cli
from conftest import small_disk


@pytest.fixture(scope="module")
def save(tmp_path_factory):
    path = tmp_path_factory.mktemp("save") / "game.json"
    new_record(human=0, bot=BotSpec.parse("random"), seed=3).save(str(path))
    return path


def _only_line(text: str) -> str:
    lines = [line for line in text.splitlines() if line.strip()]
    assert len(lines) == 1, text
    assert "Traceback" not in text
    return lines[0]


def _leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.endswith(".tmp"))


def _fill(folder: Path) -> None:
    """Fills the file system of ``folder`` to the last byte."""
    with open(folder / "filler", "wb", buffering=0) as f:
        chunk = b"\0" * 4096
        while True:
            try:
                if f.write(chunk) == 0:
                    break
            except OSError as err:
                assert err.errno == errno.ENOSPC
                if len(chunk) == 1:
                    break
                chunk = chunk[: len(chunk) // 2]


@pytest.fixture
def tmpfs(tmp_path):
    """A mounted 64 kB tmpfs, unmounted afterwards."""
    with small_disk(tmp_path, "64k", "the monkeypatched ENOSPC tests") as folder:
        yield folder


# ---- a real full disk ----------------------------------------------------------

def test_export_on_a_full_tmpfs_leaves_no_file(tmpfs, save):
    _fill(tmpfs)
    out = tmpfs / "view.json"
    r = run_cli("export", str(save), "--out", str(out))
    assert r.returncode == 2, r.stdout + r.stderr
    line = _only_line(r.stderr)
    assert str(out) in line and "No space left on device" in line, line
    assert not out.exists() and not _leftovers(tmpfs)


def test_random_states_on_a_small_tmpfs_leave_only_whole_files(tmpfs):
    out = tmpfs / "states"
    r = run_cli("random-states", "--count", "200", "--seed", "1", "--out", str(out))
    assert r.returncode == 2, r.stdout + r.stderr
    line = _only_line(r.stderr)
    assert "state-" in line and "No space left on device" in line, line
    files = sorted(out.glob("state-*.json"))
    assert files and not _leftovers(out)
    for path in files:  # every file there is whole: it loads
        state_io.load(path)


# ---- os.write made to fail (runs everywhere) ------------------------------------

def _failing_write(monkeypatch, after_bytes: int, short: bool = False):
    """``os.write`` in the writer: the first ``after_bytes`` bytes go through,
    then ENOSPC (or, ``short``, writes that take nothing)."""
    real = os.write
    left = [after_bytes]

    def write(fd, data):
        if left[0] <= 0:
            if short:
                return 0
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        n = real(fd, bytes(data[: left[0]]))
        left[0] -= n
        return n

    monkeypatch.setattr(jsonio.os, "write", write)


@pytest.mark.parametrize("short", [False, True])
def test_export_with_enospc_leaves_no_partial_file(monkeypatch, capsys, tmp_path, save, short):
    out = tmp_path / "view.json"
    _failing_write(monkeypatch, 100, short)
    assert cli.main(["export", str(save), "--out", str(out)]) == 2
    line = _only_line(capsys.readouterr().err)
    assert str(out) in line and "No space left on device" in line, line
    assert not out.exists() and not _leftovers(tmp_path)


def test_export_with_enospc_keeps_the_old_file(monkeypatch, capsys, tmp_path, save):
    out = tmp_path / "view.json"
    out.write_text("the old view\n")
    _failing_write(monkeypatch, 0)
    assert cli.main(["export", str(save), "--out", str(out)]) == 2
    assert out.read_text() == "the old view\n" and not _leftovers(tmp_path)


def test_export_writes_a_whole_file_with_the_usual_mode(tmp_path, save, capsys):
    out = tmp_path / "view.json"
    assert cli.main(["export", str(save), "--out", str(out)]) == 0
    assert json.loads(out.read_text())["format"] == state_io.FORMAT
    mask = os.umask(0)
    os.umask(mask)
    assert out.stat().st_mode & 0o777 == 0o666 & ~mask


def test_random_states_with_enospc_leave_only_whole_files(monkeypatch, capsys, tmp_path):
    out = tmp_path / "states"
    _failing_write(monkeypatch, 5000)  # two or three files, then a full disk
    assert cli.main(["random-states", "--count", "20", "--seed", "2", "--out", str(out)]) == 2
    line = _only_line(capsys.readouterr().err)
    files = sorted(out.glob("state-*.json"))
    assert files and f"state-{len(files):04d}.json" in line, line
    assert not _leftovers(out)
    for path in files:
        state_io.load(path)

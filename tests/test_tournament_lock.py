"""One run per tournament folder: an exclusive OS lock (flock) on
``tournament.lock`` refuses a second run with the pid, start time and
command of the running one, and the OS releases it when the run is killed."""
import fcntl
import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from apps import tournament as T
from apps.tournament import store
from apps.tournament.execution import LocalBackend
from solver.errors import FolderInUseError, WildhornError
from tournament_helpers import ROOT, cli, rows_of

HOLD = """
import sys
from apps.tournament.store import FolderLock
with FolderLock(sys.argv[1]):
    print("held", flush=True)
    sys.stdin.read()
"""


def test_a_second_lock_on_a_folder_is_refused_naming_the_holder(tmp_path):
    with T.FolderLock(tmp_path / "out") as lock:
        info = json.loads((tmp_path / "out" / T.LOCK_NAME).read_text())
        assert info["pid"] == os.getpid() and info["started"].endswith(" UTC")
        with pytest.raises(FolderInUseError) as refused:
            with T.FolderLock(tmp_path / "out"):
                pass
        message = str(refused.value)
        assert isinstance(refused.value, WildhornError) and "\n" not in message
        assert message.startswith(f"{tmp_path / 'out'} is in use by another tournament run "
                                  f"(pid {os.getpid()}, started {info['started']}, command: ")
        # the command line of this process (pytest's, or a pytest-xdist worker's)
        assert info["command"] in message and info["command"] == store._command()
        assert info["command"].split()[0] == (getattr(sys, "orig_argv", None) or sys.argv)[0]
        assert lock.fd is not None
    # released and removed at the end: the next run takes the folder
    assert not (tmp_path / "out" / T.LOCK_NAME).exists()
    with T.FolderLock(tmp_path / "out"):
        pass


def test_run_on_a_folder_in_use_writes_nothing(tmp_path):
    with T.FolderLock(tmp_path):
        with pytest.raises(FolderInUseError, match="in use by another tournament run"):
            T.run(["random", "heuristic"], games=2, out=str(tmp_path), echo=lambda _: None)
    assert sorted(p.name for p in tmp_path.iterdir()) == []
    summary = T.run(["random", "heuristic"], games=2, out=str(tmp_path), echo=lambda _: None)
    assert summary["games"] == 2 and not (tmp_path / T.LOCK_NAME).exists()


def test_the_os_releases_the_lock_of_a_killed_holder(tmp_path):
    holder = subprocess.Popen([sys.executable, "-c", HOLD, str(tmp_path)], cwd=ROOT,
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline() == "held\n"
        with pytest.raises(FolderInUseError, match=f"pid {holder.pid}, started "):
            with T.FolderLock(tmp_path):
                pass
    finally:
        holder.send_signal(signal.SIGKILL)
        holder.wait()
    # the file stays behind with the dead run's details; the lock went with it
    assert json.loads((tmp_path / T.LOCK_NAME).read_text())["pid"] == holder.pid
    with T.FolderLock(tmp_path):
        assert json.loads((tmp_path / T.LOCK_NAME).read_text())["pid"] == os.getpid()


def test_a_stale_or_torn_lock_file_is_taken_over(tmp_path):
    (tmp_path / T.LOCK_NAME).write_text('{"pid": 12')       # a kill while it was written
    with T.FolderLock(tmp_path):
        assert json.loads((tmp_path / T.LOCK_NAME).read_text())["pid"] == os.getpid()


def test_a_lock_file_replaced_between_open_and_flock_is_not_trusted(tmp_path, monkeypatch):
    """A run that ends removes the file; a third run may then make and lock a
    new one while we lock the removed one.  We must see that and be refused."""
    real = fcntl.flock
    other = []

    def racing_flock(fd, op):
        if not other:               # the first attempt: the file is replaced meanwhile
            os.unlink(tmp_path / T.LOCK_NAME)
            other.append(os.open(tmp_path / T.LOCK_NAME, os.O_RDWR | os.O_CREAT))
            real(other[0], fcntl.LOCK_EX | fcntl.LOCK_NB)
        return real(fd, op)

    monkeypatch.setattr(store.fcntl, "flock", racing_flock)
    try:
        with pytest.raises(FolderInUseError, match="has not written its details yet"):
            with T.FolderLock(tmp_path):
                pass
    finally:
        os.close(other[0])


@pytest.mark.skipif(not os.path.isdir("/proc/self/fd"), reason="reads /proc/PID/fd")
def test_forked_workers_do_not_hold_the_lock(tmp_path):
    """A worker that outlived a killed run would keep the folder locked."""
    def holds(pid):
        fds = Path(f"/proc/{pid}/fd")
        return any(os.path.realpath(fds / fd) == str((tmp_path / T.LOCK_NAME).resolve())
                   for fd in os.listdir(fds))

    task = T.schedule(["random", "heuristic"], "round-robin", 2, seed=1)[0]
    with T.FolderLock(tmp_path):
        runner = LocalBackend(1)
        try:
            assert runner.result(runner.submit(task))["row"]["game"] == 1
            workers = list(runner.pool._processes)
            assert workers and holds(os.getpid())
            assert not any(holds(pid) for pid in workers)
        finally:
            runner.close()


@pytest.mark.slow
def test_the_command_refuses_a_folder_in_use_with_one_line(tmp_path):
    with T.FolderLock(tmp_path):
        r = cli("--bots", "random;heuristic", "--games", "2", "--out", str(tmp_path))
    assert r.returncode == 2, r.stderr
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("wildhorn-solve: error: ")
    assert f"(pid {os.getpid()}, started " in lines[0] and "Traceback" not in r.stderr
    assert not (tmp_path / "games.csv").exists()
    r = cli("--bots", "random;heuristic", "--games", "2", "--out", str(tmp_path))
    assert r.returncode == 0, r.stderr
    assert len(rows_of(tmp_path)) == 2

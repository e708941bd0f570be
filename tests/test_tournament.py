"""Tournaments: schedule, rating maths, SPRT, resume after a kill or Ctrl-C, --jobs,
one run per folder."""
import csv
import json
import math
import os
import signal
import subprocess
import sys
import threading
import time

import numpy as np
import pytest

from apps import cli as app_cli
from apps import tournament as T
from apps.tournament.execution import LocalBackend
from tournament_helpers import (HANG_CAP, ROOT, alive, cli, forked_children, games_written,
                                rows_of, wait_for, without_seconds)


# ---- schedule and seat swapping ----------------------------------------------

def test_schedule_plays_each_deal_twice_with_sides_swapped():
    bots = ["random", "heuristic", "ismcts:iterations=5"]
    tasks = T.schedule(bots, "round-robin", 4, seed=7)
    assert [t.game for t in tasks] == list(range(1, 13))
    assert {(t.first, t.second) for t in tasks} == {(bots[0], bots[1]), (bots[0], bots[2]),
                                                     (bots[1], bots[2])}
    deals = {}
    for t in tasks:
        deals.setdefault((t.pairing, t.deal), []).append(t)
    assert len(deals) == 6
    for a, b in deals.values():
        assert a.deal_seed == b.deal_seed
        assert (a.polish, a.german) == (b.german, b.polish) == (a.first, a.second)
    assert len({t.deal_seed for t in tasks}) == 6
    gauntlet = T.schedule(bots, "gauntlet", 2, seed=7)
    assert [(t.first, t.second) for t in gauntlet] == [(bots[0], bots[1])] * 2 + \
        [(bots[0], bots[2])] * 2
    # seeds depend on the tournament seed, the pairing and the deal only
    assert T.schedule(bots, "round-robin", 4, seed=7) == tasks
    assert T.schedule(bots, "round-robin", 4, seed=8)[0].deal_seed != tasks[0].deal_seed
    assert T.schedule(bots[:2], "round-robin", 4, seed=7)[0].deal_seed == tasks[0].deal_seed


def test_swapped_games_share_the_chance_seed():
    # Two copies of the same deterministic bot: the swapped game is the same game.
    a, b = [t for t in T.schedule(["heuristic", "random"], "round-robin", 2, seed=3)]
    same = [T.play_game(T.GameTask(t.game, 0, 0, t.deal_seed, "heuristic", "heuristic",
                                   "heuristic", "heuristic")) for t in (a, b)]
    keys = ("winner_side", "fragments_polish", "fragments_german", "moves")
    assert [same[0]["row"][k] for k in keys] == [same[1]["row"][k] for k in keys]
    other = T.play_game(T.GameTask(1, 0, 0, a.deal_seed + 1, "heuristic", "heuristic",
                                   "heuristic", "heuristic"))
    assert [other["row"][k] for k in keys] != [same[0]["row"][k] for k in keys]


# ---- rating maths ----------------------------------------------------------------

def test_two_players_three_of_four():
    elo = T.bradley_terry(np.array([[0, 3], [1, 0]], dtype=float))
    assert elo[0] - elo[1] == pytest.approx(400 * math.log10(3), abs=1e-6)  # 190.85
    assert elo.sum() == pytest.approx(0, abs=1e-9)


def _log_likelihood(r, wins):
    diff = r[:, None] - r[None, :]
    return float((wins * -np.log1p(np.exp(-diff))).sum())


def test_three_players_match_direct_maximisation():
    wins = np.array([[0, 7, 4], [3, 0, 6], [2, 5, 0]], dtype=float)
    elo = T.bradley_terry(wins)
    # direct maximisation: plain gradient ascent on the log-likelihood
    r = np.zeros(3)
    for _ in range(20000):
        p = 1 / (1 + np.exp(r[None, :] - r[:, None]))
        r += 0.01 * (wins - (wins + wins.T) * p).sum(axis=1)
    r = (r - r.mean()) * T.ELO_PER_NAT
    assert elo == pytest.approx(r, abs=1e-3)
    best = _log_likelihood(elo / T.ELO_PER_NAT, wins)
    for delta in np.eye(3) * 5:
        assert _log_likelihood((elo + delta) / T.ELO_PER_NAT, wins) < best


def test_unbeaten_bot_gets_a_finite_rating_with_a_prior():
    wins = np.array([[0, 4], [0, 0]], dtype=float)
    elo, prior = T.ratings(wins)
    assert prior and np.isfinite(elo).all() and elo[0] > elo[1]
    # 4.5 to 0.5
    assert elo[0] - elo[1] == pytest.approx(400 * math.log10(9), abs=1e-6)
    assert T.ratings(np.array([[0, 3], [1, 0]], dtype=float))[1] is False


def test_bootstrap_interval_contains_the_estimate_and_is_seeded():
    units = [np.array([[0, 1], [1, 0]], float)] * 3 + [np.array([[0, 2], [0, 0]], float)] * 5
    a = T.bootstrap_intervals(units, seed=1, samples=200)
    b = T.bootstrap_intervals(units, seed=1, samples=200)
    assert np.array_equal(a, b)
    elo = T.ratings(sum(units))[0]
    assert (a[:, 0] <= elo).all() and (elo <= a[:, 1]).all() and (a[:, 0] < a[:, 1]).all()


def test_los():
    assert T.los(3, 1) == pytest.approx(0.841345, abs=1e-6)   # Phi(1)
    assert T.los(5, 5) == 0.5
    assert T.los(1, 3) == pytest.approx(1 - 0.841345, abs=1e-6)
    assert T.los(0, 0) is None


def test_calibration():
    c = T.calibration([0.9, 0.9, 0.2, 0.2], [1, 0, 0, 0])
    assert c["brier"] == pytest.approx((0.01 + 0.81 + 0.04 + 0.04) / 4)
    # bins: 0.9 -> |0.9 - 0.5| over 2, 0.2 -> |0.2 - 0| over 2
    assert c["ece"] == pytest.approx((0.4 * 2 + 0.2 * 2) / 4)
    assert T.calibration([], [])["brier"] is None


# ---- SPRT ----------------------------------------------------------------------------

def test_sprt_works_on_pairs_and_accepts_h1_on_wins_and_h0_on_a_balanced_stream():
    s = T.sprt([2.0] * 1000, elo0=0, elo1=10, alpha=0.05, beta=0.05)
    assert s["result"] == "H1" and s["pairs"] < 1000 and s["llr"] >= s["upper"]
    assert s["games"] == 2 * s["pairs"] and s["pentanomial"] == [0, 0, 0, 0, s["pairs"]]
    # the test stops at the first crossing: one pair fewer had not crossed
    assert T.gsprt_llr([0, 0, 0, 0, s["pairs"] - 1], 0, 10) < s["upper"]
    s = T.sprt([1.0] * 1000, elo0=0, elo1=200, alpha=0.05, beta=0.05)
    assert s["result"] == "H0" and s["pairs"] < 1000 and s["llr"] <= s["lower"]
    s = T.sprt([2.0, 0.0] * 2, elo0=0, elo1=10, alpha=0.05, beta=0.05)
    assert s["result"] is None and s["pairs"] == 4 and s["games"] == 8


@pytest.mark.slow
def test_sprt_cli_stops_early(tmp_path):
    r = cli("--bots", "heuristic;random", "--games", "100", "--out", str(tmp_path),
            "--sprt", "elo0=0,elo1=100,alpha=0.05,beta=0.05")
    assert r.returncode == 0, r.stderr
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert summary["sprt"]["result"] == "H1"
    n = summary["sprt"]["games"]
    assert n < 100 and len(rows_of(tmp_path)) == n == summary["games"]
    assert n == 2 * summary["sprt"]["pairs"]            # decided between deals only
    assert "H1 accepted" in (tmp_path / "standings.md").read_text()
    again = cli("--bots", "heuristic;random", "--games", "100", "--out", str(tmp_path),
                "--sprt", "elo0=0,elo1=100,alpha=0.05,beta=0.05")
    assert again.returncode == 0 and "Finished game" not in again.stdout
    assert len(rows_of(tmp_path)) == n


# ---- the command: outputs, --jobs, resume ---------------------------------------------

@pytest.mark.slow
def test_outputs_and_jobs_do_not_change_results(tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"
    args = ["--bots", "random;heuristic;ismcts:iterations=10", "--games", "4"]
    r1 = cli(*args, "--out", str(a), "--jobs", "1")
    r2 = cli(*args, "--out", str(b), "--jobs", "2")
    assert r1.returncode == 0 and r2.returncode == 0, r1.stderr + r2.stderr
    assert "Finished game 1 (random vs heuristic, random Polish): " in r1.stdout
    assert r1.stdout.count("Finished game") == 12
    rows = rows_of(a)
    assert [int(r["game"]) for r in rows] == list(range(1, 13))
    assert without_seconds(rows) == without_seconds(rows_of(b))
    summary = json.loads((a / "summary.json").read_text())
    assert summary["games"] == 12
    h = summary["bots"]["heuristic"]
    assert h["games"] == 8 and h["win_rate_polish"] is not None
    assert h["elo_ci95"][0] <= h["elo"] <= h["elo_ci95"][1]
    assert summary["los"]["heuristic"]["random"] > 0.5
    ismcts = summary["bots"]["ismcts:iterations=10"]["calibration"]
    assert ismcts["estimates"] > 0 and 0 <= ismcts["brier"] <= 1
    with open(a / "values.csv", newline="") as f:
        values = list(csv.DictReader(f))
    assert {v["bot"] for v in values} == {"ismcts:iterations=10"}
    md = (a / "standings.md").read_text()
    assert "`heuristic`" in md and "Likelihood of superiority" in md
    assert json.loads((a / "tournament.json").read_text())["games"] == 4


@pytest.mark.slow
def test_resume_after_sigkill_loses_and_duplicates_nothing(tmp_path):
    args = ["--bots", "heuristic;ismcts:iterations=100", "--games", "20"]
    killed, whole = tmp_path / "killed", tmp_path / "whole"
    proc = subprocess.Popen([sys.executable, "-m", "apps.cli", "tournament", *args,
                             "--out", str(killed)], cwd=ROOT,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            start_new_session=True)
    try:
        wait_for(lambda: games_written(killed) >= 3, "3 games written", proc)
        # frozen (it keeps its lock), so that however slow the machine the
        # kill below comes before the last game
        os.killpg(proc.pid, signal.SIGSTOP)
        # a second run on the folder is refused while the first one holds it, naming it
        busy = cli(*args, "--out", str(killed))
        assert busy.returncode == 2 and len(busy.stderr.strip().splitlines()) == 1, busy.stderr
        assert f"in use by another tournament run (pid {proc.pid}, started " in busy.stderr
        assert "apps.cli tournament --bots 'heuristic;ismcts:iterations=100'" in busy.stderr
        assert "Finished game" not in busy.stdout
    finally:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
    partial = rows_of(killed)
    assert 3 <= len(partial) < 20
    assert (killed / T.LOCK_NAME).exists()      # left by the kill; the OS released its lock
    r = cli(*args, "--out", str(killed))
    assert r.returncode == 0, r.stderr
    assert r.stdout.count("Finished game") == 20 - len(partial)
    assert not (killed / T.LOCK_NAME).exists()  # a run that ends removes it
    assert cli(*args, "--out", str(whole), "--jobs", "2").returncode == 0
    rows = rows_of(killed)
    assert sorted(int(x["game"]) for x in rows) == list(range(1, 21))
    assert without_seconds(rows) == without_seconds(rows_of(whole))
    winners = {x["game"]: x["winner"] for x in rows}
    assert winners == {x["game"]: x["winner"] for x in rows_of(whole)}
    with open(killed / "values.csv", newline="") as f:
        values = list(csv.DictReader(f))
    with open(whole / "values.csv", newline="") as f:
        assert sorted(map(tuple, (v.values() for v in values))) == \
            sorted(map(tuple, (v.values() for v in csv.DictReader(f))))
    # a different command on the same folder is refused
    r = cli("--bots", "heuristic;random", "--games", "20", "--out", str(killed))
    assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1
    assert "other parameters" in r.stderr and "Traceback" not in r.stderr


def _sigint_default():
    """In the child: Ctrl-C as at a terminal, even when the test runner was
    started in the background (where SIGINT is ignored and inherited so)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


class _StopAfter(T.LineProgress):
    """Progress that presses Ctrl-C (raises KeyboardInterrupt) after ``n`` games."""

    def __init__(self, n):
        super().__init__(lambda line: None)
        self.n, self.seen = n, 0

    def game(self, line, rows):
        super().game(line, rows)
        self.seen += 1
        if self.seen == self.n:
            raise KeyboardInterrupt


@pytest.mark.parametrize("fmt,bots", [("round-robin", ["random", "heuristic"]),
                                      ("self-play", ["heuristic"])])
def test_ctrl_c_writes_the_standings_of_the_finished_games_and_resumes(tmp_path, fmt, bots):
    stopped, whole = tmp_path / "stopped", tmp_path / "whole"
    with pytest.raises(T.TournamentInterrupted) as info:
        T.run(bots, fmt=fmt, games=8, out=str(stopped), seed=5, progress=_StopAfter(3))
    assert isinstance(info.value, KeyboardInterrupt)       # a caller's Ctrl-C handling still works
    summary = json.loads((stopped / "summary.json").read_text())
    assert info.value.summary == summary
    assert summary["interrupted"] is True and summary["games"] == 3
    assert summary["scheduled_games"] == 8 and len(rows_of(stopped)) == 3
    md = (stopped / "standings.md").read_text()
    assert "**Interrupted** after 3 of 8 scheduled games" in md
    # the same command continues; the finished tournament is the uninterrupted one
    done = T.run(bots, fmt=fmt, games=8, out=str(stopped), seed=5, progress=_StopAfter(0))
    full = T.run(bots, fmt=fmt, games=8, out=str(whole), seed=5, progress=_StopAfter(0))
    assert done["games"] == 8 and "interrupted" not in done
    assert without_seconds(rows_of(stopped)) == without_seconds(rows_of(whole))
    assert "Interrupted" not in (stopped / "standings.md").read_text()


@pytest.mark.slow
def test_ctrl_c_at_a_terminal_exits_130_with_the_standings(tmp_path):
    """Ctrl-C at a terminal signals the whole process group (the workers too)."""
    proc = subprocess.Popen([sys.executable, "-m", "apps.cli", "tournament", "--bots",
                             "heuristic;ismcts:iterations=100", "--games", "40", "--jobs", "2",
                             "--out", str(tmp_path)], cwd=ROOT, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, start_new_session=True,
                            preexec_fn=_sigint_default)
    wait_for(lambda: games_written(tmp_path) >= 3, "3 games written", proc)
    os.killpg(proc.pid, signal.SIGINT)
    out, err = proc.communicate(timeout=HANG_CAP)
    assert proc.returncode == 130, err
    assert "Traceback" not in err
    summary = json.loads((tmp_path / "summary.json").read_text())
    n = len(rows_of(tmp_path))
    assert summary["interrupted"] is True and summary["games"] == n and 3 <= n < 40
    assert f"interrupted after {n} of 40 games" in out
    assert f"{tmp_path}/standings.md" in out


def _signal_the_run(proc, sig):
    """Waits until both worker processes of ``proc`` (a run with --jobs 2)
    exist, sends ``sig`` to the main process alone and returns (stdout,
    stderr, the workers' pids); a run that still waits for its games after
    HANG_CAP fails the test, and no process is left running behind it."""
    workers = []

    def playing():                  # both worker processes exist: games 1 and 2 are in play
        workers[:] = forked_children(proc.pid)
        return len(workers) >= 2

    try:
        wait_for(playing, "two worker processes", proc)
        os.kill(proc.pid, sig)
        try:
            out, err = proc.communicate(timeout=HANG_CAP)
        except subprocess.TimeoutExpired:
            pytest.fail(f"the run still waits for the games in play after {HANG_CAP:.0f} s")
    finally:
        if proc.poll() is None:     # hung: leave no game running behind the test
            for pid in [proc.pid, *workers]:
                try:
                    os.kill(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
            proc.wait()
    return out, err, workers


@pytest.mark.slow
@pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="finds the workers in /proc")
def test_sigint_to_the_main_process_alone_stops_the_games_in_play(tmp_path):
    """``kill -INT`` of the main process: the workers do not get the signal,
    so the run must stop them itself instead of waiting for games that would
    take hours (10,000,000 ISMCTS iterations a move): waiting for them would
    hang, and the generous cap turns that into a failure."""
    proc = subprocess.Popen([sys.executable, "-m", "apps.cli", "tournament", "--bots",
                             "ismcts:iterations=10000000;ismcts:iterations=10000001",
                             "--games", "4", "--jobs", "2", "--out", str(tmp_path)], cwd=ROOT,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            preexec_fn=_sigint_default)
    out, err, workers = _signal_the_run(proc, signal.SIGINT)
    assert not [pid for pid in workers if alive(pid)], "a game in play was left running"
    assert proc.returncode == 130, err
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert summary["interrupted"] is True and summary["games"] == 0
    assert "interrupted after 0 of 4 games" in out
    assert "**Interrupted** after 0 of 4" in (tmp_path / "standings.md").read_text()


MARK_DELAY = 1.0   # seconds the pool's manager thread takes to mark itself started, here


@pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="finds the workers in /proc")
def test_an_interrupt_inside_the_first_submit_still_stops_the_workers(monkeypatch):
    """A SIGTERM (raised as KeyboardInterrupt) that lands while the pool's
    first ``submit`` starts its manager thread (``Thread.start`` waits for
    the new thread) leaves a thread that runs but is not yet marked started;
    CI once caught ``kill PID`` there and the run died on "cannot join
    thread before it is started".  Here the wait is interrupted on purpose:
    abort and close must still end every worker, without an error."""
    real_start = threading.Thread.start

    def start_then_interrupted(thread):
        if type(thread).__module__ != "concurrent.futures.process":
            return real_start(thread)

        def interrupted(timeout=None):
            raise KeyboardInterrupt

        def marked_late(mark=thread._started.set):
            time.sleep(MARK_DELAY)                # the new thread, not yet marked started
            mark()
        thread._started.wait = interrupted      # the signal, inside Thread.start's wait
        thread._started.set = marked_late
        return real_start(thread)

    monkeypatch.setattr(threading.Thread, "start", start_then_interrupted)
    before = set(forked_children(os.getpid()))
    backend = LocalBackend(2, fn=time.sleep)
    with pytest.raises(KeyboardInterrupt):
        backend.submit(HANG_CAP)               # a task that would outlast the test
    workers = [pid for pid in forked_children(os.getpid()) if pid not in before]
    assert len(workers) == 2, workers          # the pool had forked its workers
    backend.abort()
    backend.close()
    assert not [pid for pid in workers if alive(pid)], "a worker was left running"


@pytest.mark.slow
@pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="finds the workers in /proc")
def test_sigterm_stops_the_run_as_ctrl_c_does(tmp_path):
    """``kill PID`` (SIGTERM, a batch scheduler's stop, and the signal that
    reaches a run a shell started in the background, where SIGINT is
    ignored): the games in play are stopped, the standings of the finished
    ones written, exit 130 (continuing is Ctrl-C's path, tested above)."""
    cmd = [sys.executable, "-m", "apps.cli", "tournament", "--bots",
           "heuristic;ismcts:iterations=10000000", "--games", "4", "--jobs", "2",
           "--out", str(tmp_path)]
    proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, preexec_fn=lambda: signal.signal(signal.SIGINT,
                                                                        signal.SIG_IGN))
    out, err, workers = _signal_the_run(proc, signal.SIGTERM)
    assert not [pid for pid in workers if alive(pid)], "a game in play was left running"
    assert proc.returncode == 130 and "Traceback" not in err, err
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert summary["interrupted"] is True and summary["games"] == 0
    assert "interrupted after 0 of 4 games" in out


@pytest.mark.slow
@pytest.mark.parametrize("args", [
    ["--bots", "random;alphazero", "--games", "2"],
    ["--bots", "random;heuristic", "--games", "0"],
    ["--bots", "random;heuristic", "--games", "3"],
    ["--bots", "random", "--games", "2"],
    ["--bots", "random;random", "--games", "2"],
    ["--bots", "random;heuristic", "--games", "2", "--jobs", "0"],
    ["--bots", "random;heuristic;ismcts", "--games", "2", "--sprt", "elo0=0,elo1=5"],
    ["--bots", "random;heuristic", "--games", "2", "--sprt", "elo0=5,elo1=0"],
    ["--bots", "random;heuristic", "--games", "2", "--sprt", "gamma=1"],
])
def test_bad_input_exits_2_with_one_line(tmp_path, args):
    r = cli(*args, "--out", str(tmp_path / "out"))
    assert r.returncode == 2
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("wildhorn-solve: error:"), r.stderr
    assert not (tmp_path / "out" / "games.csv").exists()


# ---- the value network behind a spec ---------------------------------------------------

def _random_net(path, seed):
    from bots import valuenet
    from solver import N_FEATURES
    path.parent.mkdir(parents=True, exist_ok=True)
    weights, biases = valuenet.random_weights((N_FEATURES, 8, 1), seed=seed)
    valuenet.write(path, weights, biases, output="sigmoid", meta={})
    return valuenet.load(path).sha256


def test_a_folder_refuses_to_continue_once_the_network_behind_a_spec_changed(
        tmp_path, capsys, monkeypatch):
    """``ismcts:eval=mix`` names the packaged network without naming its
    file: the folder records the file's digest, so a run after the package's
    network changed is refused in one line instead of mixing two bots in one
    match; the network it began with continues it.  A folder written before
    the digests were recorded is taken to have used generation 1, the only
    network packaged until then."""
    from bots import valuenet
    first = _random_net(tmp_path / "a" / "value_net.npz", 1)
    _random_net(tmp_path / "b" / "value_net.npz", 2)
    monkeypatch.setattr(valuenet, "_PACKAGED", tmp_path / "a" / "value_net.npz")
    out = tmp_path / "t"
    args = ["tournament", "--bots", "ismcts:iterations=20,eval=mix;heuristic", "--games", "2",
            "--out", str(out)]
    assert app_cli.main(args) == 0
    recorded = json.loads((out / "tournament.json").read_text())
    assert recorded["networks"] == {"ismcts:iterations=20,eval=mix": {
        "file": "value_net.npz", "sha256": first}}
    games = (out / "games.csv").read_bytes()
    monkeypatch.setattr(valuenet, "_PACKAGED", tmp_path / "b" / "value_net.npz")
    capsys.readouterr()
    assert app_cli.main(args) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"network value_net.npz (sha256 {first[:12]})" in err
    assert "continue it with the build that began it" in err
    assert (out / "games.csv").read_bytes() == games
    monkeypatch.setattr(valuenet, "_PACKAGED", tmp_path / "a" / "value_net.npz")
    assert app_cli.main(args) == 0                 # the network it began with continues it
    recorded["networks"] = ["not", "a", "map"]
    (out / "tournament.json").write_text(json.dumps(recorded))
    capsys.readouterr()
    assert app_cli.main(args) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "'networks' must map each bot spec" in err
    # written before the digests were recorded: every build until then packaged generation 1
    del recorded["networks"]
    (out / "tournament.json").write_text(json.dumps(recorded))
    assert app_cli.main(args) == 2
    assert "(sha256 3110d9622bd4), not this one" in capsys.readouterr().err
    named = tmp_path / "named"                     # a net= file of then is not known: not checked
    spec = f"ismcts:iterations=20,eval=mix,net={tmp_path / 'b' / 'value_net.npz'}"
    named_args = ["tournament", "--bots", f"{spec};heuristic", "--games", "2",
                  "--out", str(named)]
    assert app_cli.main(named_args) == 0
    kept = json.loads((named / "tournament.json").read_text())
    del kept["networks"]
    (named / "tournament.json").write_text(json.dumps(kept))
    assert app_cli.main(named_args) == 0
    plain = tmp_path / "plain"
    assert app_cli.main(["tournament", "--bots", "ismcts:iterations=20;heuristic", "--games", "2",
                     "--out", str(plain)]) == 0
    assert "networks" not in json.loads((plain / "tournament.json").read_text())


def test_a_net_file_that_cannot_serve_is_refused_before_anything_is_written(tmp_path, capsys):
    out = tmp_path / "t"
    assert app_cli.main(["tournament", "--bots", f"ismcts:eval=net,net={tmp_path}/none.npz;random",
                     "--games", "2", "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "none.npz: no such file" in err
    assert not out.exists()


def test_the_network_of_folders_before_the_record_is_generation_1():
    """PACKAGED_BEFORE_RECORDS is typed by hand (an installed copy has no
    results/): it must be the digest of generation 1's committed file, the
    only network any build packaged before tournament folders recorded it."""
    from apps.tournament import runner
    from bots import valuenet
    gen1 = valuenet.load(ROOT / "results" / "training" / "gen1" / "value_net.npz")
    assert runner.PACKAGED_BEFORE_RECORDS == {"file": "value_net.npz", "sha256": gen1.sha256}

"""Luck-adjusted scores (``tournament --luck``, apps.tournament.luck): each
chance event's luck has mean exactly 0 over its outcomes, a game's recorded
luck is the sum of its events' lucks and stays off the bots' clocks, the two
sides' adjusted results sum to 1, a folder keeps its value function, the
statistics by pair, and the self-play check of benchmarks/luck_variance.py
(a bot against itself stays at 50%)."""

from __future__ import annotations

import json
import math
import pickle
import random
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np
import pyspiel
import pytest

import solver  # noqa: F401  (registers the game)
from apps import cli
from apps import tournament as T
from apps.tournament import execution
from apps.tournament.chance import make_stream
from apps.tournament.scheduling import derive, schedule
from solver._features import FEATURES, features
from solver.errors import ParameterError, SerializationError
from tournament_helpers import benchmark_script, rows_of, without_seconds


@dataclass(frozen=True)
class FeatureValue:
    """A value function of the features with fixed random weights (a smooth
    function of the whole position, as a network is)."""
    seed: int = 0

    @property
    def identity(self):
        return {"function": "test-features", "seed": self.seed}

    def _weights(self):
        rng = np.random.default_rng(self.seed)
        return rng.normal(0.0, 0.3, FEATURES), float(rng.normal())

    def __call__(self, core):
        w, b = self._weights()
        return float(1 / (1 + np.exp(-(features(core) @ w + b))))

    def batch(self, cores):
        w, b = self._weights()
        x = np.stack([features(c) for c in cores])
        return 1 / (1 + np.exp(-(x @ w + b)))


class Constant:
    """V = 1/2 everywhere (asking it at a terminal position is an error)."""
    identity = {"function": "constant"}

    def __call__(self, core):
        assert not core.is_terminal(), "V asked at a terminal position"
        return 0.5


def _chance_nodes(games=3, seed=0):
    """Every chance node with at least two outcomes of a few random games."""
    game = pyspiel.load_game("wildhorn")
    rng = random.Random(seed)
    for g in range(games):
        state, stream = game.new_initial_state(), make_stream("keyed", g)
        while not state.is_terminal():
            if state.is_chance_node():
                if len(state.chance_outcomes()) > 1:
                    yield state.core
                state.apply_action(stream.sample(state))
            else:
                state.apply_action(rng.choice(state.legal_actions()))


@pytest.fixture(scope="module")
def net_file(tmp_path_factory):
    """A value network with random weights, written as training writes one."""
    from bots import valuenet
    path = tmp_path_factory.mktemp("net") / "value_net.npz"
    weights, biases = valuenet.random_weights((FEATURES, 16, 1), seed=3)
    valuenet.write(path, weights, biases, output="sigmoid", meta={"test": True})
    return path


# ---- the value network as the value function ----------------------------------------

def test_the_network_value_is_the_networks_output_and_pickles_as_its_file(net_file, tmp_path):
    from bots import valuenet
    value = T.NetValue(net_file)
    ref = valuenet.load(net_file)
    assert value.identity == {"function": "value-net", "file": "value_net.npz",
                              "sha256": ref.sha256}
    cores = [c.copy() for c in _chance_nodes(games=1)][:20]
    want = ref.evaluate(np.stack([features(c) for c in cores]))
    assert value.batch(cores) == pytest.approx(list(want), abs=2e-6)
    assert [value(c) for c in cores] == pytest.approx(list(want), abs=2e-6)
    again = pickle.loads(pickle.dumps(value))
    assert again.identity == value.identity and again(cores[0]) == value(cores[0])
    # a worker whose file is another network refuses the match's
    w, b = valuenet.random_weights((FEATURES, 16, 1), seed=4)
    other = tmp_path / "value_net.npz"
    valuenet.write(other, w, b, output="sigmoid", meta={})
    with pytest.raises(ParameterError, match="not the one this match was started with"):
        T.NetValue(other, value.sha256)


# ---- one chance event ---------------------------------------------------------------

@pytest.mark.parametrize("kind", ["score", "features", "net"])
def test_each_events_luck_has_mean_zero_over_its_outcomes(kind, net_file):
    value = {"score": T.ScoreValue(), "features": FeatureValue(1),
             "net": T.NetValue(net_file) if kind == "net" else None}[kind]
    kinds = set()
    for core in _chance_nodes():
        kinds.add(core.phase)
        lucks = T.outcome_lucks(core, value)
        probs = [p for _, p, _ in lucks]
        assert math.fsum(probs) == pytest.approx(1.0, abs=1e-12)
        assert abs(math.fsum(p * luck for _, p, luck in lucks)) < 1e-12
        # by hand: the value after each outcome (its result when it ends the game)
        after = [core.applied(a) for a, _ in core.chance_outcomes()]
        v = [float(c.returns()[0] > 0) if c.is_terminal() else value(c) for c in after]
        mean = sum(p * x for p, x in zip(probs, v))
        assert [luck for _, _, luck in lucks] == pytest.approx([x - mean for x in v], abs=1e-9)
        a = lucks[len(lucks) // 2][0]
        assert T.event_luck(core, a, value) == pytest.approx(v[len(lucks) // 2] - mean,
                                                             abs=1e-12)
    assert kinds == {"draw", "rocket", "roll"}     # cards, Rocket cards and dice


class _OneByOne:
    """FeatureValue without its batch method."""
    def __init__(self, value):
        self.value, self.identity = value, value.identity

    def __call__(self, core):
        return self.value(core)


def test_the_batch_and_the_single_values_agree():
    value = FeatureValue(2)
    for core in list(_chance_nodes(1))[:30]:
        batched = T.outcome_lucks(core, value)
        single = T.outcome_lucks(core, _OneByOne(value))
        assert [a for a, _, _ in batched] == [a for a, _, _ in single]
        assert [x for _, _, x in batched] == pytest.approx([x for _, _, x in single], abs=1e-9)


def test_an_outcome_that_ends_the_game_is_valued_by_its_result():
    game = pyspiel.load_game("wildhorn")
    found = 0
    for seed in range(40):
        rng, state = random.Random(seed), game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                outs = state.chance_outcomes()
                ends = [a for a, _ in outs if state.core.applied(a).is_terminal()]
                if ends and len(outs) > 1:
                    lucks = {a: luck for a, _, luck in T.outcome_lucks(state.core, Constant())}
                    values = {a: (float(state.core.applied(a).returns()[0] > 0)
                                  if state.core.applied(a).is_terminal() else 0.5)
                              for a, _ in outs}
                    mean = sum(p * values[a] for a, p in outs)
                    assert lucks == pytest.approx({a: values[a] - mean for a in values})
                    found += 1
                state.apply_action(rng.choice([a for a, _ in outs]))
            else:
                state.apply_action(rng.choice(state.legal_actions()))
    assert found, "no chance outcome ended a game in 40 random games"


def test_a_value_function_needs_an_identity_and_finite_values():
    with pytest.raises(ParameterError, match="identity"):
        T.run(["random", "heuristic"], games=2, out="/nonexistent/never", luck=lambda c: 0.5)
    core = next(iter(_chance_nodes(1)))

    class NaN(Constant):
        def __call__(self, core):
            return math.nan
    with pytest.raises(ValueError, match="gave nan"):
        T.outcome_lucks(core, NaN())


def test_adjusted_results_of_the_two_sides_sum_to_one():
    for won in (0, 1):
        for luck in (-0.7, -0.01, 0.0, 0.3):
            polish, german = T.adjusted_results(won, luck)
            assert polish + german == pytest.approx(1.0)
            assert polish == pytest.approx(won - luck)
    row = {"polish": "a", "german": "b", "winner": "b", T.LUCK_FIELD: -0.25}
    assert T.stats.adjusted_result(row, "a") == pytest.approx(0.25)
    assert T.stats.adjusted_result(row, "b") == pytest.approx(0.75)


# ---- a game ----------------------------------------------------------------------------

def _task(luck=None, game=1, bots=("random", "heuristic")):
    task = schedule(list(bots), "round-robin", 2, 7)[game - 1]
    return replace(task, luck=luck)


def test_a_games_luck_is_the_sum_of_its_events_lucks_and_changes_nothing_else():
    value = FeatureValue(3)
    for game in (1, 2):
        task = _task(value, game)
        row = execution.play_game(task)["row"]
        plain = execution.play_game(replace(task, luck=None))["row"]
        assert T.LUCK_FIELD not in plain
        drop = ("seconds_per_move_polish", "seconds_per_move_german", T.LUCK_FIELD)
        assert {k: v for k, v in row.items() if k not in drop} == \
            {k: v for k, v in plain.items() if k not in drop}
        # the game replayed by hand, each event's luck summed
        gm = pyspiel.load_game("wildhorn")
        state, stream = gm.new_initial_state(), make_stream(task.chance, task.deal_seed)
        bots = [execution.make_player(s, p, derive("bot", task.deal_seed, p))
                for p, s in enumerate((task.polish, task.german))]
        total, events = 0.0, 0
        while not state.is_terminal():
            if state.is_chance_node():
                a = stream.sample(state)
                if len(state.chance_outcomes()) > 1:
                    total += T.event_luck(state.core, a, value)
                    events += 1
                state.apply_action(a)
            else:
                state.apply_action(bots[state.current_player()].step(state))
        assert events > 20
        assert row[T.LUCK_FIELD] == pytest.approx(total, abs=1e-6)
        assert row[T.LUCK_FIELD] != 0


class _ClockValue(T.ScoreValue):
    """A value function that moves the (fake) clock by a second per call."""
    clock = [0.0]

    def __call__(self, core):
        self.clock[0] += 1.0
        return super().__call__(core)


def test_the_luck_is_not_on_the_bots_clocks(monkeypatch):
    clock = _ClockValue.clock
    monkeypatch.setattr(execution.time, "perf_counter", lambda: clock[0])
    row = execution.play_game(_task(_ClockValue()))["row"]
    assert clock[0] > 100                  # the value function was asked, the clock moved
    assert row["seconds_per_move_polish"] == 0 and row["seconds_per_move_german"] == 0


def test_a_task_with_a_value_function_pickles():
    task = _task(T.ScoreValue(2.0))
    assert pickle.loads(pickle.dumps(task)) == task


# ---- the folder ---------------------------------------------------------------------

def _run(out, **kw):
    kw.setdefault("luck", T.ScoreValue())
    return T.run(kw.pop("bots", ["random", "heuristic"]), games=kw.pop("games", 6),
                 out=str(out), seed=4, progress=T.LineProgress(lambda _: None), **kw)


def test_games_csv_gets_the_luck_and_the_folder_keeps_its_value_function(tmp_path):
    out = tmp_path / "t"
    summary = _run(out)
    params = json.loads((out / "tournament.json").read_text())
    assert params["luck"] == {"function": "score-logistic", "scale": 1.0}
    rows = rows_of(out)
    assert len(rows) == 6 and all(r[T.LUCK_FIELD] for r in rows)
    assert summary["luck_adjusted"]["value"] == params["luck"]
    assert "Luck-adjusted scores" in (out / "standings.md").read_text()
    with pytest.raises(ParameterError, match=r"another value function \(function=score-logistic, "
                                             r"scale=1.0, not function=score-logistic, scale=2.0"):
        _run(out, luck=T.ScoreValue(2.0))
    with pytest.raises(ParameterError, match="played with --luck .*repeat its command with --luck"):
        _run(out, luck=False)
    assert _run(out)["games"] == 6                         # the same value function resumes
    plain = tmp_path / "plain"
    _run(plain, luck=False)
    assert T.LUCK_FIELD not in rows_of(plain)[0]           # no column without --luck
    assert "luck" not in json.loads((plain / "tournament.json").read_text())
    with pytest.raises(ParameterError, match="played without --luck"):
        _run(plain)
    assert "luck_adjusted" not in _run(plain, luck=False)  # resumes as before


def test_the_command_refuses_another_value_function_in_one_line(tmp_path, capsys):
    out = tmp_path / "t"
    assert cli.main(["tournament", "--bots", "random;heuristic", "--games", "2",
                     "--out", str(out)]) == 0
    capsys.readouterr()
    assert cli.main(["tournament", "--bots", "random;heuristic", "--games", "2",
                     "--out", str(out), "--luck"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "played without --luck" in err


def test_a_folder_continues_with_the_file_of_the_network_it_started_with(
        tmp_path, capsys, monkeypatch, net_file):
    """After the packaged network changes, ``--luck FILE`` naming the old
    one (a copy elsewhere: the identity is the file's name and sha256)
    continues a folder that ``--luck`` began; plain ``--luck`` is refused
    in one line that says how to continue."""
    from bots import valuenet
    monkeypatch.setattr(valuenet, "_PACKAGED", Path(net_file))
    out = tmp_path / "t"
    base = ["tournament", "--bots", "random;heuristic", "--games", "2", "--out", str(out)]
    assert cli.main(base + ["--luck"]) == 0
    first = (out / "games.csv").read_bytes()
    w, b = valuenet.random_weights((FEATURES, 16, 1), seed=5)
    swapped = tmp_path / "new" / "value_net.npz"
    swapped.parent.mkdir()
    valuenet.write(swapped, w, b, output="sigmoid", meta={})
    monkeypatch.setattr(valuenet, "_PACKAGED", swapped)        # the package's network changed
    capsys.readouterr()
    assert cli.main(base + ["--luck"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "continue it with that one (--luck FILE" in err
    old = tmp_path / "kept" / "value_net.npz"
    old.parent.mkdir()
    old.write_bytes(Path(net_file).read_bytes())
    assert cli.main(base + ["--luck", str(old)]) == 0
    assert (out / "games.csv").read_bytes() == first
    assert json.loads((out / "tournament.json").read_text())["luck"]["sha256"] == \
        valuenet.load(net_file).sha256


def test_a_luck_file_that_cannot_serve_is_refused_in_one_line(tmp_path, capsys):
    from bots import valuenet
    small = tmp_path / "small.npz"
    w, b = valuenet.random_weights((FEATURES, 8, 1), seed=1)
    valuenet.write(small, w, b, output="sigmoid", meta={}, variant="small")
    for path, needle in ((tmp_path / "none.npz", "none.npz: no such file"),
                         (small, "was trained on variant small; a tournament plays the full")):
        out = tmp_path / "t"
        assert cli.main(["tournament", "--bots", "random;heuristic", "--games", "2",
                         "--out", str(out), "--luck", str(path)]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and needle in err, err
        assert not out.exists()


class _StopAfter(T.LineProgress):
    def __init__(self, n):
        super().__init__(lambda line: None)
        self.n, self.seen = n, 0

    def game(self, line, rows):
        super().game(line, rows)
        self.seen += 1
        if self.seen == self.n:
            raise KeyboardInterrupt


def test_an_interrupted_luck_tournament_resumes_to_the_same_games(tmp_path):
    stopped, whole = tmp_path / "stopped", tmp_path / "whole"
    with pytest.raises(T.TournamentInterrupted):
        T.run(["random", "heuristic"], games=8, out=str(stopped), seed=5,
              progress=_StopAfter(3), luck=T.ScoreValue())
    done = T.run(["random", "heuristic"], games=8, out=str(stopped), seed=5,
                 progress=_StopAfter(0), luck=T.ScoreValue())
    full = T.run(["random", "heuristic"], games=8, out=str(whole), seed=5,
                 progress=_StopAfter(0), luck=T.ScoreValue())
    assert without_seconds(rows_of(stopped)) == without_seconds(rows_of(whole))
    assert done["luck_adjusted"] == full["luck_adjusted"]


def test_a_damaged_or_missing_luck_is_one_line_with_its_line_number(tmp_path):
    out = tmp_path / "t"
    _run(out)
    good = (out / "games.csv").read_text()
    for bad, message in (("abc", "luck_polish: expected a number, got 'abc'"),
                         ("", "luck_polish: missing, but this tournament measures")):
        lines = good.splitlines(keepends=True)
        lines[2] = lines[2].rsplit(",", 1)[0] + f",{bad}\n"
        (out / "games.csv").write_text("".join(lines))
        with pytest.raises(SerializationError, match=f"games.csv:3: {message}"):
            _run(out)


# ---- statistics -----------------------------------------------------------------------

def _rows(results, lucks):
    """A match of a and b: a's result and the Polish luck of each game, two
    games per deal, a Polish in the first."""
    rows = []
    for g, (won, luck) in enumerate(zip(results, lucks)):
        deal, swap = divmod(g, 2)
        polish, german = ("a", "b") if swap == 0 else ("b", "a")
        winner = "a" if won else "b"
        rows.append({"game": g + 1, "pairing": 0, "deal": deal, "polish": polish,
                     "german": german, "winner": winner, T.LUCK_FIELD: luck,
                     "winner_side": "polish" if winner == polish else "german"})
    return rows


def test_luck_pair_scores_by_hand():
    rows = _rows([1, 0, 1, 1, 0], [0.2, -0.1, 0.0, 0.3, 0.5])   # the last deal is half played
    pairs = T.luck_pair_scores(rows, "a", "b")
    # deal 0: a Polish wins (1 - 0.2), a German loses (0 + (-0.1)); deal 1: 1 - 0 and 1 + 0.3
    assert pairs == [(1.0, pytest.approx(0.7)), (2.0, pytest.approx(2.3))]
    flipped = T.luck_pair_scores(rows, "b", "a")
    assert [r + s for (r, _), (s, _) in zip(pairs, flipped)] == [2.0, 2.0]
    assert [x + y for (_, x), (_, y) in zip(pairs, flipped)] == pytest.approx([2.0, 2.0])


def test_luck_adjusted_figures_by_hand():
    rng = np.random.default_rng(5)
    raw = rng.integers(0, 3, 200).astype(float)
    luck = rng.normal(0, 0.3, 200)
    pairs = list(zip(raw, raw - luck))
    s = T.luck_adjusted(pairs, seed=1)
    x, y = raw / 2, (raw - luck) / 2
    assert s["pairs"] == 200
    assert s["score"] == pytest.approx(y.mean()) and s["raw_score"] == pytest.approx(x.mean())
    half = T.Z95 * y.std(ddof=1) / math.sqrt(200)
    assert s["score_ci95"] == pytest.approx([y.mean() - half, y.mean() + half])
    elo = lambda p: 400 * math.log10(p / (1 - p))   # noqa: E731
    assert s["elo"] == pytest.approx(elo(y.mean()))
    assert s["elo_ci95"] == pytest.approx([elo(y.mean() - half), elo(y.mean() + half)])
    assert s["variance_ratio"] == pytest.approx(y.var(ddof=1) / x.var(ddof=1))
    lo, hi = s["variance_ratio_ci95"]
    assert lo < s["variance_ratio"] < hi
    assert T.luck_adjusted(pairs, seed=1) == s                 # seeded
    none = T.luck_adjusted([(p, p) for p, _ in pairs], seed=1)  # no luck: adjusted = raw
    assert none["variance_ratio"] == pytest.approx(1.0) and none["score"] == none["raw_score"]
    assert T.luck_adjusted([], seed=1)["score"] is None


def test_luck_summary_of_a_match_and_of_self_play():
    rows = _rows([1, 0] * 20, [0.1, -0.1] * 20)
    block = T.luck_summary(["a", "b"], "round-robin", rows, 0, {"function": "x"})
    (h,) = block["head_to_head"]
    assert (h["first"], h["second"], h["pairs"]) == ("a", "b", 20)
    assert h["score"] == pytest.approx(0.4) and h["raw_score"] == pytest.approx(0.5)
    assert block["luck_polish"]["mean"] == pytest.approx(0.0)
    solo = [{"game": g + 1, "pairing": 0, "deal": g, "polish": "a", "german": "a",
             "winner": "a", "winner_side": ("polish", "german")[g % 2],
             T.LUCK_FIELD: (0.1, 0.3)[g % 2]} for g in range(40)]
    block = T.luck_summary(["a"], "self-play", solo, 0, {"function": "x"})
    f = block["self_play_polish"]
    assert f["games"] == 40 and f["raw_score"] == pytest.approx(0.5)
    assert f["score"] == pytest.approx(((1 - 0.1) + (0 - 0.3)) / 2)   # Polish: result - luck
    assert block["luck_polish"]["mean"] == pytest.approx(0.2)


# ---- the mirror checks ----------------------------------------------------------------------

def test_two_spellings_of_one_bot_play_the_same_game_and_score_exactly_one_per_pair(tmp_path):
    """A seat's bot seed follows the seat, so "heuristic" and "heuristic:"
    play one game twice per deal: each pair scores 1, raw and adjusted,
    which holds only if the German side's luck has the opposite sign."""
    _run(tmp_path, bots=["heuristic", "heuristic:"], games=8, luck=FeatureValue(4))
    rows = T.read_games(tmp_path, luck=True)
    pairs = T.luck_pair_scores(rows, "heuristic", "heuristic:")
    assert len(pairs) == 4
    assert all(raw == 1.0 and adjusted == pytest.approx(1.0, abs=1e-9) for raw, adjusted in pairs)
    assert any(r[T.LUCK_FIELD] != 0 for r in rows)


def test_the_self_play_check_stays_at_half_and_would_catch_a_bias(tmp_path):
    """The check of benchmarks/luck_variance.py on random self-play: the
    mirror pairs' adjusted score holds 50% in its 95% interval, the mean luck
    0.  Seeded, so the same every run; a 95% interval misses for 1 seed in 20
    (at 80 games this seed did), at 400 games seeds 0 to 5 all pass."""
    bench = benchmark_script("luck_variance")
    _run(tmp_path, bots=["random"], fmt="self-play", games=400, jobs=2)
    rows = T.read_games(tmp_path, luck=True)
    check = bench.self_play_check(rows, seed=0)
    assert check["passes"], check
    lo, hi = check["mirror"]["score_ci95"]
    assert lo < 0.5 < hi and check["luck_polish"]["zero_inside"]
    biased = [dict(r, **{T.LUCK_FIELD: r[T.LUCK_FIELD] + 0.1}) for r in rows]
    assert not bench.self_play_check(biased, seed=0)["passes"]


def test_the_benchmark_plays_resumes_and_writes_its_figures(tmp_path, capsys):
    bench = benchmark_script("luck_variance")
    args = ["--bots", "random;heuristic", "--games", "4", "--mirror", "random",
            "--mirror-games", "6", "--out", str(tmp_path / "runs"),
            "--json", str(tmp_path / "luck.json"), "--seed", "2"]
    assert bench.main(args) == 0
    first = json.loads((tmp_path / "luck.json").read_text())
    assert first["value"] == T.default_value().identity     # the packaged network
    (h,) = first["match"]["head_to_head"]
    assert h["pairs"] == 2 and "variance_ratio" in h
    assert first["self_play_check"]["games"] == 6
    games = (tmp_path / "runs" / "match" / "games.csv").read_text()
    capsys.readouterr()
    assert bench.main(args) == 0                               # resumes: nothing played again
    assert "Finished game" not in capsys.readouterr().out
    assert (tmp_path / "runs" / "match" / "games.csv").read_text() == games
    again = json.loads((tmp_path / "luck.json").read_text())
    assert {k: v for k, v in again.items() if k != "seconds"} == \
        {k: v for k, v in first.items() if k != "seconds"}
    # reading the match folder instead of playing it gives the same figures
    assert bench.main(args + ["--match", str(tmp_path / "runs" / "match")]) == 0
    read = json.loads((tmp_path / "luck.json").read_text())
    assert read["match"]["head_to_head"] == first["match"]["head_to_head"]
    plain = tmp_path / "plain"
    T.run(["random", "heuristic"], games=2, out=str(plain), echo=lambda _: None)
    assert bench.main(args + ["--match", str(plain)]) == 2
    assert "not a tournament played with --luck" in capsys.readouterr().err

"""The search's win probability and its 95% interval (issue 28, item 5):
the value is the recommended action's, the interval adds the calibrated
bias term to the sampling variance (both in units of p (1 - p)), a
decided position keeps a tight interval, and the calibration constants are the
figures the benchmarks wrote (results/bench-endgame.json for the last
turn, results/value-coverage-calibration.json before it)."""

from __future__ import annotations

import json
import random
from math import sqrt
from pathlib import Path

import pyspiel
import pytest

import bots._budget as budget
from bots import make_bot

ROOT = Path(__file__).resolve().parent.parent
FULL = pyspiel.load_game("wildhorn")


def opening():
    state = FULL.new_initial_state()
    while state.is_chance_node():
        state.apply_action(state.chance_outcomes()[0][0])
    return state


def interval(spec: str, core, player: int):
    result = make_bot(spec, player, 3).analyse(core.copy())
    value = result["value"][player]
    lo, hi = result["value_ci95"][player]
    return result, value, lo, hi


@pytest.mark.parametrize("bias,leaf_eval", [(0.0, "playout"), (0.05, "playout"), (0.05, "mix")])
def test_the_interval_adds_the_bias_scale_to_the_sampling_error(monkeypatch, bias, leaf_eval):
    """The bias scale is the searcher's for its leaf evaluation (the other
    evaluation's scale is set apart so a mix-up shows)."""
    other = {"playout": "mix", "mix": "playout"}[leaf_eval]
    monkeypatch.setattr(budget, "VALUE_BIAS", {"ismcts": {leaf_eval: bias, other: 0.4},
                                               "oos": {"playout": 0.3}})
    monkeypatch.setattr(budget, "VALUE_BIAS_LAST_TURN", {"ismcts": {"playout": 0.5, "mix": 0.5},
                                                         "oos": {"playout": 0.5}})  # not used here
    state = opening()
    player = state.current_player()
    result, value, lo, hi = interval(f"ismcts:iterations=400,eval={leaf_eval}", state.core, player)
    best = max(result["stats"]["actions"], key=lambda a: (a["visits"], a["value"]))
    assert value == best["value"]            # the recommended action's value, not the root mean
    half = 1.96 * sqrt(value * (1 - value) * (1 / best["visits"] + bias ** 2))
    assert lo == pytest.approx(max(0.0, value - half)) and hi == pytest.approx(min(1.0, value + half))


def test_the_last_turn_uses_its_own_bias_scale(monkeypatch):
    monkeypatch.setattr(budget, "VALUE_BIAS", {"ismcts": {"playout": 0.0}, "oos": {"playout": 0.0}})
    monkeypatch.setattr(budget, "VALUE_BIAS_LAST_TURN", {"ismcts": {"playout": 0.5},
                                                         "oos": {"playout": 0.5}})
    rng = random.Random(2)
    state = FULL.new_initial_state()
    while state.is_chance_node() or state.core.turn < state.core.config.turns:
        if state.is_chance_node():
            outcomes = state.chance_outcomes()
            state.apply_action(rng.choices([a for a, _ in outcomes], [p for _, p in outcomes])[0])
        else:
            state.apply_action(rng.choice(state.legal_actions()))
        assert not state.is_terminal()
    player = state.current_player()
    for name in ("ismcts", "oos"):
        _, value, lo, hi = interval(f"{name}:iterations=300,endgame=off", state.core, player)
        reach = 1.96 * 0.5 * sqrt(value * (1 - value))   # the bias part alone, unclipped
        assert hi - lo >= min(value, reach) + min(1 - value, reach) - 1e-9


def test_the_bias_scales_are_the_calibrations_figures():
    """Each searcher's and leaf evaluation's VALUE_BIAS_LAST_TURN is the
    largest bias its budgets needed on the last-turn suite, VALUE_BIAS the
    one it needed against its longer searches: a new calibration changes
    the code with it, and every calibrated pair has both figures."""
    bench = json.loads((ROOT / "results/bench-endgame.json").read_text())["values"]
    for name, table in budget.VALUE_BIAS_LAST_TURN.items():
        assert set(table) == set(budget.VALUE_BIAS[name])
        for leaf_eval in table:
            suffix = "" if leaf_eval == "playout" else f",eval={leaf_eval}"
            needed = [v["bias_needed"] for k, v in bench.items()
                      if k.startswith(name + ":iterations=") and k.endswith(suffix)
                      and k.count(",") == suffix.count(",")]
            assert needed, (name, leaf_eval)
            assert table[leaf_eval] == pytest.approx(max(needed), abs=5e-4), (name, leaf_eval)
            tag = ("" if name == "ismcts" else "-" + name) + \
                ("" if leaf_eval == "playout" else "-" + leaf_eval)
            before = json.loads((ROOT / f"results/value-coverage-calibration{tag}.json").read_text())
            assert before.get("bot", "ismcts") == name
            assert before.get("eval", "playout") == leaf_eval
            assert budget.VALUE_BIAS[name][leaf_eval] == pytest.approx(before["bias_needed"], abs=5e-4)


def test_an_uncalibrated_evaluation_takes_its_searchers_widest_bias():
    """eval=net (not calibrated) never gets a narrower interval than a
    calibrated evaluation of its searcher."""
    class Position:
        turn = 1
        config = type("C", (), {"turns": 4})()
    for name, table in budget.VALUE_BIAS.items():
        assert budget.value_bias(Position(), name, "net") == max(table.values())
        for leaf_eval, b in table.items():
            assert budget.value_bias(Position(), name, leaf_eval) == b


def test_a_decided_value_keeps_a_tight_interval():
    """Every sample lost: the bias term is in units of p (1 - p), so the
    interval stays a point (the bots read decided positions right, where
    the suite's open positions needed the bias)."""
    assert budget.win_probabilities(0, 0.0, 5000, 0.6)[1][0] == [0.0, 0.0]
    value, ci = budget.win_probabilities(1, 0.5, 100, 0.2)
    assert ci[1] == pytest.approx([0.5 - 1.96 * 0.5 * sqrt(0.01 + 0.04),
                                   0.5 + 1.96 * 0.5 * sqrt(0.01 + 0.04)])
    assert budget.bias_needed(0.5, 1.96 * 0.5 * sqrt(0.01 + 0.04), 0.05) == pytest.approx(0.2)
    assert budget.bias_needed(0.0, 0.3, 0.0) == float("inf")

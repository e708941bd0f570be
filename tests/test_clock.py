"""The bot's game clock (``clock=game``, bots.base): time= stays the average
of a searched decision; an obvious root is played after half its time and
the rest banked, a close root and the last turn's first solvable decision
draw on the bank, within a cap; the bank is never overdrawn.  Tested with
an injected clock: the fake search spends exactly the time it is given."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

import bots._budget as budget
from bots import make_bot
from bots.base import CLOCK_CAP, CLOCK_CLOSE, CLOCK_CRITICAL, CLOCK_PROBE, is_close, is_obvious
from helpers import last_turn

OBVIOUS = [{"action": 0, "visits": 90, "value": 0.8, "stderr": 0.02},
           {"action": 1, "visits": 10, "value": 0.3, "stderr": 0.1}]
CLOSE = [{"action": 0, "visits": 50, "value": 0.51, "stderr": 0.05},
         {"action": 1, "visits": 45, "value": 0.50, "stderr": 0.05}]
OPEN = [{"action": 0, "visits": 60, "value": 0.55, "stderr": 0.05},
        {"action": 1, "visits": 30, "value": 0.45, "stderr": 0.05}]


class FakeSearch:
    """A search that takes exactly its time limit on the fake clock and
    returns the root ``rows`` the test gives; records each call."""

    def __init__(self, ticks: list[float]):
        self.ticks = ticks
        self.calls: list[dict] = []
        self.rows = OBVIOUS

    def search(self, core, iterations=0, time_limit=0.0, stop=None, keep=False, **kw):
        self.calls.append({"time": time_limit, "keep": keep})
        self.ticks[0] += time_limit
        actions = [dict(r, frequency=r["visits"] / 100) for r in self.rows]
        return {"player": core.current_player(), "actions": actions, "value": [0.5, 0.5],
                "value_ci95": [[0, 1], [0, 1]], "iterations": 100, "seconds": time_limit}


@pytest.fixture
def clocked(monkeypatch):
    ticks = [0.0]
    monkeypatch.setattr(budget, "clock", lambda: ticks[0])
    bot = make_bot("ismcts:time=1,clock=game,decided=off", 0, seed=1)
    fake = FakeSearch(ticks)
    monkeypatch.setattr(bot, "search_engine", SimpleNamespace(search=fake.search))
    return bot, fake, ticks


def opening(player=0):
    import pyspiel
    state = pyspiel.load_game("wildhorn").new_initial_state()
    while state.is_chance_node() or state.current_player() != player \
            or len(state.legal_actions()) < 2:
        if state.is_chance_node():
            state.apply_action(state.chance_outcomes()[0][0])
        else:
            state.apply_action(state.legal_actions()[0])
    return state.core


def test_the_rules_that_judge_a_root():
    assert is_obvious({"actions": OBVIOUS}) and not is_close({"actions": OBVIOUS})
    assert is_close({"actions": CLOSE}) and not is_obvious({"actions": CLOSE})
    assert not is_close({"actions": OPEN}) and not is_obvious({"actions": OPEN})


def test_an_obvious_root_is_played_after_the_probe_and_the_rest_banked(clocked):
    bot, fake, ticks = clocked
    core = opening()
    bot.analyse(core)
    assert fake.calls == [{"time": CLOCK_PROBE * 1.0, "keep": False}]
    assert bot.bank == pytest.approx(1.0 - CLOCK_PROBE)
    assert ticks[0] == pytest.approx(CLOCK_PROBE)


def test_a_close_root_draws_on_the_bank_and_an_open_one_does_not(clocked):
    bot, fake, ticks = clocked
    core = opening()
    for _ in range(4):                       # four obvious roots bank 2 s
        bot.analyse(core)
    assert bot.bank == pytest.approx(4 * (1 - CLOCK_PROBE))
    fake.rows, fake.calls = CLOSE, []
    bot.analyse(core)                        # probe, then the rest and one more move's time
    assert fake.calls == [{"time": CLOCK_PROBE, "keep": False},
                          {"time": pytest.approx(1 - CLOCK_PROBE + CLOCK_CLOSE), "keep": True}]
    assert bot.bank == pytest.approx(2.0 - CLOCK_CLOSE)
    fake.rows, fake.calls = OPEN, []
    bot.analyse(core)                        # the rest of its own time only
    assert fake.calls[1] == {"time": pytest.approx(1 - CLOCK_PROBE), "keep": True}
    assert bot.bank == pytest.approx(2.0 - CLOCK_CLOSE)


def test_the_bank_is_never_overdrawn_and_the_game_stays_within_its_time(clocked):
    bot, fake, ticks = clocked
    core = opening()
    fake.rows = CLOSE                        # every root close: nothing to bank
    for _ in range(5):
        bot.analyse(core)
        assert bot.bank >= 0.0
    assert ticks[0] == pytest.approx(5 * 1.0)


def test_the_last_turns_first_solvable_decision_draws_the_critical_extra(clocked):
    bot, fake, ticks = clocked
    bot.endgame = "off"                      # the search alone, to see its time
    core = opening()
    for _ in range(8):                       # bank 4 s
        bot.analyse(core)
    last = last_turn({"PL01": "periphery", "PL22": "hand", "DE01": "base"}, {"periphery": 1})
    assert last.current_player() == 0 and len(last.legal_actions()) > 1
    fake.calls = []
    bot.analyse(last)                        # one search, its time and two moves' more
    assert fake.calls == [{"time": pytest.approx(1.0 + CLOCK_CRITICAL), "keep": False}]
    assert bot.bank == pytest.approx(4.0 - CLOCK_CRITICAL)
    fake.calls = []
    bot.analyse(last)                        # the next one is not critical: probed
    assert fake.calls[0] == {"time": CLOCK_PROBE, "keep": False}


def test_no_decision_takes_more_than_the_cap(clocked):
    bot, fake, ticks = clocked
    bot.bank = 100.0
    bot.endgame = "off"
    last = last_turn({"PL01": "periphery", "PL22": "hand", "DE01": "base"}, {"periphery": 1})
    bot.analyse(last)
    assert fake.calls[0]["time"] <= CLOCK_CAP * 1.0 + 1e-9


def test_clock_move_and_iteration_budgets_are_untouched(monkeypatch):
    ticks = [0.0]
    monkeypatch.setattr(budget, "clock", lambda: ticks[0])
    for spec in ("ismcts:time=1,decided=off", "ismcts:iterations=50,clock=game,decided=off"):
        bot = make_bot(spec, 0, seed=1)
        fake = FakeSearch(ticks)
        monkeypatch.setattr(bot, "search_engine", SimpleNamespace(search=fake.search))
        bot.analyse(opening())
        assert len(fake.calls) == 1 and not fake.calls[0]["keep"] and bot.bank == 0.0


def test_the_real_search_goes_on_with_its_trees(monkeypatch):
    """keep=True continues the same trees: the second phase's statistics
    count the first phase's iterations too."""
    bot = make_bot("ismcts:iterations=64,threads=2", 0, seed=1)
    engine = bot.search_engine
    core = opening()
    first = engine.search(core, iterations=64)
    again = engine.search(core, iterations=64, keep=True)
    assert again["iterations"] == 128
    assert sum(a["visits"] for a in again["actions"]) > sum(a["visits"] for a in first["actions"])
    fresh = engine.search(core, iterations=64)
    assert fresh["iterations"] == 64

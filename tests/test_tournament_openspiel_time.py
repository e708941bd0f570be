"""openspiel-ismcts:time=S, OpenSpiel's Python ISMCTS at a time budget per
move (for tournaments at equal time per move), and its sims= budget."""
import itertools

import pyspiel
import pytest

import solver  # noqa: F401  (registers the game)
from bots import BotSpecError, make_bot, parse_spec
from playouts import bots_game


def _position():
    game = pyspiel.load_game("wildhorn(variant=small)")
    state = game.new_initial_state()
    state.apply_action(1)
    assert len(state.legal_actions()) > 1
    return state


class FakeClock:
    """Advances by one second each time it is read."""

    def __init__(self):
        self.now = itertools.count()
        self.reads = 0

    def __call__(self):
        self.reads += 1
        return float(next(self.now))


def _timed_bot(spec, state, seed=3, clock=None):
    bot = make_bot(spec, 0, seed)
    engine = bot._engine(state.get_game())   # the engine analyse(state) will use
    if clock is not None:
        engine.clock = clock
    return bot, engine


def test_time_option_parses_and_is_validated():
    assert parse_spec("openspiel-ismcts:time=0.5") == ("openspiel-ismcts", {"time": 0.5})
    assert parse_spec("openspiel-ismcts:time=0.02,c=2") == \
        ("openspiel-ismcts", {"time": 0.02, "c": 2.0})
    # both budgets: the search stops at whichever is spent first
    assert parse_spec("openspiel-ismcts:sims=10,time=1") == \
        ("openspiel-ismcts", {"sims": 10, "time": 1.0})
    for bad in ("openspiel-ismcts:time=0", "openspiel-ismcts:time=-1",
                "openspiel-ismcts:time=fast", "openspiel-ismcts:sims=1"):
        with pytest.raises(BotSpecError) as info:
            parse_spec(bad)
        assert "\n" not in str(info.value) and bad in str(info.value)


def test_sims_and_time_stop_at_whichever_is_spent_first():
    """With both budgets (the web server caps both), the count ends a search
    whose clock never runs out, and the clock one whose count is far off."""
    state = _position()
    bot, engine = _timed_bot("openspiel-ismcts:sims=6,time=1000", state, clock=FakeClock())
    bot.analyse(state)
    assert bot.last_simulations == 6
    bot, engine = _timed_bot("openspiel-ismcts:sims=100000,time=5.5", state, clock=FakeClock())
    bot.analyse(state)
    assert bot.last_simulations == 7  # two forced, then clock readings 1..5


def test_time_budget_runs_simulations_until_the_clock_passes_the_deadline():
    # The clock reads 0 when the search starts (deadline 5.5), then 1, 2, ...
    # at each loop test after the first two simulations.
    clock = FakeClock()
    state = _position()
    bot, engine = _timed_bot("openspiel-ismcts:time=5.5", state, clock=clock)
    result = bot.analyse(state)
    assert result["action"] in state.legal_actions()
    assert bot.last_simulations == engine.simulations
    # the first two simulations are forced (the loop test short-circuits
    # before reading the clock); readings 1..5 allow five more; 6 stops.
    assert engine.simulations == 7
    assert clock.reads == 1 + 6
    # the root saw every simulation but the first (which expanded it)
    assert engine._root_node.total_visits == engine.simulations - 1


def test_an_expired_budget_still_runs_two_simulations():
    # A clock far past any deadline: the root must still be expanded and
    # visited once, or OpenSpiel's final policy has nothing to choose from.
    state = _position()
    bot, engine = _timed_bot("openspiel-ismcts:time=0.001", state,
                             clock=iter([0.0] + [1e9] * 100).__next__)
    assert bot.analyse(state)["action"] in state.legal_actions()
    assert engine.simulations == 2 and engine._root_node.total_visits == 1


def test_time_budget_with_the_same_clock_is_seeded():
    state = _position()
    picks = []
    for _ in range(2):
        bot, _engine = _timed_bot("openspiel-ismcts:time=30.5", state, seed=11,
                                  clock=FakeClock())
        picks.append(bot.analyse(state.clone())["action"])
    assert picks[0] == picks[1]


def test_sims_budget_is_unchanged_and_counts_simulations():
    state = _position()
    bot, engine = _timed_bot("openspiel-ismcts:sims=25", state)
    assert engine.time_limit is None
    action = bot.analyse(state.clone())["action"]
    assert engine.simulations == 25 and engine._root_node.total_visits == 24
    # the same seed with OpenSpiel's own class gives the same move
    import numpy as np
    import random
    from open_spiel.python.algorithms import ismcts, mcts

    rng, np_rng = random.Random(3), np.random.RandomState(3)
    plain = ismcts.ISMCTSBot(state.get_game(), mcts.RandomRolloutEvaluator(1, np_rng), 1.4, 25,
                             random_state=np_rng)
    plain.set_resampler(lambda s, p: s.resample_from_infostate(p, rng.random))
    assert int(plain.step(state.clone())) == action


def test_default_budget_is_300_simulations():
    bot = make_bot("openspiel-ismcts", 0, 1)
    assert bot._sims == 300 and bot._time is None


def test_time_bot_plays_a_whole_game():
    """A whole game at a time budget, every move's clock injected (CI once
    saw the real clock, on a loaded machine, give a game where the bot had
    one real choice): the same game each run, each move stopped by its
    deadline (seven simulations at 5.5 s of a clock that ticks one second a
    reading), every choice legal."""
    game = pyspiel.load_game("wildhorn(variant=small)")
    bots = [make_bot("openspiel-ismcts:time=5.5", 0, 1), make_bot("random", 1, 2)]
    engine = bots[0]._engine(game)             # the engine each of its moves uses
    engine.clock = FakeClock()
    chose = bots_game(game.new_initial_state(), bots, 5)  # each of its choices legal
    assert chose[0] >= 3
    assert bots[0]._engine(game) is engine and bots[0].last_simulations == 7

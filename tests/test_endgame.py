"""The exact last-turn solver (exact.endgame): agreement with a plain Python
expectimax over pyspiel states, Monte-Carlo playouts of its own policy, the
solvable region, budgets (node cap, injected clock), and its use by the
bots (endgame=exact) and advise."""

from __future__ import annotations

import random
from pathlib import Path

import pyspiel
import pytest

import bots._budget as budget
from bots import BotSpecError, make_bot, parse_spec, valuenet
from exact._endgame import Solver
from exact.endgame import key_bytes, solvable, solve
from helpers import last_turn
from solver._core import encode_action
from solver.vocabulary import PHASES

GAME = {v: pyspiel.load_game("wildhorn", {"variant": v}) for v in ("tiny", "small")}
FULL = pyspiel.load_game("wildhorn")


# ---- an independent check: a plain expectimax over pyspiel states -------------

def expectimax(state: pyspiel.State, counter: list[int] | None = None) -> float:
    """The Polish win probability under perfect play, by the book: pyspiel's
    own chance outcomes, legal actions and returns, no table, no bounds."""
    if counter is not None:
        counter[0] += 1
    if state.is_terminal():
        return (state.returns()[0] + 1.0) / 2.0
    if state.is_chance_node():
        return sum(p * expectimax(state.child(a), counter) for a, p in state.chance_outcomes())
    values = [expectimax(state.child(a), counter) for a in state.legal_actions()]
    return max(values) if state.current_player() == 0 else min(values)


def action_values(state: pyspiel.State) -> dict[int, float]:
    """The Polish win probability after each legal action (or outcome)."""
    options = [a for a, _ in state.chance_outcomes()] if state.is_chance_node() \
        else state.legal_actions()
    return {a: expectimax(state.child(a)) for a in options}


def polish_rows(result) -> dict[int, float]:
    """A solution's exact rows as Polish win probabilities."""
    flip = result.player == 1
    return {a.action: (1.0 - a.value if flip else a.value) for a in result.actions}


def after_rocket(variant: str, outcome: int) -> pyspiel.State:
    state = GAME[variant].new_initial_state()
    assert state.is_chance_node()
    state.apply_action(outcome)
    return state


def walk_to(state: pyspiel.State, rng: random.Random, steps: int) -> pyspiel.State:
    """``steps`` random moves (chance by its probabilities) from ``state``."""
    state = state.clone()
    for _ in range(steps):
        if state.is_terminal():
            break
        if state.is_chance_node():
            outcomes = state.chance_outcomes()
            state.apply_action(rng.choices([a for a, _ in outcomes],
                                           [p for _, p in outcomes])[0])
        else:
            state.apply_action(rng.choice(state.legal_actions()))
    return state


# ---- agreement -----------------------------------------------------------------

@pytest.mark.parametrize("outcome", [0, 1])
def test_tiny_agrees_with_the_python_expectimax(outcome):
    """Every action of the tiny variant's first decision, each Rocket card."""
    state = after_rocket("tiny", outcome)
    assert solvable(state.core)
    result = solve(state.core)
    assert result.complete and all(a.exact for a in result.actions)
    expected = action_values(state)
    assert polish_rows(result) == pytest.approx(expected, abs=1e-12)
    assert result.polish == pytest.approx(max(expected.values()), abs=1e-12)


def test_tiny_every_position_agrees():
    """Every decision and chance node of tiny after the Rocket card (each
    position once): the solver's root value is the expectimax's."""
    seen = set()
    stack = [after_rocket("tiny", 0), after_rocket("tiny", 1)]
    checked = 0
    solver = Solver(table_entries=1 << 12)
    while stack:
        state = stack.pop()
        if state.is_terminal():
            continue
        key = key_bytes(state.core)
        if key in seen:
            continue
        seen.add(key)
        result = solve(state.core, solver=solver)
        assert result.complete
        exp = expectimax(state)
        if state.is_chance_node():
            assert result.polish == pytest.approx(exp, abs=1e-12)
            stack.extend(state.child(a) for a, _ in state.chance_outcomes())
        else:
            assert result.polish == pytest.approx(exp, abs=1e-12), state
            stack.extend(state.child(a) for a in state.legal_actions())
        checked += 1
    assert checked > 100


@pytest.mark.parametrize("seed", range(6))
def test_small_positions_agree(seed):
    """Positions of the small variant some random moves in, where the plain
    expectimax is still small: every action's exact value agrees."""
    rng = random.Random(seed)
    for _ in range(50):
        state = walk_to(after_rocket("small", rng.randrange(2)), rng, rng.randrange(3, 12))
        if state.is_terminal() or state.is_chance_node():
            continue
        counter = [0]
        expectimax(state, counter)
        if counter[0] <= 60_000:
            break
    else:
        pytest.skip("no small enough position on this seed")
    result = solve(state.core)
    assert result.complete
    assert polish_rows(result) == pytest.approx(action_values(state), abs=1e-12)


@pytest.mark.parametrize("every_action", [True, False])
def test_bounds_do_not_change_the_values(every_action):
    """With and without the alpha-beta/star1 cut-offs and the table's move
    ordering: the same best value; the best action's row is exact."""
    state = walk_to(after_rocket("small", 0), random.Random(1), 2)
    assert not state.is_chance_node() and not state.is_terminal()
    plain = Solver(bounds=False, ordering=False)
    full = solve(state.core)
    ref = solve(state.core, solver=plain)
    cut = solve(state.core, every_action=every_action)
    assert ref.complete and cut.complete and full.complete
    assert cut.value == pytest.approx(ref.value, abs=1e-12)
    assert polish_rows(full) == pytest.approx(polish_rows(ref), abs=1e-12)
    assert cut.value_of(cut.best) == pytest.approx(ref.value, abs=1e-12)
    for row in cut.actions:
        assert row.lo - 1e-12 <= ref.value_of(row.action) <= row.hi + 1e-12
    assert cut.nodes < ref.nodes


# ---- constructed positions of the full game ---------------------------------


def test_sure_win_with_witnesses():
    """Scouts in the Periphery with Witnesses in hand, one fragment there,
    0-0 (tests/test_ismcts.py): searching wins for sure, passing loses (tie, R22)."""
    core = last_turn({"PL01": "periphery", "PL22": "hand", "DE01": "base"}, {"periphery": 1})
    result = solve(core)
    assert result.complete and result.value == 1.0
    assert result.best == encode_action("SEARCH", 0)
    assert result.value_of(encode_action("PASS")) == 0.0
    assert expectimax(FULL.state_from_core(core)) == 1.0


def test_lost_position_and_german_perspective():
    core = last_turn({"PL01": "periphery", "DE01": "base", "DE03": "base"},
                     {"periphery": 1, "base": 2})
    result = solve(core)
    assert result.complete and result.value == 0.0 and result.polish == 0.0
    german = last_turn({"DE09": "forest", "DE16": "hand", "DE17": "hand", "PL01": "forest"},
                       {"forest": 1}, actor=1)
    result = solve(german)
    assert result.player == 1 and result.value == 1.0 and result.polish == 0.0
    # Sturmwind with +4 takes the fragment for sure; so does the SS's attack here
    assert encode_action("STEAL", 8) in result.optimal()
    assert expectimax(FULL.state_from_core(german).child(result.best)) == 0.0


def test_not_solvable_before_the_last_turn_or_with_cards_in_a_deck():
    state = FULL.new_initial_state()
    while state.is_chance_node():
        state.apply_action(state.chance_outcomes()[0][0])
    assert not solvable(state.core)
    with pytest.raises(ValueError, match="solvable region"):
        solve(state.core)
    # the last turn, but a card still in a deck: its owner's hand is not known
    core = last_turn({"PL01": "periphery", "PL22": "deck", "DE01": "base"}, {"periphery": 1})
    assert not solvable(core)
    # before the last V-2 step (the Rocket card): not solvable either
    tiny = GAME["tiny"].new_initial_state()
    assert tiny.is_chance_node() and not solvable(tiny.core)


# ---- the solver's own policy, played out -----------------------------------------


@pytest.mark.parametrize("outcome, walk", [(0, 15), (0, 18), (1, 13)])
def test_monte_carlo_playouts_of_the_solved_policy(outcome, walk):
    """Both sides play the solver's best action, dice rolled by a seeded
    stream: the Polish win rate over 4,000 games lies within 4 standard
    errors of the solved value (positions where it is neither 0 nor 1)."""
    start = after_rocket("small", outcome)
    start = walk_to(start, random.Random(walk), 3)
    value = solve(start.core).polish
    assert 0.05 < value < 0.95
    rng = random.Random(walk)
    solver = Solver()
    best: dict[bytes, int] = {}
    wins = 0
    games = 4000
    for _ in range(games):
        state = start.clone()
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes = state.chance_outcomes()
                state.apply_action(rng.choices([a for a, _ in outcomes],
                                               [p for _, p in outcomes])[0])
            else:
                key = key_bytes(state.core)
                if key not in best:
                    best[key] = solve(state.core, every_action=False, solver=solver).best
                state.apply_action(best[key])
        wins += state.returns()[0] > 0
    se = max((value * (1 - value) / games) ** 0.5, 1e-3)
    assert abs(wins / games - value) <= 4 * se


# ---- budgets -----------------------------------------------------------------------


def test_node_cap_stops_the_solve():
    state = after_rocket("small", 0)
    result = solve(state.core, max_nodes=500)
    assert not result.complete and result.best is None and result.value is None
    assert result.nodes <= 500 + 1
    assert all(a.exact for a in result.actions)


def test_injected_clock_stops_the_solve():
    """A clock that jumps an hour at every reading: the solve stops at the
    first reading past the start (it reads the clock every 2,048 nodes)."""
    ticks = [0.0]

    def clock():
        ticks[0] += 3600.0
        return ticks[0]

    state = after_rocket("small", 0)
    result = solve(state.core, max_seconds=1.0, clock=clock)
    assert not result.complete
    assert 2048 <= result.nodes <= 2048 + 64
    assert ticks[0] == 2 * 3600.0     # the deadline, then one reading
    # a clock that does not move: the same position solves completely
    assert solve(state.core, max_seconds=1.0, clock=lambda: 0.0).complete


def test_table_is_reused_and_counted():
    state = after_rocket("small", 1)
    result = solve(state.core)
    assert result.probes > 0 and 0.0 < result.hit_rate < 1.0
    assert result.hits <= result.probes


# ---- the bots -----------------------------------------------------------------------


def test_registry_option():
    assert parse_spec("ismcts:endgame=off")[1] == {"endgame": "off"}
    assert parse_spec("oos:endgame=exact")[1] == {"endgame": "exact"}
    with pytest.raises(BotSpecError, match="endgame expects exact or before or off"):
        parse_spec("ismcts:endgame=maybe")
    # on where a person asks (play, advise, serve), off in bot-vs-bot play
    assert make_bot("ismcts:iterations=10", 0, interactive=True).endgame == "exact"
    assert make_bot("ismcts:iterations=10", 0).endgame == "off"
    assert make_bot("oos:iterations=10,endgame=off", 0, interactive=True).endgame == "off"


@pytest.mark.parametrize("spec", ["ismcts", "oos"])
def test_bot_plays_the_exact_best_action(spec):
    """Two iterations of search would pick almost at random; with endgame
    on, the bot plays the solver's best action and says its values are exact."""
    core = last_turn({"PL01": "periphery", "PL22": "hand", "DE01": "base"}, {"periphery": 1})
    bot = make_bot(f"{spec}:iterations=200,endgame=exact", 0, seed=3)
    out = bot.analyse(core)
    assert out["exact"] and out["stats"]["exact"]
    assert out["action"] == solve(core).best == encode_action("SEARCH", 0)
    assert out["value"] == [1.0, 0.0]
    off = make_bot(f"{spec}:iterations=200,endgame=off", 0, seed=3).analyse(core)
    assert "exact" not in off and not off["stats"].get("exact")


def test_bot_falls_back_to_search_when_the_budget_is_short():
    """The small variant's opening needs more than 50 solver nodes per
    iteration of a 2-iteration budget: the bot searches as without endgame."""
    state = after_rocket("small", 0)
    bot = make_bot("ismcts:iterations=2,endgame=exact", 0, seed=1)
    out = bot.analyse(state)
    assert "exact" not in out and out["stats"]["iterations"] == 2


def spy_on_solves(monkeypatch) -> list[dict]:
    """Each exact attempt's keyword arguments, the solver still run."""
    from bots import base
    calls = []
    real = base.solve_endgame

    def spy(core, **kw):
        calls.append(kw)
        return real(core, **kw)

    monkeypatch.setattr(base, "solve_endgame", spy)
    return calls


def test_bot_backs_off_after_unfinished_attempts_and_returns_after_a_finished_one(monkeypatch):
    """A bot kept for a game: an attempt that does not finish halves the
    next one's share (down to 1/16); a finished solve gives back the full
    share, and so does a decision outside the solvable region (a new game).
    The node budget each attempt gets follows the share."""
    from bots.base import ENDGAME_NODES_PER_ITERATION as PER_ITERATION
    calls = spy_on_solves(monkeypatch)
    bot = make_bot("ismcts:iterations=8,endgame=exact", 0, seed=1)
    state = after_rocket("small", 0)
    shares = []
    for _ in range(5):
        out = bot.analyse(state)
        assert "exact" not in out
        shares.append(bot.endgame_share)
    assert shares == [0.25, 0.125, 0.0625, 0.0625, 0.0625]
    assert [kw["max_nodes"] for kw in calls] == \
        [int(s * PER_ITERATION * 8) for s in (0.5, 0.25, 0.125, 0.0625, 0.0625)]
    bot.iterations = 200          # the backed-off share still solves this one
    core = last_turn({"PL01": "periphery", "PL22": "hand", "DE01": "base"}, {"periphery": 1})
    assert bot.analyse(core)["exact"] and bot.endgame_share == 0.5
    assert calls[-1]["max_nodes"] == int(0.0625 * PER_ITERATION * 200)
    bot.iterations = 8
    bot.analyse(state)
    bot.analyse(state)
    assert bot.endgame_share == 0.125
    opening = FULL.new_initial_state()
    while opening.is_chance_node():
        opening.apply_action(opening.chance_outcomes()[0][0])
    assert not solvable(opening.core)
    bot.analyse(opening)
    assert bot.endgame_share == 0.5 and len(calls) == 8     # no attempt at the opening


def test_the_solver_runs_beside_the_search_for_the_whole_budget(monkeypatch):
    """With a time budget, each attempt's deadline follows the share (on
    bots._budget's clock) and runs on a thread of its own, while the search
    gets the whole move's time, not what the attempt left: no core idles."""
    import threading
    from types import SimpleNamespace

    from bots import base
    monkeypatch.setattr(budget, "clock", lambda: 0.0)
    given, threads = [], []

    def attempt(core, **kw):          # an attempt that does not finish
        given.append(kw["max_seconds"])
        threads.append(threading.current_thread())
        return SimpleNamespace(complete=False)

    monkeypatch.setattr(base, "solve_endgame", attempt)
    bot = make_bot("ismcts:time=1,endgame=exact", 0, seed=1)
    engine = bot.search_engine
    limits, stops = [], []

    def search(core, iterations=0, time_limit=0.0, stop=None, **kw):
        limits.append(time_limit)         # then 20 iterations, not the real time
        stops.append(stop)
        return engine.search(core, iterations=20, time_limit=0.0, **kw)

    monkeypatch.setattr(bot, "search_engine", SimpleNamespace(search=search))
    state = after_rocket("small", 0)
    for _ in range(4):
        out = bot.analyse(state)
        assert out["stats"]["endgame_complete"] is False
    assert given == [0.5, 0.25, 0.125, 0.0625]
    assert limits == [1.0] * 4
    assert all(t is not threading.current_thread() for t in threads)
    assert all(callable(stop) and not stop() for stop in stops)   # it never finished


def test_a_finished_solve_stops_the_search_at_once(monkeypatch):
    """A time budget alone: the solve that finishes ends the search at its
    next chunk, and the exact answer decides the move."""
    import threading
    from types import SimpleNamespace

    bot = make_bot("ismcts:time=1000,endgame=exact", 0, seed=1)
    chunks = []
    pause = threading.Event()

    def search(core, iterations=0, time_limit=0.0, stop=None, **kw):
        while not stop():                 # the search's chunk loop, as bots._budget runs it
            chunks.append(1)
            pause.wait(0.01)
            assert len(chunks) < 6000, "the finished solve did not stop the search"
        return {"iterations": len(chunks)}

    monkeypatch.setattr(bot, "search_engine", SimpleNamespace(search=search))
    core = last_turn({"PL01": "periphery", "PL22": "hand", "DE01": "base"}, {"periphery": 1})
    out = bot.analyse(core)
    assert out["exact"] and out["stats"]["endgame_complete"]
    assert out["stats"]["search_iterations"] == len(chunks)


def test_an_iteration_budget_runs_every_iteration_beside_the_solver(monkeypatch):
    """An iteration budget: the search is never cut short by the solver (its
    random stream then runs on the same way from move to move), and a
    finished solve still decides the move."""
    from types import SimpleNamespace

    bot = make_bot("ismcts:iterations=300,endgame=exact", 0, seed=1)
    real, seen = bot.search_engine.search, []

    def search(core, stop=None, **kw):
        seen.append(stop)
        return real(core, stop=stop, **kw)

    monkeypatch.setattr(bot, "search_engine", SimpleNamespace(search=search))
    core = last_turn({"PL01": "periphery", "PL22": "hand", "DE01": "base"}, {"periphery": 1})
    out = bot.analyse(core)
    assert out["exact"] and out["stats"]["search_iterations"] == 300
    assert seen == [None]


def test_solve_exactly_takes_the_full_share_whatever_play_backed_off(monkeypatch):
    """``solve_exactly`` itself (advise's replies, bench grading) takes the
    share it is given, half by default, even from a bot whose play has
    backed off: the back-off lives in ``analyse`` alone."""
    from bots.base import ENDGAME_NODES_PER_ITERATION as PER_ITERATION
    calls = spy_on_solves(monkeypatch)
    bot = make_bot("ismcts:iterations=2,endgame=exact", 0, seed=1)
    state = after_rocket("small", 0)
    bot.analyse(state)
    assert bot.endgame_share == 0.25
    solution, _ = bot.solve_exactly(state.core)
    assert not solution.complete
    assert calls[-1]["max_nodes"] == int(0.5 * PER_ITERATION * 2)
    assert bot.endgame_share == 0.25


def test_bot_time_budget_uses_the_injected_clock(monkeypatch):
    """With a time budget, the solver's deadline is read on bots._budget's
    clock: a clock that jumps makes it give up, and the search runs."""
    ticks = [0.0]

    def clock():
        ticks[0] += 10.0
        return ticks[0]

    monkeypatch.setattr(budget, "clock", clock)
    state = after_rocket("small", 0)
    exact, spent = make_bot("ismcts:time=1,endgame=exact", 0).solve_exactly(state.core)
    assert exact is not None and not exact.complete and spent > 0


# ---- advise ----------------------------------------------------------------------


def test_advise_says_exact():
    """A solvable position: the advice is exact (every action's exact value,
    no interval, the opponent's exact best replies) and fits the schema."""
    import json

    import jsonschema

    from apps.advise import advise, format_advice

    core = last_turn({"PL01": "periphery", "PL02": "periphery", "PL18": "hand",
                      "DE01": "periphery", "DE02": "periphery", "DE18": "hand"},
                     {"periphery": 1, "forest": 1, "base": 1})
    answer = advise(core, "ismcts:iterations=2000", seed=1)
    assert answer["exact"] is True
    exact = solve(core)
    assert answer["recommended_id"] == exact.best
    for row in answer["actions"]:
        assert row["value"] == pytest.approx(exact.value_of(row["id"]), abs=1e-6)
        assert row["stderr"] == 0.0
    assert answer["value"]["polish"] == pytest.approx(exact.polish, abs=1e-6)
    assert answer["value_ci95"]["polish"][0] == answer["value_ci95"]["polish"][1]
    assert answer["responses"] or answer["responses_note"]
    for reply in answer["responses"]:
        assert 0.0 <= reply["probability"] <= 1.0 + 1e-9 and reply["stderr"] == 0.0
    # the replies perfect play chooses come first, their chances summing to at most 1
    assert sum(r["probability"] for r in answer["responses"]) <= 1.0 + 1e-9
    schema = json.loads((Path(__file__).resolve().parent.parent / "solver" / "data"
                         / "advice.schema.json").read_text())
    jsonschema.validate(answer, schema)
    assert "Exact: the position is solved" in format_advice(answer)
    off = advise(core, "ismcts:iterations=300,endgame=off", seed=1, responses=False)
    assert "exact" not in off


# ---- bench endgame ------------------------------------------------------------------


def test_bench_endgame_pieces(tmp_path):
    """The suite maker, the solve times, the bots' grades and the C-vs-Python
    figure on a two-game suite (the last two points of each) with a small
    node budget (the figures' shape; their values are
    results/bench-endgame.json's)."""
    import json

    from apps import bench_endgame as be

    heuristic = ("heuristic", "heuristic")     # fast players for the test
    suite = be.make_suite(games=2, max_nodes=100_000, last=2, specs=heuristic)
    assert suite["positions"] and all(p["from_end"] >= 1 for p in suite["positions"])
    path = tmp_path / "suite.json"
    path.write_text(json.dumps(suite))
    cores = be.suite_cores(json.loads(path.read_text()))
    assert [c.to_bytes() for _, c in cores] == \
        [c.to_bytes() for seed in (1, 2) for c in be.last_turn_points(seed, heuristic)[-2:]]
    # a run in a work folder keeps each game; a second run reads them back
    # (seed 2 played by a run from seed 2, as a second process would)
    work = tmp_path / "work"
    be.make_suite(games=2, max_nodes=100_000, last=2, specs=heuristic, work=work, first=2)
    assert sorted(f.name for f in work.iterdir()) == ["game-002.json", "params.json"]
    again = be.make_suite(games=2, max_nodes=100_000, last=2, specs=heuristic, work=work)
    assert again == suite
    (work / "game-001.json").write_text("[]")           # read back, not played again
    assert be.make_suite(games=2, max_nodes=100_000, last=2, specs=heuristic,
                         work=work)["positions"] == suite["positions"][2:]
    with pytest.raises(ValueError, match="made with"):
        be.make_suite(games=2, max_nodes=50_000, last=2, specs=heuristic, work=work)
    solved = [(r, c) for r, c in cores if r["solved"]]
    assert solved, "the last decisions of a game solve within 100,000 nodes"
    for row, core in solved[:3]:
        assert solve(core, every_action=False).value == pytest.approx(row["value"], abs=1e-9)
        for action, entry in row["actions"].items():
            if entry["value"] is not None:   # an exact value the suite found: check it
                after = solve(core, every_action=False, max_nodes=400_000)
                assert entry["value"] <= after.value + 1e-9
            if entry["optimal"] is False:
                assert entry["hi"] < row["value"]
    times = be.solve_times(cores[-2:], limit=0.5)
    assert set(times["solved_within"]) == {"0.1s", "1s", "10s"}
    assert sum(times["nodes_by_step_share"].values()) == pytest.approx(1.0, abs=1e-3)
    engine = Solver()
    result = solve(cores[-1][1], max_nodes=50_000, solver=engine)
    by_step = engine.nodes_by_step()
    assert sum(by_step.values()) == result.nodes and set(by_step) <= set(PHASES)
    grades = be.grade_bots(be.small_positions(count=10), ("heuristic",))
    assert grades["positions"] == 10 and 0.0 <= grades["heuristic"]["all"]["optimal"] <= 1.0
    ratio = be.c_vs_python(count=1)
    assert ratio["values_agree"] and ratio["positions"] == 1
    assert ratio["same_nodes"]     # without its table the C solver walks the Python tree


def test_bench_endgame_refuses_a_missing_suite(tmp_path, capsys):
    from apps.cli import main

    assert main(["bench", "endgame", "--suite", str(tmp_path / "none.json")]) == 2
    assert "--suite: no such file" in capsys.readouterr().err


@pytest.mark.parametrize("outcome", [0, 1])
def test_without_the_table_the_plain_solver_visits_the_python_expectimax_nodes(outcome):
    """transpositions=False: every position searched anew, so the plain C
    expectimax visits exactly the positions the Python one does (what
    makes its nodes per second comparable) and gets the same value."""
    from apps.bench_endgame import python_expectimax
    state = after_rocket("tiny", outcome)
    counter = [0]
    value = python_expectimax(state, counter)
    plain = Solver(bounds=False, ordering=False, history=False, merging=False,
                   transpositions=False)
    result = solve(state.core, solver=plain)
    assert result.nodes == counter[0]
    assert result.polish == pytest.approx(value, abs=1e-12)
    tabled = solve(state.core, solver=Solver(bounds=False, ordering=False, history=False,
                                             merging=False))
    assert tabled.nodes <= counter[0] and tabled.polish == pytest.approx(value, abs=1e-12)
    with pytest.raises(ValueError, match="merging needs the transposition table"):
        Solver(transpositions=False)


def test_bench_endgame_parts_are_checked_before_any_work(tmp_path, capsys):
    """--parts names parts of the bench, and keeps the others only from an
    earlier result of the same suite that has them: else a one-line error,
    exit 2, and the file is left as it was."""
    import json
    from apps.cli import main

    assert main(["bench", "endgame", "--parts", "values,speed",
                 "--out", str(tmp_path / "b.json")]) == 2
    assert "--parts: expected some of solve_times," in capsys.readouterr().err
    assert main(["bench", "endgame", "--parts", "values", "--out", str(tmp_path / "b.json")]) == 2
    assert "must hold an earlier full bench endgame result" in capsys.readouterr().err
    other = tmp_path / "other.json"
    other.write_text(json.dumps({"suite": "elsewhere.json"}))
    assert main(["bench", "endgame", "--parts", "values", "--out", str(other)]) == 2
    assert "was not measured on the suite" in capsys.readouterr().err
    assert json.loads(other.read_text()) == {"suite": "elsewhere.json"}
    partial = tmp_path / "partial.json"
    partial.write_text(json.dumps({"suite": "results/endgame-suite.json", "values": {}}))
    assert main(["bench", "endgame", "--parts", "values", "--out", str(partial)]) == 2
    assert "lacks solve_times, c_vs_python" in capsys.readouterr().err


def test_bench_endgame_keeps_the_parts_it_does_not_measure(tmp_path):
    """A partial run measures nothing outside ``parts``: every other part
    is the earlier result's, as it was."""
    import json
    import apps.bench_endgame as be

    suite = tmp_path / "suite.json"
    suite.write_text(json.dumps({"max_nodes": 10, "positions": []}))
    before = {part: {"kept": part} for part in be.PARTS}
    out = be.bench_endgame(suite, parts=(), before=before)
    assert {part: out[part] for part in be.PARTS} == before
    assert out["suite_positions"] == 0
    # which packaged network measured each part: unknown for the earlier ones,
    # kept through a later partial run, and the current one for a measured part
    assert out["packaged_network"] == {part: None for part in be.PARTS}
    before["packaged_network"] = {"values": "abc"}
    out = be.bench_endgame(suite, parts=("values",), before=before)
    assert out["packaged_network"]["values"] == valuenet.default().sha256
    assert out["packaged_network"]["advise"] is None
    before["packaged_network"] = out["packaged_network"] | {"advise": "def"}
    out = be.bench_endgame(suite, parts=(), before=before)
    assert out["packaged_network"]["advise"] == "def"
    assert out["packaged_network"]["values"] == valuenet.default().sha256


def test_probe_tells_whether_a_position_reaches_a_value():
    """A window just around the exact value: fail-high at or above it,
    fail-low below it, and the bound returned is on the right side."""
    state = after_rocket("small", 1)
    value = solve(state.core).polish
    assert 0.0 < value < 1.0
    engine = Solver()
    done, v, _ = engine.probe(state.core, value - 1e-9, value)
    assert done and v >= value - 1e-12
    engine.clear()
    done, v, _ = engine.probe(state.core, value + 1e-6, value + 2e-6)
    assert done and v <= value + 1e-6
    engine.clear()
    done, v, _ = engine.probe(state.core, -1.0, 2.0)
    assert done and v == pytest.approx(value, abs=1e-12)


# ---- the review graded exactly ------------------------------------------------------


def test_review_grades_a_last_turn_decision_exactly():
    """In the solvable region the review's rating is the exact loss (the
    independent expectimax's values, not a search's); outside it, a
    search's, said so."""
    from apps.gamebot import review_search

    rng = random.Random(4)
    for _ in range(200):     # a decision point of the last turn whose actions differ
        state = walk_to(after_rocket("small", rng.randrange(2)), rng, rng.randrange(0, 60))
        if state.is_terminal() or state.is_chance_node() or not solvable(state.core):
            continue
        player = state.current_player()
        values = {a: v if player == 0 else 1.0 - v for a, v in action_values(state).items()}
        if max(values.values()) - min(values.values()) > 0.01:
            break
    else:
        pytest.fail("no last-turn decision with differing actions in 200 walks")
    worst = min(values, key=values.get)
    rated = review_search({"variant": "small"}, state.core.to_bytes(), player, 1, 50, worst, 1)
    assert rated["exact"] is True
    assert rated["loss"] == pytest.approx(max(values.values()) - values[worst], abs=1e-4)
    assert rated["chosen_value"] == pytest.approx(values[worst], abs=1e-4)
    early = FULL.new_initial_state()
    while early.is_chance_node():
        early.apply_action(early.chance_outcomes()[0][0])
    assert not solvable(early.core)
    guess = review_search({}, early.core.to_bytes(), early.current_player(), 1,
                          50, early.legal_actions()[0], 1)
    assert guess["exact"] is False and guess["loss"] is not None


def test_review_error_rate_is_the_mean_loss_per_rated_decision():
    from apps.server.routes_games import error_rate, review_json

    decisions = [{"loss": 0.1, "exact": True}, {"loss": 0.0, "exact": False},
                 {"loss": None}, {"loss": 0.2, "exact": True}]
    review = review_json({"version": 1, "total": 4, "done": 4, "decisions": decisions})
    assert review["error_rate"] == {"decisions": 3, "mean_loss": 0.1}
    assert review["exact_error_rate"] == {"decisions": 2, "mean_loss": 0.15}
    assert error_rate([]) == {"decisions": 0, "mean_loss": None}

"""ISMCTS and the bot interface: constructed end positions where one move
wins for sure (and lost ones), determinism, budgets, spec strings."""
import pyspiel
import pytest

from bots._budget import CHUNK
from bots import BotSpecError, make_bot, parse_spec
from helpers import last_turn, random_decisions
from bots._ismcts import ISMCTS
from bots._searchtree import informed_playout
from solver._core import Core, CoreConfig, encode_action
from solver.cards import load_card_set
from playouts import bots_game

CARDS = load_card_set()
CFG = CoreConfig(CARDS)  # the full game, 4 turns


def test_finds_the_sure_win_witnesses():
    """Polish: Scouts in the Periphery with Witnesses in hand, one fragment
    there, 0-0: search + Witnesses wins for sure; passing loses (tie, R22)."""
    core = last_turn({"PL01": "periphery", "PL22": "hand", "DE01": "base"},
                     {"periphery": 1})
    stats = ISMCTS(seed=1).search(core, iterations=20000)
    best = max(stats["actions"], key=lambda a: a["visits"])
    assert best["action"] == encode_action("SEARCH", 0)
    assert stats["value"][0] >= 0.99
    after = core.copy()
    after.apply(best["action"])
    assert after.phase == "witnesses"
    assert ISMCTS(seed=2).search(after, iterations=5000)["value"][0] >= 0.99


def test_finds_the_sure_win_steal_defence():
    """German SS in the Forest, one Polish fragment there, 1-0 for Poland,
    German to act holding two Good Luck cards: Sturmwind (5+) with +4 on any
    die takes the fragment for a 0-1 win; passing loses."""
    core = last_turn({"DE09": "forest", "DE16": "hand", "DE17": "hand", "PL01": "forest"},
                     {"forest": 1}, actor=1)
    stats = ISMCTS(seed=3).search(core, iterations=30000)
    best = max(stats["actions"], key=lambda a: a["visits"])
    assert best["action"] == encode_action("STEAL", 8)
    assert stats["value"][1] >= 0.99


def test_reports_a_lost_position():
    """Polish to act, 0-2: one fragment is all Poland can take, and a German
    Staff (a Support never leaves the Rocket Base) rules out an overrun (R23)."""
    core = last_turn({"PL01": "periphery", "DE01": "base", "DE03": "base"},
                     {"periphery": 1, "base": 2})
    stats = ISMCTS(seed=4).search(core, iterations=5000)
    assert stats["value"][0] <= 0.01
    assert stats["value_ci95"][0][1] <= 0.02


def opening():
    """The first decision of the full game (chance: first outcomes)."""
    state = pyspiel.load_game("wildhorn").new_initial_state()
    while state.is_chance_node():
        state.apply_action(state.chance_outcomes()[0][0])
    return state


def test_same_seed_same_search():
    state = opening()
    a = ISMCTS(seed=7).search(state.core, iterations=3000)
    b = ISMCTS(seed=7).search(state.core, iterations=3000)
    assert a["actions"] == b["actions"] and a["value"] == b["value"]
    c = ISMCTS(seed=8).search(state.core, iterations=3000)
    assert c["actions"] != a["actions"]


def test_prior_tries_the_heuristic_choice_first():
    """With a progressive bias (prior > 0) the first iteration at a node
    takes an action the heuristic prefers there; without it, any legal one."""
    from bots._policy import heuristic_tied
    positions = list(random_decisions(3, seed=5))[::7]
    assert len(positions) >= 20
    off_heuristic = 0
    for i, core in enumerate(positions):
        tied = heuristic_tied(core)
        stats = ISMCTS(seed=i, prior=3.0).search(core, iterations=1)
        first = [a["action"] for a in stats["actions"] if a["visits"]]
        assert len(first) == 1 and first[0] in tied
        plain = ISMCTS(seed=i, prior=0.0).search(core, iterations=1)
        off_heuristic += [a["action"] for a in plain["actions"] if a["visits"]][0] not in tied
    assert off_heuristic > 0  # so the assertion above says something


def test_prior_shifts_visits_toward_the_heuristic_choice():
    """At a small budget the bias raises the visit share of the heuristic's
    actions (summed over positions, same seeds); prior=0 is plain UCB."""
    from bots._policy import heuristic_tied
    positions = list(random_decisions(2, seed=6))[::11]
    share = {0.0: 0.0, 3.0: 0.0}
    for prior in share:
        for i, core in enumerate(positions):
            stats = ISMCTS(seed=i, prior=prior).search(core, iterations=200)
            tied = heuristic_tied(core)
            share[prior] += sum(a["frequency"] for a in stats["actions"] if a["action"] in tied)
    assert share[3.0] > share[0.0] + 0.02 * len(positions)


def test_prior_is_seeded():
    state = opening()
    a = ISMCTS(seed=7, prior=3.0).search(state.core, iterations=2000)
    b = ISMCTS(seed=7, prior=3.0).search(state.core, iterations=2000)
    assert a["actions"] == b["actions"] and a["value"] == b["value"]
    with pytest.raises(ValueError, match="prior"):
        ISMCTS(prior=-1.0)


def test_ucb_ties_are_broken_at_random_from_the_seed():
    """A lost position (every action loses), no prior: the first iterations
    try each action once, then all UCB scores tie; the next visit goes to a
    tied action drawn from the search's stream (as is_mcts.cc does), not
    always to the first legal one (the old rule, kept as a searcher hook)."""
    core = last_turn({"PL01": "periphery", "DE01": "base", "DE03": "base"},
                     {"periphery": 1, "base": 2})
    legal = core.legal_actions()

    def twice(seed, ties):
        engine = ISMCTS(seed=seed, prior=0.0)
        engine._set_tie_break(ties)
        stats = engine.search(core, iterations=len(legal) + 1)
        assert all(a["value"] == 0.0 for a in stats["actions"])  # so the scores tie
        return [a["action"] for a in stats["actions"] if a["visits"] == 2]

    assert {tuple(twice(seed, "first")) for seed in range(12)} == {(legal[0],)}
    drawn = [twice(seed, "random") for seed in range(12)]
    assert all(len(d) == 1 for d in drawn) and {d[0] for d in drawn} == set(legal)
    assert drawn == [twice(seed, "random") for seed in range(12)]  # seeded
    with pytest.raises(ValueError, match="ties"):
        ISMCTS()._set_tie_break("last")


def test_node_cap_bounds_memory():
    state = opening()
    stats = ISMCTS(seed=1, max_nodes=100).search(state.core, iterations=2000)
    assert stats["nodes"] <= 100 and stats["iterations"] == 2000


def test_time_budget(fake_clock):
    """With a clock that advances 0.01 s per look, a 0.2 s budget runs
    exactly 20 chunks of iterations and reports the 0.2 s it ran."""
    state = opening()
    stats = ISMCTS(seed=1).search(state.core, time_limit=0.2)
    assert stats["iterations"] == 20 * CHUNK
    assert stats["seconds"] == pytest.approx(0.2)


def test_time_and_iterations_the_first_budget_reached(fake_clock):
    state = opening()
    assert ISMCTS(seed=1).search(state.core, iterations=100,
                                 time_limit=60)["iterations"] == 100
    fake_clock.now = 0.0    # the deadline's sum then has no rounding of earlier reads
    assert ISMCTS(seed=1).search(state.core, iterations=10**6,
                                 time_limit=0.05)["iterations"] == 5 * CHUNK


def test_search_refuses_chance_nodes():
    with pytest.raises(ValueError):
        ISMCTS().search(Core(CFG), iterations=10)


def test_informed_playout_finishes():
    core = Core(CFG)
    assert informed_playout(core, 3) in (0, 1) and core.is_terminal()


@pytest.mark.parametrize("spec", ["random", "heuristic", "ismcts", "ismcts:iterations=200,c=2",
                                  "ismcts:time=0.1,rollout=random", "ismcts:iterations=100,prior=0",
                                  "openspiel-ismcts:sims=20"])
def test_specs_play_a_game(spec):
    game = pyspiel.load_game("wildhorn(variant=small)")
    bots = [make_bot(spec, 0, 1), make_bot("random", 1, 2)]
    chose = bots_game(game.new_initial_state(), bots, 5)  # each of its choices legal
    assert chose[0] >= 3  # the spec's bot decided among several options


@pytest.mark.parametrize("spec", ["alphazero", "ismcts:time=x", "ismcts:depth=3",
                                  "ismcts:rollout=smart", "ismcts:iterations=0", "random:c=1",
                                  "ismcts:prior=-1", "ismcts:prior=x",
                                  "openspiel-ismcts:time=0", "openspiel-ismcts:sims=0"])
def test_bad_specs(spec):
    with pytest.raises(BotSpecError) as info:
        parse_spec(spec)
    assert "\n" not in str(info.value)


def test_openspiel_baseline_is_seeded_and_takes_a_core():
    """The external baseline (OpenSpiel's Python ISMCTS) gives the same move
    for the same seed, from a pyspiel state or from a core position."""
    game = pyspiel.load_game("wildhorn(variant=small)")
    state = game.new_initial_state()
    state.apply_action(1)
    first = make_bot("openspiel-ismcts:sims=40", 0, 7).step(state.clone())
    again = make_bot("openspiel-ismcts:sims=40", 0, 7).step(state.clone())
    from_core = make_bot("openspiel-ismcts:sims=40", 0, 7).step(state.core.copy())
    assert first == again == from_core
    assert isinstance(first, int) and first in state.legal_actions()


# ---- decided=heuristic: a decided game ends quickly ----------------------------


def _stats(player, own, rows):
    """Search statistics with the side to move's win estimate ``own`` and
    root rows (action, visits, value, stderr)."""
    value = [own, 1 - own] if player == 0 else [1 - own, own]
    return {"player": player, "value": value,
            "actions": [{"action": a, "visits": n, "value": v, "stderr": se}
                        for a, n, v, se in rows]}


def test_is_decided_needs_an_extreme_estimate_and_equal_values():
    from bots.base import is_decided
    equal = [(0, 40, 1.0, 0.0), (5, 40, 1.0, 0.0), (9, 40, 0.98, 0.02)]
    assert is_decided(_stats(0, 0.995, equal))
    assert is_decided(_stats(1, 0.995, equal))
    assert is_decided(_stats(1, 0.004, [(0, 40, 0.0, 0.0), (5, 40, 0.02, 0.02)]))
    # the estimate within [1%, 99%]: not decided, however equal the actions
    assert not is_decided(_stats(0, 0.99, equal))
    assert not is_decided(_stats(0, 0.5, [(0, 40, 0.5, 0.0), (5, 40, 0.5, 0.0)]))
    # an action clearly worse than the best: not decided
    assert not is_decided(_stats(0, 0.995, [(0, 400, 1.0, 0.0), (5, 40, 0.9, 0.02)]))
    # an unvisited action has no value and does not count
    assert is_decided(_stats(0, 0.995, [(0, 40, 1.0, 0.0), (5, 0, 0.0, 0.0)]))


def _decided_positions(games=3, limit=2):
    """Positions of seeded ISMCTS self-play games (decided=off, 300
    iterations, a fresh bot of seed 11 at each decision) that the search
    finds decided and where its choice is not among the heuristic's:
    (state, player).  Without the prior (prior=0): with it, the equal
    actions' visits lean to the heuristic's choice, so the two rarely
    differ at 300 iterations."""
    import random

    from bots.base import is_decided
    from bots._policy import heuristic_best
    found = []
    game = pyspiel.load_game("wildhorn")
    for seed in range(games):
        state, rng = game.new_initial_state(), random.Random(seed)
        while not state.is_terminal() and len(found) < limit:
            if state.is_chance_node():
                outcomes = state.chance_outcomes()
                state.apply_action(rng.choices([a for a, _ in outcomes],
                                               [p for _, p in outcomes])[0])
                continue
            player = state.current_player()
            result = make_bot("ismcts:iterations=300,prior=0,decided=off", player, 11).analyse(state)
            stats = result.get("stats")
            if stats and is_decided(stats) and result["action"] not in heuristic_best(state.core):
                found.append((state.clone(), player))
            state.apply_action(result["action"])
        if len(found) >= limit:
            break
    return found


def test_a_decided_position_takes_the_heuristic_choice():
    """Where the search finds the game decided and its own choice differs
    from the heuristic's, decided=heuristic plays the heuristic's choice and
    says so; decided=off plays the search's (same seed: the same search).
    (Without the prior, as in _decided_positions.)"""
    from bots._policy import heuristic_best
    positions = _decided_positions()
    assert positions, "no decided position with a search choice off the heuristic's"
    for state, player in positions:
        on = make_bot("ismcts:iterations=300,prior=0,decided=heuristic", player, 11).analyse(state)
        off = make_bot("ismcts:iterations=300,prior=0,decided=off", player, 11).analyse(state)
        assert on["stats"]["actions"] == off["stats"]["actions"]
        assert on["action"] == heuristic_best(state.core)[0] and on.get("decided") is True
        assert on["search_action"] == off["action"] != on["action"]
        assert "decided" not in off
        best = max(off["stats"]["actions"], key=lambda a: (a["visits"], a["value"]))
        assert off["action"] == best["action"]


def test_a_close_position_keeps_the_search_choice():
    """At the opening (no side near 0% or 100%) decided=heuristic changes
    nothing: the same action and analysis as decided=off."""
    state = opening()
    on = make_bot("ismcts:iterations=300", state.current_player(), 4).analyse(state)
    off = make_bot("ismcts:iterations=300,decided=off", state.current_player(), 4).analyse(state)
    assert 0.01 <= on["value"][state.current_player()] <= 0.99
    assert on["action"] == off["action"] and "decided" not in on


def test_decided_is_a_registry_option():
    assert parse_spec("ismcts:decided=off") == ("ismcts", {"decided": "off"})
    assert parse_spec("oos:decided=heuristic") == ("oos", {"decided": "heuristic"})
    assert parse_spec("ismcts:decided=pass") == ("ismcts", {"decided": "pass"})
    assert make_bot("ismcts:iterations=10", 0, 1).decided == "heuristic"
    assert make_bot("oos:iterations=10,decided=off", 0, 1).decided == "off"
    with pytest.raises(BotSpecError, match="decided"):
        parse_spec("ismcts:decided=random")


def test_decided_pass_passes_at_the_main_step():
    """A lost position (Polish 0-2, nothing can change it; see
    test_reports_a_lost_position): decided=pass passes, decided=heuristic
    plays the heuristic's choice (search), decided=off the search's."""
    from bots._policy import heuristic_best
    core = last_turn({"PL01": "periphery", "DE01": "base", "DE03": "base"},
                     {"periphery": 1, "base": 2})
    assert core.phase == "actions" and 0 in core.legal_actions()
    results = {rule: make_bot(f"ismcts:iterations=2000,decided={rule}", 0, 5).analyse(core)
               for rule in ("pass", "heuristic", "off")}
    assert results["pass"]["action"] == 0 and results["pass"]["decided"] is True
    assert results["heuristic"]["action"] == heuristic_best(core)[0] != 0
    assert "decided" not in results["off"]

"""Chance schemes (apps.tournament.chance): the keyed scheme samples every
chance node exactly, gives each side the same cards and dice in the two
seat-swapped games of a deal, and an old folder keeps its sequential scheme."""

from __future__ import annotations

import json
import random

import numpy as np
import pyspiel
import pytest

import solver  # noqa: F401
from apps import tournament as T
from apps.tournament.chance import KeyedChance, SequentialChance, card_classes, make_stream
from apps.tournament.store import read_games
from solver.cards import CARDS_PER_SIDE
from solver.errors import ParameterError

GAME = pyspiel.load_game("wildhorn")
KINDS = ("draw", "rocket", "roll")


def _pit_values(stream_of, seeds, rng_seed=0):
    """Randomised probability integral transform of every chance outcome of
    random-play games (one per seed, the stream from ``stream_of(seed)``),
    by the kind of chance node: under exact sampling each list is i.i.d.
    uniform on [0, 1] (Rosenblatt), whatever the earlier outcomes were."""
    u = random.Random(rng_seed)
    out = {k: [] for k in KINDS}
    for seed in seeds:
        stream, play = stream_of(seed), random.Random(seed + 10**6)
        state = GAME.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                kind = state.core.phase
                outcomes = state.chance_outcomes()
                action = stream.sample(state)
                k = [a for a, _ in outcomes].index(action)
                below = sum(p for _, p in outcomes[:k])
                out[kind].append(below + u.random() * outcomes[k][1])
                state.apply_action(action)
            else:
                state.apply_action(play.choice(state.legal_actions()))
    return out


def _chi2_uniform(values, bins=10):
    """(chi-square statistic, its 99.9% critical value) of ``values`` against U(0, 1)."""
    counts = np.bincount(np.minimum((np.asarray(values) * bins).astype(int), bins - 1),
                         minlength=bins)
    expected = len(values) / bins
    return float(((counts - expected) ** 2 / expected).sum()), 27.88   # chi2(9) at 0.999


SEEDS = range(300)


@pytest.mark.parametrize("scheme", ["keyed", "sequential"])
def test_every_chance_node_is_sampled_exactly(scheme):
    pit = _pit_values(lambda s: make_stream(scheme, s), SEEDS)
    for kind in KINDS:
        assert len(pit[kind]) > 500, kind
        stat, critical = _chi2_uniform(pit[kind])
        assert stat < critical, (kind, stat)


class _FirstInDeck(KeyedChance):
    """A broken keyed stream (the naive reading of "the next card of the
    permutation among the cards still in the deck"): each side's cards in
    one fixed order, a draw takes the first whose class is still in the
    deck.  The core removes the lowest-numbered card of that class, so a
    class of twins comes back, and a redraw deals the cards sent back again."""

    def _draw(self, core, outcomes):
        side = core.draw_info()["side"]
        classes = card_classes(core)
        order = list(range(CARDS_PER_SIDE))
        random.Random(self.seed * 2 + side).shuffle(order)
        by_class = {classes[side * CARDS_PER_SIDE + a]: a for a in outcomes}
        return next(by_class[classes[side * CARDS_PER_SIDE + i]] for i in order
                    if classes[side * CARDS_PER_SIDE + i] in by_class)


def test_the_exactness_check_catches_a_naive_deck():
    """The same check fails for a stream that is not exact (so it can fail)."""
    pit = _pit_values(_FirstInDeck, SEEDS)
    stat, critical = _chi2_uniform(pit["draw"])
    assert stat > critical


def _redeals_repeat(stream_of, seeds):
    """(redeals, redeals that gave back the classes sent back) in random play."""
    redeals = repeats = 0
    for seed in seeds:
        stream, play = stream_of(seed), random.Random(seed + 10**6)
        state = GAME.new_initial_state()
        drawn, dealt = ([], []), ([], [])        # per side: the draws, the redeal's draws
        while not state.is_terminal():
            core = state.core
            if not state.is_chance_node():
                state.apply_action(play.choice(state.legal_actions()))
                continue
            action = stream.sample(state)
            if core.phase == "draw":
                info = core.draw_info()
                side = info["side"]
                cls = card_classes(core)[side * CARDS_PER_SIDE + action]
                (dealt if info["redeal"] else drawn)[side].append(cls)
                if info["redeal"] and info["left"] == 1:
                    redeals += 1
                    repeats += sorted(dealt[side]) == sorted(drawn[side][-len(dealt[side]):])
                    dealt[side].clear()
            state.apply_action(action)
    return redeals, repeats


def test_a_redraw_reshuffles_the_deck():
    redeals, repeats = _redeals_repeat(lambda s: KeyedChance(s), range(150))
    assert redeals > 50 and repeats <= 0.05 * redeals
    redeals, repeats = _redeals_repeat(_FirstInDeck, range(150))
    assert redeals > 50 and repeats > 0.5 * redeals


def _events(specs, stream):
    """Per side, the classes drawn before the side's first redeal, and the
    dice rolled; and the Rocket values revealed, in one game."""
    bots = [T.execution.make_player(specs[p], p, 7 + p) for p in (0, 1)]
    drawn, dice, rockets = ([], []), ([], []), []
    redealt = [False, False]
    state = GAME.new_initial_state()
    while not state.is_terminal():
        if not state.is_chance_node():
            state.apply_action(bots[state.current_player()].step(state))
            continue
        core, action = state.core, stream.sample(state)
        if core.phase == "draw":
            side = core.draw_info()["side"]
            redealt[side] |= core.draw_info()["redeal"]
            if not redealt[side]:
                drawn[side].append(card_classes(core)[side * CARDS_PER_SIDE + action])
        elif core.phase == "roll":
            pend = core.pending
            dice[pend["actor"] if not pend["dice"] else 1 - pend["actor"]].append(action)
        else:
            rockets.append(core.config.rockets[action])
        state.apply_action(action)
    return drawn, dice, rockets


def _prefix(a, b):
    n = min(len(a), len(b))
    return a[:n] == b[:n]


def _shared(scheme, seed):
    """Whether the seat-swapped games of a deal (heuristic against random)
    give each side the same deck order, dice and Rocket cards."""
    first = _events(["heuristic", "random"], make_stream(scheme, seed))
    second = _events(["random", "heuristic"], make_stream(scheme, seed))
    return all(_prefix(x[s], y[s]) for x, y in zip(first[:2], second[:2]) for s in (0, 1)) \
        and _prefix(first[2], second[2]), first, second


def test_seat_swapped_games_share_each_sides_cards_and_dice():
    for seed in range(6):
        shared, first, second = _shared("keyed", seed)
        assert shared, seed
        assert min(len(first[1][0]), len(second[1][0])) > 3   # the games did roll dice
    # with one generator in order, the diverging games do not share them
    assert not all(_shared("sequential", seed)[0] for seed in range(6))


def test_seat_swapped_games_with_the_same_bots_replicate(tmp_path):
    a, b = T.schedule(["heuristic", "random"], "round-robin", 2, seed=5)
    same = [T.play_game(T.GameTask(t.game, 0, 0, t.deal_seed, "heuristic", "heuristic",
                                   "heuristic", "heuristic", "keyed"))["row"] for t in (a, b)]
    assert {k: v for k, v in same[0].items() if k != "game" and "seconds" not in k} == \
        {k: v for k, v in same[1].items() if k != "game" and "seconds" not in k}


def test_streams_are_deterministic_and_schemes_checked():
    def actions(stream):
        state, play, out = GAME.new_initial_state(), random.Random(1), []
        while not state.is_terminal():
            a = stream.sample(state) if state.is_chance_node() else \
                play.choice(state.legal_actions())
            out.append(a)
            state.apply_action(a)
        return out
    assert actions(KeyedChance(3)) == actions(KeyedChance(3)) != actions(KeyedChance(4))
    assert actions(SequentialChance(3)) == actions(SequentialChance(3))
    with pytest.raises(ParameterError, match="--chance: expected one of"):
        make_stream("lucky", 1)


def _strip(rows):
    return [{k: v for k, v in r.items() if "seconds" not in k} for r in rows]


@pytest.mark.slow
def test_an_old_folder_resumes_with_the_sequential_scheme(tmp_path):
    bots = ["heuristic", "random"]
    quiet = {"echo": lambda _: None}
    T.run(bots, games=6, seed=2, out=str(tmp_path / "seq"), chance="sequential", **quiet)
    T.run(bots, games=6, seed=2, out=str(tmp_path / "keyed"), **quiet)
    seq, keyed = read_games(tmp_path / "seq"), read_games(tmp_path / "keyed")
    assert json.loads((tmp_path / "keyed" / "tournament.json").read_text())["chance"] == "keyed"
    assert _strip(seq) != _strip(keyed)
    # an old folder: tournament.json without "chance", two games played
    old = tmp_path / "old"
    old.mkdir()
    params = json.loads((tmp_path / "seq" / "tournament.json").read_text())
    del params["chance"]
    (old / "tournament.json").write_text(json.dumps(params))
    lines = (tmp_path / "seq" / "games.csv").read_text().splitlines(keepends=True)
    (old / "games.csv").write_text("".join(lines[:3]))
    summary = T.run(bots, games=6, seed=2, out=str(old), **quiet)
    assert summary["parameters"]["chance"] == "sequential"
    assert _strip(read_games(old)) == _strip(seq)
    assert "chance" not in json.loads((old / "tournament.json").read_text())
    with pytest.raises(ParameterError, match="played with --chance sequential, not keyed"):
        T.run(bots, games=6, seed=2, out=str(old), chance="keyed", **quiet)


@pytest.mark.slow
def test_crn_width_script_compares_one_match_played_both_ways(tmp_path):
    from tournament_helpers import benchmark_script
    crn_width = benchmark_script("crn_width")
    quiet = {"echo": lambda _: None}
    # a match that neither bot wins every game of (the widths need both
    # results); decided=heuristic, the default, makes ISMCTS at 3
    # iterations win them all here
    bots = ["ismcts:iterations=3,decided=off", "random"]
    for scheme in ("sequential", "keyed"):
        T.run(bots, games=12, seed=4, out=str(tmp_path / scheme), chance=scheme, **quiet)
    out = tmp_path / "w.json"
    assert crn_width.main(["--sequential", str(tmp_path / "sequential"), "--keyed",
                           str(tmp_path / "keyed"), "--bootstrap", "20",
                           "--out", str(out)]) == 0
    w = json.loads(out.read_text())
    assert w["pairs"] == 6 and w["games"] == 12
    widths = {k: w[k]["by_pair"]["elo_width"] for k in ("sequential", "keyed")}
    assert w["crn_ratio"] == pytest.approx(widths["keyed"] / widths["sequential"])
    assert w["target_met"] == (w["target_ratio"] <= 0.75)
    # the folders must be the same match, each with the scheme it is given as
    assert crn_width.main(["--sequential", str(tmp_path / "keyed"), "--keyed",
                           str(tmp_path / "keyed"), "--out", str(out)]) == 2
    T.run(["heuristic", "random"], games=4, seed=4, out=str(tmp_path / "h"), **quiet)
    T.run(["heuristic", "random"], games=4, seed=4, out=str(tmp_path / "s"),
          chance="sequential", **quiet)
    assert crn_width.main(["--sequential", str(tmp_path / "s"), "--keyed",
                           str(tmp_path / "h"), "--out", str(out)]) == 2   # no width

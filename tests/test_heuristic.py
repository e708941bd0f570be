"""The heuristic bot (bots.heuristic, its rules in C: bots._policy): its
rules of thumb on constructed positions, whole games from every kind of
decision point, and its margin over the random bot.  The Python rules it
was ported from (tests/heuristic_oracle.py) are held equal to the C rules in
test_policy.py.

Positions are built with ``Core.build`` on the default card set; dice are
forced by applying face - 1 at a roll chance node.
"""

from __future__ import annotations

import collections
import json
import random

import pyspiel
import pytest

import solver  # noqa: F401  (registers "wildhorn")
from bots import make_bot
from bots.heuristic import HeuristicBot
from heuristic_oracle import play, win_probability
from tournament_helpers import benchmark_script
from solver._core import PHASE_NAMES, Core, CoreConfig, encode_action
from solver.cards import load_card_set

POLISH, GERMAN = 0, 1
CFG = CoreConfig(load_card_set())
DECLINE = encode_action("DECLINE")
DECISION_PHASES = {"redraw", "actions", "zone", "motorcycle", "target", "escort", "ambush",
                   "modifiers", "nurses", "witnesses", "refresh", "number"}


def own(number: str) -> int:
    return int(number[2:]) - 1


def act(name: str, number: str | int = 0) -> int:
    return encode_action(name, own(number) if isinstance(number, str) else number)


def build(**kw) -> Core:
    kw.setdefault("rockets", [2])
    return Core.build(CFG, **kw)


def choose(core: Core, player: int, seed: int = 0) -> int:
    assert core.current_player() == player, (core.phase, core.current_player())
    result = HeuristicBot(player, seed).analyse(core)
    assert result["action"] in core.legal_actions()
    assert result["policy"] == {result["action"]: 1.0}
    assert result["value"] is None
    return result["action"]


def roll(core: Core, *faces: int) -> None:
    """Forces the dice: face - 1 is the chance outcome of a roll."""
    for face in faces:
        assert core.phase == "roll", core.phase
        core.apply(face - 1)


def test_decision_phase_names_match_the_engine():
    assert DECISION_PHASES <= set(PHASE_NAMES)


def test_needs_a_decision_node():
    core = Core(CFG)
    assert core.is_chance()
    with pytest.raises(ValueError, match=f"no decision to take at a {core.phase} node"):
        HeuristicBot(0).analyse(core)


def test_win_probability():
    assert win_probability(2, 2) == pytest.approx(15 / 36)
    assert win_probability(2, 1) == pytest.approx(21 / 36)
    assert win_probability(2, 0) == pytest.approx(26 / 36)
    assert win_probability(1, 3) == pytest.approx(6 / 36)


# ---- the main step -------------------------------------------------------------

def test_searches_with_a_fresh_scout_in_the_periphery_holding_fragments():
    core = build(places={"PL01": "periphery"}, fragments={"periphery": 2}, actor=POLISH)
    assert act("PASS") in core.legal_actions() and len(core.legal_actions()) > 2
    assert choose(core, POLISH) == act("SEARCH", "PL01")


def test_a_german_recon_searches_too():
    core = build(places={"DE01": "periphery"}, fragments={"periphery": 3}, actor=GERMAN)
    assert choose(core, GERMAN) == act("SEARCH", "DE01")


def test_steals_rather_than_searches():
    core = build(places={"PL01": "periphery", "PL10": "base"},
                 fragments={"periphery": 2, "base": 1}, actor=POLISH)
    legal = core.legal_actions()
    assert act("SEARCH", "PL01") in legal and act("STEAL", "PL10") in legal
    assert choose(core, POLISH) == act("STEAL", "PL10")


def test_never_passes_when_a_fragment_can_be_taken():
    for seed in range(5):
        core = build(places={"PL01": "periphery", "PL02": "periphery", "DE02": "periphery"},
                     fragments={"periphery": 1}, actor=POLISH)
        assert choose(core, POLISH, seed) == act("SEARCH", "PL01")


def test_attacks_a_searcher_at_good_odds():
    """Partisans (2) against a lone Recon (1): 21/36, better than even."""
    core = build(places={"PL02": "periphery", "DE01": "periphery"}, exhausted=["DE01"],
                 fragments={"periphery": 2}, actor=POLISH)
    assert choose(core, POLISH) == act("ATTACK", "PL02")


def test_no_attack_when_an_escort_evens_the_odds():
    """A fresh Soldiers (2) would escort the Recon: 15/36 is not worth it."""
    core = build(places={"PL02": "periphery", "DE01": "periphery", "DE02": "periphery",
                         "PL03": "forest"},
                 exhausted=["DE01"], fragments={"periphery": 2}, actor=POLISH)
    assert choose(core, POLISH) != act("ATTACK", "PL02")


def test_commands_an_exhausted_searcher_that_can_search_at_once():
    core = build(places={"PL01": "periphery", "PL03": "forest"}, exhausted=["PL01"],
                 fragments={"periphery": 2}, actor=POLISH)
    assert choose(core, POLISH) == act("COMMAND", "PL03")
    core.apply(act("COMMAND", "PL03"))  # the only exhausted Unit is refreshed at once (R30)
    assert core.location(own("PL01")) == ("periphery", False)


def test_moves_a_scout_to_the_periphery_and_places_searchers_first():
    core = build(places={"PL01": "forest"}, fragments={"periphery": 2}, actor=POLISH)
    assert choose(core, POLISH) == act("MOVE", "PL01")
    core = build(places={}, fragments={"periphery": 2}, actor=POLISH)  # START cards in hand
    assert choose(core, POLISH) == act("PLACE", "PL01")


def test_wildhorn_when_a_thief_stands_in_the_periphery():
    core = build(places={"PL15": "hand", "PL03": "forest", "DE09": "periphery"},
                 fragments={"forest": 3}, actor=POLISH)
    assert choose(core, POLISH) == act("PLAY", "PL15")
    quiet = build(places={"PL15": "hand", "PL03": "forest"}, fragments={"forest": 3},
                  actor=POLISH)
    assert choose(quiet, POLISH) != act("PLAY", "PL15")


def test_volunteers_only_with_two_useful_actions():
    gone = {"PL01": "gone", "PL02": "gone", "PL03": "gone"}
    idle = build(places={**gone, "PL13": "forest"}, actor=POLISH)
    assert idle.legal_actions() == [act("PASS"), act("VOLUNTEERS", "PL13")]
    assert choose(idle, POLISH) == act("PASS")
    busy = build(places={**gone, "PL13": "forest", "PL04": "forest", "PL05": "forest"},
                 fragments={"periphery": 2}, actor=POLISH)
    assert choose(busy, POLISH) == act("VOLUNTEERS", "PL13")


# ---- modifiers only when they change the outcome (R18) ---------------------------

def search_window(die: int, polish_hand=(), german_hand=()) -> Core:
    places = {"PL01": "periphery"}
    places.update({n: "hand" for n in polish_hand})
    places.update({n: "hand" for n in german_hand})
    core = build(places=places, fragments={"periphery": 2}, actor=POLISH)
    core.apply(act("SEARCH", "PL01"))
    roll(core, die)
    return core


@pytest.mark.parametrize("die, plays", [(4, False), (6, False), (2, True), (3, True), (1, False)])
def test_good_luck_only_when_it_flips_a_failure(die, plays):
    core = search_window(die, polish_hand=["PL18"])
    assert core.phase == "modifiers" and core.current_player() == POLISH
    assert choose(core, POLISH) == (act("PLAY", "PL18") if plays else DECLINE)


@pytest.mark.parametrize("die, plays", [(4, True), (5, True), (6, False), (3, False), (1, False)])
def test_bad_luck_only_against_a_success(die, plays):
    core = search_window(die, german_hand=["DE18"])
    # The Polish player has no modifier: the window opens on the German side (R29).
    assert core.phase == "modifiers" and core.current_player() == GERMAN
    assert choose(core, GERMAN) == (act("PLAY", "DE18") if plays else DECLINE)


def test_modifier_duel_ends_with_the_outcome_each_side_wants():
    """Bad Luck turns 4 into 2; the scout's Good Luck answers with 4 again."""
    core = search_window(4, polish_hand=["PL18"], german_hand=["DE18"])
    assert choose(core, POLISH) == DECLINE           # already succeeds
    core.apply(DECLINE)
    assert choose(core, GERMAN) == act("PLAY", "DE18")
    core.apply(act("PLAY", "DE18"))
    assert choose(core, POLISH) == act("PLAY", "PL18")
    core.apply(act("PLAY", "PL18"))
    assert core.fragments["forest"] == 1               # the German has nothing left


@pytest.mark.parametrize("dice, expected", [((3, 4), "ASSIST"), ((2, 4), "GOOD"), ((5, 1), "NONE")])
def test_cheapest_sufficient_modifier_in_an_attack(dice, expected):
    """Both rolls exist in an attack (R18): Partisans 2 vs Recon 1."""
    core = build(places={"PL02": "periphery", "PL03": "forest", "PL18": "hand",
                         "DE01": "periphery"}, actor=POLISH)
    core.apply(act("ATTACK", "PL02"))  # the only target is taken at once (R30)
    roll(core, *dice)
    assert core.phase == "modifiers"
    want = {"ASSIST": act("ASSIST", "PL03"), "GOOD": act("PLAY", "PL18"), "NONE": DECLINE}
    assert choose(core, POLISH) == want[expected]


# ---- windows ---------------------------------------------------------------------

def german_attacks(target: str, places: dict) -> Core:
    core = build(places=places, actor=GERMAN)
    core.apply(act("ATTACK", "DE02"))
    assert core.phase == "target"
    core.apply(act("SELECT_ENEMY", target))
    assert core.phase == "escort" and core.current_player() == POLISH
    return core


def test_escorts_a_threatened_scout_with_partisans():
    core = german_attacks("PL01", {"PL01": "periphery", "PL02": "periphery",
                                   "DE02": "periphery"})
    assert choose(core, POLISH) == act("ESCORT", "PL02")


def test_no_escort_for_a_unit_as_strong_as_the_escort():
    core = german_attacks("PL02", {"PL02": "periphery", "PL07": "periphery",
                                   "PL01": "periphery", "DE02": "periphery"})
    assert choose(core, POLISH) == DECLINE


def test_target_prefers_the_searcher():
    core = build(places={"PL01": "periphery", "PL02": "periphery", "DE02": "periphery"},
                 actor=GERMAN)
    core.apply(act("ATTACK", "DE02"))
    assert choose(core, GERMAN) == act("SELECT_ENEMY", "PL01")


def test_witnesses_on_a_four_plus_search():
    core = build(places={"PL01": "periphery", "PL22": "hand"}, fragments={"periphery": 2},
                 actor=POLISH)
    core.apply(act("SEARCH", "PL01"))
    assert core.phase == "witnesses"
    assert choose(core, POLISH) == act("PLAY", "PL22")


def test_nurses_save_a_scout():
    core = build(places={"PL01": "periphery", "PL23": "hand", "DE02": "periphery"},
                 actor=GERMAN)
    core.apply(act("ATTACK", "DE02"))
    roll(core, 6, 1)
    assert core.phase == "nurses"
    assert choose(core, POLISH) == act("PLAY", "PL23")


def _polish_redraw(cfg, seed):
    """The Polish redraw decisions reached by random play, by turn (the
    Polish player keeps the hand each time, so the redraw stays available)."""
    rng = random.Random(seed)
    core = Core(cfg)
    nodes = {}
    while not core.is_terminal():
        if core.phase == "redraw" and core.current_player() == POLISH \
                and encode_action("REDRAW") in core.legal_actions():
            nodes[core.turn] = core.copy()
            core.apply(DECLINE)
            continue
        if core.is_chance():
            outs = core.chance_outcomes()
            a = rng.choices([o for o, _ in outs], [p for _, p in outs])[0]
        else:
            a = rng.choice(core.legal_actions())
        core.apply(a)
    return nodes


def test_redraw_only_without_a_unit_before_the_last_turn():
    # Default deck: five cards without a Unit are rare; whenever a Unit came, keep.
    kept = 0
    for seed in range(10):
        for core in _polish_redraw(CFG, seed).values():
            f = core.fields()
            if any(f["drawn"][g] and CFG.card_set.cards[g].type.kind == "unit" for g in range(23)):
                assert choose(core, POLISH) == DECLINE
                kept += 1
    assert kept
    # Every Polish Unit starts in hand: no draw holds a Unit.  Two turns, so
    # the deck still has cards at the last draw and the redraw is offered.
    units = {f"PL{n:02d}": "hand" for n in range(4, 12)}
    cfg = CoreConfig(CFG.card_set, turns=2, setup=units)
    nodes = _polish_redraw(cfg, 0)
    assert set(nodes) == {1, 2}
    assert choose(nodes[1], POLISH) == encode_action("REDRAW")
    assert choose(nodes[2], POLISH) == DECLINE  # the last turn


# ---- whole games -----------------------------------------------------------------------

def _play_pyspiel(game, bots, seed, seen):
    rng = random.Random(seed)
    state = game.new_initial_state()
    while not state.is_terminal():
        if state.is_chance_node():
            outs = state.chance_outcomes()
            action = rng.choices([o for o, _ in outs], [p for _, p in outs])[0]
        else:
            bot = bots[state.current_player()]
            legal = state.legal_actions()
            result = bot.analyse(state)
            if isinstance(bot, HeuristicBot):
                seen[state.core.phase] += 1
                assert result["policy"] == {result["action"]: 1.0}
            action = result["action"]
            assert action in legal
        state.apply_action(action)
    return state.returns()


def test_whole_games_from_every_kind_of_decision_point():
    game = pyspiel.load_game("wildhorn")
    seen: collections.Counter = collections.Counter()
    for k in range(20):
        _play_pyspiel(game, [make_bot("heuristic", 0, k), make_bot("heuristic", 1, k)], k, seen)
    for k in range(20):
        side = k % 2
        bots = [None, None]
        bots[side] = make_bot("heuristic", side, k)
        bots[1 - side] = make_bot("random", 1 - side, k)
        _play_pyspiel(game, bots, 100 + k, seen)
    assert set(seen) == DECISION_PHASES, f"missing: {DECISION_PHASES - set(seen)}"
    assert sum(seen.values()) > 100


def test_same_seed_same_game():
    def moves(seed):
        return play([HeuristicBot(0, seed), HeuristicBot(1, seed)], 7, CFG)[0]
    assert moves(3) == moves(3)


def test_beats_the_random_bot():
    """100 games, 50 in each seat; measured 100% / 100% (0.998 / 1.0 over 500 a side)."""
    wins = {}
    for side in (POLISH, GERMAN):
        won = 0
        for k in range(50):
            bots = [None, None]
            bots[side] = make_bot("heuristic", side, k)
            bots[1 - side] = make_bot("random", 1 - side, k)
            won += play(bots, 10_000 * (side + 1) + k, CFG)[1] == side
        wins[side] = won / 50
    rate = (wins[POLISH] + wins[GERMAN]) / 2
    print(f"heuristic vs random: Polish seat {wins[POLISH]:.2f}, German seat {wins[GERMAN]:.2f}")
    assert rate >= 0.8, wins


def test_speed_benchmark_reports_the_same_games_for_bot_and_oracle(tmp_path, capsys):
    """benchmarks/heuristic_speed.py on one deal: its figures are written,
    and the bot's and the oracle's games digest alike."""
    out = tmp_path / "bench.json"
    assert benchmark_script("heuristic_speed").main(
        ["--games", "1", "--repeats", "1", "--oracle", "--out", str(out)]) == 0
    figures = json.loads(out.read_text())
    assert figures == json.loads(capsys.readouterr().out)
    assert figures["heuristic_games_sha256"] == figures["oracle_games_sha256"]
    assert figures["heuristic_decisions"] == figures["oracle_decisions"] > 100
    assert figures["heuristic_us_per_decision"] > 0 and figures["oracle_over_heuristic"] > 0

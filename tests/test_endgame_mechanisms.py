"""The exact last-turn solver's speed-ups keep it exact: canonical table keys
over interchangeable cards (R27), move ordering, chance-node probing and
modifier-window margins keyed by their reach.  Each is checked against the
solver with that mechanism off, against the frozen suite's exact values
(results/endgame-suite.json), and, for the keys, by solving a position and
its copy with identical cards swapped, or by playing every modifier
sequence from window positions whose margins the key merges."""

from __future__ import annotations

import base64
import json
import random
from functools import cache
from pathlib import Path

import pytest

from exact._endgame import Solver, card_groups
from exact.endgame import key_bytes, solve
from solver import Core
from solver.game import make_config

SUITE = Path(__file__).resolve().parent.parent / "results" / "endgame-suite.json"
SWITCHES = ("canonical", "history", "merging", "reach")


@cache
def suite_rows() -> tuple:
    return tuple(json.loads(SUITE.read_text())["positions"])


def quick_positions(count: int, rng: random.Random, differs: bool = False) -> list:
    """``count`` suite positions the suite solved within 20,000 nodes (so
    every action solves quickly), drawn with ``rng``; ``differs``: only
    those with an action proven not optimal."""
    rows = [r for r in suite_rows() if r["solved"] and r["nodes"] <= 20_000
            and (not differs or any(a["optimal"] is False for a in r["actions"].values()))]
    config = make_config(None)
    return [(r, Core.from_bytes(config, base64.b64decode(r["state"])))
            for r in rng.sample(rows, count)]


def relabeled(core: Core, perm: dict[int, int]) -> Core:
    """The position with card ``g`` renamed ``perm[g]`` (cards not in
    ``perm`` keep their numbers): where it is, its flags, its part in the
    action under way."""
    f = core.fields()
    out = json.loads(json.dumps(f))
    for key in ("loc", "exhausted", "drawn"):
        for g, h in perm.items():
            out[key][h] = f[key][g]
    for key in ("card", "target", "defender"):
        g = f["pending"][key]
        out["pending"][key] = perm.get(g, g) if g >= 0 else g
    return Core.from_fields(core.config, out)


def shuffle_within_groups(core: Core, rng: random.Random) -> dict[int, int]:
    """A random renaming of cards among their interchangeable cards."""
    perm = {}
    for group in card_groups(core):
        if len(group) > 1:
            perm.update(zip(group, rng.sample(group, len(group))))
    return perm


def values(result) -> list[float]:
    """The distinct values of the actions (a renaming can merge two choices
    into one, R27: cards with START and without are the same card later)."""
    return sorted({round(a.value, 12) for a in result.actions})


# ---- canonical keys --------------------------------------------------------------

def test_groups_are_the_cards_with_equal_data():
    """Scouts with and without START are one group; different cards never."""
    core = quick_positions(1, random.Random(0))[0][1]
    groups = card_groups(core)
    assert sorted(g for group in groups for g in group) == list(range(46))
    assert card_groups(core, canonical=False) == [(g,) for g in range(46)]
    names = core.config.names
    for group in groups:
        assert len({names[g].split(" ", 1)[1] for g in group}) == 1, group
    scouts = [g for g in range(46) if names[g].endswith("Scouts")]
    assert any(set(scouts) <= set(group) for group in groups)


@pytest.mark.parametrize("seed", range(4))
def test_swapping_identical_cards_keeps_the_value_and_the_canonical_key(seed):
    """A position and its copy with interchangeable cards renamed: the same
    canonical key, and the same values, each solved by a solver that keys
    every card by its number (so nothing is shared between the two)."""
    rng = random.Random(seed)
    changed = 0
    for row, core in quick_positions(6, rng):
        perm = shuffle_within_groups(core, rng)
        other = relabeled(core, perm)
        assert key_bytes(core, canonical=True) == key_bytes(other, canonical=True)
        changed += key_bytes(core) != key_bytes(other)
        a = solve(core, solver=Solver(canonical=False, table_entries=1 << 16))
        b = solve(other, solver=Solver(canonical=False, table_entries=1 << 16))
        assert a.complete and b.complete
        assert a.value == pytest.approx(b.value, abs=1e-12)
        assert values(a) == pytest.approx(values(b), abs=1e-12)
        assert a.value == pytest.approx(row["value"], abs=1e-9)
    assert changed, "some renaming moved a card"


def test_canonical_key_tells_different_cards_apart():
    """Swapping the places of two cards of different groups changes the
    canonical key (unless the two were in the same place)."""
    rng = random.Random(5)
    checked = 0
    for _, core in quick_positions(10, rng):
        groups = card_groups(core)
        f = core.fields()
        for first, second in zip(groups, groups[1:]):
            a, b = first[0], second[0]
            if (f["loc"][a], f["exhausted"][a]) == (f["loc"][b], f["exhausted"][b]):
                continue
            if core.config.names[a][:2] != core.config.names[b][:2]:
                continue        # another owner: the swap would not be a position
            try:
                other = relabeled(core, {a: b, b: a})
            except Exception:   # not a legal position (say, a card where it cannot be)
                continue
            assert key_bytes(core, canonical=True) != key_bytes(other, canonical=True)
            checked += 1
    assert checked > 10


# ---- modifier windows keyed by reach ------------------------------------------

def window_positions(games: int, rng: random.Random) -> list[Core]:
    """Modifier-window positions (R18) met on random walks from suite positions."""
    config = make_config(None)
    found = []
    for row in rng.sample(suite_rows(), games):
        core = Core.from_bytes(config, base64.b64decode(row["state"]))
        while not core.is_terminal():
            if core.phase == "modifiers":
                found.append(core.copy())
            if core.is_chance():
                outcomes = core.chance_outcomes()
                core.apply(rng.choices([a for a, _ in outcomes], [p for _, p in outcomes])[0])
            else:
                core.apply(rng.choice(core.legal_actions()))
    return found


def with_dice(core: Core, dice: tuple) -> Core:
    fields = core.fields()
    fields["pending"]["dice"] = list(dice)
    return Core.from_fields(core.config, fields)


def close_alike(a: Core, b: Core, seen: set) -> bool:
    """Whether every sequence of modifier choices leads ``a`` and ``b`` to
    the same position (the same full key) once the window closes: the same
    choices at every step, and the same position after each (each pair of
    positions compared once, ``seen``)."""
    pair = (key_bytes(a), key_bytes(b))
    if pair in seen:
        return True
    seen.add(pair)
    if a.phase != "modifiers" or b.phase != "modifiers":
        return pair[0] == pair[1]
    if a.current_player() != b.current_player() or a.legal_actions() != b.legal_actions():
        return False
    for action in a.legal_actions():
        x, y = a.copy(), b.copy()
        x.apply(action)
        y.apply(action)
        if not close_alike(x, y, seen):
            return False
    return True


def test_window_margins_merged_by_reach_close_alike():
    """Window positions that differ only by their dice, merged by the reach
    key (the margin clamped to what the modifiers left can change), lead to
    the same position after every sequence of modifier choices: the same
    success or failure and the same cards spent.  Checked by playing every
    sequence; the per-card keys of the merged positions differ."""
    merged = 0
    for window in window_positions(60, random.Random(1))[::5]:
        attack = window.pending["kind"] == "attack"
        dice = ([(a, b) for a in range(1, 7) for b in range(1, 7)] if attack
                else [(a,) for a in range(1, 7)])
        by_key: dict[bytes, dict[bytes, Core]] = {}
        for d in dice:
            core = with_dice(window, d)
            by_key.setdefault(key_bytes(core, reach=True), {})[key_bytes(core)] = core
        for same in by_key.values():
            first, *others = same.values()
            for other in others:
                assert close_alike(first, other, set())
                merged += 1
    assert merged > 100


# ---- each mechanism off against all on ---------------------------------------------

@pytest.mark.parametrize("switch", SWITCHES)
def test_each_mechanism_keeps_the_suite_values(switch):
    """Every action's value with everything on and with ``switch`` off
    agree, and the best value is the frozen suite's exact value; the suite's
    optimal and non-optimal actions are found again."""
    rng = random.Random(hash(switch) % 1000)
    for row, core in quick_positions(8, rng, differs=True):
        on = solve(core, solver=Solver(table_entries=1 << 16))
        off = solve(core, solver=Solver(table_entries=1 << 16, **{switch: False}))
        assert on.complete and off.complete
        assert {a.action: a.value for a in on.actions} == pytest.approx(
            {a.action: a.value for a in off.actions}, abs=1e-12)
        assert on.value == pytest.approx(row["value"], abs=1e-9)
        for action, entry in row["actions"].items():
            if entry["optimal"] is not None:
                assert (int(action) in on.optimal()) == entry["optimal"]
            if entry["value"] is not None:
                assert on.value_of(int(action)) == pytest.approx(entry["value"], abs=1e-9)


@pytest.mark.parametrize("switch", SWITCHES)
def test_each_mechanism_saves_nodes(switch):
    """Summed over four suite positions of 20,000 to 60,000 nodes, the
    solver visits fewer nodes with the mechanism than without it (what it
    is there for; the figures are benchmarks/endgame_nodes.py's)."""
    rows = [r for r in suite_rows() if r["solved"] and 20_000 < r["nodes"] <= 60_000]
    config = make_config(None)
    on = off = 0
    for row in random.Random(2).sample(rows, 4):
        core = Core.from_bytes(config, base64.b64decode(row["state"]))
        on += solve(core, solver=Solver(table_entries=1 << 18)).nodes
        off += solve(core, solver=Solver(table_entries=1 << 18, **{switch: False})).nodes
    assert on < off


def test_a_cleared_table_is_a_new_table():
    """``clear`` starts a new generation instead of zeroing the slots: a
    solve after it visits exactly the nodes a new solver visits (nothing
    of the earlier solves is read back), with the same values."""
    rng = random.Random(3)
    (_, first), (_, second) = quick_positions(2, rng)
    used = Solver(table_entries=1 << 12)
    solve(first, solver=used)
    solve(second, solver=used, keep_table=True)
    again = solve(first, solver=used)          # cleared first
    assert used.table_stats()["used"] <= again.nodes
    fresh = solve(first, solver=Solver(table_entries=1 << 12))
    assert (again.nodes, again.probes, again.hits) == (fresh.nodes, fresh.probes, fresh.hits)
    assert values(again) == values(fresh)

"""The position invariants of docs/position-invariants.md.

Two directions: every position of random play passes the checker from both
players' views (nothing reachable is refused), and single changes that each
break one invariant are all refused, at the JSON path of the change.
"""

from __future__ import annotations

import base64
import copy
import json
import random
from collections import Counter

import pytest

from solver import state_io
from solver._core import Core
from solver.errors import SerializationError, StateFormatError
from solver.game import make_config
from playouts import playout

GAMES = {None: 6, "small": 12, "tiny": 12}
# Views kept for the single-change test: every one of these steps, and one in
# RARE_EVERY of the others (the action steps are many and alike).
KEPT_STEPS = ("redraw", "rocket", "modifiers", "nurses", "number", "roll", "witnesses")
RARE_EVERY = 10


def _playouts(variant, games, seed):
    """(core, player) of every decision or file-form chance point of seeded random games."""
    rng = random.Random(seed)
    cfg = make_config(None if variant is None else {"variant": variant})
    for _ in range(games):
        for core in playout(cfg, rng):
            if core.phase in state_io.STEPS:
                yield core.copy()


@pytest.fixture(scope="module")
def corpus():
    """The views (JSON objects) of random play, both players, all three presets."""
    views = []
    for i, (variant, games) in enumerate(GAMES.items()):
        for k, core in enumerate(_playouts(variant, games, 100 + i)):
            events = {c.type.effect for c in core.config.card_set.cards
                      if core.fields()["loc"][c.global_index] == "event"}
            if core.phase in KEPT_STEPS or events or k % RARE_EVERY == 0:
                for p in (0, 1):
                    views.append(state_io.to_json(core, p))
    return views


def test_every_position_of_random_play_passes_from_both_views():
    seen = Counter()
    for i, (variant, games) in enumerate(GAMES.items()):
        for core in _playouts(variant, games // 2, 200 + i):
            state_io.check_position(core)  # raises on a refusal
            seen[core.phase] += 1
    assert {"redraw", "rocket", "actions", "modifiers", "target"} <= set(seen)


def test_random_states_load(tmp_path):
    for path in state_io.write_random_states(60, 7, tmp_path):
        state_io.load(path)


# --------------------------------------------------------------------------
# Single changes, each breaking one invariant
# --------------------------------------------------------------------------


def _effect(number):
    return make_config().card_set.by_number(number).type.effect


def _kind(number):
    return make_config().card_set.by_number(number).type.kind


def _breaks(data):
    """(name, expected JSON path prefix, mutated copy) of every single change of
    ``data`` that breaks one invariant."""
    step, turn = data["step"], data["turn"]
    out = []

    def changed(fn):
        new = copy.deepcopy(data)
        fn(new)
        return new

    if step in ("redraw", "rocket"):
        # R8: every card is fresh and Hidden Fragments gone before a redraw / V-2 step.
        for i, entry in enumerate(data["table"]):
            if not entry["exhausted"]:
                out.append(("exhausted at the turn start", f"$.table[{i}].exhausted",
                            changed(lambda d, i=i: d["table"][i].update(exhausted=True))))
                break
        if "PL16" in data["gone"] and data.get("game") is None:
            def hidden_back(d):
                d["gone"].remove("PL16")
                d.setdefault("events_in_play", []).append("PL16")
            out.append(("hidden fragments kept", "$.events_in_play", changed(hidden_back)))
    if step in ("redraw", "rocket") and turn == 1 and data.get("game") is None:
        # Before any action of the game: the table, gone and fragments are the setup.
        units = [n for n in data["hand"] if _kind(n) in ("unit", "support")]
        if units:
            home = "forest" if data["perspective"] == "polish" else "base"

            def placed(d, n=units[0]):
                d["hand"].remove(n)
                d["hand_sizes"][d["perspective"]] -= 1
                d["table"].append({"card": n, "zone": home, "exhausted": False})
                if n in d.get("drawn_this_turn", []):
                    d["drawn_this_turn"].remove(n)
            out.append(("placed before any action", "$.table", changed(placed)))

        def opponent_gone(d):
            other = "german" if d["perspective"] == "polish" else "polish"
            d["gone"].append("DE04" if other == "german" else "PL04")
            d["hand_sizes"][other] -= 1
        out.append(("opponent card gone before any action", "$.gone", changed(opponent_gone)))
        if data["fragments"]["periphery"] == 0 and data["fragments"]["forest"] == 0:
            def moved(d):
                d["fragments"]["forest"] += 1
                d["fragments"]["periphery"] -= 1
            out.append(("fragment moved before any action", "$.fragments", changed(moved)))
    pend = data["pending"]
    if pend is not None and step in ("modifiers", "nurses") and pend["dice"]:
        # R18: the modifiers are explained by the cards played.
        for value in (100, -100, 99):
            out.append((f"modifier {value}", "$.pending.modifiers[0]",
                        changed(lambda d, v=value: d["pending"]["modifiers"].__setitem__(0, v))))
        out.append(("modifier -1 without cards", "$.pending.modifiers", changed(
            lambda d: d["pending"]["modifiers"].__setitem__(
                0, -1 - 2 * sum(1 for n in d["gone"] if _effect(n) == "bad_luck")))))
    if pend is not None and pend["kind"] in ("search", "spy", "sturmwind") and not pend["dice"]:
        out.append(("modifier before the dice", "$.pending.modifiers", changed(
            lambda d: d["pending"].update(modifiers=[2, 0]))))
    events = data.get("events_in_play", [])
    if "PL15" in events:  # Operation Wildhorn III holds what it moved (R21)
        def emptied(d):
            d["fragments"]["forest"] += d["fragments"]["wildhorn"]
            d["fragments"]["wildhorn"] = 0
        out.append(("wildhorn emptied", "$.fragments.wildhorn", changed(emptied)))
    if "PL16" in events and step != "number":  # Hidden Fragments holds 1 or 2 (R20)
        def unhidden(d):
            d["fragments"]["periphery"] += d["fragments"]["hidden"]
            d["fragments"]["hidden"] = 0
        out.append(("hidden emptied", "$.fragments.hidden", changed(unhidden)))
    # R3, R5: the opponent's hand size is forced by the draws.
    other = "german" if data["perspective"] == "polish" else "polish"
    for delta in (-1, 1):
        if 0 <= data["hand_sizes"][other] + delta <= 23:
            out.append((f"opponent hand {delta:+d}", f"$.hand_sizes.{other}", changed(
                lambda d, x=delta: d["hand_sizes"].__setitem__(other, d["hand_sizes"][other] + x))))
    return out


def test_every_single_break_of_an_invariant_is_refused(corpus):
    kinds = Counter()
    for data in corpus:
        state_io.from_json(data)  # the unchanged view is accepted ...
        for name, path, bad in _breaks(data):  # ... and each break refused
            with pytest.raises(StateFormatError) as info:
                state_io.from_json(bad)
            where = str(info.value).split(": ")[1]
            assert where.startswith(path), (name, str(info.value), json.dumps(bad))
            kinds[name] += 1
    for name in ("exhausted at the turn start", "placed before any action",
                 "opponent card gone before any action", "modifier 100", "modifier -100",
                 "modifier -1 without cards", "opponent hand +1", "opponent hand -1"):
        assert kinds[name] > 0, (name, kinds)


def test_the_issue_cases_are_refused(corpus):
    """The targeted mutants of issue 22: modifiers [100, 0] and [-1, 0]."""
    windows = [d for d in corpus if d["step"] == "modifiers"]
    assert windows
    for mods in ([100, 0], [-1, 0]):
        data = copy.deepcopy(windows[0])
        bad = sum(1 for n in data["gone"] if _effect(n) == "bad_luck")
        if mods[0] < 0 and bad:
            mods = [-1 - 2 * bad, 0]
        data["pending"]["modifiers"] = mods
        with pytest.raises(StateFormatError, match=r"\$\.pending\.modifiers\[0\]: expected"):
            state_io.from_json(data)


def test_a_save_with_an_impossible_position_is_refused():
    """The issue's corrupt position: the German hand emptied into the deck in turn 2."""
    core = next(c for c in playout(make_config(), random.Random(1))
                if c.turn == 2 and c.phase == "actions").copy()
    state_io.check_position(core)
    fields = core.fields()
    fields["loc"] = ["deck" if g >= 23 and place == "hand" else place
                     for g, place in enumerate(fields["loc"])]
    bad = Core.from_fields(core.config, fields)  # the core's own checks let it through
    with pytest.raises(StateFormatError, match=r"\(polish view\): \$\.hand_sizes\.german: "):
        state_io.check_position(bad)


def test_a_deserialized_impossible_position_is_refused(full_game):
    """Issue 22: a serialization with the German hand 0 and deck 23 in turn 2."""
    core = next(c for c in playout(make_config(), random.Random(1))
                if c.turn == 2 and c.phase == "actions").copy()
    good = full_game.state_from_core(core)
    assert str(full_game.deserialize_state(good.serialize())) == str(good)
    fields = core.fields()
    fields["loc"] = ["deck" if g >= 23 and place == "hand" else place
                     for g, place in enumerate(fields["loc"])]
    bad = Core.from_fields(core.config, fields)
    text = "wildhorn-state/1 " + base64.b64encode(bad.to_bytes()).decode("ascii")
    # refused by the core's count check (R3, R5) or, past it, by the state checker
    with pytest.raises(SerializationError,
                       match=r"^(serialized state: .*\(R3, R5\)|an impossible position: "
                             r"serialized state \(polish view\): \$\.hand_sizes\.german: )"):
        full_game.deserialize_state(text)

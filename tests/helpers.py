"""Shared helpers for the rules tests (test_rulebook_examples, test_rulings).

Positions are built with ``Core.build`` from card numbers, and driven with
checked actions: every helper asserts that the action is legal for the
expected player *before* applying it, so a test fails at the first step
where the engine departs from the rulebook, with the legal actions spelled
out in words.
"""

from __future__ import annotations

from functools import cache

from solver._core import Core, CoreConfig, encode_action

from solver.cards import load_card_set

POLISH, GERMAN = 0, 1
FOREST, PERIPHERY, BASE = 0, 1, 2  # ZONE arguments

PASS = encode_action("PASS")
DECLINE = encode_action("DECLINE")
REDRAW = encode_action("REDRAW")


@cache
def card_set():
    return load_card_set()


@cache
def config(turns: int = 4, draw: int = 5, dice: int = 6) -> CoreConfig:
    """The default card set with these rule parameters (cached)."""
    return CoreConfig(card_set(), turns=turns, draw=draw, dice=dice)


def gi(number: str) -> int:
    """Global index of card ``number`` ("PL04" -> 3, "DE02" -> 24)."""
    return card_set().by_number(number).global_index


def own(number: str) -> int:
    """Own index of a card: its printed number minus one ("DE02" -> 1)."""
    return int(number[2:]) - 1


def act(name: str, number: str | int = 0) -> int:
    """Action id: ``act("SEARCH", "PL04")``, ``act("ZONE", PERIPHERY)``.

    A card number is turned into the own index of that card, which is also
    the argument SELECT_ENEMY takes for an enemy card.
    """
    arg = own(number) if isinstance(number, str) else number
    return encode_action(name, arg)


def build(*, turns: int = 4, draw: int = 5, dice: int = 6, **kw) -> Core:
    """``Core.build`` on the default card set; defaults: turn 1, Rocket 2 revealed."""
    kw.setdefault("rockets", [2])
    kw.setdefault("turn", 1)
    return Core.build(config(turns, draw, dice), **kw)


def last_turn(places: dict[str, str], fragments: dict[str, int], actor: int = 0) -> Core:
    """Turn 4 of 4 on the default card set, all Rockets revealed; every card
    not named in ``places`` is gone (out of play)."""
    full = {c.number: "gone" for c in card_set().cards}
    full.update(places)
    return Core.build(config(), places=full, fragments=fragments, rockets=[1, 2, 3, 4],
                      turn=4, actor=actor)


def where(core: Core, number: str) -> tuple[str, bool]:
    """(place, exhausted) of a card."""
    return core.location(gi(number))


def frags(core: Core) -> dict[str, int]:
    return core.fragments


def words(core: Core, actions=None) -> list[str]:
    """The legal actions (or ``actions``) of the player to move, in words."""
    p = core.current_player()
    if actions is None:
        actions = core.legal_actions()
    return [f"{a}:{core.action_string(p, a)}" for a in actions]


def legal(core: Core) -> set[int]:
    return set(core.legal_actions())


def do(core: Core, action: int, player: int | None = None) -> None:
    """Applies a decision, checking the player to move and legality first."""
    assert not core.is_chance(), f"expected a decision, at chance node ({core.phase})"
    if player is not None:
        assert core.current_player() == player, (
            f"expected player {player} to decide, got {core.current_player()} "
            f"at phase {core.phase}")
    assert action in core.legal_actions(), (
        f"action {action} ({core.action_string(core.current_player(), action)}) "
        f"not legal at phase {core.phase}; legal: {words(core)}")
    core.apply(action)


def roll(core: Core, *faces: int) -> None:
    """Forces dice: each face at a die-roll chance node."""
    for face in faces:
        assert core.is_chance() and core.phase == "roll", (
            f"expected a die roll, at phase {core.phase} (player {core.current_player()})")
        core.apply(face - 1)


def chance_first(core: Core) -> int:
    """Applies the first listed chance outcome; returns it."""
    assert core.is_chance(), f"expected a chance node, at phase {core.phase}"
    a = core.chance_outcomes()[0][0]
    core.apply(a)
    return a


def draw_all(core: Core) -> None:
    """Draws (first listed outcome each time) until the draw step is over."""
    while core.phase == "draw":
        chance_first(core)


def reveal_rocket(core: Core, value: int) -> None:
    assert core.phase == "rocket" and core.is_chance(), f"at phase {core.phase}"
    rockets = core.config.rockets
    outcomes = [a for a, _ in core.chance_outcomes()]
    matches = [a for a in outcomes if rockets[a] == value]
    assert matches, f"no unrevealed Rocket card shows {value}"
    core.apply(matches[0])


def hand(core: Core, side: int) -> set[int]:
    return set(core.cards_at("hand", side))


def deck(core: Core, side: int) -> set[int]:
    return set(core.cards_at("deck", side))


def pass_turn(core: Core) -> None:
    """Both players pass (Polish first) at the start of the action step."""
    assert core.phase == "actions" and core.current_player() == POLISH
    do(core, PASS, POLISH)
    do(core, PASS, GERMAN)


def play_quiet_turn(core: Core, rocket: int | None = None) -> None:
    """From the draw step: draws, both keep their hand, a Rocket, both pass."""
    draw_all(core)
    while core.phase == "redraw":
        do(core, DECLINE)
    if rocket is None:
        chance_first(core)
    else:
        reveal_rocket(core, rocket)
    pass_turn(core)


def random_decisions(games: int, seed: int, min_legal: int = 3):
    """Copies of the decisions with ``min_legal`` or more legal actions met
    in ``games`` seeded random games of the full game (chance by its odds)."""
    import random
    rng = random.Random(seed)
    for _ in range(games):
        core = Core(config())
        while not core.is_terminal():
            if core.is_chance():
                outs = core.chance_outcomes()
                a = rng.choices([o for o, _ in outs], [p for _, p in outs])[0]
            else:
                legal = core.legal_actions()
                if len(legal) >= min_legal:
                    yield core.copy()
                a = rng.choice(legal)
            core.apply(a)

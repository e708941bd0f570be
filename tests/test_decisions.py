"""Decisions taken where the rulebook and the rulings are silent (each is
listed in the issue's closing note), and engine design choices that a wrong
implementation could break."""
import json

import pytest

from solver._core import Core, CoreConfig, encode_action
from solver.cards import default_card_set_path, load_card_set
from solver.game import make_config

CARDS = load_card_set()


def full(**kw):
    return CoreConfig(CARDS, **kw)


def test_information_state_is_the_current_view():
    """The key of a position reached in play equals the key of the same
    position built from its fields (what state.json can hold)."""
    cfg = make_config({"variant": "tiny"})
    played = Core(cfg)
    played.apply(0)  # the Rocket card showing 1
    built = Core.build(cfg, places={"PL01": "periphery", "PL18": "hand", "DE01": "periphery",
                                    "DE02": "periphery", "DE18": "hand"},
                       rockets=[1], fragments={"periphery": 1})
    for p in (0, 1):
        assert built.info_string(p) == played.info_string(p)
        assert built.info_hash(p) == played.info_hash(p)
    assert built.legal_actions() == played.legal_actions()


def test_motorized_column_is_always_legal():
    """Like Volunteers (R13), Motorized Column needs nothing to have its effect."""
    cfg = full(turns=4, draw=5, dice=6)
    core = Core.build(cfg, places={"DE14": "hand"}, rockets=[2], actor=1)
    assert encode_action("PLAY", 13) in core.legal_actions()


def test_draws_are_grouped_by_class():
    """R3 + R27: a draw is one outcome per class of interchangeable cards,
    with probability count / deck size, shown by the lowest number."""
    core = Core(full())
    outcomes = dict(core.chance_outcomes())
    # Polish deck: Scouts PL04-06 (3 of 20) is outcome 3 (PL04)
    assert outcomes[3] == pytest.approx(3 / 20)
    assert 4 not in outcomes and 5 not in outcomes
    assert sum(outcomes.values()) == pytest.approx(1.0)
    assert len(outcomes) == 13  # classes among the 20 cards of the Polish deck


def test_resampler_keeps_the_card_that_opens_a_window():
    """R29: a window exists only if its player can play in it, so resampling
    for the other player keeps such a card in hand."""
    cfg = full()
    core = Core.build(cfg, places={"PL01": "periphery", "DE02": "periphery", "DE20": "hand"},
                      rockets=[2], actor=1)
    core.apply(encode_action("ATTACK", 1))  # German Soldiers attack; the only target is PL01
    assert core.phase == "ambush" and core.current_player() == 1
    for seed in range(200):
        other = core.resample(0, seed)
        assert 42 in other.cards_at("hand", 1)  # DE20 Ambush!
        assert other.legal_actions() == core.legal_actions()


def _two_wildhorns(tmp_path):
    data = json.loads(default_card_set_path().read_text())
    for card in data["cards"]:
        if card["number"] == "PL17":
            card["type"] = "Operation Wildhorn III"
    types = {c["type"] for c in data["cards"]}
    data["types"] = {k: v for k, v in data["types"].items() if k in types}
    path = tmp_path / "two-wildhorns.json"
    path.write_text(json.dumps(data))
    return load_card_set(str(path))


def test_operation_wildhorn_once_per_game_even_with_two_cards(tmp_path):
    """The card text: "can be played only once during the game"."""
    cfg = CoreConfig(_two_wildhorns(tmp_path))
    core = Core.build(cfg, places={"PL15": "event", "PL17": "hand"},
                      fragments={"forest": 2, "wildhorn": 1}, rockets=[3])
    assert encode_action("PLAY", 16) not in core.legal_actions()
    fresh = Core.build(cfg, places={"PL15": "gone", "PL17": "hand"},
                       fragments={"forest": 2}, rockets=[3], wildhorn_played=False)
    assert encode_action("PLAY", 16) in fresh.legal_actions()


def test_support_can_be_escorted():
    """R15a lets the attacker target a Support; R15b's Escort applies to any
    target, so a Unit may escort a Support in its home zone."""
    cfg = full()
    core = Core.build(cfg, places={"PL03": "forest", "PL02": "forest", "DE09": "forest"},
                      rockets=[2], actor=1)
    core.apply(encode_action("ATTACK", 8))  # SS attacks
    assert core.phase == "target"
    core.apply(encode_action("SELECT_ENEMY", 2))  # the Staff
    assert core.phase == "escort" and core.current_player() == 0
    assert encode_action("ESCORT", 1) in core.legal_actions()


def test_frozen_positions_are_values():
    cfg = full()
    a = Core(cfg).frozen_copy()
    import copy
    assert copy.deepcopy(a) is a
    b = Core(cfg)
    assert copy.deepcopy(b) is not b and copy.deepcopy(b) == b

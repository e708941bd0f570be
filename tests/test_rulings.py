"""One test (or a few) per ruling of docs/rules.md that the worked
examples alone do not pin down: an engine could replay every rulebook example
and still get these wrong.

Each test is named ``test_rNN_...`` after the ruling it checks and asserts
concrete outcomes: card places and sides, fragment counts, the exact set of
legal actions, whose decision it is, the winner.  Where a property is "X is
not offered", the test also checks the positive control (X is offered once
its condition holds), so that it cannot pass by the action never existing.
"""

from __future__ import annotations

from array import array

from helpers import (
    BASE,
    DECLINE,
    FOREST,
    GERMAN,
    PASS,
    PERIPHERY,
    POLISH,
    REDRAW,
    act,
    build,
    chance_first,
    config,
    deck,
    do,
    draw_all,
    frags,
    gi,
    hand,
    legal,
    own,
    play_quiet_turn,
    reveal_rocket,
    roll,
    where,
)
from solver._core import Core, decode_action, tensor_pieces


def numbers_for(core, name):
    """Card numbers (own index + 1) that the legal actions named ``name`` use."""
    return sorted(arg + 1 for a in core.legal_actions()
                  for n, arg in [decode_action(a)] if n == name)


# ---------------------------------------------------------------------------
# R5: the once-per-game redraw
# ---------------------------------------------------------------------------


def _turn_one_drawn() -> Core:
    core = Core(config())
    draw_all(core)
    assert core.phase == "redraw" and core.current_player() == POLISH
    return core


def test_r05_redraw_sends_back_only_the_five_drawn_cards():
    """R5: "Only the 5 cards drawn this turn can be sent back." (turn 2: the
    8 cards kept from turn 1 stay in hand)."""
    core = Core(config())
    play_quiet_turn(core, rocket=1)
    assert core.turn == 2 and core.phase == "draw"
    kept = hand(core, POLISH)
    assert len(kept) == 8
    draw_all(core)
    assert core.phase == "redraw" and core.current_player() == POLISH
    drawn = hand(core, POLISH) - kept
    assert len(drawn) == 5
    assert set(core.legal_actions()) == {DECLINE, REDRAW}
    do(core, REDRAW, POLISH)
    do(core, DECLINE, GERMAN)
    # The redraw is being dealt: the 5 went back, the 8 older cards did not.
    assert core.phase == "draw" and core.draw_info()["redeal"]
    assert core.draw_info()["side"] == POLISH and core.draw_info()["left"] == 5
    assert hand(core, POLISH) == kept
    assert drawn <= deck(core, POLISH)
    assert core.deck_size(POLISH) == 15
    draw_all(core)
    assert core.hand_size(POLISH) == 13
    assert kept <= hand(core, POLISH)
    assert core.redraw_used == (True, False)
    assert core.phase == "rocket"


def test_r05_redraw_only_once_per_game():
    """R5: "the once-per-game redraw": after a redraw in turn 1 the Polish
    player is not offered it in turn 2, while the German still is."""
    core = _turn_one_drawn()
    do(core, REDRAW, POLISH)
    do(core, DECLINE, GERMAN)
    draw_all(core)  # the redraw is dealt
    assert core.redraw_used == (True, False)
    reveal_rocket(core, 1)
    do(core, PASS, POLISH)
    do(core, PASS, GERMAN)
    assert core.turn == 2
    draw_all(core)
    # The Polish "keep" is his only option: applied at once (R30); the German
    # decides with REDRAW still available.
    assert core.phase == "redraw" and core.current_player() == GERMAN
    assert core.draw_info()["choice"][0] == 0
    assert set(core.legal_actions()) == {DECLINE, REDRAW}
    do(core, REDRAW, GERMAN)
    assert core.phase == "draw" and core.draw_info()["side"] == GERMAN
    draw_all(core)
    assert core.redraw_used == (True, True)


def test_r05_redraw_not_offered_when_deck_empty_after_draw():
    """R5: "The redraw is not offered when the deck is empty after the draw
    (turn 4 with the default card set)."""
    core = Core(config())
    play_quiet_turn(core, rocket=1)
    play_quiet_turn(core, rocket=2)
    assert core.turn == 3
    draw_all(core)
    # Turn 3: 5 cards left in each deck, the redraw is still offered.
    assert core.deck_size(POLISH) == 5 and core.deck_size(GERMAN) == 5
    assert core.phase == "redraw" and set(core.legal_actions()) == {DECLINE, REDRAW}
    do(core, DECLINE, POLISH)
    assert set(core.legal_actions()) == {DECLINE, REDRAW}
    do(core, DECLINE, GERMAN)
    reveal_rocket(core, 3)
    do(core, PASS, POLISH)
    do(core, PASS, GERMAN)
    assert core.turn == 4 and core.phase == "draw"
    draw_all(core)
    # Turn 4: both decks are empty: no redraw decision for anyone.
    assert core.deck_size(POLISH) == 0 and core.deck_size(GERMAN) == 0
    assert core.hand_size(POLISH) == 23 and core.hand_size(GERMAN) == 23
    assert core.phase == "rocket"
    assert core.redraw_used == (False, False)


def _tensor(core: Core, player: int) -> list[float]:
    size = sum(n for _, n in tensor_pieces())
    out = array("f", [0.0]) * size
    core.fill_tensor(player, memoryview(out))
    return list(out)


def test_r05_polish_redraw_decision_hidden_from_german_until_both_decided():
    """R5: "the Polish decision is taken first but hidden from the German
    player until the German has decided"."""
    base = _turn_one_drawn()
    redraw, keep = base.copy(), base.copy()
    do(redraw, REDRAW, POLISH)
    do(keep, DECLINE, POLISH)
    for core in (redraw, keep):
        assert core.phase == "redraw" and core.current_player() == GERMAN
        assert set(core.legal_actions()) == {DECLINE, REDRAW}
    assert redraw.info_string(GERMAN) == keep.info_string(GERMAN)
    assert _tensor(redraw, GERMAN) == _tensor(keep, GERMAN)
    assert redraw.info_string(POLISH) != keep.info_string(POLISH)  # he knows
    assert redraw.info_string(-1) == keep.info_string(-1)
    # Once the German has decided, both decisions are revealed.
    do(redraw, DECLINE, GERMAN)
    do(keep, DECLINE, GERMAN)
    assert redraw.phase == "draw" and redraw.draw_info()["redeal"]
    assert keep.phase == "rocket"
    assert redraw.info_string(GERMAN) != keep.info_string(GERMAN)


# ---------------------------------------------------------------------------
# R7 / R11: passes
# ---------------------------------------------------------------------------


def test_r07_two_passes_in_a_row_end_the_step():
    """R7: "Two passes in a row, one by each player, end the step."""
    core = build(places={"PL01": "forest"}, actor=POLISH)
    do(core, PASS, POLISH)
    assert core.turn == 1 and core.phase == "actions"
    assert core.current_player() == GERMAN and core.passes == 1
    do(core, PASS, GERMAN)
    # Step 4 (end of turn) ran: turn 2 begins with its draw.
    assert core.turn == 2 and core.phase == "draw" and core.is_chance()


def test_r07_pass_then_action_does_not_end_the_step():
    """R7/R11 and the rulebook: "If a player passes and the opponent performs
    an action, then the player who passed again has the option to perform an
    action or pass." """
    core = build(places={"PL01": "forest"}, actor=POLISH)
    do(core, PASS, POLISH)
    do(core, act("PLACE", "DE02"), GERMAN)  # an action resets the run of passes
    assert core.passes == 0
    assert core.turn == 1 and core.phase == "actions" and core.current_player() == POLISH
    do(core, PASS, POLISH)
    assert core.turn == 1 and core.current_player() == GERMAN
    do(core, PASS, GERMAN)
    assert core.turn == 2 and core.phase == "draw"
    # R7: the Polish player acts first in every turn.
    draw_all(core)
    while core.phase == "redraw":
        do(core, DECLINE)
    chance_first(core)
    assert core.phase == "actions" and core.current_player() == POLISH


def test_r11_pass_ends_the_chain_and_remaining_actions_are_lost():
    """R11: "Passing ends the passer's chain at once (remaining actions are
    lost) and counts as a pass for R7."""
    core = build(places={"PL13": "forest", "PL01": "forest"}, actor=POLISH)
    do(core, act("VOLUNTEERS", "PL13"), POLISH)
    assert core.actions_left == 2 and core.current_player() == POLISH
    do(core, PASS, POLISH)
    assert core.phase == "actions" and core.current_player() == GERMAN
    assert core.actor == GERMAN and core.actions_left == 1 and core.passes == 1
    do(core, PASS, GERMAN)  # the second pass in a row
    assert core.turn == 2 and core.phase == "draw"


def test_r11_declining_a_window_is_not_a_pass():
    """R11: "Declining an optional Immediate card or ability, or passing
    priority in a modifier window (R18), is a different decision: it is not
    a pass for R7 or R11 and changes neither the run of passes nor the
    action count."""
    # The German acts with 2 actions (a Volunteers chain); the Polish player
    # passed just before.  German Recon searches; both players pass priority
    # (the Polish one holding Bad Luck), then the Polish player declines an
    # Escort.  None of these is a pass: the German keeps his second action
    # and the turn goes on.
    core = build(places={"DE01": "periphery", "DE02": "periphery", "PL02": "periphery",
                         "PL07": "periphery", "PL20": "hand", "DE12": "base"},
                 fragments={"periphery": 2}, actor=GERMAN, passes=1)
    do(core, act("VOLUNTEERS", "DE12"), GERMAN)
    assert core.actions_left == 2 and core.passes == 0
    do(core, act("SEARCH", "DE01"), GERMAN)
    roll(core, 5)
    assert core.phase == "modifiers" and core.current_player() == POLISH
    do(core, DECLINE, POLISH)  # pass priority (the German's pass was automatic)
    assert frags(core)["base"] == 1
    assert core.phase == "actions" and core.current_player() == GERMAN
    assert core.actions_left == 1 and core.passes == 0
    do(core, act("ATTACK", "DE02"), GERMAN)
    do(core, act("SELECT_ENEMY", "PL07"), GERMAN)
    assert core.phase == "escort" and core.current_player() == POLISH
    do(core, DECLINE, POLISH)  # no Escort
    roll(core, 1, 6)  # the attack fails; the Polish player keeps Bad Luck
    assert core.phase == "modifiers" and core.current_player() == POLISH
    do(core, DECLINE, POLISH)
    assert core.phase == "actions" and core.current_player() == POLISH
    assert core.passes == 0 and core.actions_left == 1 and core.turn == 1
    do(core, PASS, POLISH)
    # Had any decline counted as a pass, the turn would be over by now.
    assert core.turn == 1 and core.current_player() == GERMAN and core.passes == 1


def test_r08_end_of_turn_refreshes_every_card():
    """R8: "End of turn: every Unit and Support card is refreshed"."""
    core = build(places={"PL04": "periphery", "PL13": "forest", "DE02": "periphery",
                         "DE09": "forest", "DE03": "base"},
                 exhausted=["PL04", "PL13", "DE02", "DE09", "DE03"], actor=POLISH)
    do(core, PASS, POLISH)
    do(core, PASS, GERMAN)
    assert core.turn == 2
    assert where(core, "PL04") == ("periphery", False)
    assert where(core, "PL13") == ("forest", False)
    assert where(core, "DE02") == ("periphery", False)
    assert where(core, "DE09") == ("forest", False)
    assert where(core, "DE03") == ("base", False)


# ---------------------------------------------------------------------------
# R10: action counts
# ---------------------------------------------------------------------------


def test_r10_volunteers_with_count_one_leaves_two_actions():
    """R10: "activating Volunteers with a count of 1 leaves 2 actions in a row"."""
    core = build(places={"PL13": "forest", "PL01": "forest", "PL02": "forest"},
                 actor=POLISH)
    do(core, act("VOLUNTEERS", "PL13"), POLISH)
    assert core.actions_left == 2 and core.current_player() == POLISH
    do(core, act("MOVE", "PL01"), POLISH)
    assert core.actions_left == 1 and core.current_player() == POLISH
    do(core, act("MOVE", "PL02"), POLISH)
    assert core.current_player() == GERMAN and core.actor == GERMAN
    assert core.actions_left == 1


def test_r10_volunteers_stack():
    """R10: "stacking is allowed": two Volunteers give 3 actions after both."""
    core = build(places={"PL13": "forest", "PL14": "forest", "PL01": "forest",
                         "PL02": "forest", "PL07": "forest"}, actor=POLISH)
    do(core, act("VOLUNTEERS", "PL13"), POLISH)
    assert core.actions_left == 2
    do(core, act("VOLUNTEERS", "PL14"), POLISH)
    assert core.actions_left == 3 and core.current_player() == POLISH
    for n in ("PL01", "PL02"):
        do(core, act("MOVE", n), POLISH)
        assert core.current_player() == POLISH
    assert core.actions_left == 1
    do(core, act("MOVE", "PL07"), POLISH)
    assert core.current_player() == GERMAN and core.actions_left == 1
    for n in ("PL01", "PL02", "PL07"):
        assert where(core, n) == ("periphery", True)


# ---------------------------------------------------------------------------
# R12: Motorized Column
# ---------------------------------------------------------------------------


def test_r12_motorized_column_three_actions_then_refresh():
    """R12: a counter of 3, lowered by each later action; at 0 the German
    refreshes one exhausted Unit of his choice."""
    core = build(places={"DE14": "hand", "DE06": "base", "DE09": "base", "DE04": "base"},
                 actor=GERMAN)
    do(core, act("PLAY", "DE14"), GERMAN)
    assert where(core, "DE14") == ("gone", False)
    assert core.actions_left == 3 and core.current_player() == GERMAN
    do(core, act("MOVE", "DE06"), GERMAN)
    do(core, act("MOVE", "DE09"), GERMAN)
    # After two actions: no refresh yet.
    assert core.phase == "actions" and core.current_player() == GERMAN
    assert core.actions_left == 1
    assert where(core, "DE06") == ("periphery", True)
    assert where(core, "DE09") == ("periphery", True)
    do(core, act("MOVE", "DE04"), GERMAN)
    assert core.phase == "refresh" and core.current_player() == GERMAN
    assert legal(core) == {act("SELECT_OWN", n) for n in ("DE04", "DE06", "DE09")}
    do(core, act("SELECT_OWN", "DE09"), GERMAN)
    assert where(core, "DE09") == ("periphery", False)
    assert where(core, "DE06") == ("periphery", True)
    assert where(core, "DE04") == ("periphery", True)
    assert core.phase == "actions" and core.current_player() == POLISH


def test_r12_refresh_at_chain_end_if_chain_ends_earlier():
    """R12: "When that counter reaches 0, or the chain ends (count 0 or a
    pass), whichever comes first" the refresh happens."""
    core = build(places={"DE14": "hand", "DE06": "base", "DE09": "base"}, actor=GERMAN)
    do(core, act("PLAY", "DE14"), GERMAN)
    do(core, act("MOVE", "DE06"), GERMAN)
    do(core, act("MOVE", "DE09"), GERMAN)
    assert core.actions_left == 1
    do(core, PASS, GERMAN)  # the chain ends after 2 of the 3 actions
    assert core.phase == "refresh" and core.current_player() == GERMAN
    assert legal(core) == {act("SELECT_OWN", "DE06"), act("SELECT_OWN", "DE09")}
    do(core, act("SELECT_OWN", "DE06"), GERMAN)
    assert where(core, "DE06") == ("periphery", False)
    assert where(core, "DE09") == ("periphery", True)
    assert core.phase == "actions" and core.current_player() == POLISH
    assert core.chain["refresh_due"] == 0 and core.chain["motorized"] == [0, 0, 0]


def test_r12_refresh_when_count_runs_out_before_three_actions():
    """R12: a chain can also end by its count; a single exhausted Unit is
    refreshed at once (R30)."""
    core = build(places={"DE14": "hand", "DE06": "base", "DE09": "base"}, actor=GERMAN)
    do(core, act("PLAY", "DE14"), GERMAN)
    do(core, act("MOVE", "DE06"), GERMAN)
    assert core.actions_left == 2
    do(core, PASS, GERMAN)
    assert where(core, "DE06") == ("periphery", False)
    assert core.phase == "actions" and core.current_player() == POLISH


def test_r12_refreshed_unit_can_act_again_in_the_chain():
    """R12: "A Unit refreshed this way may act in the rest of the chain."""
    core = build(places={"DE14": "hand", "DE12": "base", "DE06": "base",
                         "DE09": "base", "DE04": "base"}, actor=GERMAN)
    do(core, act("VOLUNTEERS", "DE12"), GERMAN)
    do(core, act("PLAY", "DE14"), GERMAN)
    assert core.actions_left == 4
    for n in ("DE06", "DE09", "DE04"):
        do(core, act("MOVE", n), GERMAN)
    assert core.phase == "refresh" and core.current_player() == GERMAN
    do(core, act("SELECT_OWN", "DE06"), GERMAN)
    assert core.phase == "actions" and core.current_player() == GERMAN
    assert core.actions_left == 1
    assert act("MOVE", "DE06") in legal(core)
    do(core, act("MOVE", "DE06"), GERMAN)
    do(core, act("ZONE", FOREST), GERMAN)  # from the Periphery: Forest or Base
    assert where(core, "DE06") == ("forest", True)
    assert core.current_player() == POLISH


def test_r12_nothing_to_refresh_refreshes_nothing():
    """R12: "(nothing if none is exhausted)": placing cards exhausts none."""
    core = build(places={"DE14": "hand", "DE06": "hand", "DE09": "hand", "DE04": "hand"},
                 actor=GERMAN)
    do(core, act("PLAY", "DE14"), GERMAN)
    for n in ("DE06", "DE09", "DE04"):
        do(core, act("PLACE", n), GERMAN)
    for n in ("DE06", "DE09", "DE04"):
        assert where(core, n) == ("base", False)
    assert core.phase == "actions" and core.current_player() == POLISH
    assert core.chain["refresh_due"] == 0


# ---------------------------------------------------------------------------
# R13: an action is legal only if it can have its effect
# ---------------------------------------------------------------------------


def test_r13_search_needs_a_fragment_on_the_periphery():
    """R13: "Search needs a fragment on the Periphery card"."""
    places = {"PL04": "periphery"}
    none = build(places=places, fragments={"forest": 2, "base": 2}, actor=POLISH)
    assert numbers_for(none, "SEARCH") == []
    one = build(places=places, fragments={"periphery": 1}, actor=POLISH)
    assert numbers_for(one, "SEARCH") == [4]


def test_r13_spy_and_sturmwind_need_a_fragment_on_the_enemy_home_card():
    """R13: "Spy/Sturmwind need a fragment on the enemy home zone card"."""
    spy = {"PL10": "base"}
    assert numbers_for(build(places=spy, fragments={"periphery": 2, "forest": 2}, actor=POLISH),
                 "STEAL") == []
    assert numbers_for(build(places=spy, fragments={"base": 1}, actor=POLISH), "STEAL") == [10]
    # R17: only from the enemy home zone (not from the Periphery).
    assert numbers_for(build(places={"PL10": "periphery"}, fragments={"base": 2}, actor=POLISH),
                 "STEAL") == []
    sturm = {"DE09": "forest"}
    assert numbers_for(build(places=sturm, fragments={"periphery": 2, "base": 2}, actor=GERMAN),
                 "STEAL") == []
    assert numbers_for(build(places=sturm, fragments={"forest": 1}, actor=GERMAN), "STEAL") == [9]


def test_r13_command_needs_an_exhausted_unit():
    """R13: "Command and High Morale need an exhausted Unit of yours"."""
    places = {"PL03": "forest", "PL04": "periphery", "PL17": "hand", "PL13": "forest"}
    fresh = build(places=places, exhausted=["PL13"], actor=POLISH)  # only a Support exhausted
    assert numbers_for(fresh, "COMMAND") == []
    assert act("PLAY", "PL17") not in legal(fresh)
    tired = build(places=places, exhausted=["PL04"], actor=POLISH)
    assert numbers_for(tired, "COMMAND") == [3]
    assert act("PLAY", "PL17") in legal(tired)


def test_r13_attack_needs_an_enemy_in_the_zone():
    """R13: "Attack needs an enemy Unit or Support card in the attacker's zone"."""
    alone = build(places={"PL07": "periphery", "DE02": "base", "DE03": "base",
                          "DE06": "forest"}, actor=POLISH)
    assert numbers_for(alone, "ATTACK") == []
    company = build(places={"PL07": "periphery", "DE02": "periphery"}, actor=POLISH)
    assert numbers_for(company, "ATTACK") == [7]
    support = build(places={"PL10": "base", "DE03": "base"}, actor=POLISH)
    assert numbers_for(support, "ATTACK") == [10]  # a Support card is a valid target


def test_r13_hidden_fragments_needs_a_fragment_on_the_periphery():
    """R13: "Hidden Fragments needs a fragment on the Periphery card"."""
    empty = build(places={"PL16": "hand"}, fragments={"forest": 2, "base": 1}, actor=POLISH)
    assert act("PLAY", "PL16") not in legal(empty)
    some = build(places={"PL16": "hand"}, fragments={"periphery": 1}, actor=POLISH)
    assert act("PLAY", "PL16") in legal(some)


def test_r13_operation_wildhorn_needs_no_german_unit_and_a_forest_fragment():
    """R13: "Operation Wildhorn III needs no German Unit in the Forest and at
    least one fragment on the Forest card"."""
    play = act("PLAY", "PL15")
    german_in_forest = build(places={"PL15": "hand", "PL01": "forest", "DE02": "forest"},
                             fragments={"forest": 2}, actor=POLISH)
    assert play not in legal(german_in_forest)
    no_fragment = build(places={"PL15": "hand"}, fragments={"periphery": 2, "base": 1},
                        actor=POLISH)
    assert play not in legal(no_fragment)
    ok = build(places={"PL15": "hand", "DE02": "periphery"}, fragments={"forest": 2},
               actor=POLISH)
    assert play in legal(ok)


def test_r13_volunteers_always_legal():
    """R13: "Volunteers is always legal" (even with nothing else to do)."""
    core = build(places={"PL01": "gone", "PL02": "gone", "PL03": "gone", "PL13": "forest"},
                 actor=POLISH)
    assert legal(core) == {PASS, act("VOLUNTEERS", "PL13")}


# ---------------------------------------------------------------------------
# R14: Movement and Motorcycle
# ---------------------------------------------------------------------------


def test_r14_motorcycle_after_destination_unit_not_exhausted():
    """R14: Motorcycle "may be played when the move is declared (after the
    destination is chosen): the Unit is not exhausted by it"."""
    core = build(places={"DE06": "periphery", "DE22": "hand", "DE23": "hand"}, actor=GERMAN)
    do(core, act("MOVE", "DE06"), GERMAN)
    # The destination comes first...
    assert core.phase == "zone" and core.current_player() == GERMAN
    assert legal(core) == {act("ZONE", FOREST), act("ZONE", BASE)}
    do(core, act("ZONE", FOREST), GERMAN)
    # ...then the Motorcycle window (the two Motorcycles are one choice, R27).
    assert core.phase == "motorcycle" and core.pending["zone"] == "forest"
    assert legal(core) == {DECLINE, act("PLAY", "DE22")}
    do(core, act("PLAY", "DE22"), GERMAN)
    assert where(core, "DE06") == ("forest", False)
    assert where(core, "DE22") == ("gone", False)
    assert where(core, "DE23") == ("hand", False)
    assert core.current_player() == POLISH


def test_r14_movement_without_motorcycle_exhausts():
    """R14/R9: declining Motorcycle leaves the moved Unit exhausted."""
    core = build(places={"DE06": "periphery", "DE22": "hand"}, actor=GERMAN)
    do(core, act("MOVE", "DE06"), GERMAN)
    do(core, act("ZONE", BASE), GERMAN)
    do(core, DECLINE, GERMAN)
    assert where(core, "DE06") == ("base", True)
    assert where(core, "DE22") == ("hand", False)


# ---------------------------------------------------------------------------
# R15: Attack
# ---------------------------------------------------------------------------


def test_r15_escort_only_by_a_fresh_card():
    """R15b: "a fresh card of theirs with Escort" - an exhausted Partisans
    cannot escort: the window is skipped and the dice come next."""
    core = build(places={"DE02": "periphery", "PL01": "periphery", "PL02": "periphery"},
                 exhausted=["PL02"], actor=GERMAN)
    do(core, act("ATTACK", "DE02"), GERMAN)
    do(core, act("SELECT_ENEMY", "PL01"), GERMAN)
    assert core.phase == "roll"
    assert core.pending["defender"] == gi("PL01")
    fresh = build(places={"DE02": "periphery", "PL01": "periphery", "PL02": "periphery"},
                  actor=GERMAN)
    do(fresh, act("ATTACK", "DE02"), GERMAN)
    do(fresh, act("SELECT_ENEMY", "PL01"), GERMAN)
    assert fresh.phase == "escort" and fresh.current_player() == POLISH
    assert legal(fresh) == {DECLINE, act("ESCORT", "PL02")}


def test_r15_escort_only_from_the_same_zone():
    """R15b: the escort must be "in the same zone" as the target."""
    core = build(places={"DE02": "periphery", "PL01": "periphery", "PL02": "forest",
                         "PL07": "base"}, actor=GERMAN)
    do(core, act("ATTACK", "DE02"), GERMAN)
    # The Scouts are the only target in the Periphery (R30), and no fresh
    # Partisans stands beside them: straight to the dice.
    assert core.phase == "roll"
    assert core.pending["target"] == gi("PL01") and core.pending["defender"] == gi("PL01")


def test_r15_escort_not_by_the_target_itself():
    """R15b: "other than the target": an attacked Partisans cannot escort
    itself, but an identical Partisans beside it can (R27)."""
    core = build(places={"DE02": "periphery", "PL07": "periphery"}, actor=GERMAN)
    do(core, act("ATTACK", "DE02"), GERMAN)
    assert core.phase == "roll"  # no escort window: the target is alone
    two = build(places={"DE02": "periphery", "PL07": "periphery", "PL08": "periphery"},
                actor=GERMAN)
    do(two, act("ATTACK", "DE02"), GERMAN)
    # PL07 and PL08 are interchangeable: one target choice (the lower number),
    # applied at once (R27, R30); then only PL08 may escort.
    assert two.phase == "escort" and two.current_player() == POLISH
    assert two.pending["target"] == gi("PL07")
    assert legal(two) == {DECLINE, act("ESCORT", "PL08")}
    assert act("ESCORT", "PL07") not in legal(two)


def test_r15_escort_only_once():
    """R15b: "The defender may use Escort once": after one Escort the attack
    goes on to the dice, with no second Escort window."""
    core = build(places={"DE02": "periphery", "PL01": "periphery", "PL07": "periphery",
                         "PL02": "periphery"}, actor=GERMAN)
    do(core, act("ATTACK", "DE02"), GERMAN)
    do(core, act("SELECT_ENEMY", "PL01"), GERMAN)
    assert legal(core) == {DECLINE, act("ESCORT", "PL02"), act("ESCORT", "PL07")}
    do(core, act("ESCORT", "PL07"), POLISH)
    assert core.phase == "roll"
    assert core.pending["escorted"] is True and core.pending["defender"] == gi("PL07")
    assert where(core, "PL02") == ("periphery", False)  # still fresh, unused
    roll(core, 6, 1)
    assert where(core, "PL07") == ("gone", False)
    assert where(core, "PL01") == ("periphery", False)


def test_r15_ambush_succeeds_without_dice():
    """R15c: "The attacker may play Ambush!: the attack succeeds without dice"."""
    core = build(places={"DE02": "periphery", "PL01": "periphery", "PL02": "periphery",
                         "DE20": "hand"}, actor=GERMAN)
    do(core, act("ATTACK", "DE02"), GERMAN)
    do(core, act("SELECT_ENEMY", "PL01"), GERMAN)
    do(core, DECLINE, POLISH)  # no Escort
    # Ambush comes after the Escort decision, before any die.
    assert core.phase == "ambush" and core.current_player() == GERMAN
    assert core.pending["dice"] == []
    assert legal(core) == {DECLINE, act("PLAY", "DE20")}
    do(core, act("PLAY", "DE20"), GERMAN)
    assert not core.is_chance()
    assert where(core, "PL01") == ("gone", False)
    assert where(core, "DE20") == ("gone", False)
    assert core.phase == "actions" and core.current_player() == POLISH


def test_r15_ambush_only_for_the_attacker():
    """R15c: "The attacker may play Ambush!" - the defender's Ambush! gives
    him no window."""
    core = build(places={"DE02": "periphery", "PL01": "periphery", "PL21": "hand"},
                 actor=GERMAN)
    do(core, act("ATTACK", "DE02"), GERMAN)
    assert core.phase == "roll"
    assert where(core, "PL21") == ("hand", False)


def test_r15_nurses_returns_unit_exhausted_to_home_zone():
    """R15g: "its owner may play Nurses: the Unit goes to its home zone,
    exhausted, instead of leaving play"."""
    core = build(places={"DE02": "periphery", "PL07": "periphery", "PL23": "hand"},
                 actor=GERMAN)
    do(core, act("ATTACK", "DE02"), GERMAN)
    roll(core, 6, 1)  # 8 against 3
    assert core.phase == "nurses" and core.current_player() == POLISH
    assert legal(core) == {DECLINE, act("PLAY", "PL23")}
    do(core, act("PLAY", "PL23"), POLISH)
    assert where(core, "PL07") == ("forest", True)
    assert where(core, "PL23") == ("gone", False)
    assert core.phase == "actions" and core.current_player() == POLISH


def test_r15_nurses_for_a_german_unit_in_the_forest_goes_to_the_base():
    """R15g: the home zone is the owner's, not the zone of the fight."""
    core = build(places={"PL07": "forest", "DE02": "forest", "DE21": "hand"}, actor=POLISH)
    do(core, act("ATTACK", "PL07"), POLISH)
    roll(core, 6, 1)
    do(core, act("PLAY", "DE21"), GERMAN)
    assert where(core, "DE02") == ("base", True)


def test_r15_destroyed_support_leaves_play_and_defends_with_zero_bullets():
    """R15f: "(Support cards have 0 bullets)"; a destroyed Support leaves
    play (Nurses saves Units only)."""
    # SS (3 bullets) rolls 1: total 4.  The Staff rolls 3: 3 with 0 bullets
    # (a Staff counted with 1 bullet would tie at 4 and survive).
    core = build(places={"DE09": "forest", "PL03": "forest", "PL23": "hand"},
                 exhausted=["PL03"], actor=GERMAN)
    do(core, act("ATTACK", "DE09"), GERMAN)
    roll(core, 1, 3)
    assert where(core, "PL03") == ("gone", False)
    assert where(core, "PL23") == ("hand", False)  # no Nurses for a Support
    assert core.phase == "actions" and core.current_player() == POLISH


def test_r15_support_survives_a_tie():
    """R15f: "a tie or less does nothing" - 1+3 against 4+0."""
    core = build(places={"DE09": "forest", "PL03": "forest"}, exhausted=["PL03"],
                 actor=GERMAN)
    do(core, act("ATTACK", "DE09"), GERMAN)
    roll(core, 1, 4)
    assert where(core, "PL03") == ("forest", True)


# ---------------------------------------------------------------------------
# R16: Search and Witnesses
# ---------------------------------------------------------------------------


def test_r16_witnesses_gains_exactly_one_fragment_without_dice():
    """R16: "Witnesses gains exactly that one fragment, with no die and no
    modifier window."""
    core = build(places={"PL04": "periphery", "PL22": "hand", "PL18": "hand",
                         "DE18": "hand"}, fragments={"periphery": 3}, actor=POLISH)
    do(core, act("SEARCH", "PL04"), POLISH)
    assert core.phase == "witnesses" and core.current_player() == POLISH
    assert legal(core) == {DECLINE, act("PLAY", "PL22")}
    do(core, act("PLAY", "PL22"), POLISH)
    # No die, no window (both hold modifiers that would have opened one).
    assert core.phase == "actions" and core.current_player() == GERMAN
    assert frags(core)["periphery"] == 2 and frags(core)["forest"] == 1
    assert where(core, "PL22") == ("gone", False)
    assert where(core, "PL18") == ("hand", False) and where(core, "DE18") == ("hand", False)
    assert where(core, "PL04") == ("periphery", True)


def test_r16_witnesses_only_on_a_search():
    """R16/R17: Witnesses belongs to the Search; a Spy goes straight to its die."""
    core = build(places={"PL10": "base", "PL22": "hand"}, fragments={"base": 2},
                 actor=POLISH)
    do(core, act("STEAL", "PL10"), POLISH)
    assert core.phase == "roll"
    roll(core, 5)
    assert frags(core)["base"] == 1 and frags(core)["forest"] == 1
    assert where(core, "PL22") == ("hand", False)


def test_r16_fragments_on_hidden_fragments_cannot_be_searched():
    """R16: "Fragments on the Hidden Fragments card cannot be searched."""
    hidden_only = build(places={"PL04": "periphery", "PL16": "event", "DE04": "periphery"},
                        fragments={"hidden": 2}, actor=POLISH)
    assert numbers_for(hidden_only, "SEARCH") == []
    core = build(places={"PL04": "periphery", "PL05": "periphery", "PL16": "event"},
                 fragments={"hidden": 2, "periphery": 1}, actor=POLISH, actions_left=2)
    do(core, act("SEARCH", "PL04"), POLISH)
    roll(core, 6)
    assert frags(core) == {"pool": 12, "periphery": 0, "hidden": 2, "forest": 1,
                           "wildhorn": 0, "base": 0}
    assert core.current_player() == POLISH
    assert numbers_for(core, "SEARCH") == []  # PL05 is fresh, but nothing to search


def test_r16_failed_search_takes_nothing():
    """R16: a total below the search number (4) moves no fragment."""
    core = build(places={"PL04": "periphery"}, fragments={"periphery": 2}, actor=POLISH)
    do(core, act("SEARCH", "PL04"), POLISH)
    roll(core, 3)
    assert frags(core)["periphery"] == 2 and frags(core)["forest"] == 0
    assert where(core, "PL04") == ("periphery", True)


# ---------------------------------------------------------------------------
# R17: Spy / Sturmwind and Operation Wildhorn III
# ---------------------------------------------------------------------------


def test_r17_wildhorn_fragments_cannot_be_stolen():
    """R17: "Fragments on the Operation Wildhorn III card cannot be taken."""
    only_wildhorn = build(places={"DE09": "forest", "PL15": "event"},
                          fragments={"wildhorn": 3}, actor=GERMAN)
    assert numbers_for(only_wildhorn, "STEAL") == []
    core = build(places={"DE09": "forest", "PL15": "event"},
                 fragments={"wildhorn": 3, "forest": 1}, actor=GERMAN)
    do(core, act("STEAL", "DE09"), GERMAN)
    roll(core, 6)
    assert frags(core)["forest"] == 0
    assert frags(core)["wildhorn"] == 3
    assert frags(core)["base"] == 1


# ---------------------------------------------------------------------------
# R18: the modifier window
# ---------------------------------------------------------------------------


def test_r18_only_the_searcher_rolls_so_only_bad_luck_for_the_opponent():
    """R18: "in a Search or Spy/Sturmwind only the acting player rolls": the
    opponent may play Bad Luck but neither Good Luck nor Assistance."""
    core = build(places={"DE01": "periphery", "PL18": "hand", "PL20": "hand",
                         "PL03": "forest", "DE16": "hand", "DE18": "hand", "DE03": "base"},
                 fragments={"periphery": 2}, actor=GERMAN)
    do(core, act("SEARCH", "DE01"), GERMAN)
    roll(core, 4)
    # The searcher: Good Luck and Assistance, but no Bad Luck (no enemy roll).
    assert core.phase == "modifiers" and core.current_player() == GERMAN
    assert legal(core) == {DECLINE, act("PLAY", "DE16"), act("ASSIST", "DE03")}
    do(core, DECLINE, GERMAN)
    assert core.current_player() == POLISH
    assert legal(core) == {DECLINE, act("PLAY", "PL20")}
    do(core, act("PLAY", "PL20"), POLISH)  # Bad Luck by the opponent: 4 - 2 = 2
    assert core.pending["modifiers"] == [-2, 0]
    assert core.current_player() == GERMAN
    do(core, DECLINE, GERMAN)
    # The Polish player has nothing left he may play (Good Luck and the
    # Staff's Assistance do not apply): his pass is automatic and the window
    # closes with the search at 2, a failure.
    assert core.phase == "actions" and core.current_player() == POLISH
    assert frags(core)["periphery"] == 2 and frags(core)["base"] == 0
    assert where(core, "PL20") == ("gone", False)


def test_r18_window_closes_only_on_two_passes_in_a_row():
    """R18: "two passes in a row close the window": a pass answered by a
    modifier keeps it open."""
    core = build(places={"PL04": "periphery", "PL18": "hand", "DE18": "hand",
                         "PL03": "forest"},
                 fragments={"periphery": 2}, actor=POLISH)
    do(core, act("SEARCH", "PL04"), POLISH)
    roll(core, 4)
    do(core, DECLINE, POLISH)  # one pass: the German may still react
    assert core.phase == "modifiers" and core.current_player() == GERMAN
    do(core, act("PLAY", "DE18"), GERMAN)  # 4 - 2 = 2
    assert core.phase == "modifiers" and core.current_player() == POLISH
    do(core, act("PLAY", "PL18"), POLISH)  # 2 + 2 = 4
    # The German has nothing left (automatic pass); the Polish player passes.
    assert core.phase == "modifiers" and core.current_player() == POLISH
    assert core.pending["window_passes"] == 1
    do(core, DECLINE, POLISH)
    assert frags(core)["forest"] == 1 and frags(core)["periphery"] == 1


def test_r18_modified_totals_may_go_below_one_search():
    """R18: "Modified totals may go below 1": a 1 with Bad Luck counts -1, so
    Good Luck and Assistance bring it only to 2, a failed search."""
    core = build(places={"PL04": "periphery", "PL18": "hand", "PL03": "forest",
                         "DE18": "hand"}, fragments={"periphery": 2}, actor=POLISH)
    do(core, act("SEARCH", "PL04"), POLISH)
    roll(core, 1)
    do(core, DECLINE, POLISH)
    do(core, act("PLAY", "DE18"), GERMAN)  # 1 - 2 = -1 (not 1)
    assert core.pending["dice"] == [1] and core.pending["modifiers"] == [-2, 0]
    do(core, act("PLAY", "PL18"), POLISH)  # -1 + 2 = 1
    do(core, act("ASSIST", "PL03"), POLISH)  # 1 + 1 = 2; clamping at 1 would give 4
    assert frags(core)["periphery"] == 2 and frags(core)["forest"] == 0


def test_r18_modified_totals_below_one_attack_die_not_clamped():
    """R18: totals are die + bullets + modifiers, unclamped: Partisans rolling
    2 with Bad Luck total 2 + 2 - 2 = 2, a tie with the Staff's 2 + 0."""
    core = build(places={"PL07": "base", "DE03": "base", "DE18": "hand"},
                 exhausted=["DE03"], actor=POLISH)
    do(core, act("ATTACK", "PL07"), POLISH)
    roll(core, 2, 2)
    assert core.phase == "modifiers" and core.current_player() == GERMAN
    do(core, act("PLAY", "DE18"), GERMAN)
    assert where(core, "DE03") == ("base", True)  # tie: the Staff survives


def test_r18_modified_totals_below_one_attack_total_not_clamped():
    """R18: an Unseen and Silent total of 2 + 3 - 4 = 1 still beats a Staff's
    1 + 0 - 2 = -1 (clamping totals at 1 would make it a tie)."""
    core = build(places={"PL10": "base", "DE03": "base", "PL20": "hand",
                         "DE18": "hand", "DE19": "hand"}, exhausted=["DE03"], actor=POLISH)
    do(core, act("ATTACK", "PL10"), POLISH)
    roll(core, 2, 1)
    do(core, act("PLAY", "PL20"), POLISH)  # Staff: 1 - 2 = -1
    do(core, act("PLAY", "DE18"), GERMAN)  # Unseen and Silent: 2 - 2 + 3 = 3
    # DE19 is now the German's only Bad Luck; the Polish pass is automatic.
    do(core, act("PLAY", "DE19"), GERMAN)  # 2 - 4 + 3 = 1
    # Nobody has anything left: the window closes, 1 > -1, the Staff is destroyed.
    assert core.phase == "actions" and core.current_player() == GERMAN
    assert where(core, "DE03") == ("gone", False)


def test_r18_defender_modifies_his_own_roll_and_the_attackers():
    """R18: Good Luck is "+2 to your own roll", Bad Luck "-2 to the enemy's
    roll" - for the defender too: his Good Luck goes to the defender's die,
    his Bad Luck to the attacker's."""
    core = build(places={"DE02": "periphery", "PL01": "periphery", "PL18": "hand",
                         "PL20": "hand"}, actor=GERMAN)
    do(core, act("ATTACK", "DE02"), GERMAN)
    roll(core, 5, 2)  # 7 against 3
    assert core.phase == "modifiers" and core.current_player() == POLISH
    do(core, act("PLAY", "PL18"), POLISH)  # defender: 2 + 2 + 1 = 5
    assert core.pending["modifiers"] == [0, 2]
    do(core, act("PLAY", "PL20"), POLISH)  # attacker: 5 - 2 + 2 = 5
    # Nothing left to play on either side: the window closes at once (R30).
    assert core.phase == "actions" and core.current_player() == POLISH
    assert where(core, "PL01") == ("periphery", False)  # 5 against 5: a tie


def test_r18_defending_support_may_assist_itself():
    """R18: Assistance "exhausts a fresh card of yours on the table that has
    Assistance, including a Support card that is itself the defender"."""
    core = build(places={"DE02": "forest", "PL03": "forest"}, actor=GERMAN)
    do(core, act("ATTACK", "DE02"), GERMAN)
    roll(core, 4, 5)  # 6 against 5
    assert core.phase == "modifiers" and core.current_player() == POLISH
    assert legal(core) == {DECLINE, act("ASSIST", "PL03")}
    do(core, act("ASSIST", "PL03"), POLISH)  # 6 against 6: a tie
    assert where(core, "PL03") == ("forest", True)
    assert core.phase == "actions" and core.current_player() == POLISH


# ---------------------------------------------------------------------------
# R19: Command never refreshes a Support
# ---------------------------------------------------------------------------


def test_r19_command_never_refreshes_a_support():
    """R19: "Command: refresh one exhausted Unit of yours (never a Support)"."""
    core = build(places={"PL03": "forest", "PL13": "forest", "PL04": "periphery",
                         "PL07": "periphery"}, exhausted=["PL13", "PL04", "PL07"],
                 actor=POLISH)
    do(core, act("COMMAND", "PL03"), POLISH)
    assert core.phase == "refresh"
    assert legal(core) == {act("SELECT_OWN", "PL04"), act("SELECT_OWN", "PL07")}
    do(core, act("SELECT_OWN", "PL07"), POLISH)
    assert where(core, "PL13") == ("forest", True)
    assert where(core, "PL07") == ("periphery", False)


def test_r19_high_morale_refreshes_units_only():
    """R19: "High Morale (event): the same, from hand."""
    core = build(places={"PL17": "hand", "PL13": "forest", "PL04": "periphery"},
                 exhausted=["PL13", "PL04"], actor=POLISH)
    do(core, act("PLAY", "PL17"), POLISH)  # the only exhausted Unit: at once (R30)
    assert where(core, "PL04") == ("periphery", False)
    assert where(core, "PL13") == ("forest", True)
    assert where(core, "PL17") == ("gone", False)
    assert core.current_player() == GERMAN


# ---------------------------------------------------------------------------
# R20: Hidden Fragments
# ---------------------------------------------------------------------------


def test_r20_hide_one_or_two_fragments():
    """R20: "move 1 or 2 fragments (your choice, at most what is there)"."""
    core = build(places={"PL16": "hand"}, fragments={"periphery": 3}, actor=POLISH)
    do(core, act("PLAY", "PL16"), POLISH)
    assert core.phase == "number" and core.current_player() == POLISH
    assert legal(core) == {act("NUMBER", 0), act("NUMBER", 1)}
    do(core, act("NUMBER", 1), POLISH)  # hide 2
    assert frags(core)["periphery"] == 1 and frags(core)["hidden"] == 2
    assert where(core, "PL16") == ("event", False)
    one = build(places={"PL16": "hand"}, fragments={"periphery": 3}, actor=POLISH)
    do(one, act("PLAY", "PL16"), POLISH)
    do(one, act("NUMBER", 0), POLISH)  # hide 1
    assert frags(one)["periphery"] == 2 and frags(one)["hidden"] == 1


def test_r20_hide_at_most_what_is_there():
    """R20: with a single fragment on the Periphery only 1 can be hidden (the
    only option, applied at once, R30)."""
    core = build(places={"PL16": "hand"}, fragments={"periphery": 1}, actor=POLISH)
    do(core, act("PLAY", "PL16"), POLISH)
    assert frags(core)["periphery"] == 0 and frags(core)["hidden"] == 1
    assert core.phase == "actions" and core.current_player() == GERMAN


def test_r20_hidden_fragments_return_at_end_of_turn_and_card_leaves_play():
    """R20/R8: "they come back at the end of the turn"; the card leaves play."""
    core = build(places={"PL16": "hand"}, fragments={"periphery": 3, "forest": 1},
                 actor=POLISH)
    do(core, act("PLAY", "PL16"), POLISH)
    do(core, act("NUMBER", 1), POLISH)
    do(core, PASS, GERMAN)
    assert core.turn == 1 and frags(core)["hidden"] == 2  # still hidden this turn
    do(core, PASS, POLISH)
    assert core.turn == 2 and core.phase == "draw"
    assert frags(core)["periphery"] == 3 and frags(core)["hidden"] == 0
    assert frags(core)["forest"] == 1
    assert where(core, "PL16") == ("gone", False)


# ---------------------------------------------------------------------------
# R21: Operation Wildhorn III
# ---------------------------------------------------------------------------


def test_r21_later_polish_fragments_go_to_the_forest():
    """R21: "move every fragment on the Forest card onto it ... later Polish
    fragments go to the Forest card"."""
    core = build(places={"PL15": "hand", "PL04": "periphery"},
                 fragments={"forest": 2, "periphery": 2}, actor=POLISH, actions_left=2)
    do(core, act("PLAY", "PL15"), POLISH)
    assert where(core, "PL15") == ("event", False)
    assert frags(core)["forest"] == 0 and frags(core)["wildhorn"] == 2
    do(core, act("SEARCH", "PL04"), POLISH)
    roll(core, 6)
    assert frags(core)["forest"] == 1 and frags(core)["wildhorn"] == 2
    assert frags(core)["periphery"] == 1
    assert core.scores() == (3, 0)


# ---------------------------------------------------------------------------
# R22 / R23: the winner
# ---------------------------------------------------------------------------


def _finish(**kw) -> Core:
    """A last-turn position (turns=1, draw=0); both players pass."""
    core = build(turns=1, draw=0, turn=1, actor=POLISH, **kw)
    for p in (POLISH, GERMAN):
        if core.is_terminal():
            break
        do(core, PASS, p)
    assert core.is_terminal()
    return core


def test_r22_tie_goes_to_the_german():
    """R22: "A tie goes to the German player."""
    tie = _finish(fragments={"forest": 2, "base": 2, "periphery": 3})
    assert tie.winner == GERMAN and tie.returns() == [-1.0, 1.0]
    more = _finish(fragments={"forest": 3, "base": 2})
    assert more.winner == POLISH and more.returns() == [1.0, -1.0]


def test_r22_wildhorn_fragments_count_for_the_polish_player():
    """R22: Polish score is "Forest card plus Operation Wildhorn III card"."""
    core = _finish(places={"PL15": "event"}, fragments={"forest": 1, "wildhorn": 2,
                                                       "base": 2})
    assert core.scores() == (3, 2) and core.winner == POLISH


def test_r23_overrun_checked_only_at_game_end():
    """R23: "Exception, checked only when the game ends (after the end of turn 4)"."""
    places = {"DE02": "forest", "PL01": "periphery"}
    mid = build(places=places, fragments={"forest": 5}, actor=POLISH)  # turn 1 of 4
    do(mid, PASS, POLISH)
    do(mid, PASS, GERMAN)
    assert not mid.is_terminal() and mid.turn == 2 and mid.winner == -1
    end = _finish(places=places, fragments={"forest": 5})
    assert end.winner == GERMAN  # overrun, despite 5 fragments to 0


def test_r23_both_overrun_fragments_decide():
    """R23: "if both players are in that position, R22 decides"."""
    core = _finish(places={"DE02": "forest", "PL07": "base"},
                   fragments={"forest": 3, "base": 1})
    assert core.winner == POLISH
    tie = _finish(places={"DE02": "forest", "PL07": "base"},
                  fragments={"forest": 1, "base": 1})
    assert tie.winner == GERMAN


def test_r23_exhausted_own_card_protects_the_home_zone():
    """R23: "none of their own Unit or Support cards (fresh or exhausted)"."""
    core = _finish(places={"DE02": "forest", "PL03": "forest"}, exhausted=["PL03"],
                   fragments={"forest": 2})
    assert core.winner == POLISH


def test_r23_event_cards_do_not_count_as_home_zone_cards():
    """R23: "The Operation Wildhorn III and Hidden Fragments cards lie beside
    the zones, in no zone, and never count as cards in a home zone."""
    core = _finish(places={"DE02": "forest", "PL15": "event", "PL16": "event"},
                   fragments={"wildhorn": 4, "periphery": 1})
    assert core.scores() == (4, 0)
    assert core.winner == GERMAN


def test_r23_german_overrun_polish_wins_on_fewer_fragments():
    """R23: the exception works both ways: a Polish Unit alone in the Rocket
    Base wins for the Polish player even when behind on fragments."""
    core = _finish(places={"PL07": "base", "DE03": "gone"}, fragments={"base": 3})
    assert core.winner == POLISH
    guarded = _finish(places={"PL07": "base", "DE03": "base"}, fragments={"base": 3})
    assert guarded.winner == GERMAN


# ---------------------------------------------------------------------------
# R27: interchangeable cards
# ---------------------------------------------------------------------------


def test_r27_two_identical_scouts_give_one_search():
    """R27: two Scouts in the same zone and state give one Search action."""
    core = build(places={"PL04": "periphery", "PL05": "periphery", "PL06": "forest"},
                 fragments={"periphery": 2}, actor=POLISH)
    assert numbers_for(core, "SEARCH") == [4]
    assert numbers_for(core, "MOVE") == [4, 6]  # PL06 stands elsewhere: its own choice
    tired = build(places={"PL04": "periphery", "PL05": "periphery"}, exhausted=["PL04"],
                  fragments={"periphery": 2}, actor=POLISH)
    assert numbers_for(tired, "SEARCH") == [5]


def test_r27_start_card_and_non_start_copy_are_not_interchangeable():
    """R27/R26: the START mark is public data, so PL01 Scouts (START) and PL04
    Scouts are two different choices."""
    core = build(places={"PL01": "periphery", "PL04": "periphery"},
                 fragments={"periphery": 2}, actor=POLISH)
    assert numbers_for(core, "SEARCH") == [1, 4]
    in_hand = build(places={"PL04": "hand", "PL05": "hand"}, actor=POLISH)
    assert numbers_for(in_hand, "PLACE") == [1, 2, 3, 4]  # PL05 merged with PL04, PL01 not


def test_r27_identical_cards_in_hand_and_exhausted_are_one_choice():
    """R27: two Good Luck cards in hand are one modifier choice; two
    exhausted Scouts in the same zone are one refresh choice."""
    core = build(places={"PL04": "periphery", "PL05": "periphery", "PL07": "periphery",
                         "PL03": "forest", "PL06": "periphery", "PL18": "hand",
                         "PL19": "hand"},
                 exhausted=["PL04", "PL05", "PL07"], fragments={"periphery": 2},
                 actor=POLISH, actions_left=2)
    do(core, act("COMMAND", "PL03"), POLISH)
    assert core.phase == "refresh"
    assert legal(core) == {act("SELECT_OWN", "PL04"), act("SELECT_OWN", "PL07")}
    do(core, act("SELECT_OWN", "PL04"), POLISH)
    do(core, act("SEARCH", "PL04"), POLISH)  # PL04 and PL06 are both fresh now
    roll(core, 1)
    assert legal(core) == {DECLINE, act("PLAY", "PL18")}


def test_r27_draw_outcomes_merge_identical_cards():
    """R27/R3: a draw is one outcome per class of identical cards, with the
    class's share of the deck (3 of 20 Polish cards are plain Scouts)."""
    core = Core(config())
    outcomes = dict(core.chance_outcomes())
    assert abs(sum(outcomes.values()) - 1.0) < 1e-12
    assert len(outcomes) == 13  # 20 cards in 13 classes
    assert abs(outcomes[own("PL04")] - 3 / 20) < 1e-12
    assert own("PL05") not in outcomes and own("PL06") not in outcomes
    assert abs(outcomes[own("PL12")] - 1 / 20) < 1e-12  # Staff, not START


def test_r27_identical_targets_are_one_choice():
    """R27: two identical Partisans in the same zone are one attack target."""
    core = build(places={"DE02": "periphery", "PL07": "periphery", "PL08": "periphery",
                         "PL01": "periphery"}, actor=GERMAN)
    do(core, act("ATTACK", "DE02"), GERMAN)
    assert core.phase == "target"
    assert legal(core) == {act("SELECT_ENEMY", "PL07"), act("SELECT_ENEMY", "PL01")}


def test_r27_attack_target_not_merged_with_identical_card():
    """R27: "A card that is the attacker, the target or the defender of the
    action being resolved is interchangeable with no other card": PL08 may
    escort the attacked PL07."""
    core = build(places={"DE02": "periphery", "PL07": "periphery", "PL08": "periphery",
                         "PL01": "periphery"}, actor=GERMAN)
    do(core, act("ATTACK", "DE02"), GERMAN)
    do(core, act("SELECT_ENEMY", "PL07"), GERMAN)
    assert core.phase == "escort"
    assert legal(core) == {DECLINE, act("ESCORT", "PL08")}
    do(core, act("ESCORT", "PL08"), POLISH)
    assert core.pending["defender"] == gi("PL08")


def test_r27_defending_support_and_its_twin_are_two_assistances():
    """R27: the defending Volunteers is not merged with the identical fresh
    Volunteers beside it: exhausting one or the other are two choices."""
    core = build(places={"DE09": "forest", "PL13": "forest", "PL14": "forest"},
                 actor=GERMAN)
    do(core, act("ATTACK", "DE09"), GERMAN)
    # One target choice for the twins (R27), applied at once (R30): PL13.
    assert core.phase == "roll" and core.pending["target"] == gi("PL13")
    roll(core, 1, 3)  # 4 against 3
    assert core.phase == "modifiers" and core.current_player() == POLISH
    assert legal(core) == {DECLINE, act("ASSIST", "PL13"), act("ASSIST", "PL14")}


# ---------------------------------------------------------------------------
# R29 / R30: skipped windows and single options
# ---------------------------------------------------------------------------


def test_r29_window_with_nothing_to_play_is_skipped():
    """R29: "The engine may skip such a window for a player who has nothing
    to play in it, and the opponent's information is then the same as if
    that player had declined."""
    with_w = build(places={"PL04": "periphery", "PL22": "hand"},
                   fragments={"periphery": 2}, actor=POLISH)
    without = build(places={"PL04": "periphery", "PL18": "hand"},
                    fragments={"periphery": 2}, actor=POLISH)
    do(with_w, act("SEARCH", "PL04"), POLISH)
    do(without, act("SEARCH", "PL04"), POLISH)
    assert with_w.phase == "witnesses"
    assert without.phase == "roll"  # no Witnesses in hand: no window
    do(with_w, DECLINE, POLISH)
    assert with_w.phase == "roll"
    assert with_w.info_string(GERMAN) == without.info_string(GERMAN)


def test_r29_declined_nurses_looks_like_no_nurses():
    """R29: declining Nurses is private: the German's information after the
    attack is the same as when the Polish player holds no Nurses."""
    views = []
    for card in ("PL23", "PL16"):  # Nurses, or a card useless here
        core = build(places={"DE02": "periphery", "PL07": "periphery", card: "hand"},
                     actor=GERMAN)
        do(core, act("ATTACK", "DE02"), GERMAN)
        roll(core, 6, 1)
        if card == "PL23":
            assert core.phase == "nurses"
            do(core, DECLINE, POLISH)
        assert where(core, "PL07") == ("gone", False)
        assert core.phase == "actions" and core.current_player() == POLISH
        views.append(core.info_string(GERMAN))
    assert views[0] == views[1]


def test_r29_declined_ambush_looks_like_no_ambush():
    """R29: declining Ambush! is private: the Polish information at the dice
    is the same as when the German holds no Ambush!."""
    views = []
    for card in ("DE20", "DE15"):  # Ambush!, or a card useless here
        core = build(places={"DE02": "periphery", "PL01": "periphery", card: "hand"},
                     actor=GERMAN)
        do(core, act("ATTACK", "DE02"), GERMAN)
        if card == "DE20":
            assert core.phase == "ambush"
            do(core, DECLINE, GERMAN)
        assert core.phase == "roll"
        views.append(core.info_string(POLISH))
    assert views[0] == views[1]


def test_r29_escort_ambush_and_motorcycle_windows_skipped():
    """R29: no Escort card, no Ambush!, no Motorcycle: no window for them."""
    core = build(places={"DE02": "periphery", "PL01": "periphery"}, actor=GERMAN)
    do(core, act("ATTACK", "DE02"), GERMAN)
    assert core.phase == "roll"  # target (R30), escort, ambush: all automatic
    move = build(places={"DE02": "forest"}, actor=GERMAN)
    do(move, act("MOVE", "DE02"), GERMAN)
    assert move.phase == "actions" and move.current_player() == POLISH
    assert where(move, "DE02") == ("periphery", True)


def test_r30_single_option_applied_at_once():
    """R30: "A decision with exactly one option (the only target, the only
    destination, the only exhausted Unit, a main step where only passing is
    legal) is applied at once"."""
    # Only passing is legal for the Polish player: the build lands on the
    # German's decision, with the Polish pass counted.
    core = build(places={"PL01": "gone", "PL02": "gone", "PL03": "gone"}, actor=POLISH)
    assert core.phase == "actions" and core.current_player() == GERMAN
    assert core.passes == 1
    do(core, PASS, GERMAN)
    assert core.turn == 2 and core.phase == "draw"
    # The only exhausted Unit: Command refreshes it without a refresh node.
    cmd = build(places={"PL03": "forest", "PL04": "periphery"}, exhausted=["PL04"],
                actor=POLISH)
    do(cmd, act("COMMAND", "PL03"), POLISH)
    assert cmd.phase == "actions" and cmd.current_player() == GERMAN
    assert where(cmd, "PL04") == ("periphery", False)
    # The only target.
    att = build(places={"PL07": "periphery", "DE01": "periphery"}, actor=POLISH)
    do(att, act("ATTACK", "PL07"), POLISH)
    assert att.phase == "roll" and att.pending["target"] == gi("DE01")
    # The only destination.
    mv = build(places={"PL07": "base"}, actor=POLISH)
    do(mv, act("MOVE", "PL07"), POLISH)
    assert where(mv, "PL07") == ("periphery", True)


def test_r01_movement_goes_to_adjacent_zones_only():
    """R1/R14: Forest and Rocket Base are adjacent to the Periphery only."""
    core = build(places={"PL07": "periphery"}, actor=POLISH)
    do(core, act("MOVE", "PL07"), POLISH)
    assert core.phase == "zone"
    assert legal(core) == {act("ZONE", FOREST), act("ZONE", BASE)}
    assert act("ZONE", PERIPHERY) not in legal(core)

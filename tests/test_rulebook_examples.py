"""The twelve worked examples of the printed rulebook, replayed.

Each test builds the example's position, forces the rulebook's dice and
asserts the outcome the rulebook states (card places, fresh/exhausted sides,
fragment counts, whose turn it is).  Card numbers follow the default card
set (docs/card-sets.md): the Polish "Recon Unit" of the examples is Scouts,
"a Support card" is Staff or Volunteers.  Unnamed cards stay where the game
begins them (START cards in hand, the rest in the deck), so no Immediate
card is in anyone's hand unless the example plays it.
"""

from __future__ import annotations

from helpers import (
    DECLINE,
    GERMAN,
    POLISH,
    act,
    build,
    config,
    deck,
    do,
    draw_all,
    frags,
    gi,
    hand,
    legal,
    reveal_rocket,
    roll,
    where,
)
from solver._core import Core


def _fresh_game_to_actions(rocket: int = 2) -> Core:
    """A new game: both draw 5 (first listed cards), both keep, Rocket ``rocket``."""
    core = Core(config())
    draw_all(core)
    do(core, DECLINE, POLISH)  # keep hand
    do(core, DECLINE, GERMAN)
    reveal_rocket(core, rocket)
    return core


def test_example_01_draw_to_eight_cards_in_turn_one():
    """Rulebook: "In the first turn, after drawing cards, each player will have 8 cards - their 3 starting cards plus 5 more randomly drawn cards." """
    core = Core(config())
    start = {POLISH: {gi(n) for n in ("PL01", "PL02", "PL03")},
             GERMAN: {gi(n) for n in ("DE01", "DE02", "DE03")}}
    assert core.phase == "draw" and core.turn == 1
    for side in (POLISH, GERMAN):
        assert hand(core, side) == start[side]
        assert core.deck_size(side) == 20
    draw_all(core)
    assert core.phase == "redraw"
    for side in (POLISH, GERMAN):
        assert core.hand_size(side) == 8
        assert start[side] <= hand(core, side)  # the 3 START cards plus 5 drawn
        assert core.deck_size(side) == 15
        assert len(deck(core, side)) == 15
    assert core.draw_info()["drawn"] == [5, 5]


def test_example_02_rocket_of_two_puts_two_fragments_on_periphery():
    """Rulebook: "The first revealed Rocket card has a value of 2. So 2 fragments are placed onto the Periphery card." """
    core = Core(config())
    draw_all(core)
    do(core, DECLINE, POLISH)
    do(core, DECLINE, GERMAN)
    assert core.phase == "rocket" and core.is_chance()
    assert frags(core) == {"pool": 15, "periphery": 0, "hidden": 0, "forest": 0,
                           "wildhorn": 0, "base": 0}
    reveal_rocket(core, 2)
    assert core.rockets_revealed == [2]
    assert frags(core) == {"pool": 13, "periphery": 2, "hidden": 0, "forest": 0,
                           "wildhorn": 0, "base": 0}
    # R7: then the action step begins with the Polish player.
    assert core.phase == "actions" and core.current_player() == POLISH


def test_example_03_opening_action_sequence():
    """Rulebook: "Peter places the Recon Unit into the Forest ... Gregory plays a Support card into the Rocket Base ... Peter activates the Recon Unit and moves it into the Periphery, exhausting it." """
    core = _fresh_game_to_actions(rocket=2)
    assert core.current_player() == POLISH
    do(core, act("PLACE", "PL01"), POLISH)  # Scouts (Polish Recon) into the Forest
    assert where(core, "PL01") == ("forest", False)  # placed fresh (R9)
    assert core.current_player() == GERMAN and core.phase == "actions"
    do(core, act("PLACE", "DE03"), GERMAN)  # Staff (Support) into the Rocket Base
    assert where(core, "DE03") == ("base", False)
    assert core.current_player() == POLISH and core.phase == "actions"
    # Movement from the Forest: the Periphery is the only destination (R30).
    do(core, act("MOVE", "PL01"), POLISH)
    assert where(core, "PL01") == ("periphery", True)
    assert core.phase == "actions" and core.current_player() == GERMAN  # "Etc."
    assert frags(core)["periphery"] == 2


def test_example_04_good_luck_bad_luck_and_two_assistances():
    """Rulebook: "rolled 2 ... "Good Luck" ... 4 ... "Bad Luck" ... back to 2 ... two Support cards, each giving him a +1 ... the search roll is 4 again, which is successful." """
    core = build(places={"PL04": "periphery", "PL03": "forest", "PL12": "forest",
                         "PL18": "hand", "DE18": "hand"},
                 fragments={"periphery": 2}, actor=POLISH)
    do(core, act("SEARCH", "PL04"), POLISH)
    assert where(core, "PL04") == ("periphery", True)
    roll(core, 2)
    assert core.phase == "modifiers" and core.current_player() == POLISH
    do(core, act("PLAY", "PL18"), POLISH)  # Good Luck: 2 + 2 = 4
    assert core.pending["modifiers"][0] == 2
    do(core, act("PLAY", "DE18"), GERMAN)  # Bad Luck: back to 2
    assert core.pending["modifiers"][0] == 0
    do(core, act("ASSIST", "PL03"), POLISH)  # +1: 3, still short of 4
    assert core.pending["modifiers"][0] == 1
    # The German has nothing left to play: his pass of priority is automatic
    # (R30), and the Polish player still has priority.
    assert core.phase == "modifiers" and core.current_player() == POLISH
    do(core, act("ASSIST", "PL12"), POLISH)  # +1: 4 again
    # Neither player has anything left: both passes are automatic (R30), the
    # window closes (R18) and the search at 2 + 2 - 2 + 1 + 1 = 4 succeeds.
    assert frags(core)["periphery"] == 1
    assert frags(core)["forest"] == 1
    for n in ("PL18", "DE18"):
        assert where(core, n) == ("gone", False)
    assert where(core, "PL03") == ("forest", True)
    assert where(core, "PL12") == ("forest", True)
    assert core.phase == "actions" and core.current_player() == GERMAN


def _periphery_skirmish(**extra_places):
    """Polish Scouts and Partisans, German Soldiers, all in the Periphery;
    the German to act."""
    places = {"PL01": "periphery", "PL02": "periphery", "DE02": "periphery"}
    places.update(extra_places)
    return build(places=places, fragments={"periphery": 2}, actor=GERMAN)


def test_example_05_tied_attack_scouts_survive():
    """Rulebook: "rolls his die, scoring 3, and adds 2 ... The Polish player rolls his die, scoring 4, and adds 1 ... both totals are 5: the result is a tie, so the Scouts survived." """
    core = _periphery_skirmish()
    do(core, act("ATTACK", "DE02"), GERMAN)
    assert where(core, "DE02") == ("periphery", True)  # exhausted on declaring
    do(core, act("SELECT_ENEMY", "PL01"), GERMAN)
    # Escort window: the Polish player does not escort.
    do(core, DECLINE, POLISH)
    roll(core, 3, 4)
    assert core.pending is None  # nobody could modify: the attack is resolved
    assert where(core, "PL01") == ("periphery", False)
    assert where(core, "PL02") == ("periphery", False)
    assert where(core, "DE02") == ("periphery", True)
    assert core.phase == "actions" and core.current_player() == POLISH


def test_example_06_search_on_six_succeeds():
    """Rulebook: "activating his Scouts to search. He turns the Scouts horizontal ... throws the die and scores 6. Success! He moves one fragment from the Periphery card to the Forest card." """
    core = build(places={"PL01": "periphery", "PL02": "periphery", "DE02": "periphery"},
                 exhausted=["DE02"], fragments={"periphery": 2}, actor=POLISH)
    do(core, act("SEARCH", "PL01"), POLISH)
    assert where(core, "PL01") == ("periphery", True)
    roll(core, 6)
    assert frags(core)["periphery"] == 1
    assert frags(core)["forest"] == 1
    assert frags(core)["base"] == 0
    assert core.phase == "actions" and core.current_player() == GERMAN


def test_example_07_sturmwind_on_five_succeeds():
    """Rulebook: "The SS card is in the Forest. The German player activates it, declares the Sturmwind action ... throws a 5 on the die, a success! He moves 1 fragment from the Forest card to the Rocket Base card." """
    core = build(places={"DE09": "forest", "PL03": "forest"},
                 fragments={"forest": 2, "periphery": 1}, actor=GERMAN)
    do(core, act("STEAL", "DE09"), GERMAN)
    assert where(core, "DE09") == ("forest", True)
    roll(core, 5)
    assert frags(core)["forest"] == 1
    assert frags(core)["base"] == 1
    assert frags(core)["periphery"] == 1
    assert core.phase == "actions" and core.current_player() == POLISH


def test_example_08_command_refreshes_exhausted_soldiers():
    """Rulebook: "He activates this card, exhausting it, as a Command action to refresh his exhausted Soldiers card in the Periphery, turning the Soldiers vertically again." """
    # Continuation: the SS (after its Sturmwind) and the Soldiers (after their
    # attack) are both exhausted; the German chooses the Soldiers.
    core = build(places={"DE03": "base", "DE02": "periphery", "DE09": "forest",
                         "PL01": "periphery", "PL02": "periphery"},
                 exhausted=["DE02", "DE09"], actor=GERMAN)
    do(core, act("COMMAND", "DE03"), GERMAN)
    assert core.phase == "refresh" and core.current_player() == GERMAN
    assert legal(core) == {act("SELECT_OWN", "DE02"), act("SELECT_OWN", "DE09")}
    do(core, act("SELECT_OWN", "DE02"), GERMAN)
    assert where(core, "DE02") == ("periphery", False)
    assert where(core, "DE09") == ("forest", True)
    assert where(core, "DE03") == ("base", True)
    assert core.phase == "actions" and core.current_player() == POLISH


def test_example_09_movement_forest_to_periphery():
    """Rulebook: "The Polish player has a Partisans card in his Home Zone. Using the movement action, he moves this card into the Periphery, and exhausts the activated card." """
    core = build(places={"PL02": "forest"}, actor=POLISH)
    do(core, act("MOVE", "PL02"), POLISH)
    assert where(core, "PL02") == ("periphery", True)
    assert core.pending is None
    assert core.phase == "actions" and core.current_player() == GERMAN


def test_example_10_volunteers_then_command_then_search():
    """Rulebook: "activates the first one for Volunteers ... activates the second Support card for a Command action, to refresh his exhausted Scouts ... using them to perform a Search action. He rolls 4 on the die, a success!" """
    core = build(places={"PL13": "forest", "PL03": "forest", "PL01": "periphery",
                         "DE02": "periphery"},
                 exhausted=["PL01"], fragments={"periphery": 2}, actor=POLISH)
    do(core, act("VOLUNTEERS", "PL13"), POLISH)
    assert where(core, "PL13") == ("forest", True)
    assert core.phase == "actions" and core.current_player() == POLISH
    assert core.actions_left == 2
    # Command: the Scouts are the only exhausted Unit, refreshed at once (R30).
    do(core, act("COMMAND", "PL03"), POLISH)
    assert where(core, "PL03") == ("forest", True)
    assert where(core, "PL01") == ("periphery", False)
    assert core.phase == "actions" and core.current_player() == POLISH
    assert core.actions_left == 1
    do(core, act("SEARCH", "PL01"), POLISH)
    roll(core, 4)
    assert frags(core)["periphery"] == 1
    assert frags(core)["forest"] == 1
    assert where(core, "PL01") == ("periphery", True)
    # Only now does the German act; his Soldiers never got to attack first.
    assert core.phase == "actions" and core.current_player() == GERMAN
    assert where(core, "DE02") == ("periphery", False)


def test_example_11_assistance_breaks_the_tie():
    """Rulebook: "ended in a tie, 5 to 5. The German player uses his Support card's immediate ability of Assistance ... now 6 to 5 ... the Polish Scouts card is removed from the game." """
    core = _periphery_skirmish(DE03="base")
    do(core, act("ATTACK", "DE02"), GERMAN)
    do(core, act("SELECT_ENEMY", "PL01"), GERMAN)
    do(core, DECLINE, POLISH)  # no Escort
    roll(core, 3, 4)
    assert core.phase == "modifiers" and core.current_player() == GERMAN
    do(core, act("ASSIST", "DE03"), GERMAN)
    # Neither player has anything left to play: both pass priority at once
    # (R30), the window closes and the attack is 3+2+1 = 6 against 4+1 = 5.
    assert where(core, "PL01") == ("gone", False)
    assert where(core, "PL02") == ("periphery", False)
    assert where(core, "DE03") == ("base", True)
    assert core.phase == "actions" and core.current_player() == POLISH


def test_example_12_escort_partisans_save_the_scouts():
    """Rulebook: "the Polish player immediately uses his Partisans card ... as an escort ... The German player rolls 4, and the Polish player rolls 3, and they each add 2 ... 6 to 5 ... The Polish Partisans are removed from the game, but the Polish player saved his valuable Scouts." """
    core = _periphery_skirmish()
    do(core, act("ATTACK", "DE02"), GERMAN)
    do(core, act("SELECT_ENEMY", "PL01"), GERMAN)
    assert core.phase == "escort" and core.current_player() == POLISH
    do(core, act("ESCORT", "PL02"), POLISH)
    assert core.pending["target"] == gi("PL01")
    assert core.pending["defender"] == gi("PL02")
    assert where(core, "PL02") == ("periphery", True)  # Escort exhausts it
    roll(core, 4, 3)
    assert where(core, "PL02") == ("gone", False)
    assert where(core, "PL01") == ("periphery", False)
    assert where(core, "DE02") == ("periphery", True)
    assert core.phase == "actions" and core.current_player() == POLISH

"""apps.narration: every kind of event told with its outcome, nothing hidden told."""
import json
import random
import re

import pytest

from apps.narration import (Entry, Kind, Narrator, condense, option_notes, pending_figures,
                             pending_text)
from solver.errors import IllegalActionError
from tests.helpers import DECLINE, PASS, REDRAW, act, build, config, gi

CARD = re.compile(r"\b(PL|DE)\d\d\b")
PUBLIC_PLACES = ("forest", "periphery", "base", "gone", "event")


def random_game(seed: int):
    """A seeded game with random play: [(before, action, after)] for every apply."""
    from solver._core import Core
    core = Core(config())
    rng = random.Random(seed)
    steps = []
    while not core.is_terminal():
        if core.is_chance():
            acts, probs = zip(*core.chance_outcomes())
            a = rng.choices(acts, probs)[0]
        else:
            a = rng.choice(core.legal_actions())
        before = core.copy()
        core.apply(a)
        steps.append((before, a, core.copy()))
    return steps


@pytest.fixture(scope="module")
def games():
    return {seed: random_game(seed) for seed in range(12)}


@pytest.fixture(scope="module")
def narrated(games):
    """seed -> viewer -> list of (before, action, after, entries)."""
    cfg = config()
    out = {}
    for seed, steps in games.items():
        out[seed] = {}
        for viewer in (0, 1, -1):
            n = Narrator(cfg, viewer)
            out[seed][viewer] = [(b, a, c, n.step(b, a, c)) for b, a, c in steps]
    return out


def all_texts(narrated, viewer):
    return [e.text for seed in narrated for *_, es in narrated[seed][viewer] for e in es]


def test_every_kind_of_event_is_narrated_with_its_outcome(narrated):
    texts = "\n".join(all_texts(narrated, 0))
    kinds = {e.kind for seed in narrated for v in (0, 1) for *_, es in narrated[seed][v]
             for e in es}
    assert kinds == set(Kind)
    for phrase in ("The attack succeeds: ", "The attack fails: ", " is destroyed.",
                   "The search succeeds: ", "The search fails: ", "A fragment moves from the "
                   "Periphery to", "Defence die for ", "unless modified.", "Rocket card revealed",
                   "Nurses", "is sent home to", "escorts with", "Ambush!: the attack succeeds",
                   "Witnesses: the search succeeds", "left in a row.", "on Hidden Fragments",
                   "from Hidden Fragments to the Periphery", "End of turn 1", "Score: Polish",
                   "Game over: ", "Volunteers, 2 more actions", "Motorized Column",
                   "Operation Wildhorn III: "):
        assert phrase in texts, phrase
    # the outcome of a roll says the totals and what they were compared with
    outcome = next(t for t in all_texts(narrated, 0) if t.startswith("The search fails"))
    assert re.search(r"die \d|total -?\d+", outcome) and re.search(r"needs \d", outcome)
    attack = next(t for t in all_texts(narrated, 0) if t.startswith("The attack succeeds"))
    assert re.search(r"\d+ \(die \d( \+ \d bullets?)?.*\) beats (Polish|German) -?\d+", attack)


def test_nothing_hidden_is_narrated(narrated):
    """R26: the opponent's hand, draws and cards sent back stay unnamed; R29:
    the opponent's declines are not told (its passes of priority are public:
    test_passes_of_priority_are_public)."""
    checked = 0
    for seed in narrated:
        for viewer in (0, 1, -1):
            for before, action, after, entries in narrated[seed][viewer]:
                for e in entries:
                    blob = e.text + " " + json.dumps(e.to_json()["details"])
                    for m in CARD.finditer(blob):
                        g = gi(m.group(0))
                        if g // 23 == viewer:
                            continue
                        # an opponent's card is named only once it is public
                        assert (after.location(g)[0] in PUBLIC_PLACES
                                or before.location(g)[0] in PUBLIC_PLACES), (seed, viewer, e.text)
                        checked += 1
                    if e.who in ("polish", "german") and ("polish", "german").index(e.who) != viewer:
                        assert "decline" not in e.text, e.text
    assert checked > 1000


def test_opponent_draws_and_redraw_decision_read_the_same_whatever_they_are():
    """The German viewer's narration of a Polish draw does not depend on the
    card, nor that of the Polish redraw decision on the choice (R5)."""
    from solver._core import Core
    core = Core(config())
    german = Narrator(config(), 1)
    texts = set()
    for a, _ in core.chance_outcomes():
        after = core.copy()
        after.apply(a)
        texts.add(tuple(e.text for e in german.step(core, a, after)))
    assert texts == {("Polish draws a card.",)}
    while core.is_chance():
        core.apply(core.chance_outcomes()[0][0])
    assert core.phase == "redraw" and core.current_player() == 0
    told = []
    for a in (DECLINE, REDRAW):
        after = core.copy()
        after.apply(a)
        told.append([e.text for e in german.step(core, a, after)])
        assert [e.text for e in Narrator(config(), 0).step(core, a, after)][0] == (
            "You keep your hand." if a == DECLINE else "You redraw the 5 cards drawn this turn.")
    assert told[0] == told[1] == ["Polish decides in secret whether to redraw."]
    # revealed once the German player has decided
    after = core.copy()
    after.apply(REDRAW)
    then = after.copy()
    then.apply(DECLINE)
    texts = [e.text for e in german.step(after, DECLINE, then)]
    assert texts[:2] == ["You keep your hand.",
                         "Revealed: Polish redraws the 5 cards drawn this turn."]
    assert any(t.startswith("Polish sends back 5 cards") for t in texts)
    mine = [e.text for e in Narrator(config(), 0).step(after, DECLINE, then)]
    assert any(re.match(r"You send back (PL\d\d, ){4}PL\d\d;", t) for t in mine)


def search_position(**kw):
    # Polish Scouts (search 4+) in the Periphery with Good Luck in hand; German Bad Luck
    return build(places={"PL01": "periphery", "PL18": "hand", "DE01": "base", "DE18": "hand"},
                 fragments={"periphery": 2}, **kw)


def drive(core, narrator, actions):
    """Applies actions (chance outcomes included) and returns the texts."""
    texts = []
    for a in actions:
        before = core.copy()
        core.apply(a)
        texts += [e.text for e in narrator.step(before, a, core)]
    return texts


def test_a_search_with_a_modifier_tells_die_totals_needed_and_the_fragment():
    core = search_position()
    polish = Narrator(config(), 0)
    texts = drive(core, polish, [act("SEARCH", "PL01"), 2])  # die 3
    assert texts == ["You search the Periphery with PL01 Scouts (needs 4 or more).",
                     "Search die for PL01 Scouts (Polish): 3, needs 4: fails unless modified."]
    assert pending_text(core) == ("Polish search by PL01 Scouts (needs 4 or more): Polish die 3: "
                                  "fails as it stands")
    texts = drive(core, polish, [act("PLAY", "PL18")])
    assert texts == ["You play PL18 Good Luck: +2 to your roll. Now Polish total 5 (die 3 + 2), "
                     "needs 4."]
    assert "Polish total 5 (die 3 + 2): succeeds as it stands" in pending_text(core)
    assert pending_figures(core) == {"needed": 4, "total": 5, "dice": [3], "modifiers": [2, 0],
                                     "totals": "Polish total 5 (die 3 + 2), needs 4",
                                     "succeeds_as_it_stands": True}
    # the German player passes priority: public (R29), told to both; the Polish
    # player, holding nothing more, passes too (forced: told to the German player
    # in the same words as a chosen pass) and the window closes
    german_view = Narrator(config(), 1)
    before = core.copy()
    core.apply(DECLINE)
    outcome = ["The search succeeds: Polish total 5 (die 3 + 2), needs 4.",
               "A fragment moves from the Periphery to the Forest (Periphery 1, Forest 1)."]
    assert [e.text for e in polish.step(before, DECLINE, core)] == [
        "German passes priority.", *outcome]
    assert [e.text for e in german_view.step(before, DECLINE, core)] == [
        "You pass priority.", "Polish passes priority.", *outcome]


def test_an_attack_tells_both_dice_the_totals_and_the_card_destroyed():
    core = build(places={"PL02": "periphery", "DE01": "periphery", "DE06": "periphery",
                         "DE07": "periphery"}, fragments={"periphery": 1})
    core.apply(act("ATTACK", "PL02"))
    # two identical Soldiers: one option stands for both (R27), and it says so
    assert core.phase == "target"
    assert option_notes(core) == {act("SELECT_ENEMY", "DE06"): ["DE07"]}
    before = core.copy()
    core.apply(act("SELECT_ENEMY", "DE06"))
    polish, german = Narrator(config(), 0), Narrator(config(), 1)
    assert [e.text for e in polish.step(before, act("SELECT_ENEMY", "DE06"), core)] == [
        "You target DE06 Soldiers (2 bullets); DE07 is identical (R27)."]
    # the German player may escort with DE07 and declines: only the German hears of it
    before = core.copy()
    core.apply(DECLINE)
    assert [e.text for e in german.step(before, DECLINE, core)] == ["You decline Escort."]
    assert [e.text for e in polish.step(before, DECLINE, core)] == []
    assert pending_text(core) == ("Polish attack by PL02 Partisans (2 bullets) on DE06 Soldiers "
                                  "(2 bullets): no dice rolled yet")
    texts = drive(core, german, [4, 1])  # dice 5 and 2
    assert texts == ["Attack die for PL02 Partisans (Polish): 5.",
                     "Defence die for DE06 Soldiers (German): 2. Polish 7 (die 5 + 2 bullets) "
                     "against German 4 (die 2 + 2 bullets): the attack succeeds unless modified.",
                     # neither holds a modifier: the Polish pass of priority is public
                     # all the same (R29), the German one is the viewer's own, forced
                     "Polish passes priority.",
                     "The attack succeeds: Polish 7 (die 5 + 2 bullets) beats German 4 "
                     "(die 2 + 2 bullets).",
                     "DE06 Soldiers is destroyed."]
    assert core.location(gi("DE06"))[0] == "gone"


def test_pending_text_shows_the_totals_of_an_attack_under_way():
    core = build(places={"PL02": "periphery", "DE06": "periphery", "PL18": "hand"})
    for a in (act("ATTACK", "PL02"), 4, 1):  # one target, no escort: dice 5 and 2
        core.apply(a)
    assert core.phase == "modifiers"
    assert pending_text(core) == ("Polish attack by PL02 Partisans (2 bullets) on DE06 Soldiers "
                                  "(2 bullets): Polish 7 (die 5 + 2 bullets) against German 4 "
                                  "(die 2 + 2 bullets): succeeds as it stands")


def test_volunteers_tell_the_actions_left_and_a_pass_the_actions_lost():
    core = build(places={"PL13": "forest", "PL01": "forest"})
    texts = drive(core, Narrator(config(), 1), [act("VOLUNTEERS", "PL13")])
    assert texts == ["Polish activates PL13 Volunteers: Volunteers, 2 more actions.",
                     "Polish has 2 actions left in a row."]
    texts = drive(core, Narrator(config(), 0), [PASS])
    assert texts[0] == "You pass (2 actions of the chain left unused)."


def test_hidden_fragments_and_the_end_of_the_turn_with_the_score():
    core = build(places={"PL16": "hand"}, fragments={"periphery": 3, "forest": 2}, turns=4)
    n = Narrator(config(), -1)
    texts = drive(core, n, [act("PLAY", "PL16"), encode_number(2)])
    assert texts[-1] == ("Polish hides 2 fragments on Hidden Fragments (Periphery now 1); "
                         "they return at the end of the turn.")
    texts = drive(core, n, [PASS, PASS])
    end = next(t for t in texts if t.startswith("End of turn 1"))
    assert "2 fragments return from Hidden Fragments to the Periphery" in end
    assert end.endswith("Score: Polish 2, German 0.")
    assert "Turn 2 of 4 begins: each player draws 5 cards." in texts


def encode_number(n):
    from solver._core import encode_action
    return encode_action("NUMBER", n - 1)


def test_the_end_of_the_game_names_the_winner_and_why(narrated):
    for seed in narrated:
        last = narrated[seed][0][-1][-1][-1]
        assert last.kind is Kind.GAME_OVER and last.text.startswith("Game over: ")
        after = narrated[seed][0][-1][2]
        winner = ("polish", "german")[after.winner]
        assert last.details["winner"] == winner


def test_entries_are_json_ready_and_round_trip(narrated):
    entries = [e for *_, es in narrated[0][0] for e in es]
    data = json.loads(json.dumps([e.to_json() for e in entries]))
    assert [Entry.from_json(d) for d in data] == entries


def test_a_position_that_does_not_follow_is_refused():
    core = search_position()
    other = search_position(actor=0)
    other.apply(PASS)
    with pytest.raises(IllegalActionError, match="does not follow"):
        Narrator(config(), 0).step(core, act("SEARCH", "PL01"), other)


def test_condense_makes_one_line_of_a_run_of_draws(narrated):
    entries = [e for *_, es in narrated[0][0][:12] for e in es]
    lines = condense(entries)
    assert lines[0].startswith("You draw ") and lines[0].count(", ") == 4
    assert lines[1] == "German draws 5 cards."
    german = condense([e for *_, es in narrated[0][1][:12] for e in es])
    assert german[0] == "Polish draws 5 cards."


def test_apply_raw_steps_narrate_like_apply(games):
    """Stepping with apply_raw (play --ask-all) tells the same public story."""
    steps = games[3]
    n = Narrator(config(), -1)
    whole = [e.text for b, a, c in steps for e in n.step(b, a, c)]
    raw = []
    for b, a, c in steps:
        state = b.copy()
        action = a
        while True:
            nxt = state.copy()
            nxt.apply_raw(action)
            raw += [e.text for e in n.step(state, action, nxt)]
            state = nxt
            if state == c:
                break
            opts = ([x for x, _ in state.chance_outcomes()] if state.is_chance()
                    else state.legal_actions())
            action = opts[0]
    assert raw == whole


def test_viewer_must_be_a_side_or_public():
    with pytest.raises(ValueError, match="viewer"):
        Narrator(config(), 2)


@pytest.mark.parametrize("seed", range(6))
def test_pending_figures_agree_with_the_pending_text(seed):
    """The page draws the figures beside the text: both from one narrator."""
    seen = 0
    for _, _, after in random_game(seed):
        figures, text = pending_figures(after), pending_text(after)
        if not figures:
            continue
        seen += 1
        pend = after.pending
        assert pend["kind"] in ("attack", "search", "steal") and text
        if "needed" in figures:
            assert f"needs {figures['needed']} or more" in text
        if "totals" in figures:
            assert figures["dice"] == list(pend["dice"])
            if "succeeds_as_it_stands" in figures:
                word = "succeeds" if figures["succeeds_as_it_stands"] else "fails"
                assert f"{word} as it stands" in text, (figures, text)
    assert seen


def _raw_passes(before, action, after):
    """The passes of priority in the raw steps from ``before`` to ``after``
    (the action, then the single-option moves Core.apply made): [(player,
    forced)]."""
    state, out, first = before.copy(), [], True
    while True:
        if not state.is_chance() and state.phase == "modifiers" and action == DECLINE:
            out.append((state.current_player(), not first or len(state.legal_actions()) == 1))
        state.apply_raw(action)
        if state == after:
            return out
        options = ([a for a, _ in state.chance_outcomes()] if state.is_chance()
                   else state.legal_actions())
        action, first = options[0], False


def test_passes_of_priority_are_public(narrated):
    """R29: in a modifier window a pass of priority is public and looks the
    same whether the player could have played something or not: the other
    side and a spectator are told of every one (the bot's too, as the
    human's own are told to the human), in the same words; the player who
    passed is told of those it chose."""
    seen = {True: 0, False: 0}
    for seed in narrated:
        for viewer in (0, 1, -1):
            for before, action, after, entries in narrated[seed][viewer]:
                if before.is_chance():
                    continue
                passes = _raw_passes(before, action, after)
                told = [e for e in entries if e.details.get("action") == "pass priority"]
                expected = [("You pass priority." if p == viewer else
                             f"{('Polish', 'German')[p]} passes priority.")
                            for p, forced in passes if not (p == viewer and forced)]
                assert [e.text for e in told] == expected, (seed, viewer)
                for p, forced in passes:
                    if p != viewer:
                        seen[forced] += 1
    assert seen[True] > 0 and seen[False] > 0, seen


def test_no_engine_name_reaches_the_text(narrated, games):
    """No snake_case engine name (hidden_fragments, motorized_refresh, ...)
    in any entry or in what is under way, whoever the viewer."""
    from solver.vocabulary import PENDING_KINDS
    snake = re.compile(r"\b[a-z]+_[a-z_]+\b")
    for seed in narrated:
        for viewer in (0, 1, -1):
            for *_, entries in narrated[seed][viewer]:
                for e in entries:
                    assert not snake.search(e.text), e.text
    kinds = set()
    for steps in games.values():
        for before, _, after in steps:
            for core in (before, after):
                if core.pending:
                    kinds.add(core.pending["kind"])
                    text = pending_text(core)
                    assert not snake.search(text), text
    assert {"hidden_fragments", "motorized_refresh", "high_morale", "command"} <= kinds, kinds


def test_a_refresh_by_the_motorized_column_is_named_for_people():
    """German refreshes DE02 Soldiers (Motorized Column), not
    (motorized_refresh); and what is under way names it too."""
    from solver.vocabulary import KIND_TITLES
    for seed in range(40):
        for before, action, after in random_game(seed):
            if not before.is_chance() and before.phase == "refresh" \
                    and before.pending["kind"] == "motorized_refresh":
                text = " ".join(e.text for e in Narrator(config(), -1).step(before, action, after))
                assert "(Motorized Column)." in text and "motorized" not in text, text
                assert pending_text(before).endswith(
                    f"{KIND_TITLES['motorized_refresh']}: which exhausted Unit to refresh")
                return
    pytest.fail("no Motorized Column refresh in 40 random games")


def test_every_die_names_the_side_that_rolled_it(narrated):
    """Issue 46: twelve seeded games, every viewer: each die's entry and each
    outcome names the side whose die it is (the attacker's or searcher's
    first, the defender's second), taken from the position before the roll;
    the outcome says who rolled in its details too."""
    titles = {"polish": "Polish", "german": "German"}
    rolls = outcomes = 0
    for seed in narrated:
        for viewer in (0, 1, -1):
            for before, _, _, entries in narrated[seed][viewer]:
                pend = before.pending
                for e in entries:
                    if e.kind == Kind.ROLL:
                        first = len(pend["dice"]) == 0
                        side = pend["actor"] if first else 1 - pend["actor"]
                        name = ("Polish", "German")[side]
                        assert f"({name}): " in e.text, e.text
                        assert f"({('German', 'Polish')[side]}): " not in e.text, e.text
                        rolls += 1
                    elif e.kind == Kind.OUTCOME:
                        actor = titles[e.details["actor"]]
                        assert e.details["actor"] == ("polish", "german")[pend["actor"]]
                        assert e.details["card"][:2] == ("PL", "DE")[pend["actor"]]
                        if e.details["action"] == "attack":
                            assert re.search(rf"{actor} \d+ \(die", e.text), e.text
                        else:
                            assert re.search(rf"{actor} (die|total) \d", e.text), e.text
                        outcomes += 1
    assert rolls > 50 and outcomes > 20

"""Opponent-hand inference (bots._inference, the searchers' ``inference=``):
it reads only what the searcher's player saw, never gives a consistent
world zero weight, and with ``inference=off`` the searches are unchanged."""
import random

import pyspiel
import pytest

from apps.advise import advise
from apps.gamebot import GameBot
from apps.record import Actor, GameRecord, Setup, Step, new_record
from bots.spec import BotSpec
from bots import BotSpecError, make_bot
from bots._inference import WEIGHT_FLOOR, Observations
from bots._ismcts import ISMCTS
from bots._oos import OOS
from bots.heuristic import HeuristicBot
from solver import state_io
from solver._core import encode_action
from solver.errors import StateFormatError

PASS = encode_action("PASS")
DECLINE = encode_action("DECLINE")
GAME = pyspiel.load_game("wildhorn")


def heuristic_game(seed, moves):
    """A full-game history of the heuristic bot on both sides (chance from
    ``seed``), stopped at the ``moves``-th decision or the end."""
    rng = random.Random(seed)
    bots = [HeuristicBot(p, seed + p) for p in (0, 1)]
    state = GAME.new_initial_state()
    decisions = 0
    while not state.is_terminal() and decisions < moves:
        if state.is_chance_node():
            actions, probs = zip(*state.chance_outcomes())
            state.apply_action(rng.choices(actions, probs)[0])
            continue
        state.apply_action(bots[state.current_player()].step(state))
        decisions += 1
    return state


def twin_history(history, viewer, x, y):
    """The game ``history`` with the opponent's cards ``x`` and ``y`` (global
    indices, never seen by ``viewer``) exchanged in its draws: the same
    public history, another hidden hand.  The opponent's passes and declines
    follow the new hand: a decline at a window the other hand does not open
    is dropped, and a window it opens is declined (R29); a pass where the
    old hand had no choice is added (R30).  None if the opponent's play
    would not be legal with the other hand."""
    o = 1 - viewer
    base = o * 23
    swap = {x - base: y - base, y - base: x - base}
    a = GAME.new_initial_state().core.copy()
    b = a.copy()
    out = []

    def decides(core):
        return not core.is_chance() and not core.is_terminal() and core.current_player() == o

    for act in history:
        if decides(a) and act in (PASS, DECLINE) and not (
                decides(b) and b.phase == a.phase and act in b.legal_actions()):
            a.apply(act)         # a decision the other hand does not have
            continue
        while decides(b) and not (decides(a) and a.phase == b.phase):
            nonplay = [c for c in b.legal_actions() if c in (PASS, DECLINE)]
            if not nonplay:
                return None
            out.append(nonplay[0])
            b.apply(nonplay[0])
        mapped = act
        if a.is_chance() and a.phase == "draw" and a.draw_info()["side"] == o:
            mapped = swap.get(act, act)
        legal = [c for c, _ in b.chance_outcomes()] if b.is_chance() else b.legal_actions()
        if mapped not in legal:
            return None
        out.append(mapped)
        a.apply(act)
        b.apply(mapped)
    while decides(b):
        nonplay = [c for c in b.legal_actions() if c in (PASS, DECLINE)]
        if not nonplay:
            return None
        out.append(nonplay[0])
        b.apply(nonplay[0])
    return out


def replay(history):
    state = GAME.new_initial_state()
    for a in history:
        state.apply_action(a)
    return state


def twins():
    """Pairs of games that differ only in the opponent's hidden cards, at a
    decision of the viewer where inference weighs worlds: (viewer, state A,
    state B), at least one pair whose histories differ in the opponent's
    passes or declines as well as in its draws."""
    found, differ_in_declines = [], False
    cards = GAME.core_config.card_set.cards
    for seed in range(40):
        for moves in (40, 70, 110):
            state = heuristic_game(seed, moves)
            if state.is_terminal() or state.is_chance_node():
                continue
            viewer = state.current_player()
            core = state.core
            o = 1 - viewer
            hand = [g for g in core.cards_at("hand", o) if not cards[g].start]
            deck = [g for g in core.cards_at("deck", o) if not cards[g].start]
            pairs = [(x, y) for x in hand for y in deck
                     if cards[x].type.key != cards[y].type.key]
            for x, y in pairs[:6]:
                other = twin_history(state.history(), viewer, x, y)
                if other is None:
                    continue
                twin = replay(other)
                if twin.is_chance_node() or twin.current_player() != viewer:
                    continue
                obs = Observations.from_history(GAME.new_initial_state().core,
                                                state.history(), viewer)
                if not obs._weights(core, 1)[1]:
                    continue   # nothing to weigh here
                nonplays = lambda h: [a for a in h if a in (PASS, DECLINE)]
                if len(nonplays(other)) != len(nonplays(state.history())):
                    differ_in_declines = True
                found.append((viewer, state, twin))
                break
            if len(found) >= 6 and differ_in_declines:
                return found
    assert differ_in_declines, "no twin games differing in declines were found"
    return found


@pytest.fixture(scope="module")
def twin_games():
    return twins()


def test_twins_have_the_same_public_history(twin_games):
    for viewer, a, b in twin_games:
        assert a.core.info_string(viewer) == b.core.info_string(viewer)
        assert a.core != b.core        # the opponent's hands differ
        assert a.history() != b.history()


def test_weights_ignore_the_opponents_hidden_cards(twin_games):
    """Same seed, same public history, other hidden hand: the same worlds
    with exactly the same weights, and the same search."""
    initial = GAME.new_initial_state().core
    for viewer, a, b in twin_games:
        obs_a = Observations.from_history(initial, a.history(), viewer)
        obs_b = Observations.from_history(initial, b.history(), viewer)
        assert len(obs_a) == len(obs_b)
        worlds_a, weights_a = obs_a._weights(a.core, 9)
        worlds_b, weights_b = obs_b._weights(b.core, 9)
        assert weights_a and weights_a == weights_b
        assert [w.to_bytes() for w in worlds_a] == [w.to_bytes() for w in worlds_b]
        assert len(set(weights_a)) > 1
        stats = [ISMCTS(seed=4, inference="heuristic").search(s.core, iterations=200,
                                                              observations=o)
                 for s, o in ((a, obs_a), (b, obs_b))]
        assert [x["actions"] for x in stats[0:1]] == [x["actions"] for x in stats[1:2]]


def test_bot_weights_from_the_history_ignore_hidden_cards(twin_games):
    """The bot builds its observations from the pyspiel history itself."""
    viewer, a, b = twin_games[0]
    spec = "ismcts:iterations=200,inference=heuristic"
    ra = make_bot(spec, viewer, 3).analyse(a)
    rb = make_bot(spec, viewer, 3).analyse(b)
    assert ra["stats"]["belief_worlds"] > 0
    assert ra["stats"]["actions"] == rb["stats"]["actions"]


def test_inference_with_threads_each_tree_weighs_and_ignores_hidden_cards(twin_games):
    """threads=2 with inference: every tree draws its own weighted pool, the
    search is reproducible, and the twins still give the same search."""
    initial = GAME.new_initial_state().core
    viewer, a, b = twin_games[0]
    obs_a = Observations.from_history(initial, a.history(), viewer)
    obs_b = Observations.from_history(initial, b.history(), viewer)
    runs = [ISMCTS(seed=4, inference="heuristic", threads=2).search(s.core, iterations=300,
                                                                   observations=o)
            for s, o in ((a, obs_a), (a, obs_a), (b, obs_b))]
    assert runs[0]["threads"] == 2 and runs[0]["belief_worlds"] > 0
    assert runs[0]["actions"] == runs[1]["actions"] == runs[2]["actions"]
    one = ISMCTS(seed=4, inference="heuristic").search(a.core, iterations=300,
                                                       observations=obs_a)
    assert one["actions"] != runs[0]["actions"]   # two trees are another search


def test_floor_no_consistent_world_gets_zero_weight(twin_games):
    initial = GAME.new_initial_state().core
    for viewer, a, _ in twin_games:
        obs = Observations.from_history(initial, a.history(), viewer)
        worlds, weights = obs._weights(a.core, 2)
        top = max(weights)
        assert min(weights) >= WEIGHT_FLOOR * top * (1 - 1e-12)
        for w in worlds:   # every pool world is consistent with the viewer's view
            assert w.info_string(viewer) == a.core.info_string(viewer)
            assert obs.loglik(w) > float("-inf")
        # the true world is consistent, so it has a positive likelihood too
        assert obs.loglik(a.core) > float("-inf")


def test_inference_off_is_todays_search():
    """inference=off (the default) searches exactly as without the option,
    whatever observations it is given."""
    state = heuristic_game(3, 60)
    viewer = state.current_player()
    obs = Observations.from_history(GAME.new_initial_state().core, state.history(), viewer)
    for engine in (ISMCTS, OOS):
        plain = engine(seed=5).search(state.core, iterations=300)
        off = engine(seed=5, inference="off").search(state.core, iterations=300,
                                                     observations=obs)
        assert plain["actions"] == off["actions"] and plain["value"] == off["value"]
        assert off["belief_worlds"] == 0
    for name in ("ismcts", "oos"):
        on_core = make_bot(f"{name}:iterations=200", viewer, 8).analyse(state.core)
        on_state = make_bot(f"{name}:iterations=200,inference=off", viewer, 8).analyse(state)
        assert on_core["stats"]["actions"] == on_state["stats"]["actions"]


def test_inference_without_history_samples_uniformly():
    """A bare position (no history) or observations of another player:
    the search is the uniform one."""
    state = heuristic_game(5, 50)
    viewer = state.current_player()
    wrong = Observations.from_history(GAME.new_initial_state().core, state.history(),
                                      1 - viewer)
    plain = ISMCTS(seed=2).search(state.core, iterations=200)
    for obs in (None, wrong):
        on = ISMCTS(seed=2, inference="heuristic").search(state.core, iterations=200,
                                                          observations=obs)
        assert on["actions"] == plain["actions"]


def test_oos_uses_the_weighted_worlds(twin_games):
    viewer, a, _ = twin_games[0]
    obs = Observations.from_history(GAME.new_initial_state().core, a.history(), viewer)
    stats = OOS(seed=1, inference="heuristic").search(a.core, iterations=200,
                                                      observations=obs)
    assert stats["belief_worlds"] > 0


def test_spec_option():
    assert make_bot("ismcts:inference=heuristic", 0).search_engine.inference == "heuristic"
    assert make_bot("oos:inference=heuristic", 0).search_engine.inference == "heuristic"
    assert make_bot("ismcts", 0).search_engine.inference == "off"
    with pytest.raises(BotSpecError, match="inference"):
        make_bot("ismcts:inference=maybe", 0)
    with pytest.raises(ValueError, match="inference"):
        ISMCTS(inference="maybe")


# ---- advise: a state file's opponent_plays ---------------------------------------


def plays_game():
    """A heuristic game stopped at a decision of the viewer after some plays
    of the opponent in the same turn's action step; (state, viewer, plays),
    plays as (position before, action) pairs."""
    for seed in range(60):
        rng = random.Random(seed)
        bots = [HeuristicBot(p, seed + p) for p in (0, 1)]
        state = GAME.new_initial_state()
        plays = {0: [], 1: []}
        turn = 0
        while not state.is_terminal():
            if state.core.turn != turn:
                turn, plays = state.core.turn, {0: [], 1: []}
            if state.is_chance_node():
                actions, probs = zip(*state.chance_outcomes())
                state.apply_action(rng.choices(actions, probs)[0])
                continue
            p = state.current_player()
            if len(plays[1 - p]) >= 2 and len(state.legal_actions()) > 1:
                return state, p, plays[1 - p]
            action = bots[p].step(state)
            if state.core.phase != "redraw" and action not in (PASS, DECLINE):
                plays[p].append((state.core.copy(), action))
            state.apply_action(action)
    raise AssertionError("no game with two plays of the opponent in a turn")


def state_file(state, viewer, plays):
    data = state_io.to_json(state.core, viewer)
    data["opponent_plays"] = [
        {"before": state_io.to_json(before, viewer),
         "action": before.action_string(1 - viewer, action)} for before, action in plays]
    return data


def test_advise_reads_the_opponent_plays_of_a_state_file():
    state, viewer, plays = plays_game()
    data = state_file(state, viewer, plays)
    loaded = state_io.from_json(data, seed=3)
    read = state_io.opponent_plays(data, seed=3)
    assert [a for _, a in read] == [a for _, a in plays]
    obs = Observations(GAME.core_config, viewer)
    for before, action in read:
        obs.record_play(before, action)
    worlds, weights = obs._weights(loaded.core, 4)
    assert weights and min(weights) > 0
    # the plays' positions are read from the viewer's view only: other
    # hidden cards in them (another seed) give the same weights
    again = Observations(GAME.core_config, viewer)
    for before, action in state_io.opponent_plays(data, seed=11):
        again.record_play(before, action)
    assert again._weights(loaded.core, 4)[1] == weights
    spec = "ismcts:iterations=200,inference=heuristic"
    with_plays = advise(loaded, bot_spec=spec, seed=1, responses=False, opponent_plays=read)
    assert with_plays["recommended"] and with_plays["stats"]["belief_worlds"] > 0
    alone = advise(loaded, bot_spec=spec, seed=1, responses=False)
    assert alone["stats"]["belief_worlds"] == 0   # without the plays: uniform worlds
    plain = advise(loaded, bot_spec="ismcts:iterations=200", seed=1, responses=False,
                   opponent_plays=read)
    without = advise(loaded, bot_spec="ismcts:iterations=200", seed=1, responses=False)
    assert plain["actions"] == without["actions"]   # inference off: the plays change nothing


@pytest.mark.parametrize("change, where", [
    (lambda d: d["opponent_plays"][0].update(action="pass"), "opponent_plays[0].action"),
    (lambda d: d["opponent_plays"][0].update(action="fly away"), "opponent_plays[0].action"),
    (lambda d: d["opponent_plays"][0]["before"].update(turn=d["turn"] % 4 + 1),
     "opponent_plays[0].before.turn"),
    (lambda d: d["opponent_plays"][0]["before"].update(
        opponent_plays=[]), "opponent_plays[0].before.opponent_plays"),
    (lambda d: d["opponent_plays"][0].update(extra=1), "opponent_plays[0]"),
])
def test_bad_opponent_plays_are_refused_in_one_line(change, where):
    state, viewer, plays = plays_game()
    data = state_file(state, viewer, plays)
    change(data)
    with pytest.raises(StateFormatError) as err:
        state_io.from_json(data, source="s.json")
    message = str(err.value)
    assert "\n" not in message and message.startswith("s.json: ") and where in message


def test_server_and_play_give_the_bot_the_same_observations(twin_games):
    """The game's bot on a game record (GameBot.decide_record with the
    record's transitions, as play and the server run it) reads what a
    tournament's bot reads from the pyspiel history: the same search."""
    viewer, state, _ = twin_games[0]
    spec = "ismcts:iterations=150,inference=heuristic"
    record = GameRecord(Setup((), 1 - viewer, BotSpec.parse(spec), 1))
    for a in state.history():  # the twin game's steps, chance included, into the record
        record._apply(Step(a, Actor.RULES))
    assert [a for _, a in record.observations()] == state.history()
    # the server's bot is interactive (threads: the cores), as is this one
    direct = make_bot(spec, viewer, 6, interactive=True).analyse(state)
    bot = GameBot(record.setup.params, BotSpec.parse(spec), viewer, 6)
    assert bot.infers
    served = bot.decide_record(record)
    assert served["action"] == direct["action"]
    obs = Observations(GAME.core_config, viewer)
    for before, a in record.observations():
        obs.record(before, a)
    again = Observations.from_history(GAME.new_initial_state().core, state.history(), viewer)
    assert obs._weights(state.core, 3)[1] == again._weights(state.core, 3)[1]


def test_undo_forgets_the_abandoned_line():
    """After an undo the bot is fed the transitions of the game as it now
    stands, never those of the line that was taken back."""
    record = new_record(human=0, bot=BotSpec.parse("random"), seed=1)
    for _ in range(6):
        act = record.human_act if record.status() == "human" else record.bot_act
        act(record.core.legal_actions()[-1])
    before_last = record.decision(len(record.human_steps()) - 1)[0]
    kept = record.observations()[:record.human_steps()[-1]]
    assert record.undo()
    assert record.core == before_last
    assert [(b.to_bytes(), a) for b, a in record.observations()] \
        == [(b.to_bytes(), a) for b, a in kept]


def test_observations_of_another_game_are_refused():
    small = pyspiel.load_game("wildhorn", {"variant": "small"})
    state = heuristic_game(3, 40)
    viewer = state.current_player()
    other = Observations(small.core_config, viewer)
    for engine in (ISMCTS, OOS):
        with pytest.raises(ValueError, match="another game"):
            engine(seed=1, inference="heuristic").search(state.core, iterations=10,
                                                         observations=other)

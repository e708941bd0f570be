"""The game as OpenSpiel sees it: registration, conformance, serialization,
action strings, observers, and bad input."""
import pickle

import numpy as np
import pyspiel
import pytest
from solver._core import NUM_DISTINCT_ACTIONS, decode_action, encode_action

import solver
from solver import IllegalActionError, ParameterError, SerializationError
from solver.game import max_game_length


def _play_to_decision(state, seed=0, decisions=20):
    import random
    rng = random.Random(seed)
    while not state.is_terminal() and decisions > 0:
        if state.is_chance_node():
            actions, probs = zip(*state.chance_outcomes())
            state.apply_action(rng.choices(actions, probs)[0])
        else:
            state.apply_action(rng.choice(state.legal_actions()))
            decisions -= 1
    while state.is_chance_node():
        state.apply_action(state.chance_outcomes()[0][0])
    return state


def test_game_type_and_info(full_game):
    gt = full_game.get_type()
    assert gt.short_name == "wildhorn"
    assert gt.dynamics == pyspiel.GameType.Dynamics.SEQUENTIAL
    assert gt.chance_mode == pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC
    assert gt.information == pyspiel.GameType.Information.IMPERFECT_INFORMATION
    assert gt.utility == pyspiel.GameType.Utility.ZERO_SUM
    assert gt.reward_model == pyspiel.GameType.RewardModel.TERMINAL
    assert full_game.num_players() == 2
    assert full_game.num_distinct_actions() == NUM_DISTINCT_ACTIONS == 284
    assert full_game.min_utility() == -1 and full_game.max_utility() == 1
    params = gt.parameter_specification
    for key in ("variant", "card_set", "turns", "draw", "dice", "rockets"):
        assert key in params


@pytest.mark.parametrize("variant,sims", [("full", 60), ("small", 100), ("tiny", 200)])
def test_random_sim_test(variant, sims):
    game = pyspiel.load_game(f"wildhorn(variant={variant})")
    pyspiel.random_sim_test(game, num_sims=sims, serialize=True, verbose=False)


def test_random_sim_test_with_parameters():
    game = pyspiel.load_game("wildhorn(turns=2,draw=4,dice=4,rockets=2;3;4)")
    pyspiel.random_sim_test(game, num_sims=30, serialize=True, verbose=False)


def test_parameters_change_the_game():
    game = pyspiel.load_game("wildhorn(turns=2,dice=4)")
    cfg = game.core_config
    assert cfg.turns == 2 and cfg.dice_sides == 4
    state = game.new_initial_state()
    while state.core.phase != "rocket":
        if state.is_chance_node():
            state.apply_action(state.chance_outcomes()[0][0])
        else:
            state.apply_action(state.legal_actions()[0])  # keep the hand
    # R4: a Rocket reveal is uniform over the five Rocket cards
    outcomes = state.chance_outcomes()
    assert len(outcomes) == 5 and all(abs(p - 0.2) < 1e-12 for _, p in outcomes)


@pytest.mark.parametrize("params,needle", [
    ({"variant": "huge"}, "variant"),
    ({"turns": 9}, "turns"),
    ({"dice": 0}, "dice"),
    ({"rockets": "1,x"}, "rockets"),
    ({"cards": "PL99"}, "PL99"),
    ({"card_set": "/nonexistent/cards.json"}, "cards.json"),
])
def test_bad_parameters(params, needle):
    with pytest.raises((ParameterError, solver.CardSetError)) as info:
        solver.make_config(params)
    assert needle in str(info.value)
    assert "\n" not in str(info.value)


def test_decode_encode_round_trip():
    for a in range(NUM_DISTINCT_ACTIONS):
        assert encode_action(*decode_action(a)) == a
    assert decode_action(101) == ("SEARCH", 1)
    with pytest.raises(IllegalActionError):
        decode_action(NUM_DISTINCT_ACTIONS)


def test_decode_action_docstring_examples():
    import doctest

    import solver._core as core
    finder = doctest.DocTestFinder()
    tests = [t for t in finder.find(core.decode_action, "decode_action", globs={"decode_action": decode_action})]
    assert tests and tests[0].examples
    runner = doctest.DocTestRunner()
    for t in tests:
        runner.run(t)
    assert runner.failures == 0


def test_action_strings_round_trip(full_game):
    for seed in range(5):
        state = _play_to_decision(full_game.new_initial_state(), seed, decisions=10 * seed + 1)
        if state.is_terminal():
            continue
        for a in state.legal_actions():
            text = state.action_to_string(state.current_player(), a)
            assert state.string_to_action(text) == a
    state = full_game.new_initial_state()
    state = _play_to_decision(state, 3, 1)
    with pytest.raises(IllegalActionError):
        state.string_to_action("PL99 Nobody: dance")


def test_action_string_names_card():
    game = pyspiel.load_game("wildhorn(variant=tiny)")
    state = game.new_initial_state()
    state.apply_action(state.chance_outcomes()[0][0])
    texts = [state.action_to_string(state.current_player(), a) for a in state.legal_actions()]
    assert "PL01 Scouts: search" in texts


def test_illegal_action_is_a_clear_error(full_game):
    state = _play_to_decision(full_game.new_initial_state(), 1, 3)
    illegal = next(a for a in range(NUM_DISTINCT_ACTIONS) if a not in state.legal_actions())
    before = str(state)
    with pytest.raises(IllegalActionError) as info:
        state.core.copy().apply(illegal)
    assert "not legal" in str(info.value) and "\n" not in str(info.value)
    with pytest.raises(IllegalActionError):
        state.core.copy().apply(10**12)
    with pytest.raises(IllegalActionError):
        state.core.copy().apply("search")
    assert str(state) == before


def test_serialize_round_trip(full_game):
    for seed in range(10):
        state = _play_to_decision(full_game.new_initial_state(), seed, decisions=7 * seed)
        text = state.serialize()
        back = full_game.deserialize_state(text)
        assert str(back) == str(state)
        for p in (0, 1):
            assert back.information_state_string(p) == state.information_state_string(p)
        assert back.legal_actions() == state.legal_actions()


def test_pyspiel_serialize_game_and_state_round_trip(full_game):
    state = _play_to_decision(full_game.new_initial_state(), 4, 30)
    text = pyspiel.serialize_game_and_state(full_game, state)
    game2, state2 = pyspiel.deserialize_game_and_state(text)
    assert str(state2) == str(state)
    assert state2.history() == state.history()


def test_pickle_round_trip(full_game):
    state = _play_to_decision(full_game.new_initial_state(), 5, 40)
    back = pickle.loads(pickle.dumps(state))
    assert str(back) == str(state)
    core = state.core
    assert pickle.loads(pickle.dumps(core)) == core


@pytest.mark.parametrize("text", [
    "", "hello", "wildhorn-state/1 !!!notbase64", "wildhorn-state/1 AAAA",
    "wildhorn-state/1 " + __import__("base64").b64encode(b"WH1" + b"\xff" * 400).decode(),
])
def test_corrupt_serialized_state(full_game, text):
    with pytest.raises(SerializationError) as info:
        full_game.deserialize_state(text)
    assert "\n" not in str(info.value)


def test_corrupt_bytes_never_crash(full_config):
    """Random byte flips are either refused or give a playable position."""
    import random

    from solver._core import Core
    rng = random.Random(5)
    base = Core(full_config)
    base.playout(3)  # a finished game
    states = [Core(full_config)]
    s = Core(full_config)
    for _ in range(60):
        if s.is_terminal():
            break
        if s.is_chance():
            s.apply(s.chance_outcomes()[0][0])
        else:
            s.apply(s.legal_actions()[-1])
        states.append(s.copy())
    accepted = 0
    for _ in range(3000):
        raw = bytearray(rng.choice(states).to_bytes())
        for _ in range(rng.randint(1, 3)):
            raw[rng.randrange(3, len(raw))] = rng.randrange(256)
        try:
            c = Core.from_bytes(full_config, bytes(raw))
        except SerializationError:
            continue
        accepted += 1
        c.legal_actions(), c.chance_outcomes(), c.info_string(0), c.info_string(1)
        c.resample(0, 1), c.resample(1, 2)
        c.playout(rng.randrange(1000))
        assert c.is_terminal()
    assert accepted > 0


def test_clone_is_independent(full_game):
    state = _play_to_decision(full_game.new_initial_state(), 2, 5)
    clone = state.clone()
    before = str(state)
    clone.apply_action(clone.legal_actions()[0])
    assert str(state) == before
    assert clone.history() == state.history() + [clone.history()[-1]]


def test_frozen_core_cannot_be_mutated(full_game):
    state = full_game.new_initial_state()
    with pytest.raises(ValueError):
        state.core.apply(state.chance_outcomes()[0][0])
    mutable = state.core.copy()
    mutable.apply(state.chance_outcomes()[0][0])


def test_observers(full_game):
    state = _play_to_decision(full_game.new_initial_state(), 6, 12)
    p = state.current_player()
    info = state.information_state_string(p)
    assert info.startswith(f"P{p} ")
    assert state.observation_string(p) == info
    tensor = np.array(state.information_state_tensor(p))
    assert tensor.shape == (full_game.information_state_tensor_size(),)
    assert np.isfinite(tensor).all()
    # the opponent's hand never shows in the player's view (R26)
    from open_spiel.python.observation import make_observation
    public = make_observation(full_game, pyspiel.IIGObservationType(
        public_info=True, perfect_recall=False, private_info=pyspiel.PrivateInfoType.NONE))
    cards_public = next(w for w in public.string_from(state, p).split() if "/" in w)
    assert set(cards_public) <= set("?FfPpBbxe-/"), cards_public  # no hand is shown
    cards_own = next(w for w in info.split() if "/" in w).split("/")
    assert set(cards_own[1 - p]) <= set("?FfPpBbxe-")  # nor the opponent's (R26)
    assert set(cards_own[p]) & set("hdn")  # but the player's own hand and deck are
    private = make_observation(full_game, pyspiel.IIGObservationType(
        public_info=False, perfect_recall=False, private_info=pyspiel.PrivateInfoType.SINGLE_PLAYER))
    assert private.string_from(state, p).startswith(f"P{p} hand:")


def test_max_game_length_bounds_random_games(full_game):
    bound = max_game_length(full_game.core_config)
    assert full_game.max_game_length() == bound
    import random
    rng = random.Random(9)
    longest = 0
    for _ in range(100):
        state = full_game.new_initial_state()
        decisions = 0
        while not state.is_terminal():
            if state.is_chance_node():
                state.apply_action(rng.choice([a for a, _ in state.chance_outcomes()]))
            else:
                state.apply_action(rng.choice(state.legal_actions()))
                decisions += 1
        longest = max(longest, decisions)
    assert longest <= bound


def test_resample_from_infostate_keeps_key(full_game):
    state = _play_to_decision(full_game.new_initial_state(), 8, 25)
    sampler = pyspiel.UniformProbabilitySampler(7, 0.0, 1.0)
    p = state.current_player()
    for _ in range(20):
        other = state.resample_from_infostate(p, sampler)
        assert other.information_state_string(p) == state.information_state_string(p)
        assert other.legal_actions() == state.legal_actions()


def test_openspiel_python_ismcts_runs(tiny_game):
    """OpenSpiel's own Python ISMCTS drives the game through resample_from_infostate."""
    import numpy as np
    from open_spiel.python.algorithms import ismcts, mcts
    evaluator = mcts.RandomRolloutEvaluator(1, np.random.RandomState(0))
    bot = ismcts.ISMCTSBot(tiny_game, evaluator, 1.4, 50, random_state=np.random.RandomState(1))
    state = tiny_game.new_initial_state()
    while state.is_chance_node():
        state.apply_action(state.chance_outcomes()[0][0])
    action = bot.step(state)
    assert action in state.legal_actions()

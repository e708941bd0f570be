"""The value features (solver._features): their layout adds up, every card is
in exactly one place, the aggregates agree with the cards, and the vector is
a pure function of the position."""

from __future__ import annotations

import random

import numpy as np
import pyspiel
import pytest

import solver.game  # noqa: F401  (registers the game)
from solver._features import FEATURES, FEATURES_VERSION, feature_parts, features

CARD_SLOTS = 9


def _positions(seeds=range(6)):
    game = pyspiel.load_game("wildhorn")
    for seed in seeds:
        rng = random.Random(seed)
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                action = rng.choice([a for a, _ in state.chance_outcomes()])
            else:
                action = rng.choice(state.legal_actions())
            state.apply_action(action)
            yield state


def _part(f, name):
    start = 0
    for part, size in feature_parts():
        if part == name:
            return f[start:start + size]
        start += size
    raise KeyError(name)


def test_the_parts_add_up_to_the_vector():
    assert sum(size for _, size in feature_parts()) == FEATURES
    assert FEATURES_VERSION >= 1


def test_every_card_is_in_one_place_and_the_aggregates_agree():
    checked = 0
    for state in _positions():
        f = features(state.core)
        assert f.dtype == np.float32 and f.shape == (FEATURES,)
        cards = _part(f, "cards").reshape(-1, CARD_SLOTS)
        places = cards[:, :7].sum(axis=1)
        assert set(places.tolist()) <= {0.0, 1.0}
        # the fragments' shares sum to one, the phase is one-hot
        assert _part(f, "fragments")[:6].sum() == pytest.approx(1.0, abs=1e-5)
        assert _part(f, "phase").sum() == 1.0
        # Units and Supports on the table, counted by zone, match the cards' places
        zones = _part(f, "zones").reshape(2, 3, 12)
        on_table = cards[:, 2:5].sum()
        counted = (zones[:, :, 0] + zones[:, :, 1] + zones[:, :, 4]).sum() * 4
        assert counted == pytest.approx(on_table, abs=1e-4)
        # cards in hands and decks by kind match the cards' places
        hands = _part(f, "hands").reshape(2, 2, 4)
        assert hands[:, 0].sum() * 5 == pytest.approx(cards[:, 1].sum(), abs=1e-4)
        assert hands[:, 1].sum() * 5 == pytest.approx(cards[:, 0].sum(), abs=1e-4)
        checked += 1
    assert checked > 500


def test_features_are_a_pure_function_of_the_position():
    for state in list(_positions(seeds=[3]))[::17]:
        a = features(state.core)
        b = features(state.core.copy() if hasattr(state.core, "copy") else state.core)
        out = np.full(FEATURES, 7.0, dtype=np.float32)
        features(state.core, out)
        assert np.array_equal(a, b) and np.array_equal(a, out)


def test_a_wrong_output_array_is_refused():
    state = next(_positions(seeds=[1]))
    with pytest.raises(ValueError, match="entries"):
        features(state.core, np.zeros(FEATURES - 1, dtype=np.float32))

"""Seeded mutants of serialized states (issue 22): ``Core.from_bytes`` refuses
them with a one-line SerializationError, or accepts a position every part of
the engine can work on: legal actions at a decision, chance outcomes that add
up to one, a playout that ends, a resample, the tensor, the text, a short
ISMCTS search.  Never another exception, never a crash (CI runs this on the
AddressSanitizer + UndefinedBehaviorSanitizer build too, see ``.ci/run``).

``WILDHORN_FUZZ_CASES`` sets the number of mutants (default 300).
"""

from __future__ import annotations

import math
import os
import random

import numpy as np
import pytest

from bots._ismcts import ISMCTS
from solver._core import Core, CoreConfig, describe, tensor_pieces
from solver.cards import load_card_set
from solver.errors import SerializationError

pytestmark = pytest.mark.fuzz

CASES = int(os.environ.get("WILDHORN_FUZZ_CASES", "300"))
CFG = CoreConfig(load_card_set())
TENSOR = sum(n for _, n in tensor_pieces())
HEADER = 3  # the magic before the state struct


def _positions(rng: random.Random, games: int = 6) -> list[Core]:
    """Positions of random play: every node of a few seeded games."""
    out = []
    for _ in range(games):
        core = Core(CFG)
        while not core.is_terminal():
            out.append(core.copy())
            moves = ([a for a, _ in core.chance_outcomes()] if core.is_chance()
                     else core.legal_actions())
            core.apply(rng.choice(moves))
        out.append(core)
    return out


def _mutant(rng: random.Random, raw: bytes) -> bytes:
    """One to three bytes of the struct set to a random, boundary or nearby value."""
    data = bytearray(raw)
    for _ in range(rng.randint(1, 3)):
        i = rng.randrange(HEADER, len(data))
        data[i] = rng.choice([0, 1, 2, 7, 8, 0x7F, 0x80, 0xFF, rng.randrange(256),
                              (data[i] + rng.choice([-1, 1])) & 0xFF])
    return bytes(data)


def _exercise(core: Core, seed: int) -> None:
    """Everything a bot or an interface does with a position."""
    if core.is_terminal():
        assert core.winner in (0, 1)
        return
    if core.is_chance():
        outcomes = core.chance_outcomes()
        assert outcomes and math.isclose(sum(p for _, p in outcomes), 1.0)
    else:
        legal = core.legal_actions()
        assert legal, "a decision node without a legal action"
        for p in (0, 1):
            core.resample(p, seed)
        ISMCTS(seed=seed, max_nodes=10_000).search(core, iterations=30)
    for p in (-1, 0, 1, 2):
        core.info_string(p)
        core.fill_tensor(p, np.zeros(TENSOR, np.float32))
    describe(core)
    assert core.copy().playout(seed) in (0, 1)


def test_serialized_mutants_are_refused_or_sound():
    rng = random.Random(2026)
    positions = _positions(rng)
    refused = accepted = 0
    for case in range(CASES):
        raw = _mutant(rng, rng.choice(positions).to_bytes())
        try:
            core = Core.from_bytes(CFG, raw)
        except SerializationError as e:
            assert "\n" not in str(e) and len(str(e)) < 300
            refused += 1
            continue
        accepted += 1
        _exercise(core, case)
    print(f"{CASES} mutants: {refused} refused, {accepted} accepted and sound")
    assert refused and accepted  # both outcomes were exercised

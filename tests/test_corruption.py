"""Impossible positions through serialized states and saves (issue 29).

Each corruption of the issue is built from a real position (a seeded random
game): the field is changed through ``Core.from_fields`` (which checks only
ranges), so the bytes are those a byte flip in a serialized state or in the
``core`` of a save gives.  ``Core.from_bytes`` / ``deserialize_state`` and the
save reader must refuse each with a one-line SerializationError naming the
field, and still accept the uncorrupted position (the control).

Then every single-byte change of serialized positions: each one accepted
must be a position legal play can reach as far as an independent oracle
(written here, in Python, from the rulings) can tell.
"""

from __future__ import annotations

import base64
import json
import random
from pathlib import Path

import pyspiel
import pytest

import solver  # noqa: F401  (registers the game)
from apps.record import new_record, read_save, record_from_text
from bots.spec import BotSpec
from solver._core import Core
from solver.errors import SerializationError, WildhornError
from solver.game import make_config
from solver.state_io import check_position
from playouts import playout

ROOT = Path(__file__).resolve().parent.parent
SAVES_V1 = ROOT / "tests" / "data" / "saves-v1"
HEADER = 3  # the magic before the state struct


def _game(params=None):
    return pyspiel.load_game("wildhorn", params or {})


def _positions(params, seed, games=1):
    rng = random.Random(seed)
    cfg = make_config(params)
    out = []
    for _ in range(games):
        core = None
        for core in playout(cfg, rng):
            out.append(core.copy())
        out.append(core.copy())  # the generator applied the last move: the end
    return out


def _changed(core: Core, **fields) -> bytes:
    """The bytes of ``core`` with ``fields`` changed (ranges checked only)."""
    return Core.from_fields(core.config, {**core.fields(), **fields}).to_bytes()


def _refused(game, raw: bytes, field: str) -> str:
    text = "wildhorn-state/1 " + base64.b64encode(raw).decode("ascii")
    with pytest.raises(SerializationError) as err:
        game.deserialize_state(text)
    message = str(err.value)
    assert "\n" not in message and field in message, message
    with pytest.raises(SerializationError):
        Core.from_bytes(game.core_config, raw)
    return message


def _accepted(game, raw: bytes) -> None:
    game.deserialize_state("wildhorn-state/1 " + base64.b64encode(raw).decode("ascii"))


def _wildhorn_in_hand(core: Core) -> bool:
    names = core.config.names
    return any(names[g].startswith("PL15") for g in core.cards_at("hand", 0))


def test_wildhorn_played_while_pl15_in_hand_is_refused():
    game = _game()
    core = next(c for c in _positions(None, 3) if c.phase == "actions" and _wildhorn_in_hand(c)
                and c.current_player() == 0)
    _accepted(game, _changed(core))
    bad = _changed(core, wildhorn_played=True)
    assert "wildhorn_played" in _refused(game, bad, "wildhorn_played")


def _final(params, seed):
    return _positions(params, seed)[-1]


def test_winner_of_a_tied_game_flipped_to_polish_is_refused():
    """Seed 1 ends 1-1 (R22: a tie goes to the German player)."""
    game = _game()
    core = _final(None, 1)
    f = core.fields()["fragments"]
    assert core.is_terminal() and f["forest"] + f["wildhorn"] == f["base"] == 1
    assert core.winner == 1
    _accepted(game, _changed(core))
    message = _refused(game, _changed(core, winner=0), "winner")
    assert "R22" in message


def test_move_counter_beyond_the_longest_game_is_refused():
    game = _game()
    core = _positions(None, 4)[40]
    _accepted(game, _changed(core))
    assert game.max_game_length() == 5168
    assert "moves" in _refused(game, _changed(core, moves=30_075), "moves")
    _accepted(game, _changed(core, moves=game.core_config.max_moves))


@pytest.mark.parametrize("params, why", [
    ({"turns": 3}, "phase"),                 # over after turn 3: not in a game of 4 turns
    ({"rockets": "3,3,3,3,3"}, "fragments")])  # fired other Rocket values than this game's
def test_a_core_of_another_game_is_refused(params, why):
    game = _game()
    foreign = _final(params, 6) if why == "phase" else _positions(params, 6)[60]
    _accepted(_game(params), foreign.to_bytes())
    _refused(game, foreign.to_bytes(), why)


# ---- saves --------------------------------------------------------------------

def _v1_save(name):
    return json.loads((SAVES_V1 / name).read_text())


def _load(tmp_path, data):
    path = tmp_path / "save.json"
    path.write_text(json.dumps(data))
    return read_save(str(path))


def _with_core(data, core_bytes):
    return dict(data, core=base64.b64encode(core_bytes).decode("ascii"))


def test_a_first_format_save_with_a_corrupted_core_is_refused(tmp_path):
    data = _v1_save("play-over.json")
    game = _game(data["game"])
    core = Core.from_bytes(game.core_config, base64.b64decode(data["core"]))
    assert core.is_terminal()
    _load(tmp_path, _with_core(data, _changed(core)))  # the control loads
    for fields, name in (({"winner": 1 - core.winner}, "winner"),
                         ({"moves": 30_075}, "moves"),
                         ({"wildhorn_played": not core.fields()["wildhorn_played"]},
                          "wildhorn_played")):
        with pytest.raises(SerializationError) as err:
            _load(tmp_path, _with_core(data, _changed(core, **fields)))
        assert "$.core" in str(err.value) and name in str(err.value), str(err.value)
        assert "\n" not in str(err.value)


def test_a_first_format_save_with_the_core_of_another_game_is_refused(tmp_path):
    data = _v1_save("play-over.json")
    foreign = _final({"turns": 3}, 6)
    with pytest.raises(SerializationError) as err:
        _load(tmp_path, _with_core(data, foreign.to_bytes()))
    assert "$.core" in str(err.value)


@pytest.mark.parametrize("first", [0, 1, 0x7FFFFFFF])
def test_a_degenerate_random_state_is_refused(tmp_path, first):
    """Mersenne Twister uses only the top bit of its first word: with it and
    every other word zero, it gives zeros forever."""
    data = _v1_save("play-random.json")
    _load(tmp_path, data)
    words = [first] + [0] * 623 + [624]
    with pytest.raises(SerializationError) as err:
        _load(tmp_path, dict(data, rng=[3, words, None]))
    assert "$.rng" in str(err.value) and "degenerate" in str(err.value)


def test_a_second_format_save_with_a_corrupted_core_is_refused():
    record = new_record(human=0, bot=BotSpec.parse("random"), seed=8)
    data = json.loads(record.save_text())
    core = record.core
    record_from_text(json.dumps(data).encode(), "save")
    for fields in ({"moves": 30_075}, {"wildhorn_played": True}):
        with pytest.raises(SerializationError) as err:
            record_from_text(json.dumps(_with_core(data, _changed(core, **fields))).encode(),
                             "save")
        assert "$.core" in str(err.value)


# ---- every single-byte change -------------------------------------------------

def _oracle(core: Core) -> str | None:
    """What is impossible about an accepted position, by the rulings, or None."""
    f = core.fields()
    cfg = core.config
    cards = {c.global_index: c for c in cfg.card_set.cards}
    wildhorn = [g for g, c in cards.items() if c.type.effect == "operation_wildhorn"]
    assert wildhorn
    if f["wildhorn_played"] != any(f["loc"][g] == "event" for g in wildhorn):
        return "wildhorn_played disagrees with Operation Wildhorn III (R21)"
    if any(f["loc"][g] == "gone" for g in wildhorn):
        return "Operation Wildhorn III left play (R21)"
    if f["moves"] > cfg.max_moves:
        return "moves beyond the longest game"
    if core.is_terminal():
        frag = f["fragments"]
        polish, german = frag["forest"] + frag["wildhorn"], frag["base"]
        over = []
        for side, home in ((0, "forest"), (1, "base")):
            here = [cards[g] for g in cards if f["loc"][g] == home]
            over.append(not any(c.side_id == side for c in here)
                        and any(c.side_id != side and c.type.kind == "unit" for c in here))
        winner = (1 if over[0] and not over[1] else 0 if over[1] and not over[0]
                  else 0 if polish > german else 1)  # R23, else R22 (a tie: German)
        if core.winner != winner:
            return f"winner {core.winner}, R22/R23 give {winner}"
        if f["turn"] != cfg.turns:
            return "the game ended before its last turn"
    return None


def test_every_single_byte_change_is_refused_or_a_legal_position():
    game = _game()
    rng = random.Random(29)
    pool = _positions(None, 1) + _positions(None, 3)
    positions = [pool[0], pool[-1]] + rng.sample(pool, 6)
    positions.append(_final(None, 1))
    tried = refused = 0
    for core in positions:
        raw = core.to_bytes()
        for i in range(HEADER, len(raw)):
            for value in {raw[i] ^ 1, raw[i] ^ 0x80, 0, 1, 0xFF}:
                if value == raw[i]:
                    continue
                data = raw[:i] + bytes([value]) + raw[i + 1:]
                tried += 1
                try:
                    changed = Core.from_bytes(game.core_config, data)
                    check_position(changed, "flip")
                except SerializationError as err:
                    assert "\n" not in str(err)
                    refused += 1
                    continue
                except WildhornError:
                    refused += 1
                    continue
                problem = _oracle(changed)
                assert problem is None, f"byte {i} = {value}: accepted, but {problem}"
    print(f"{tried} single-byte changes of {len(positions)} positions: {refused} refused, "
          f"{tried - refused} accepted and legal by the oracle")
    assert refused and tried - refused

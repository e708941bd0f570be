"""Fuzzing the input contract (issue 22, item 7).

Seeded mutants of state files, card sets and saves go through the loaders
the CLI uses (``state_io.load``, ``load_card_set``, ``apps.record.read_save``);
each must end in one of two ways: a one-line WildhornError (what the CLI
prints with exit status 2), or accepted and valid (the position passes
``check_position`` and has a move or a chance outcome).  Never another
exception, a hang (every case runs under an alarm) or a crash.  A handful
go through the ``wildhorn-solve`` command itself.  Besides the mutants, the
inputs of the issue: /dev/zero, a FIFO, a 3 MB file, a file of a huge
array, a key of a million characters, and peak memory (tracemalloc) of
every refused file under 200 MB.

``WILDHORN_FUZZ_CASES`` (default 300) sets the number of mutants per run;
``WILDHORN_FUZZ_SEED`` (default 0) the seed.  Run only these with
``pytest -m fuzz``; ``-s`` prints the figures (tried, refused, accepted).
"""

from __future__ import annotations

import base64
import io
import json
import os
import random
import signal
import tracemalloc
from collections import Counter
from contextlib import contextmanager
from pathlib import Path

import pytest

from apps.play import PlaySession
from apps.record import GameRecord, new_record, read_save
from bots.spec import BotSpec
from solver import state_io
from solver._core import Core
from solver.cards import default_card_set_path, load_card_set
from solver.errors import WildhornError
from solver.game import make_config
from playouts import playout, spots
from conftest import run_cli
from test_corruption import _oracle

pytestmark = pytest.mark.fuzz

CASES = int(os.environ.get("WILDHORN_FUZZ_CASES", "300"))
SEED = int(os.environ.get("WILDHORN_FUZZ_SEED", "0"))
CASE_SECONDS = 60  # a hang guard, generous for a loaded machine; not a speed test
MESSAGE_LIMIT = 400  # characters of one error line
MEMORY_LIMIT = 200 * 2**20
ROOT = Path(__file__).resolve().parent.parent


class Hang(Exception):
    pass


@contextmanager
def alarm(seconds=CASE_SECONDS):
    def ring(signum, frame):
        raise Hang(f"no answer within {seconds} s")

    old = signal.signal(signal.SIGALRM, ring)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


# --------------------------------------------------------------------------
# Seeds of the mutants
# --------------------------------------------------------------------------


def _random_cores(params, games, seed):
    rng = random.Random(seed)
    cfg = make_config(params)
    return [core.copy() for _ in range(games) for core in playout(cfg, rng)
            if not core.is_chance() and rng.random() < 0.05]


def _save_text(tmp_path):
    """The text of a real save: a few decisions of a game against the heuristic bot."""
    path = tmp_path / "seed-save.json"
    record = new_record(human=0, bot=BotSpec.parse("heuristic"), seed=5)
    session = PlaySession(record, save_path=str(path), inp=io.StringIO("1\n" * 12 + "quit\n"),
                          out=io.StringIO())
    try:
        session.play()
    except Exception as exc:  # quitting ends the session with EndOfInput
        if type(exc).__name__ not in ("_Quit", "EndOfInput"):
            raise
    return path.read_text()


@pytest.fixture(scope="module")
def seeds(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("fuzz-seeds")
    states = [state_io.dumps(core, core.current_player())
              for params in (None, {"variant": "small"})
              for core in _random_cores(params, 2, 3)]
    states += [p.read_text() for p in sorted((ROOT / "examples").glob("*.json"))]
    return {"state": states, "cards": [default_card_set_path().read_text()],
            "save": [_save_text(tmp)]}


# --------------------------------------------------------------------------
# Mutations
# --------------------------------------------------------------------------

_ODD = [None, True, False, 0, 1, -1, 2, 7, 23, 99, 2**31, -2**31, 10**30, 0.5, 2.0, -0.0,
        1e308, "", "PL01", "DE23", "PL99", "forest", "base", "polish", "german", "attack",
        "modifiers", "default", "/dev/zero", "\u0000", "x" * 5000, [], [1], ["PL01"], {},
        {"a": 1}]


def _mutate_json(obj, rng):
    obj = json.loads(json.dumps(obj))
    for _ in range(rng.randint(1, 3)):
        spots_ = list(spots(obj))
        if not spots_:
            return obj
        parent, key = rng.choice(spots_)
        value = parent[key]
        roll = rng.random()
        if roll < 0.15:
            del parent[key]
        elif roll < 0.25 and isinstance(parent, list):
            parent.append(value)
        elif roll < 0.45 and isinstance(value, int) and not isinstance(value, bool):
            parent[key] = rng.choice((value + rng.choice((-2, -1, 1, 2)), float(value), -value))
        elif roll < 0.55 and isinstance(value, str) and len(value) == 4:
            parent[key] = f"{rng.choice(('PL', 'DE'))}{rng.randint(1, 23):02d}"
        elif roll < 0.62 and isinstance(parent, dict):
            parent[rng.choice(("colour", "k" * 3000, "turn ", "Turn"))] = value
        elif roll < 0.67 and isinstance(value, list):
            parent[key] = value * rng.choice((2, 30, 2000))
        else:
            parent[key] = rng.choice(_ODD)
    return obj


def _mutate_text(text, rng):
    roll = rng.random()
    if roll < 0.3:
        return text[:rng.randrange(len(text))]
    if roll < 0.5:
        i = rng.randrange(len(text))
        return text[:i] + rng.choice(("NaN", "Infinity", "1e999", "-", "\u0000", "\ufeff",
                                      "[" * 5000, '"', "}", "\\ud800")) + text[i:]
    if roll < 0.6:
        return text.replace("false", "0").replace("true", "1")
    if roll < 0.75:
        return text.replace(": 0", ": 0.0", 1).replace(": 1,", ": 1.0,", 1)
    raw = bytearray(text.encode())
    for _ in range(rng.randint(1, 4)):
        raw[rng.randrange(len(raw))] = rng.randrange(256)
    return raw.decode("latin-1")


def _mutant(kind, seed_text, rng):
    if rng.random() < 0.7:
        try:
            return json.dumps(_mutate_json(json.loads(seed_text), rng))
        except (ValueError, RecursionError):
            pass
    return _mutate_text(seed_text, rng)


# --------------------------------------------------------------------------
# The contract
# --------------------------------------------------------------------------


def _valid_state(state):
    state_io.check_position(state)
    assert state.is_chance_node() or state.legal_actions()


def _load(kind, path):
    """Loads ``path`` as the CLI would; returns None if accepted and valid,
    else the error message."""
    try:
        if kind == "state":
            _valid_state(state_io.load(path, seed=1))
        elif kind == "cards":
            card_set = load_card_set(path)
            assert len(card_set.cards) >= 2
            make_config({"card_set": str(path)})  # a game of it builds, or a one-line error
        else:
            record = read_save(str(path))
            if not record.core.is_terminal():
                assert record.core.is_chance() or record.core.legal_actions()
    except WildhornError as err:
        return str(err)
    return None


def _check_message(message, path):
    assert "\n" not in message and "\r" not in message, message[:200]
    assert len(message) <= MESSAGE_LIMIT, message[:200]
    assert message.strip()


def test_mutants_end_in_a_one_line_error_or_a_valid_position(seeds, tmp_path):
    rng = random.Random(SEED)
    counts = Counter()
    for i in range(CASES):
        kind = rng.choice(("state", "state", "cards", "save"))
        text = _mutant(kind, rng.choice(seeds[kind]), rng)
        path = tmp_path / f"case-{i}.json"
        path.write_bytes(text.encode("utf-8", "surrogatepass"))
        with alarm():
            message = _load(kind, path)
        counts[kind, "refused" if message else "accepted"] += 1
        if message:
            _check_message(message, path)
    tried = sum(counts.values())
    refused = sum(n for (_, how), n in counts.items() if how == "refused")
    print(f"\nfuzz: {tried} mutants tried, {refused} refused with one line, "
          f"{tried - refused} accepted and valid; {dict(counts)}")
    assert tried == CASES and refused > CASES // 2


def _memory_peak(kind, path):
    tracemalloc.start()
    try:
        with alarm():
            message = _load(kind, path)
        return message, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def _big_inputs(tmp_path, base):
    """(name, path) of the hostile inputs of issue 22, built on the state ``base``."""
    out = []
    out.append(("a huge array in 1 MB", tmp_path / "array.json"))
    out[-1][1].write_text(json.dumps(dict(base, gone=["PL01"] * 120_000)))
    out.append(("3 MB", tmp_path / "big.json"))
    out[-1][1].write_text(json.dumps(dict(base, gone=["PL01"] * 400_000)))
    out.append(("a long unknown key", tmp_path / "key.json"))
    out[-1][1].write_text(json.dumps(dict(base, **{"k" * 900_000: 1})))
    out.append(("deep nesting", tmp_path / "deep.json"))
    out[-1][1].write_text(json.dumps(dict(base, hand="@")).replace('"@"', "[" * 200_000 + "]" * 200_000))
    out.append(("many objects", tmp_path / "objects.json"))
    out[-1][1].write_text(json.dumps(dict(base, table=[{}] * 250_000)))
    out.append(("a long number", tmp_path / "number.json"))
    out[-1][1].write_text(json.dumps(base).replace('"turn": 1', '"turn": 1' + "0" * 900_000))
    return out


@pytest.mark.parametrize("kind", ["state", "cards", "save"])
def test_hostile_files_are_refused_in_little_memory(kind, seeds, tmp_path):
    worst = 0
    for name, path in _big_inputs(tmp_path, json.loads(seeds["state"][0])):
        message, peak = _memory_peak(kind, path)
        assert message, name
        _check_message(message, path)
        worst = max(worst, peak)
        assert peak < MEMORY_LIMIT, (name, peak)
    print(f"\nfuzz: worst peak of a refused {kind} input: {worst / 2**20:.1f} MB (tracemalloc)")


@pytest.mark.parametrize("kind", ["state", "cards", "save"])
def test_devices_folders_and_fifos_are_refused_without_reading(kind, tmp_path):
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    for path in (Path("/dev/zero"), fifo, tmp_path):
        with alarm(20):
            message = _load(kind, path)
        assert message and "not a regular file" in message, message


def test_a_card_set_naming_a_device_or_nul_is_refused(seeds, tmp_path):
    base = json.loads(seeds["state"][0])
    for source in ("/dev/zero", "\u0000", str(tmp_path)):
        path = tmp_path / "s.json"
        path.write_text(json.dumps(dict(base, card_set=source)))
        with alarm(20):
            message = _load("state", path)
        assert message and ": $.card_set: " in message, message


def test_integral_floats_are_refused_everywhere(seeds, tmp_path):
    """One rule: 2.0 is not an integer, in state files, card sets, saves and game keys."""
    state = json.loads(seeds["state"][0])
    cards = json.loads(seeds["cards"][0])
    save = json.loads(seeds["save"][0])
    cases = [("state", dict(state, turn=float(state["turn"])), "$.turn"),
             ("state", dict(state, hand_sizes={k: float(v) for k, v in
                                               state["hand_sizes"].items()}), "$.hand_sizes"),
             ("state", dict(state, game={"turns": 4.0}), "$.game.turns"),
             ("cards", dict(cards, fragments=15.0), "fragments"),
             ("save", dict(save, seed=5.0), "$.seed"),
             ("save", dict(save, game={"variant": "full", "turns": 4.0}), "$.game")]
    for kind, data, where in cases:
        path = tmp_path / "f.json"
        path.write_text(json.dumps(data))
        message = _load(kind, path)
        assert message and f": {where}" in message and "expected an integer" in message, message


def test_a_card_set_that_does_not_fit_is_reported_at_card_set(seeds, tmp_path):
    cards = json.loads(seeds["cards"][0])
    (tmp_path / "three.json").write_text(json.dumps(dict(cards, rockets=[1, 2, 3])))
    state = json.loads(seeds["state"][0])
    path = tmp_path / "s.json"
    path.write_text(json.dumps(dict(state, card_set="three.json")))
    message = _load("state", path)
    assert message and ": $.card_set: " in message and "turns" in message, message


def _cli(*args, timeout=300):
    return run_cli(*args, timeout=timeout, cwd=ROOT, input="quit\n")


def test_a_handful_through_the_command(seeds, tmp_path):
    rng = random.Random(SEED + 1)
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    paths = [Path("/dev/zero"), fifo]
    for i in range(6):
        path = tmp_path / f"cli-{i}.json"
        path.write_text(_mutant("state", rng.choice(seeds["state"]), rng))
        paths.append(path)
    for path in paths:
        r = _cli("advise", str(path), "--iterations", "20")
        assert "Traceback" not in r.stderr, r.stderr[-2000:]
        assert r.returncode in (0, 2), (r.returncode, r.stderr[-500:])
        if r.returncode == 2:
            assert len(r.stderr.strip().splitlines()) == 1, r.stderr[:500]
    save = tmp_path / "save.json"
    save.write_text(_mutant("save", seeds["save"][0], rng))
    r = _cli("play", "--load", str(save), "--bot", "heuristic", timeout=300)
    assert "Traceback" not in r.stderr and r.returncode in (0, 2), r.stderr[-500:]


# --------------------------------------------------------------------------
# Saves: corruptions of real games (issue 29)
# --------------------------------------------------------------------------

def _played_save(seed, human, decisions):
    """The save text of a game of ``new_record`` with seeded random decisions."""
    rng = random.Random(seed)
    record = new_record(human=human, bot=BotSpec.parse("random"), seed=seed)
    for _ in range(decisions):
        status = record.status()
        if status == "over":
            break
        action = rng.choice(record.core.legal_actions())
        (record.human_act if status == "human" else record.bot_act)(action)
    return record.save_text()


def _b64_flip(text, rng):
    raw = bytearray(base64.b64decode(text))
    for _ in range(rng.randint(1, 3)):
        i = rng.randrange(3, len(raw))
        raw[i] = rng.choice([0, 1, 0xFF, raw[i] ^ 1, raw[i] ^ 0x80, rng.randrange(256)])
    return base64.b64encode(bytes(raw)).decode("ascii")


def _save_mutant(text, rng):
    """A save with one field changed the way damage or an edit would."""
    data = json.loads(text)
    roll = rng.random()
    if roll < 0.3 and "core" in data:
        data["core"] = _b64_flip(data["core"], rng)
    elif roll < 0.45 and data.get("steps"):
        step = rng.choice(data["steps"])
        step["action"] = rng.choice((step["action"] + rng.choice((-1, 1)), rng.randrange(284)))
    elif roll < 0.55 and data.get("steps"):
        i = rng.randrange(len(data["steps"]))
        del data["steps"][i]
    elif roll < 0.62 and data.get("steps"):
        rng.choice(data["steps"])["by"] = rng.choice(("chance", "human", "bot", "rules"))
    elif roll < 0.7:
        data["seed"] = data["seed"] + rng.choice((-1, 1, 2**40))
    elif roll < 0.77:
        data["game"] = rng.choice(({"variant": "small"}, {"turns": 3}, {"dice": 8},
                                   {"redraw": 0}, {"rockets": "3,3,3,3,3"}))
    elif roll < 0.82:
        data["human_side"] = "german" if data["human_side"] == "polish" else "polish"
    elif roll < 0.87 and "rng" in data:
        words = data["rng"][1]
        words[rng.randrange(len(words))] = rng.choice((0, 2**32 - 1, 624))
        if rng.random() < 0.5:
            data["rng"][1] = [rng.choice((0, 1, 0x7FFFFFFF))] + [0] * 623 + [624]
    elif roll < 0.92 and "undo" in data and data["undo"]:
        snap = rng.choice(data["undo"])
        snap["core"] = _b64_flip(snap["core"], rng)
    else:
        raw = bytearray(text.encode())
        for _ in range(rng.randint(1, 4)):
            raw[rng.randrange(len(raw))] = rng.randrange(32, 127)
        return raw.decode("latin-1")
    return json.dumps(data)


def _replay_is_consistent(record):
    """A loaded game: its position passes every check and is the one its
    steps lead to from its start, replayed afresh."""
    Core.from_bytes(record.core.config, record.core.to_bytes())
    assert _oracle(record.core) is None, _oracle(record.core)
    again = GameRecord(record.setup, record.start)
    again.replay(list(record.steps))
    assert again.core == record.core
    if not record.core.is_terminal():
        state_io.check_position(record.core)
        assert record.core.is_chance() or record.core.legal_actions()


def test_save_corruptions_are_refused_or_replay_consistently(tmp_path):
    rng = random.Random(SEED + 29)
    seeds = [_played_save(seed, seed % 2, decisions) for seed, decisions in
             ((1, 6), (2, 40), (3, 400))]
    seeds += [(ROOT / "tests" / "data" / "saves-v1" / name).read_text()
              for name in ("play-random.json", "play-over.json")]
    tried, refused, loaded = 0, Counter(), 0
    for case in range(CASES):
        text = _save_mutant(rng.choice(seeds), rng)
        path = tmp_path / f"save-{case}.json"
        path.write_text(text, encoding="latin-1")
        tried += 1
        with alarm():
            try:
                record = read_save(str(path))
            except WildhornError as err:
                _check_message(str(err), path)
                refused[str(err).split(": ")[2] if str(err).count(": ") > 2 else "other"] += 1
                continue
            _replay_is_consistent(record)
            loaded += 1
    print(f"\nsave corruptions: {tried} mutants, {sum(refused.values())} refused, {loaded} "
          f"loaded and consistent; refused at: {dict(refused.most_common(8))}")
    assert sum(refused.values()) and loaded

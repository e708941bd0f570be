"""The record of one game between a human and a bot: what every interface
(the terminal table of ``play``, the web table of ``serve``, the review,
``advise`` and ``export`` of a saved game) is a view of.

A :class:`GameRecord` holds

* the game's :class:`Setup` (parameters, the human's side, the bot's spec as
  the human chose it, the seed, and whether every node is shown, ``--ask-all``);
* the chance stream, ``random.Random(seed)``, consumed in order;
* the list of :class:`Step`\\ s: every action applied, as an action id, with who
  took it (chance, the human, the bot, or the rules where only one action
  was possible) and, for a bot's decision, its win estimate and its top
  alternatives (the extras of :data:`EVENT_EXTRAS`);
* the narrated events (:mod:`apps.narration`), each a dict
  ``{"who", "kind", "text", "details"}`` plus, on the bot's decisions, the
  extras;
* the observations a bot's inference needs (every transition, in order).

Undo truncates the list of steps at the human's last decision.  A save
(format :data:`FORMAT`, written by :meth:`GameRecord.save_text` and read by
:func:`record_from_json` alone) holds the setup and the steps; loading
replays them from the seed and refuses a save whose position does not
follow from them.  Saves of the first format (``wildhorn-game/1``: the
position, the random state and undo snapshots, written by ``play`` and by
the server up to this version) still load (:func:`_from_first_format`).

The searches a game asks for (the bot's move, a hint, a rating for the
review) are in :mod:`apps.gamebot`, which owns the game's bot.
"""

from __future__ import annotations

import base64
import hashlib
import json
import random
from dataclasses import dataclass, replace
from enum import Enum
from typing import Any, Iterator, NoReturn

import pyspiel

import solver  # noqa: F401  (registers the game)
from apps.narration import Entry, Kind, Narrator
from bots import BotSpec, BotSpecError, check_for_players
from bots.registry import DEFAULT_SPEC
from solver import Core, CoreConfig
from solver.jsonio import find_problem, loads, read_bounded
from solver.jsonio import write_atomic as _write_atomic  # the one writer of user files
from solver.errors import (IllegalActionError, ParameterError, SerializationError,
                           StaleActionError, WildhornError, describe_value, label, one_line)
from solver.game import check_params
from solver.state_io import check_position
from solver.vocabulary import SIDE_TITLES, SIDES, WINDOW_PHASES

__all__ = ["FORMAT", "FIRST_FORMAT", "DEFAULT_BOT", "Actor", "Setup", "Step", "GameRecord",
           "read_save", "record_from_json", "write_atomic", "EVENT_EXTRAS"]

FORMAT = "wildhorn-game/2"
"""The save format written (and read) by the record."""
FIRST_FORMAT = "wildhorn-game/1"
"""The save format of earlier versions, still read."""
DEFAULT_BOT = DEFAULT_SPEC
"""The bot of ``play`` and of a new game on the web table."""
MAX_SAVE_BYTES = 4_000_000
"""The largest save file read (4 MB; a save of the first format keeps the
random state of every undo step, about 0.5 MB for a whole game)."""
MAX_SAVE_ITEMS = 20_000
"""The longest array in a save (a game has a few hundred steps)."""
DECLINE_TEXTS = ("decline", "pass priority")
"""The texts of an action that only lets the action under way go on."""
EVENT_KEYS = {"who": str, "text": str, "kind": str, "details": dict}
"""Every event has these keys (``kind`` and ``details`` absent in the oldest saves)."""
EVENT_EXTRAS = {"value": "the human side's win probability as the bot rated it (a number)",
                "alternatives": "the bot's top actions: [{action, visits, value}] "
                                "(named as the human may see them)"}
"""What an event of a bot's decision may add (the web table's graph and log)."""
_RNG_WORDS = 625  # random.Random's state: 624 words of Mersenne Twister and a position


class Actor(str, Enum):
    """Who took a step (its ``value`` is the save's word)."""

    CHANCE = "chance"   # drawn from the game's random stream
    HUMAN = "human"     # the human's decision (undo goes back to these)
    BOT = "bot"         # the bot's decision
    RULES = "rules"     # the only option (--ask-all applies these without asking)


@dataclass(frozen=True)
class Setup:
    """What a game is before its first move."""

    game: tuple[tuple[str, Any], ...]   # the game's parameters (check_params), as items
    human: int                          # the human's side: 0 Polish, 1 German
    bot: BotSpec                        # the bot as chosen (no machine-dependent threads)
    seed: int                           # the chance stream's and the bot's seed
    ask_all: bool = False               # every node applied raw; lone declines confirmed

    def __post_init__(self) -> None:
        check_for_players(self.bot.name)    # a game against a person: no benchmark-only bot

    @property
    def params(self) -> dict[str, Any]:
        return dict(self.game)

    @property
    def bot_side(self) -> int:
        return 1 - self.human


@dataclass(frozen=True)
class Step:
    """One action applied to the game."""

    action: int
    by: Actor
    value: tuple[float, float] | None = None        # the bot's win estimates (Polish, German)
    alternatives: tuple[dict[str, Any], ...] = ()   # the bot's top actions (its log entry)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"action": self.action, "by": self.by.value}
        if self.value is not None:
            out["value"] = list(self.value)
        if self.alternatives:
            out["alternatives"] = list(self.alternatives)
        return out


@dataclass(frozen=True)
class _Start:
    """Where a record converted from a save of the first format begins,
    when its steps could not be recovered: the position, the random state
    and the events of the save."""

    core: bytes
    rng: tuple
    events: tuple[dict[str, Any], ...]


class GameRecord:
    """One game (see the module's doc).  Its state changes only through its
    methods: ``human_act``, ``bot_act``, ``play_forced``, ``undo``, ``resign``."""

    def __init__(self, setup: Setup, start: _Start | None = None):
        self.setup = setup
        self.game = pyspiel.load_game("wildhorn", setup.params)
        self.config: CoreConfig = self.game.core_config
        self.narrator = Narrator(self.config, setup.human, names=SIDE_TITLES)
        self.start = start
        self.steps: list[Step] = []
        self.resigned = False
        self._reset()

    # ---- the position -----------------------------------------------------------
    def _reset(self) -> None:
        """Back to the first position (before any step)."""
        self.rng = random.Random(self.setup.seed)
        if self.start is None:
            self.core: Core = self.game.new_initial_state().core.copy()
            self.events: list[dict[str, Any]] = [e.to_json()
                                                 for e in self.narrator.start(self.core)]
        else:
            self.core = Core.from_bytes(self.config, self.start.core)
            self.rng.setstate(self.start.rng)
            self.events = [dict(e) for e in self.start.events]
        # per step: the position before it, the random state and log length before it
        self.before: list[Core] = []
        self._rng_before: list[tuple] = []
        self._events_before: list[int] = []

    @property
    def human(self) -> int:
        return self.setup.human

    @property
    def bot_side(self) -> int:
        return self.setup.bot_side

    @property
    def seed(self) -> int:
        return self.setup.seed

    @property
    def bot(self) -> BotSpec:
        return self.setup.bot

    @property
    def cards(self) -> dict[int, Any]:
        return {c.global_index: c for c in self.config.card_set.cards}

    def status(self) -> str:
        """"over", "chance", "human" (the human decides) or "bot"."""
        if self.resigned or self.core.is_terminal():
            return "over"
        if self.core.is_chance():
            return "chance"
        return "human" if self.core.current_player() == self.human else "bot"

    def winner(self) -> int:
        """The winning side of a game that is over (the bot's if the human resigned)."""
        return self.bot_side if self.resigned else self.core.winner

    def version(self) -> str:
        """Names the position: a request made for another version is stale."""
        h = hashlib.blake2b(self.core.to_bytes(), digest_size=8)
        h.update(f"{len(self.events)}:{self.resigned}:{self.bot}".encode())
        return h.hexdigest()

    def human_steps(self) -> list[int]:
        """The indices of the human's decisions among the steps."""
        return [i for i, s in enumerate(self.steps) if s.by is Actor.HUMAN]

    def decision(self, k: int) -> tuple[Core, int, int]:
        """(the position, the action chosen, the log length before it) of the
        human's decision ``k`` (0: the first).  IndexError if there is none."""
        i = self.human_steps()[k]
        return self.before[i], self.steps[i].action, self._events_before[i]

    def observations(self) -> list[tuple[Core, int]]:
        """Every transition of the game so far (position before, action), in
        order: what a bot's inference is fed (``Observations.record``)."""
        return list(zip(self.before, (s.action for s in self.steps)))

    def bot_seed(self) -> int:
        """The seed of the game's bot (``apps.gamebot.GameBot``), built once
        and kept for the whole game: from the game's seed alone."""
        return (self.seed * 1_000_003 + 17) & 0x7FFFFFFF

    # ---- steps ------------------------------------------------------------------
    def _apply(self, step: Step) -> list[dict[str, Any]]:
        """Applies ``step`` (checked by the caller) and logs its narration."""
        before = self.core.copy()
        self.before.append(before)
        self._rng_before.append(self.rng.getstate())
        self._events_before.append(len(self.events))
        if self.setup.ask_all:
            self.core.apply_raw(step.action)
        else:
            self.core.apply(step.action)
        entries = [e.to_json() for e in self.narrator.step(before, step.action, self.core)]
        if step.by is Actor.BOT and step.value is not None:
            _mark_bot_entry(entries, self.bot_side, self.human, step)
        self.steps.append(step)
        self.events.extend(entries)
        return entries

    def _draw(self) -> int:
        actions, probs = zip(*self.core.chance_outcomes())
        return self.rng.choices(actions, probs)[0]

    def _forced(self) -> int | None:
        """The action the rules apply without asking (``--ask-all`` only: the
        engine applies these itself otherwise): the one outcome of a chance
        node, or the one legal action unless it is the human's lone decline
        in a reaction window (which is asked).  None if there is none."""
        if not self.setup.ask_all:
            return None
        core = self.core
        if core.is_chance():
            outcomes = core.chance_outcomes()
            return outcomes[0][0] if len(outcomes) == 1 else None
        legal = core.legal_actions()
        if len(legal) != 1 or self.is_lone_decline():
            return None
        return legal[0]

    def is_lone_decline(self) -> bool:
        """A reaction window of the human in which the only option is to decline."""
        core = self.core
        if core.is_terminal() or core.is_chance() or core.current_player() != self.human \
                or core.phase not in WINDOW_PHASES:
            return False
        legal = core.legal_actions()
        return len(legal) == 1 and core.action_string(self.human, legal[0]) in DECLINE_TEXTS

    def play_forced(self) -> list[dict[str, Any]]:
        """Plays chance (from the random stream) and, under ``--ask-all``, the
        single-option nodes, up to a decision or the end; the new events."""
        first = len(self.events)
        while self.status() != "over":
            forced = self._forced()
            if forced is not None:
                self._apply(Step(forced, Actor.RULES))
            elif self.core.is_chance():
                self._apply(Step(self._draw(), Actor.CHANCE))
            else:
                break
        return self.events[first:]

    def human_act(self, action: Any, then_forced: bool = True) -> list[dict[str, Any]]:
        """The human's decision (IllegalActionError if not legal now), then
        (``then_forced``) chance up to the next decision; the new events."""
        if self.status() != "human":
            raise StaleActionError(f"not your decision: the game is "
                                   f"{'over' if self.status() == 'over' else 'waiting for the bot'}")
        if isinstance(action, bool) or not isinstance(action, int):
            raise IllegalActionError(f"action: expected an integer action id, got "
                                     f"{describe_value(action)}")
        legal = self.core.legal_actions()
        if action not in legal:
            raise IllegalActionError(f"action {action} is not legal here "
                                     f"(legal: {', '.join(map(str, legal))})")
        first = len(self.events)
        self._apply(Step(action, Actor.HUMAN))
        if then_forced:
            self.play_forced()
        return self.events[first:]

    def bot_forced(self) -> int | None:
        """The bot's only legal action, if it has one (no search needed)."""
        legal = self.core.legal_actions()
        return legal[0] if self.status() == "bot" and len(legal) == 1 else None

    def bot_is_silent(self) -> bool:
        """The bot decides in a reaction window, where its deciding at all
        would tell what it holds (R29): no word, no rating."""
        return self.core.phase in WINDOW_PHASES

    def bot_act(self, action: int, value: Any = None, alternatives: Any = (),
                then_forced: bool = True) -> list[dict[str, Any]]:
        """The bot's decision, with its win estimates ``value`` (Polish,
        German) and top ``alternatives`` (both dropped in a reaction window,
        R29), then (``then_forced``) chance up to the next decision; the new
        events."""
        if self.status() != "bot":
            raise StaleActionError("not the bot's decision")
        if action not in self.core.legal_actions():
            raise IllegalActionError(f"the bot's action {action} is not legal here")
        step = Step(int(action), Actor.BOT)
        if value is not None and not self.bot_is_silent():
            step = replace(step, value=(float(value[0]), float(value[1])),
                           alternatives=tuple(alternatives or ()))
        first = len(self.events)
        self._apply(step)
        if then_forced:
            self.play_forced()
        return self.events[first:]

    def undo_preview(self) -> tuple[list[dict[str, Any]], int] | None:
        """What :meth:`undo` would take back: the log entries from the
        human's last decision on (its own narration first) and how many of
        the bot's decisions followed it; None if there is no decision."""
        mine = self.human_steps()
        if not mine:
            return None
        i = mine[-1]
        bot = sum(1 for s in self.steps[i:] if s.by is Actor.BOT)
        return [dict(e) for e in self.events[self._events_before[i]:]], bot

    def undo(self) -> bool:
        """Back to the human's last decision (False if there is none)."""
        mine = self.human_steps()
        if not mine:
            return False
        i = mine[-1]
        self.core = self.before[i].copy()
        self.rng.setstate(self._rng_before[i])
        del self.events[self._events_before[i]:]
        del self.steps[i:], self.before[i:], self._rng_before[i:], self._events_before[i:]
        self.resigned = False
        return True

    def resign(self) -> None:
        if self.status() == "over":
            raise StaleActionError("the game is already over")
        self.resigned = True

    def with_bot(self, bot: BotSpec) -> None:
        """The bot from now on (the human changed its time per move)."""
        self.setup = replace(self.setup, bot=bot.without_threads())

    def replay(self, steps: list[Step]) -> None:
        """Applies ``steps`` from the first position, checking each one:
        chance must draw what the random stream gives, a decision must be
        legal and by the side to move (IllegalActionError naming the step)."""
        self._reset()
        self.steps = []
        for i, step in enumerate(steps):
            where = f"$.steps[{i}]"
            status = self.status()
            if status == "over":
                raise IllegalActionError(f"{where}: the game is already over")
            forced = self._forced()
            if step.by is Actor.RULES:
                if forced is None or forced != step.action:
                    raise IllegalActionError(f"{where}: action {step.action} is not the only "
                                             f"option here")
            elif forced is not None:
                raise IllegalActionError(f"{where}: the only option here is {forced}, applied "
                                         f"by the rules")
            elif step.by is Actor.CHANCE:
                if status != "chance":
                    raise IllegalActionError(f"{where}: not a chance event")
                drawn = self._draw()
                if drawn != step.action:
                    raise IllegalActionError(f"{where}: the chance outcome {step.action} is not "
                                             f"the one the game's seed gives ({drawn})")
            else:
                expected = "human" if step.by is Actor.HUMAN else "bot"
                if status != expected:
                    raise IllegalActionError(f"{where}: a decision of the {expected}, but "
                                             f"{status} is to move")
                if step.action not in self.core.legal_actions():
                    raise IllegalActionError(f"{where}: action {step.action} is not legal here")
            self._apply(step)

    # ---- the save ---------------------------------------------------------------
    def to_json(self) -> dict[str, Any]:
        """The save (format :data:`FORMAT`)."""
        setup = self.setup
        out: dict[str, Any] = {
            "format": FORMAT, "game": setup.params, "human_side": SIDES[setup.human],
            "bot": str(setup.bot.without_threads()), "seed": setup.seed,
            "ask_all": setup.ask_all, "resigned": self.resigned,
            "steps": [s.to_json() for s in self.steps],
            "core": base64.b64encode(self.core.to_bytes()).decode("ascii"),
            "events": self.events}
        if self.start is not None:
            out["start"] = {"core": base64.b64encode(self.start.core).decode("ascii"),
                            "rng": _rng_json(self.start.rng), "events": list(self.start.events)}
        return out

    def save_text(self) -> str:
        return json.dumps(self.to_json())

    def save(self, path: str) -> None:
        """Writes the save to ``path`` atomically (SerializationError if it cannot)."""
        write_atomic(path, self.save_text())


def _mark_bot_entry(entries: list[dict[str, Any]], bot: int, human: int, step: Step) -> None:
    """Adds the bot's rating to the first entry of its decision: in words to
    the text, and the extras of :data:`EVENT_EXTRAS`."""
    if step.value is None:
        return
    mine = next((e for e in entries if e["who"] == SIDES[bot]), None)
    if mine is None:
        return
    mine["text"] += f"  [bot rates its chance to win at {step.value[bot]:.0%}]"
    mine["value"] = round(step.value[human], 4)
    if step.alternatives:
        mine["alternatives"] = list(step.alternatives)


# ---- reading saves --------------------------------------------------------------

class _Bad(Exception):
    """(JSON path, what was expected) of a bad field of a save file."""


def _field(data: dict, key: str, kind: type, at: str = "$") -> Any:
    """``data[key]``, which must be of ``kind`` (an int is never a bool or a float)."""
    if key not in data:
        raise _Bad(f"{at}.{key}", "missing required key")
    value = data[key]
    if isinstance(value, bool) is not (kind is bool) or not isinstance(value, kind):
        words = {str: "text", dict: "an object", list: "an array", int: "an integer",
                 bool: "true or false"}
        raise _Bad(f"{at}.{key}", f"expected {words[kind]}, got {describe_value(value)}")
    return value


def _json_path(parts: list) -> str:
    return "$" + "".join(f"[{p}]" if isinstance(p, int) else f".{p}" if p.isidentifier()
                         else f"[{json.dumps(p[:40])}]" for p in parts)


def read_save(path: str) -> GameRecord:
    """The game saved in ``path`` (SerializationError with a one-line message
    naming the file and the field if it is not a usable save).  The file is
    read like every input: a regular file, at most :data:`MAX_SAVE_BYTES`."""
    where = label(path)

    def refuse(why: str) -> NoReturn:
        raise SerializationError(f"{where}: {why}")

    raw = read_bounded(path, refuse, MAX_SAVE_BYTES)
    return record_from_text(raw, where)


def record_from_text(raw: bytes, where: str) -> GameRecord:
    """The game of a save's bytes (an upload or a file) named ``where``."""
    def bad(why: str) -> SerializationError:
        return SerializationError(f"{where}: not a usable saved game: {one_line(why)}")

    try:
        data = loads(raw.decode("utf-8"))
    except UnicodeDecodeError as err:
        raise bad(f"invalid JSON (not UTF-8 text at byte {err.start})") from None
    except (ValueError, RecursionError) as err:
        raise bad(f"invalid JSON ({str(err)[:120]})") from None
    problem = find_problem(data, max_items=MAX_SAVE_ITEMS, max_keys=64, max_depth=7)
    if problem is not None:
        raise bad(f"{_json_path(problem[0])}: {problem[1]}")
    return record_from_json(data, where)


def record_from_json(data: Any, where: str, card_sets: bool = True) -> GameRecord:
    """The game of a parsed save (``where`` names it in the messages);
    SerializationError if it is not a usable save.  ``card_sets=False``
    refuses a save whose game names a card set other than the default, unread
    (a server reads no file a request names)."""
    def bad(why: str) -> SerializationError:
        return SerializationError(f"{where}: not a usable saved game: {one_line(why)}")

    fmt = data.get("format") if isinstance(data, dict) else None
    if fmt not in (FORMAT, FIRST_FORMAT):
        shown = describe_value(fmt) if fmt is None or not isinstance(fmt, str) \
            else repr(fmt[:40] + ("..." if len(fmt) > 40 else ""))
        raise bad(f"$.format: expected {FORMAT!r} (or the earlier {FIRST_FORMAT!r}), "
                  f"got {shown}")
    try:
        setup = _setup(data, card_sets)
        if fmt == FIRST_FORMAT:
            return _from_first_format(data, setup, where)
        return _from_second_format(data, setup)
    except _Bad as err:
        raise bad(f"{err.args[0]}: {err.args[1]}") from None


def _setup(data: dict, card_sets: bool) -> Setup:
    human = _field(data, "human_side", str)
    if human not in SIDES:
        raise _Bad("$.human_side", f"expected \"polish\" or \"german\", got {describe_value(human)}")
    game = _field(data, "game", dict)
    if not card_sets and game.get("card_set", "default") != "default":
        raise _Bad("$.game.card_set", "the server plays only the default card set (it reads "
                   "no file a request names)")
    try:
        params = check_params(game)
        pyspiel.load_game("wildhorn", params)
    except ParameterError as err:
        raise _Bad("$.game", str(err).removeprefix("wildhorn: ")) from None
    except (WildhornError, pyspiel.SpielError) as err:
        raise _Bad("$.game", str(err).splitlines()[0]) from None
    try:
        bot = BotSpec.parse(_field(data, "bot", str)).without_threads()
    except BotSpecError as err:
        raise _Bad("$.bot", str(err)) from None
    seed = _field(data, "seed", int)
    if not 0 <= seed < 2**63:
        raise _Bad("$.seed", f"expected an integer 0..2^63-1, got {seed}")
    ask_all = _field(data, "ask_all", bool) if "ask_all" in data else False
    return Setup(tuple(params.items()), SIDES.index(human), bot, seed, ask_all)


def _resigned(data: dict) -> bool:
    return _field(data, "resigned", bool) if "resigned" in data else False


def _steps(data: dict) -> list[Step]:
    steps = []
    for i, item in enumerate(_field(data, "steps", list)):
        at = f"$.steps[{i}]"
        if not isinstance(item, dict) or not {"action", "by"} <= set(item) \
                or not set(item) <= {"action", "by", "value", "alternatives"}:
            raise _Bad(at, 'expected {"action": id, "by": who[, "value", "alternatives"]}')
        action = _field(item, "action", int, at)
        if not 0 <= action < 10_000:
            raise _Bad(f"{at}.action", f"expected an action id, got {action}")
        by = _field(item, "by", str, at)
        if by not in {a.value for a in Actor}:
            raise _Bad(f"{at}.by", f"expected one of {', '.join(a.value for a in Actor)}, "
                       f"got {describe_value(by)}")
        value = item.get("value")
        if value is not None and (by != Actor.BOT.value or not isinstance(value, list)
                                  or len(value) != 2
                                  or not all(_probability(v) for v in value)):
            raise _Bad(f"{at}.value", "expected the bot's two win probabilities [polish, german]")
        alternatives = _alternatives(item.get("alternatives", []), f"{at}.alternatives")
        steps.append(Step(action, Actor(by), None if value is None else tuple(value),
                          alternatives))
    return steps


def _probability(v: Any) -> bool:
    return not isinstance(v, bool) and isinstance(v, (int, float)) and 0 <= v <= 1


def _alternatives(value: Any, at: str) -> tuple[dict[str, Any], ...]:
    """The bot's top actions of a log entry: [{action: text, visits, value}]."""
    if not isinstance(value, list):
        raise _Bad(at, "expected an array of {action, visits, value}")
    out = []
    for k, alt in enumerate(value):
        if not isinstance(alt, dict) or set(alt) != {"action", "visits", "value"} \
                or not isinstance(alt["action"], str) \
                or not (alt["visits"] is None or (isinstance(alt["visits"], int)
                                                  and not isinstance(alt["visits"], bool))) \
                or not (alt["value"] is None or _number(alt["value"])):
            raise _Bad(f"{at}[{k}]", 'expected {"action": text, "visits": count or null, '
                       '"value": number or null}')
        out.append(dict(alt))
    return tuple(out)


def _number(v: Any) -> bool:
    return not isinstance(v, bool) and isinstance(v, (int, float))


def _from_second_format(data: dict, setup: Setup) -> GameRecord:
    start = _start(data["start"], setup) if "start" in data else None
    record = GameRecord(setup, start)
    try:
        record.replay(_steps(data))
    except IllegalActionError as err:
        at, _, why = str(err).partition(": ")
        raise _Bad(at, why) from None
    stored = _core_bytes(data, "core", "$.core")
    if stored != record.core.to_bytes():
        raise _Bad("$.core", "the position differs from the one the steps lead to (the file "
                   "was changed or damaged)")
    record.resigned = _resigned(data)
    if record.resigned and record.core.is_terminal():
        raise _Bad("$.resigned", "a game that ended on the table cannot be resigned")
    return record


def _start(value: Any, setup: Setup) -> _Start:
    if not isinstance(value, dict) or set(value) != {"core", "rng", "events"}:
        raise _Bad("$.start", 'expected {"core", "rng", "events"}')
    game = pyspiel.load_game("wildhorn", setup.params)
    core = _checked_core(game.core_config, value, "$.start.core")
    return _Start(core.to_bytes(), _rng_field(value, "$.start.rng"),
                  tuple(_events(value, "$.start")))


def _core_bytes(data: dict, key: str, at: str) -> bytes:
    text = data.get(key)
    if not isinstance(text, str):
        raise _Bad(at, f"expected base64 text, got {describe_value(text)}")
    try:
        return base64.b64decode(text, validate=True)
    except ValueError:
        raise _Bad(at, "not valid base64") from None


def _checked_core(config: CoreConfig, data: dict, at: str) -> Core:
    """The position stored at ``at`` (base64 of ``Core.to_bytes``), checked
    like a state file from both players' views."""
    try:
        core = Core.from_bytes(config, _core_bytes(data, "core", at))
    except (ValueError, TypeError) as err:
        raise _Bad(at, str(err) if isinstance(err, WildhornError) else "not a position") \
            from None
    try:
        check_position(core, "position")
    except WildhornError as err:
        raise _Bad(at, f"an impossible position: {err}") from None
    return core


def _rng_field(data: dict, at: str) -> tuple:
    """A ``random.Random`` state as saved: [3, 625 words, null or a number]."""
    value = data.get("rng")
    if (not isinstance(value, list) or len(value) != 3 or value[0] != 3
            or isinstance(value[0], bool) or not isinstance(value[1], list)
            or len(value[1]) != _RNG_WORDS):
        raise _Bad(at, f"expected [3, [{_RNG_WORDS} integers], null or a number] (a random "
                   "state)")
    for i, word in enumerate(value[1]):
        top = _RNG_WORDS if i == _RNG_WORDS - 1 else 2**32 - 1
        if isinstance(word, bool) or not isinstance(word, int) or not 0 <= word <= top:
            raise _Bad(f"{at}[1][{i}]", f"expected an integer 0..{top}, got {describe_value(word)}")
    if not value[1][0] & 0x80000000 and not any(value[1][1:-1]):
        # Mersenne Twister uses only the top bit of its first word: zeros forever
        raise _Bad(at, "a degenerate random state (every word zero but unused bits)")
    gauss = value[2]
    if gauss is not None and not _number(gauss):
        raise _Bad(f"{at}[2]", f"expected null or a number, got {describe_value(gauss)}")
    state = (3, tuple(value[1]), gauss)
    try:
        random.Random().setstate(state)
    except (ValueError, TypeError, OverflowError):
        raise _Bad(at, "not a state of Python's random numbers") from None
    return state


def _rng_json(state: tuple) -> list[Any]:
    version, internal, gauss = state
    return [version, list(internal), gauss]


def _events(data: dict, at: str) -> list[dict[str, Any]]:
    """The log of a save of the first format: its entries with the keys of
    :data:`EVENT_KEYS` (``kind`` and ``details`` may be absent) and the
    extras of :data:`EVENT_EXTRAS`."""
    events = _field(data, "events", list, at)
    for i, e in enumerate(events):
        where = f"{at}.events[{i}]"
        if not isinstance(e, dict) or not {"who", "text"} <= set(e) \
                or not set(e) <= set(EVENT_KEYS) | set(EVENT_EXTRAS) \
                or any(k in e and not isinstance(e[k], t) for k, t in EVENT_KEYS.items()):
            raise _Bad(where, 'expected {"who": text, "text": text, "kind": text, '
                       '"details": an object[, "value": number, "alternatives": array]}')
        if "value" in e and not (e["value"] is None or _number(e["value"])):
            raise _Bad(f"{where}.value", f"expected a number, got {describe_value(e['value'])}")
        if "alternatives" in e:
            _alternatives(e["alternatives"], f"{where}.alternatives")
    return events


def _from_first_format(data: dict, setup: Setup, where: str) -> GameRecord:
    """A save of ``wildhorn-game/1`` (position, random state, events and
    undo snapshots): its steps are recovered by replaying the game from the
    seed, each decision found by its narration in the saved log and checked
    against the undo snapshots and the saved position.  If they cannot be
    recovered (a log changed by hand, a game whose narration is ambiguous),
    the game resumes from the saved position, without the undo history."""
    game = pyspiel.load_game("wildhorn", setup.params)
    config = game.core_config
    core = _checked_core(config, data, "$.core")
    rng = _rng_field(data, "$.rng")
    events = _events(data, "$")
    undo = _field(data, "undo", list)
    snaps = []
    for i, snap in enumerate(undo):
        at = f"$.undo[{i}]"
        if not isinstance(snap, dict) or set(snap) != {"core", "rng", "events"}:
            raise _Bad(at, 'expected {"core": ..., "rng": ..., "events": count}')
        snap_core = _checked_core(config, snap, f"{at}.core")
        _rng_field(snap, f"{at}.rng")
        n = snap["events"]
        if isinstance(n, bool) or not isinstance(n, int) or not 0 <= n <= len(events):
            raise _Bad(f"{at}.events", f"expected an integer 0..{len(events)} (the events so "
                       f"far), got {describe_value(n)}")
        snaps.append((snap_core, n))
    resigned = _resigned(data)
    if resigned and events and events[-1].get("kind") == Kind.GAME_OVER.value \
            and "resign" in events[-1]["text"]:
        events = events[:-1]  # the resignation is the record's flag now
    steps = None
    for mode in (setup, replace(setup, ask_all=True)):  # the format did not say which
        steps = _recover_steps(mode, events, core, snaps)
        if steps is not None:
            setup = mode
            record = GameRecord(setup)
            record.replay(steps)
            if record.core == core and record.rng.getstate() == rng:
                break
            steps = None
    if steps is None:
        start = _Start(core.to_bytes(), rng, tuple(events))
        record = GameRecord(setup, start)
    record.resigned = resigned and not record.core.is_terminal()
    return record


_RATING = "  [bot rates its chance to win at "


def _recover_steps(setup: Setup, events: list[dict[str, Any]], final: Core,
                   snaps: list[tuple[Core, int]], budget: int = 20_000) -> list[Step] | None:
    """The steps of a first-format save, or None.  Two passes, each a
    depth-first replay from the seed in which chance draws from the random
    stream, each decision is an action whose narration is the next entries
    of the saved log, the human's decisions meet the undo snapshots, and the
    game ends at the saved position with every event told:

    * exact: the narration's texts equal the saved ones (the words of the
      narrator that wrote the save);
    * by event: when the narration's words have changed since, its entries
      are matched by who and kind only (:func:`_same_event`), leaving out the
      entries the first format's narrator did not write (:func:`_new_entry`),
      and each human decision meets its undo snapshot's position too."""
    for exact in (True, False):
        steps = _replay_log(setup, events, final, snaps, budget, exact)
        if steps is not None:
            return steps
    return None


def _new_entry(entry: dict[str, Any], human: int) -> bool:
    """An entry the narrator of the first format did not write: a pass of
    priority by the side the human does not play (told to the human since
    ruling R29 made every pass of priority public)."""
    return (entry.get("details", {}).get("action") == "pass priority"
            and entry["who"] != SIDES[human])


def _same_event(entry: dict[str, Any], saved: dict[str, Any]) -> bool:
    """The same event, whatever its words: who tells it and what kind of
    event it is (a saved entry without a kind: DECISION for a side, TURN for
    the game, as :meth:`Entry.from_json` reads it)."""
    return (entry["who"] == saved["who"]
            and entry.get("kind") == Entry.from_json(saved).kind.value)


def _replay_log(setup: Setup, events: list[dict[str, Any]], final: Core,
                snaps: list[tuple[Core, int]], budget: int, exact: bool) -> list[Step] | None:
    """One pass of :func:`_recover_steps` (``exact``: by text, else by event)."""
    record = GameRecord(setup)
    human_at = {n: snap for snap, n in snaps}
    left = [budget]

    def told(entries: list[dict[str, Any]], at: int) -> int | None:
        """How many saved entries from ``at`` on ``entries`` tell, or None."""
        if not exact:
            entries = [e for e in entries if not _new_entry(e, setup.human)]
        if at + len(entries) > len(events):
            return None
        for e, saved in zip(entries, events[at:at + len(entries)]):
            if exact:
                if e["text"] != saved["text"].split(_RATING)[0] or e["who"] != saved["who"]:
                    return None
            elif not _same_event(e, saved):
                return None
        return len(entries)

    def search(at: int) -> bool:
        """``at``: the saved entries told so far."""
        left[0] -= 1
        if left[0] < 0:
            return False
        while True:  # chance and forced nodes, one at a time, checked against the log
            forced = record._forced()
            if forced is None and not record.core.is_chance():
                break
            mark = len(record.events)
            if forced is not None:
                record._apply(Step(forced, Actor.RULES))
            else:
                record._apply(Step(record._draw(), Actor.CHANCE))
            used = told(record.events[mark:], at)
            if used is None:
                return False
            at += used
        if record.core.is_terminal() or at == len(events) and record.core == final:
            return record.core == final and at == len(events)
        by = Actor.HUMAN if record.core.current_player() == setup.human else Actor.BOT
        if by is Actor.HUMAN and (at not in human_at
                                  or not exact and human_at[at] != record.core):
            return False
        for action in record.core.legal_actions():
            mark = len(record.steps)
            entries = record._apply(Step(action, by))
            used = told(entries, at)
            if used is not None:
                if by is Actor.BOT:
                    record.steps[-1] = _rated(record.steps[-1], events[at:at + used], setup)
                if search(at + used):
                    return True
            _truncate(record, mark)
        return False

    try:
        opening = told(record.events, 0)
        if opening is None or not search(opening):
            return None
    except (WildhornError, RecursionError):
        return None
    return list(record.steps)


def _rated(step: Step, saved: list[dict[str, Any]], setup: Setup) -> Step:
    """The bot's ``step`` with the rating its saved log entries show (the
    first entry of the bot: the human side's ``value``, else the percentage
    in its text), and its alternatives."""
    bot = SIDES[setup.bot_side]
    mine = next((e for e in saved if e["who"] == bot), None)
    if mine is None:
        return step
    if mine.get("value") is not None:
        human = float(mine["value"])
    elif _RATING in mine["text"]:
        try:
            human = 1 - int(mine["text"].split(_RATING)[1].split("%")[0]) / 100
        except ValueError:
            return step
    else:
        return step
    value = (human, 1 - human) if setup.human == 0 else (1 - human, human)
    return replace(step, value=value, alternatives=tuple(mine.get("alternatives", ())))


def _truncate(record: GameRecord, i: int) -> None:
    """Takes back the record's steps from ``i`` on (any actor)."""
    if i >= len(record.steps):
        return
    record.core = record.before[i].copy()
    record.rng.setstate(record._rng_before[i])
    del record.events[record._events_before[i]:]
    del record.steps[i:], record.before[i:], record._rng_before[i:], record._events_before[i:]


SAVE_MODE = 0o600
"""A save holds the whole game, the bot's hand and the decks too: its owner's only."""


def write_atomic(path: str, data: str) -> None:
    """Writes ``data`` to ``path`` atomically, readable by its owner only
    (SerializationError if it cannot)."""
    _write_atomic(path, data, verb="cannot save", mode=SAVE_MODE)


def iter_decisions(record: GameRecord) -> Iterator[tuple[int, Core, int, int]]:
    """(k, position, chosen action, log length before) of each human decision."""
    for k, i in enumerate(record.human_steps()):
        yield k, record.before[i], record.steps[i].action, record._events_before[i]


def new_record(*, variant: str = "full", params: dict[str, Any] | None = None, human: int,
               bot: BotSpec, seed: int, ask_all: bool = False) -> GameRecord:
    """A new game (``params`` or the ``variant``), chance played up to the
    first decision."""
    checked = check_params(params if params is not None else {"variant": variant})
    record = GameRecord(Setup(tuple(checked.items()), human, bot.without_threads(), seed,
                              ask_all))
    record.play_forced()
    return record


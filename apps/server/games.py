"""Game sessions of the web server: one ``WebSession`` per game, held by a
``GameStore`` that autosaves every game in a data folder (so a game survives
a page reload and a server restart) and runs the searches (the bot's moves,
hints) in child processes, at most ``Limits.max_searches`` at once (the
others queue), killed when their game is closed.

A session is a :class:`apps.play.PlaySession` (the terminal game): the same
save format ``wildhorn-game/1``, the same chance stream, the same seeds for
the bot, the same undo.  Only the stepping differs: the page asks for one
thing at a time (a human action, the bot's next move) instead of a loop
reading a terminal.
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import io
import json
import multiprocessing
import os
import random
import secrets
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

import pyspiel

import solver  # noqa: F401  (registers the game)
from apps.advise import advise
from apps.play import SIDES, TITLES, PlaySession, write_atomic
from apps.narration import Narrator
from bots import BotSpecError, _budget, make_bot, parse_spec
from bots._inference import Observations
from bots.base import SearchBot
from bots.registry import available_cores, engine_options
from solver._core import Core
from solver.errors import (IllegalActionError, ParameterError, RequestError, SerializationError,
                           StaleActionError, UnknownGameError)

SEARCHING = ("ismcts", "oos", "openspiel-ismcts")  # bots that search (run in a child process)
DEFAULT_BOT = "ismcts:time=1.0"
ID_BYTES = 18  # secrets.token_urlsafe(18): 24 characters, 144 random bits


@dataclass(frozen=True)
class Limits:
    """What the server allows a request to ask for."""

    max_time: float = 10.0          # seconds per bot move
    max_iterations: int = 200_000   # iterations (ISMCTS, OOS) or simulations per move
    max_nodes: int = 2_000_000      # search tree nodes (memory)
    max_searches: int = 2           # searches running at once; the others queue
    hint_iterations: int = 3000     # the hint's budget (as in ``play``'s hint)
    review_iterations: int = 1000   # the search that rates each decision in a review
    max_games: int = 200            # games held at once
    max_threads: int = field(default_factory=available_cores)  # search threads per search


def cap_spec(spec: str, limits: Limits) -> str:
    """The bot spec with its budgets capped by ``limits`` (BotSpecError if bad)."""
    name, options = parse_spec(spec)
    if name in ("ismcts", "oos"):
        if "time" not in options and "iterations" not in options:
            options["time"] = 1.0
        if "time" in options:
            options["time"] = min(float(options["time"]), limits.max_time)
        if "iterations" in options:
            options["iterations"] = min(int(options["iterations"]), limits.max_iterations)
        options["nodes"] = min(int(options.get("nodes", 1_000_000)), limits.max_nodes)
        # always named: the interactive default is every core
        options["threads"] = min(int(options.get("threads", limits.max_threads)),
                                 limits.max_threads)
    elif name == "openspiel-ismcts":
        if "time" in options:
            options["time"] = min(float(options["time"]), limits.max_time)
        options["sims"] = min(int(options.get("sims", 300)), limits.max_iterations)
    text = name + (":" + ",".join(f"{k}={v}" for k, v in options.items()) if options else "")
    parse_spec(text)  # still valid
    return text


def with_time(spec: str, seconds: float, limits: Limits) -> str:
    """``spec`` with its time per move set to ``seconds`` (capped)."""
    if not 0 < seconds <= limits.max_time:
        raise RequestError(f"time: expected seconds per move in (0, {limits.max_time:g}], "
                           f"got {seconds!r}")
    name, options = parse_spec(spec)
    if name not in SEARCHING:
        raise RequestError(f"time: the bot {name!r} does not search, it has no time per move")
    options.pop("iterations", None)
    options.pop("sims", None)
    options["time"] = seconds
    return cap_spec(name + ":" + ",".join(f"{k}={v}" for k, v in options.items()), limits)


# ---- the searches, in child processes ------------------------------------------

def _alternatives(core: Core, player: int, stats: dict[str, Any] | None) -> list[dict[str, Any]]:
    """The search's top actions (visits, value), named as the human may see them."""
    if not stats or not stats.get("actions"):
        return []
    rows = sorted(stats["actions"], key=lambda r: -(r.get("visits") or 0))[:5]
    return [{"action": public_action_text(core, player, r["action"]),
             "visits": r.get("visits"),
             "value": None if r.get("value") is None else round(r["value"], 3)}
            for r in rows]


def public_action_text(core: Core, player: int, action: int) -> str:
    """The text of ``player``'s action with the numbers of the cards the
    other side cannot see (in ``player``'s hand) left out."""
    return mask_hidden(core.action_string(player, action), core, 1 - player)


def mask_hidden(text: str, core: Core, viewer: int) -> str:
    """``text`` with every card the ``viewer`` cannot see (the other side's
    hand and deck) named by its type only: "DE18 Bad Luck" -> "Bad Luck"."""
    config = core.config
    cards = config.card_set.cards
    for g, card in enumerate(cards):
        if card.side_id != viewer and core.location(g)[0] in ("hand", "deck"):
            text = text.replace(config.card_name(g), card.type.name)
    return text


def bot_search(game_params: dict[str, Any], core_bytes: bytes, spec: str, player: int,
               seed: int, seen: list[tuple[bytes, int]] | None = None) -> dict[str, Any]:
    """The bot's move (run in a child process): action, win estimates,
    alternatives.  ``seen``: the game's transitions (position bytes, action),
    from which a search bot builds what its player observed (for
    ``inference=heuristic``, bots._inference)."""
    game = pyspiel.load_game("wildhorn", game_params)
    core = Core.from_bytes(game.core_config, core_bytes)
    bot = make_bot(spec, player, seed, interactive=True)
    if seen and isinstance(bot, SearchBot):
        observations = Observations(game.core_config, player)
        for raw, action in seen:
            observations.record(Core.from_bytes(game.core_config, raw), action)
        result = bot.analyse(core, observations=observations)
    else:
        result = bot.analyse(core)
    value = result.get("value")
    return {"action": int(result["action"]),
            "value": None if value is None else [float(value[0]), float(value[1])],
            "alternatives": _alternatives(core, player, result.get("stats"))}


def hint_search(game_params: dict[str, Any], core_bytes: bytes, human: int, seed: int,
                iterations: int, threads: int) -> dict[str, Any]:
    """``advise()`` for the human (run in a child process), on a position
    resampled from the human's information, named as the human may see it."""
    game = pyspiel.load_game("wildhorn", game_params)
    core = Core.from_bytes(game.core_config, core_bytes)
    sampled = core.resample(human, seed)
    result = advise(sampled, bot_spec=f"ismcts:threads={threads}", iterations=iterations,
                    seed=seed)
    return json.loads(mask_hidden(json.dumps(result), core, human))


def review_search(game_params: dict[str, Any], core_bytes: bytes, human: int, seed: int,
                  iterations: int, chosen: int, threads: int) -> dict[str, Any]:
    """Rates one of the human's decisions (run in a child process): an ISMCTS
    search of ``iterations`` on the position resampled from the human's
    information; the loss is the best action's value minus the chosen one's."""
    game = pyspiel.load_game("wildhorn", game_params)
    core = Core.from_bytes(game.core_config, core_bytes)
    sampled = core.resample(human, seed)
    stats = make_bot(f"ismcts:iterations={iterations},threads={threads}", human,
                     seed).analyse(sampled)["stats"]
    rows = {r["action"]: r for r in stats["actions"]}
    best = max(stats["actions"], key=lambda r: (r["visits"], r["value"] or 0.0))
    mine = rows.get(chosen)
    chosen_value = None if mine is None or mine["value"] is None else mine["value"]
    loss = None if chosen_value is None or best["value"] is None else \
        max(0.0, best["value"] - chosen_value)
    return {"best": core.action_string(human, best["action"]),
            "best_value": None if best["value"] is None else round(best["value"], 4),
            "chosen_value": None if chosen_value is None else round(chosen_value, 4),
            "loss": None if loss is None else round(loss, 4)}


def _child(conn: Any, fn: Callable[..., Any], args: tuple, counter: Any = None) -> None:
    if counter is not None:  # the search's iterations, as they are done, for the server
        def count(n: int) -> None:
            with counter.get_lock():
                counter.value += n
        _budget.progress = count
    try:
        conn.send(("ok", fn(*args)))
    except BaseException as err:  # reported to the server as a one-line message
        conn.send(("error", f"{type(err).__name__}: {err}"))
    finally:
        conn.close()


class SearchPool:
    """Runs searches in child processes, ``limit`` at once; a cancelled
    search kills its process."""

    def __init__(self, limit: int):
        self.limit = limit
        self._sem: asyncio.Semaphore | None = None
        self.running = 0
        self.waiting = 0
        self.processes: set[Any] = set()  # the searches running now
        self.ctx = multiprocessing.get_context("forkserver")
        self.ctx.set_forkserver_preload(["apps.server.games"])

    def counter(self) -> Any:
        """A shared count for :meth:`run`'s ``counter``: the iterations the
        search has done so far, read by the server while it runs."""
        return self.ctx.Value("q", 0)

    async def run(self, fn: Callable[..., Any], *args: Any,
                  on_start: Callable[[], None] | None = None, counter: Any = None) -> Any:
        if self._sem is None:  # made in the running loop
            self._sem = asyncio.Semaphore(self.limit)
        self.waiting += 1
        try:
            await self._sem.acquire()
        finally:
            self.waiting -= 1
        self.running += 1
        if on_start is not None:
            on_start()
        parent, child = self.ctx.Pipe(duplex=False)
        proc = self.ctx.Process(target=_child, args=(child, fn, args, counter), daemon=True)
        try:
            proc.start()
            self.processes.add(proc)
            child.close()
            loop = asyncio.get_running_loop()
            status, value = await loop.run_in_executor(None, _receive, parent)
        finally:  # a cancelled search (its game closed) is killed here
            if proc.is_alive():
                proc.kill()
            self.processes.discard(proc)
            self.running -= 1
            self._sem.release()
        if status != "ok":
            raise RuntimeError(f"search failed: {value}")
        return value


def _receive(conn: Any) -> tuple[str, Any]:
    """The child's answer (in a thread: the event loop goes on meanwhile)."""
    try:
        return conn.recv()
    except (EOFError, OSError):
        return ("error", "the search process ended without an answer")
    finally:
        conn.close()


# ---- one game ---------------------------------------------------------------

def _chosen_action(session: Any, core: Core, legal: list[int], said: str) -> int | None:
    """The legal action of the human at ``core`` whose narration is ``said``
    (the first log entry after the decision): the narrator says each action
    in its own words, so the log names the decision."""
    narrator = Narrator(session.config, session.human)
    for action in legal:
        after = core.copy()
        after.apply(action)
        entries = narrator.step(core, action, after)
        if entries and entries[0].text == said:
            return action
    return None


class WebSession(PlaySession):
    """A game of the web table (see the module's doc)."""

    def __init__(self, **kwargs: Any):
        kwargs.setdefault("inp", io.StringIO())
        kwargs.setdefault("out", io.StringIO())
        super().__init__(**kwargs)
        self.resigned = False
        self.id = ""
        self.task: asyncio.Task | None = None
        self.thinking_since: float | None = None
        self.hint_task: asyncio.Task | None = None
        self._json_cache: tuple[tuple[list, list], ...] = (([], []), ([], []))
        self.review: dict[str, Any] | None = None
        self.review_task: asyncio.Task | None = None

    @classmethod
    def restore(cls, data: Any, source: str) -> "WebSession":
        """A game from a save (an upload or the data folder's autosave).  A
        request never names a file, so a save whose game names a card set
        other than the default (a path on this machine) is refused unread;
        the server's own games always use the default set."""
        game = data.get("game") if isinstance(data, dict) else None
        if isinstance(game, dict) and game.get("card_set", "default") != "default":
            raise SerializationError(f"{source}: not a usable saved game here: $.game.card_set: "
                                     f"the server plays only the default card set (it reads "
                                     f"no file a request names)")
        session = cls.from_json(data, source)
        session.resigned = bool(data.get("resigned", False))
        for e in session.events:  # the optional fields must be what the view expects
            if "value" in e and not (e["value"] is None or isinstance(e["value"], (int, float))):
                raise SerializationError(f"{source}: not a usable saved game: malformed field "
                                         f"(events: value)")
        return session

    def to_json(self) -> dict[str, Any]:
        data = super().to_json()
        data["resigned"] = self.resigned
        return data

    def save_text(self) -> str:
        """The save file's text (as ``to_json``), fast for a long game: the
        events and undo snapshots never change once made and their lists only
        grow or lose their end (undo), so the JSON of each is kept and only
        the new ones are serialised."""
        head = {k: v for k, v in self.to_json().items() if k not in ("events", "undo")}
        return (json.dumps(head)[:-1] + ', "events": ' + self._dumped(self.events, 0)
                + ', "undo": ' + self._dumped(self.undo_stack, 1) + "}")

    def _dumped(self, items: list[Any], which: int) -> str:
        objs, texts = self._json_cache[which]
        n = min(len(objs), len(items))
        while n and objs[n - 1] is not items[n - 1]:  # the part still the same
            n -= 1
        del objs[n:], texts[n:]
        for item in items[n:]:
            objs.append(item)
            texts.append(json.dumps(item))
        return "[" + ", ".join(texts) + "]"

    # the web has no console: the terminal's printing is skipped
    def say(self, text: str = "", **kwargs: Any) -> None:
        pass

    def flush_events(self) -> None:
        self.shown_events = len(self.events)

    def version(self) -> str:
        """Names the position: a request for another version is stale."""
        h = hashlib.blake2b(self.core.to_bytes(), digest_size=8)
        h.update(f"{len(self.events)}:{self.resigned}:{self.bot_spec}".encode())
        return h.hexdigest()

    def status(self) -> str:
        if self.resigned or self.core.is_terminal():
            return "over"
        return "human" if self.core.current_player() == self.human else "bot"

    def play_chance(self) -> None:
        """Plays chance (from the game's random stream) up to a decision or the end."""
        while not self.resigned and not self.core.is_terminal() and self.core.is_chance():
            self.chance_step()

    def check_version(self, version: Any) -> None:
        if version != self.version():
            raise StaleActionError("stale request: the game has moved on since this page "
                                   "was drawn (reload the view)")

    def human_action(self, action: Any, version: Any) -> None:
        self.check_version(version)
        if self.status() != "human":
            raise StaleActionError(f"not your decision: the game is "
                                   f"{'over' if self.status() == 'over' else 'waiting for the bot'}")
        if isinstance(action, bool) or not isinstance(action, int):
            raise RequestError(f"action: expected an integer action id, got {action!r}")
        legal = self.core.legal_actions()
        if action not in legal:
            raise IllegalActionError(f"action {action} is not legal here "
                                     f"(legal: {', '.join(map(str, legal))})")
        self.decide(action, self.core.action_string(self.human, action))
        self.play_chance()

    def bot_action(self, result: dict[str, Any]) -> None:
        side = self.bot_side
        action = result["action"]
        value = result.get("value")
        rating = "" if value is None else f"bot rates its chance to win at {value[side]:.0%}"
        first = len(self.events)
        self.advance(action, rating)   # narrated by apps.narration, as in play (R5, R29 kept)
        new = self.events[first:]
        mine = next((e for e in new if e.get("who") == SIDES[side]), new[0] if new else None)
        if mine is not None:
            if value is not None:
                mine["value"] = round(value[self.human], 4)  # the human side's chance, for review
            if result.get("alternatives"):
                mine["alternatives"] = result["alternatives"]
        self.play_chance()

    def undo_move(self) -> None:
        if not self.undo_stack:
            raise RequestError("nothing to undo: you have made no decision yet")
        self.undo()
        self.resigned = False

    def resign(self) -> None:
        if self.status() == "over":
            raise StaleActionError("the game is already over")
        self.resigned = True
        self.events.append({"who": SIDES[self.human], "kind": "game_over", "details": {},
                            "text": f"You ({TITLES[self.human]}) resign: the bot wins"})


# ---- the games of a server ----------------------------------------------------

class AutoSaver:
    """Writes autosaves in a thread of its own, so that a click does not wait
    for the disk: the text is made at once (``WebSession.save_text``), and
    every ``delay`` seconds the newest text of each game is written
    (atomically, fsync'ed).  ``flush`` writes at once (on shutdown, so a
    restart finds every game as it was)."""

    def __init__(self, delay: float = 0.5) -> None:
        self.delay = delay
        self._pending: dict[Path, str | None] = {}  # None: remove the file
        self._cond = threading.Condition()
        self._busy = False
        self._hurry = False
        self.errors: list[str] = []
        self._thread = threading.Thread(target=self._work, name="wildhorn-autosave", daemon=True)
        self._thread.start()

    def put(self, path: Path, text: str | None) -> None:
        with self._cond:
            self._pending[path] = text
            self._cond.notify_all()

    def _work(self) -> None:
        while True:
            with self._cond:
                while not self._pending:
                    self._busy = False
                    self._cond.notify_all()
                    self._cond.wait()
                deadline = time.monotonic() + self.delay  # let a burst of clicks coalesce
                while not self._hurry and time.monotonic() < deadline:
                    self._cond.wait(deadline - time.monotonic())
                self._busy = True
                batch, self._pending = self._pending, {}
            for path, text in batch.items():
                try:
                    if text is None:
                        path.unlink(missing_ok=True)
                    else:
                        write_atomic(str(path), text)
                except (OSError, SerializationError) as err:
                    self.errors.append(str(err))

    def flush(self) -> None:
        """Waits until every autosave asked for is on disk."""
        with self._cond:
            self._hurry = True
            self._cond.notify_all()
            while self._pending or self._busy:
                self._cond.wait(0.05)
            self._hurry = False


class GameStore:
    """The games of a server, autosaved in ``data_dir`` as ``game-<id>.json``."""

    def __init__(self, data_dir: str | os.PathLike, limits: Limits = Limits()):
        self.data_dir = Path(data_dir)
        self.data_dir.mkdir(parents=True, exist_ok=True)
        self.limits = limits
        self.games: dict[str, WebSession] = {}
        self.pool = SearchPool(limits.max_searches)
        self.saver = AutoSaver()
        self.load_errors: list[str] = []
        for path in sorted(self.data_dir.glob("game-*.json")):
            gid = path.stem[len("game-"):]
            try:
                with open(path, encoding="utf-8") as f:
                    data = json.load(f)
                session = WebSession.restore(data, path.name)
            except (OSError, ValueError) as err:  # kept on disk, reported, not loaded
                self.load_errors.append(f"{path.name}: {err}")
                continue
            session.id = gid
            self.games[gid] = session

    def path(self, gid: str) -> Path:
        return self.data_dir / f"game-{gid}.json"

    def get(self, gid: str) -> WebSession:
        session = self.games.get(gid)
        if session is None:
            raise UnknownGameError(f"unknown game id {gid[:40]!r} (closed, or never created)")
        return session

    def autosave(self, session: WebSession) -> None:
        self.saver.put(self.path(session.id), session.save_text())

    def _add(self, session: WebSession) -> WebSession:
        if len(self.games) >= self.limits.max_games:
            raise RequestError(f"too many games on this server ({self.limits.max_games}): "
                               f"close one first")
        session.id = secrets.token_urlsafe(ID_BYTES)
        session.play_chance()
        self.games[session.id] = session
        self.autosave(session)
        return session

    def new_game(self, side: Any = "polish", bot: Any = DEFAULT_BOT, seed: Any = None,
                 variant: Any = "full") -> WebSession:
        if side not in ("polish", "german", "random"):
            raise RequestError(f"side: expected \"polish\", \"german\" or \"random\", got {side!r}")
        if not isinstance(bot, str):
            raise RequestError(f"bot: expected a bot spec string, got {bot!r}")
        if seed is None:
            seed = random.SystemRandom().randrange(1 << 31)
        if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 1 << 63:
            raise RequestError(f"seed: expected a non-negative integer, got {seed!r}")
        if variant not in ("full", "small", "tiny"):
            raise RequestError(f"variant: expected \"full\", \"small\" or \"tiny\", got {variant!r}")
        if side == "random":
            side = random.Random(seed ^ 0x5EED).choice(SIDES)
        try:
            spec = cap_spec(bot, self.limits)
            session = WebSession(game_params={"variant": variant}, human=SIDES.index(side),
                                 bot_spec=spec, seed=seed)
        except (BotSpecError, ParameterError) as err:
            raise RequestError(f"bot: {err}") from None
        except Exception as err:  # pyspiel rejects the parameters
            raise RequestError(f"variant: {str(err).splitlines()[0]}") from None
        return self._add(session)

    def upload(self, data: Any, name: str = "upload") -> WebSession:
        """A game from an uploaded save file (the checker's message if bad)."""
        try:
            session = WebSession.restore(data, name)
            session.bot_spec = cap_spec(session.bot_spec, self.limits)
        except BotSpecError as err:
            raise RequestError(f"{name}: not a usable saved game: bot: {err}") from None
        except SerializationError as err:
            raise RequestError(str(err)) from None
        return self._add(session)

    def close(self, gid: str) -> None:
        """Forgets a game: its running search stops, its autosave is removed."""
        session = self.get(gid)
        for task in (session.task, session.hint_task, session.review_task):
            if task is not None and not task.done():
                task.cancel()
        del self.games[gid]
        self.saver.put(self.path(gid), None)

    # ---- searches -----------------------------------------------------------
    async def bot_move(self, session: WebSession) -> None:
        """Plays the bot's next move (a second request waits for the same search)."""
        if session.status() != "bot":
            return
        if session.task is None or session.task.done():
            session.task = asyncio.create_task(self._bot_move(session))
        task = session.task
        try:
            await asyncio.shield(task)
        except asyncio.CancelledError:
            current = asyncio.current_task()
            if task.cancelled() and not (current and current.cancelling()):
                return  # the move was called off (undo, close): the request answers anyway
            raise

    async def _bot_move(self, session: WebSession) -> None:
        version = session.version()
        core = session.core
        side = session.bot_side
        legal = core.legal_actions()
        seed = session.bot_seed()
        session.thinking_since = time.monotonic()
        try:
            if len(legal) == 1:
                result = {"action": legal[0], "value": None}
            elif parse_spec(session.bot_spec)[0] in SEARCHING:
                name, options = parse_spec(session.bot_spec)
                infer = engine_options(name, options).get("inference", "off") != "off"
                seen = [(b.to_bytes(), a) for b, a in session.seen] if infer else None
                result = await self.pool.run(bot_search, session.game_params, core.to_bytes(),
                                             session.bot_spec, side, seed, seen)
            else:
                result = bot_search(session.game_params, core.to_bytes(), session.bot_spec,
                                    side, seed)
        finally:
            session.thinking_since = None
        if session.version() != version or session.id not in self.games:
            return  # undone or closed meanwhile: the move is for a position that is gone
        session.bot_action(result)
        self.autosave(session)

    async def hint(self, session: WebSession) -> dict[str, Any]:
        if session.status() != "human":
            raise StaleActionError("a hint is for your decision: it is not your turn")
        legal = session.core.legal_actions()
        if len(legal) == 1:
            text = session.core.action_string(session.human, legal[0])
            return {"recommended": text, "only": True, "actions": [
                {"action": text, "frequency": 1.0, "visits": None, "value": None}]}
        seed = (session.seed + len(session.events)) & 0x7FFFFFFF
        session.hint_task = asyncio.ensure_future(
            self.pool.run(hint_search, session.game_params, session.core.to_bytes(),
                          session.human, seed, self.limits.hint_iterations,
                          self.limits.max_threads))
        return await session.hint_task

    def start_review(self, session: WebSession) -> dict[str, Any]:
        """Rates the human's decisions in the background (``session.review``
        shows the progress); a second call while it runs changes nothing."""
        if session.review_task is None or session.review_task.done() \
                or session.review["version"] != session.version():
            if session.review_task is not None and not session.review_task.done():
                session.review_task.cancel()
            session.review = {"version": session.version(),
                              "budget": f"ismcts:iterations={self.limits.review_iterations} "
                                        f"per decision, on a position resampled from your "
                                        f"information",
                              "total": len(session.undo_stack), "done": 0, "decisions": []}
            session.review_task = asyncio.ensure_future(self._review(session, session.review))
        return session.review

    async def _review(self, session: WebSession, review: dict[str, Any]) -> None:
        snaps = list(session.undo_stack)
        events = list(session.events)
        for k, snap in enumerate(snaps):
            core = Core.from_bytes(session.config, base64.b64decode(snap["core"]))
            said = events[snap["events"]]["text"] if snap["events"] < len(events) else ""
            legal = core.legal_actions()
            chosen = _chosen_action(session, core, legal, said)
            row: dict[str, Any] = {"index": k, "turn": core.turn, "phase": core.phase,
                                   "chosen": said, "options": len(legal)}
            if chosen is not None and len(legal) > 1:
                row.update(await self.pool.run(
                    review_search, session.game_params, core.to_bytes(), session.human,
                    (session.seed + 7919 * k) & 0x7FFFFFFF, self.limits.review_iterations,
                    chosen, self.limits.max_threads))
            review["decisions"].append(row)
            review["done"] = k + 1

    async def shutdown(self) -> None:
        for session in self.games.values():
            for task in (session.task, session.hint_task, session.review_task):
                if task is not None and not task.done():
                    task.cancel()
        self.saver.flush()


def save_bytes(session: WebSession) -> bytes:
    """The save file of a game, as ``play`` writes it."""
    return session.save_text().encode("utf-8")


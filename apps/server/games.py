"""The games of the web server: each a :class:`~apps.record.GameRecord` (the
record the terminal's ``play`` views too) in a :class:`ServerGame` that adds
what runs for it (the bot's search, a hint, the review), held by a
:class:`GameStore` that writes every game to the data folder before a
request that changed it is answered (so a game survives a page reload, a
restart and a kill), and runs the searches in child processes, at most
``Limits.max_searches`` at once (the others queue): the bot's moves in the
game's own search process, which keeps the game's bot
(:class:`~apps.gamebot.GameBot`) from one move to the next (at most
``Limits.max_bots`` such processes live at once, the least recently used
ended first; a game whose process ended gets a fresh bot at its next
move), hints, reviews and the board's analyses each in a process of its
own; all killed when their game is closed.
"""

from __future__ import annotations

import asyncio
import base64
import json
import multiprocessing
import os
import random
import re
import secrets
import sys
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

import pyspiel

from apps.gamebot import GameBot, hint_search, hint_seed, review_search, review_seed
from apps.record import (DEFAULT_BOT, GameRecord, iter_decisions, new_record, read_save,
                         record_from_json)
from bots import BotSpecError, report_progress
from bots.registry import available_cores
from bots.spec import BotSpec
from solver.errors import (BusyError, IllegalActionError, ParameterError, RequestError,
                           SerializationError, StaleActionError, UnknownGameError)
from solver import Core
from solver.vocabulary import SIDES

ID_BYTES = 18  # secrets.token_urlsafe(18): 24 characters, 144 random bits
ID_PATTERN = re.compile(r"[A-Za-z0-9_-]{24}")  # what such an id looks like
VARIANTS = ("full", "small", "tiny")


@dataclass(frozen=True)
class Limits:
    """What the server allows a request to ask for."""

    max_time: float = 10.0          # seconds per bot move
    max_iterations: int = 200_000   # iterations (ISMCTS, OOS) or simulations per move
    max_nodes: int = 2_000_000      # search tree nodes (memory)
    max_searches: int = 2           # searches running at once; the others queue
    max_bots: int = 4               # games whose bot is kept in a search process at once
    max_queued: int = 16            # searches waiting at once; more are refused (429)
    hint_iterations: int = 3000     # the hint's budget (as in ``play``'s hint)
    review_iterations: int = 1000   # the search that rates each decision in a review
    max_games: int = 200            # games kept (in the data folder) at once
    max_loaded: int = 40            # games held in memory; the others load when asked for
    max_threads: int = field(default_factory=available_cores)  # search threads per search
    ponder: bool = True             # the game's bot thinks on the human's time


# ---- the searches, in child processes ------------------------------------------

def _child(conn: Any, fn: Callable[..., Any], args: tuple, counter: Any = None) -> None:
    if counter is not None:  # the search's iterations, as they are done, for the server
        def count(n: int) -> None:
            with counter.get_lock():
                counter.value += n
        report_progress(count)
    try:
        conn.send(("ok", fn(*args)))
    except BaseException as err:  # reported to the server as a one-line message
        conn.send(("error", f"{type(err).__name__}: {err}"))
    finally:
        conn.close()


class SearchPool:
    """Runs searches in child processes, ``limit`` at once, at most
    ``queue`` waiting (BusyError beyond); a cancelled search kills its
    process, or leaves the queue."""

    def __init__(self, limit: int, queue: int = 16, bots: int = 4):
        self.limit = limit
        self.queue = queue
        self.max_bots = bots
        self._sem: asyncio.Semaphore | None = None
        self.running = 0
        self.waiting = 0
        self.processes: set[Any] = set()  # the searches running now
        self.bots: OrderedDict[str, BotProcess] = OrderedDict()  # by game, least recent first
        self.ctx = multiprocessing.get_context("forkserver")
        self.ctx.set_forkserver_preload(["apps.server.games"])

    def counter(self) -> Any:
        """A shared count for :meth:`run`'s ``counter``: the iterations the
        search has done so far, read by the server while it runs."""
        return self.ctx.Value("q", 0)

    async def _acquire(self) -> None:
        """A place among the searches running (BusyError if the queue is full)."""
        if self._sem is None:  # made in the running loop
            self._sem = asyncio.Semaphore(self.limit)
        if self.waiting >= self.queue and self.running >= self.limit:
            raise BusyError(f"the server is busy: {self.waiting} searches are waiting; "
                            f"try again when one is done")
        self.waiting += 1
        try:
            await self._sem.acquire()
        finally:
            self.waiting -= 1
        self.running += 1

    def _release(self) -> None:
        self.running -= 1
        assert self._sem is not None
        self._sem.release()

    def bot_process(self, gid: str, record: GameRecord, spec: BotSpec) -> BotProcess:
        """The search process of game ``gid``'s bot: the one it has if its
        bot was built with ``spec``, else a new one (the least recently used
        process beyond ``max_bots`` ended)."""
        process = self.bots.get(gid)
        if process is not None and not process.fits(record, spec):
            self.end_bot(gid)
            process = None
        if process is None:
            process = self.bots[gid] = BotProcess(self.ctx, record, spec)
        self.bots.move_to_end(gid)
        while len(self.bots) > self.max_bots:
            self.end_bot(next(iter(self.bots)))
        return process

    def end_bot(self, gid: str, kill: bool = False) -> None:
        """Ends game ``gid``'s search process, if it has one (``kill``: at
        once, a decision under way called off)."""
        process = self.bots.pop(gid, None)
        if process is not None:
            process.kill() if kill else process.close()

    def ponder(self, gid: str, record: GameRecord, spec: BotSpec) -> bool:
        """Starts game ``gid``'s bot thinking on the human's time (the
        human to decide): in its search process, started if need be.  The
        bot's next decision stops it.  False when this bot does not ponder
        (no search, or an iteration budget)."""
        if not spec.searches or spec.name not in ("ismcts", "default") \
                or spec.get("iterations") is not None:
            return False
        self.bot_process(gid, record, spec).ponder(record.core.to_bytes())
        return True

    async def decide(self, gid: str, record: GameRecord, spec: BotSpec) -> dict[str, Any]:
        """The bot's move in game ``gid`` now, from the game's search process
        (the game's bot kept there); a cancelled decision kills the process
        (the game's next move gets a fresh bot)."""
        await self._acquire()
        try:
            process = self.bot_process(gid, record, spec)
            seen = [(b.to_bytes(), a) for b, a in record.observations()] \
                if spec.get("inference", "off") != "off" else None
            loop = asyncio.get_running_loop()
            ask = loop.run_in_executor(None, process.ask, record.core.to_bytes(), seen)
            try:
                status, value = await asyncio.shield(ask)
            except asyncio.CancelledError:
                if self.bots.get(gid) is process:
                    self.end_bot(gid, kill=True)
                else:
                    process.kill()
                raise
        finally:
            self._release()
        if status != "ok":
            self.end_bot(gid, kill=True)
            raise RuntimeError(f"search failed: {value}")
        return value

    async def run(self, fn: Callable[..., Any], *args: Any,
                  on_start: Callable[[], None] | None = None, counter: Any = None) -> Any:
        await self._acquire()
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
            self._release()
        if status != "ok":
            raise RuntimeError(f"search failed: {value}")
        return value


def _bot_child(conn: Any, params: dict[str, Any], spec: BotSpec, player: int,
               seed: int) -> None:
    """The search process of one game: builds the game's bot once, then
    answers each ``("decide", core bytes, transitions)`` with ``("ok",
    move)`` or ``("error", message)``; a ``("ponder", core bytes)`` starts
    the bot thinking on the human's time (``GameBot.ponder``, on a thread,
    within its cap), which the next message stops.  It ends at
    ``("close",)`` or the end of the pipe."""
    try:
        bot = GameBot(params, spec, player, seed)
    except BaseException as err:  # reported at the first request
        bot, failure = None, f"{type(err).__name__}: {err}"
    ponder: tuple[threading.Thread, threading.Event] | None = None
    try:
        while True:
            try:
                message = conn.recv()
            except (EOFError, OSError):
                return
            if ponder is not None:           # whatever comes next, the ponder stops
                ponder[1].set()
                ponder[0].join()
                ponder = None
            if message[0] == "ponder":
                if bot is not None:
                    ponder = _start_ponder(bot, Core.from_bytes(bot.config, message[1]))
                continue
            if message[0] != "decide":
                return
            if bot is None:
                conn.send(("error", failure))
                continue
            try:
                config = bot.config
                core = Core.from_bytes(config, message[1])
                seen = [(Core.from_bytes(config, raw), a) for raw, a in message[2]] \
                    if message[2] else None
                conn.send(("ok", bot.decide(core, seen)))
            except BaseException as err:  # reported to the server as a one-line message
                conn.send(("error", f"{type(err).__name__}: {err}"))
    finally:
        if ponder is not None:
            ponder[1].set()
            ponder[0].join()
        if bot is not None:
            bot.close()
        conn.close()


def _start_ponder(bot: GameBot, core: Core) -> tuple[threading.Thread, threading.Event]:
    """The bot pondering ``core`` on a thread until the event is set."""
    stop = threading.Event()

    def run() -> None:
        try:
            bot.ponder(core, stop.is_set)
        except Exception as err:  # noqa: BLE001 - a ponder that fails only loses its help
            print(f"warning: pondering stopped: {type(err).__name__}: {err}", file=sys.stderr)

    thread = threading.Thread(target=run, name="ponder", daemon=True)
    thread.start()
    return thread, stop


class BotProcess:
    """The search process of one game (:func:`_bot_child`), with the spec
    and seed its bot was built with."""

    def __init__(self, ctx: Any, record: GameRecord, spec: BotSpec):
        self.spec = spec
        self.seed = record.bot_seed()
        self.conn, child = ctx.Pipe(duplex=True)
        self.proc = ctx.Process(target=_bot_child, daemon=True,
                                args=(child, record.setup.params, spec, record.bot_side,
                                      self.seed))
        self.proc.start()
        child.close()

    def fits(self, record: GameRecord, spec: BotSpec) -> bool:
        """True if this process's bot is ``record``'s game's bot with ``spec``."""
        return self.proc.is_alive() and self.spec == spec and self.seed == record.bot_seed()

    def ponder(self, core_bytes: bytes) -> None:
        """Starts the bot thinking on the human's time at this position."""
        try:
            self.conn.send(("ponder", core_bytes))
        except OSError:
            pass

    def ask(self, core_bytes: bytes, seen: list[tuple[bytes, int]] | None) -> tuple[str, Any]:
        """Sends one decision and waits for the answer (in a thread)."""
        try:
            self.conn.send(("decide", core_bytes, seen))
            return self.conn.recv()
        except (EOFError, OSError):
            return ("error", "the game's search process ended without an answer")

    def close(self) -> None:
        """Asks the process to end (its bot gives back what it holds); it
        is not waited for (``multiprocessing`` reaps it)."""
        try:
            self.conn.send(("close",))
        except OSError:
            self.proc.kill()
        self.conn.close()

    def kill(self) -> None:
        self.proc.kill()
        self.conn.close()


def _receive(conn: Any) -> tuple[str, Any]:
    """The child's answer (in a thread: the event loop goes on meanwhile)."""
    try:
        return conn.recv()
    except (EOFError, OSError):
        return ("error", "the search process ended without an answer")
    finally:
        conn.close()


# ---- one game ---------------------------------------------------------------

class ServerGame:
    """A game of the web table: its record, and what runs for it."""

    def __init__(self, gid: str, record: GameRecord):
        self.id = gid
        self.record = record
        self.task: asyncio.Task | None = None          # the bot's move
        self.thinking_since: float | None = None
        self.pondering_since: float | None = None      # the bot thinks on the human's time
        self.hint_task: asyncio.Future | None = None
        self.review: dict[str, Any] | None = None
        self.review_task: asyncio.Future | None = None
        self.save_error: str | None = None             # the last autosave that failed
        self.save_ms = 0.0                             # the last save's time (Server-Timing)

    def check_version(self, version: Any) -> None:
        if version != self.record.version():
            raise StaleActionError("the table has changed since you chose: that move was not "
                                   "made, choose again")

    def tasks(self) -> list[asyncio.Future]:
        return [t for t in (self.task, self.hint_task, self.review_task) if t is not None]

    def cancel(self) -> None:
        for task in self.tasks():
            if not task.done():
                task.cancel()


# ---- the games of a server ----------------------------------------------------

def private_folder(folder: Path) -> None:
    """Creates ``folder`` and any missing parent as 0700: the games' ids, the
    files' names, are their only credential."""
    missing = []
    for parent in [folder, *folder.parents]:
        if parent.exists():
            break
        missing.append(parent)
    for path in reversed(missing):
        path.mkdir(mode=0o700, exist_ok=True)
        os.chmod(path, 0o700)  # whatever the umask
    if not folder.is_dir():
        raise SerializationError(f"{folder}: the data folder is not a folder")


def _modified(path: Path) -> float:
    try:
        return path.stat().st_mtime
    except OSError:
        return 0.0


def _summary(path: Path) -> dict[str, Any] | None:
    """The listing's line of a save not in memory (its stored position,
    read without replaying the game; None if it cannot be read)."""
    try:
        data = json.loads(path.read_bytes()[:4_000_000])
        game = pyspiel.load_game("wildhorn", dict(data["game"]))
        core = Core.from_bytes(game.core_config, base64.b64decode(data["core"]))
        return {"side": str(data["human_side"]), "bot": str(data["bot"])[:80],
                "turn": core.turn, "over": bool(core.is_terminal() or data.get("resigned"))}
    except Exception:  # noqa: BLE001 - listed as unreadable; loading it says why
        return {"side": None, "bot": None, "turn": None, "over": None, "unreadable": True}


class GameStore:
    """The games of a server, each saved in ``data_dir`` as ``game-<id>.json``
    (the record's save) before the request that changed it is answered.  At
    most ``Limits.max_loaded`` are held in memory (the most recently used);
    the others stay on disk and load when a request names them."""

    def __init__(self, data_dir: str | os.PathLike, limits: Limits = Limits()):
        self.data_dir = Path(data_dir)
        private_folder(self.data_dir)
        self.limits = limits
        self.games: OrderedDict[str, ServerGame] = OrderedDict()  # loaded, least recent first
        self.pool = SearchPool(limits.max_searches, limits.max_queued, limits.max_bots)
        self.load_errors: list[str] = []
        paths = sorted(self.data_dir.glob("game-*.json"), key=_modified)
        for path in paths[-limits.max_loaded:]:  # the most recent are loaded (and checked) now
            self._load(path.stem[len("game-"):])

    def ids(self) -> list[str]:
        """Every game kept (in the data folder), least recently changed first."""
        return [p.stem[len("game-"):] for p in sorted(self.data_dir.glob("game-*.json"),
                                                      key=_modified)]

    def _load(self, gid: str) -> ServerGame | None:
        """The game ``gid`` read from its save (None if there is none, or if
        it cannot be loaded: then it is reported and moved aside)."""
        path = self.path(gid)
        try:
            record = read_save(str(path))
        except SerializationError as err:
            if not path.exists():
                return None
            self.load_errors.append(self._set_aside(path, err))
            print(f"warning: a saved game was not loaded: {self.load_errors[-1]}",
                  file=sys.stderr)
            return None
        game = ServerGame(gid, record)
        self.games[gid] = game
        self._evict()
        return game

    def _evict(self) -> None:
        """Forgets the least recently used games past the in-memory cap (they
        are on disk already); a game with a search under way stays."""
        for gid in list(self.games):
            if len(self.games) <= self.limits.max_loaded:
                break
            if not any(not t.done() for t in self.games[gid].tasks()):
                del self.games[gid]
                self.pool.end_bot(gid)

    def _set_aside(self, path: Path, err: Exception) -> str:
        """Moves a save that cannot be loaded aside (renamed, never deleted),
        so that it is reported once; the message says where it went."""
        aside = path.with_name(f"{path.name}.unreadable-{int(time.time())}")
        try:
            os.replace(path, aside)
        except OSError as move:
            return f"{err} (left in place: cannot rename it: {move.strerror or move})"
        return f"{err} (moved aside to {aside.name})"

    def path(self, gid: str) -> Path:
        return self.data_dir / f"game-{gid}.json"

    def get(self, gid: str) -> ServerGame:
        game = self.games.get(gid)
        if game is None and ID_PATTERN.fullmatch(gid):
            game = self._load(gid)
        if game is None:
            raise UnknownGameError(f"unknown game id {gid[:40]!r} (closed, or never created)")
        self.games.move_to_end(gid)
        return game

    def listing(self) -> list[dict[str, Any]]:
        """A line for every game kept, the most recent first: its id, the
        human's side, the bot, the turn and whether it is over (read from the
        save of a game not in memory, without replaying it)."""
        out = []
        for gid in reversed(self.ids()):
            if gid in self.games:
                record = self.games[gid].record
                row = {"side": SIDES[record.human], "bot": str(record.bot),
                       "turn": record.core.turn, "over": record.status() == "over"}
            else:
                row = _summary(self.path(gid))
            if row is not None:
                out.append({"id": gid, **row})
        return out

    def autosave(self, game: ServerGame) -> None:
        """Writes the game to disk now (atomically, fsync'ed); a failure is
        kept on the game (its view shows it) and the game stays in memory."""
        start = time.perf_counter()
        try:
            game.record.save(str(self.path(game.id)))
            game.save_error = None
            game.save_ms = 1000 * (time.perf_counter() - start)
        except SerializationError as err:
            game.save_error = (f"the game could not be saved ({err}); it goes on in memory, "
                               f"but a restart would lose the moves since the last save")
            print(f"warning: {game.save_error}", file=sys.stderr)

    def _add(self, record: GameRecord) -> ServerGame:
        if len(self.ids()) >= self.limits.max_games:
            raise RequestError(f"too many games on this server ({self.limits.max_games}): "
                               f"close one first (GET /api/games lists them)")
        game = ServerGame(secrets.token_urlsafe(ID_BYTES), record)
        self.games[game.id] = game
        self.autosave(game)
        self._evict()
        return game

    def new_game(self, side: Any = "polish", bot: Any = DEFAULT_BOT, seed: Any = None,
                 variant: Any = "full") -> ServerGame:
        if side not in ("polish", "german", "random"):
            raise RequestError(f"side: expected \"polish\", \"german\" or \"random\", got "
                               f"{str(side)[:40]!r}")
        if seed is None:
            seed = random.SystemRandom().randrange(1 << 31)
        if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 1 << 63:
            raise RequestError(f"seed: expected a non-negative integer, got {str(seed)[:40]!r}")
        if variant not in VARIANTS:
            raise RequestError(f"variant: expected \"full\", \"small\" or \"tiny\", got "
                               f"{str(variant)[:40]!r}")
        if side == "random":
            side = random.Random(seed ^ 0x5EED).choice(SIDES)
        try:
            spec = BotSpec.parse(bot)
            spec.capped(self.limits)  # a spec the server cannot run is refused now
        except BotSpecError as err:
            raise RequestError(f"bot: {err}") from None
        try:
            record = new_record(variant=variant, human=SIDES.index(side), bot=spec, seed=seed)
        except ParameterError as err:
            raise RequestError(f"variant: {err}") from None
        game = self._add(record)
        self.ponder(game)
        return game

    def read_upload(self, data: Any, name: str = "upload") -> GameRecord:
        """The game of an uploaded save file, replayed and checked (the
        reader's message if bad); CPU work, run off the event loop."""
        try:
            record = record_from_json(data, name, card_sets=False)
            record.bot.capped(self.limits)
        except BotSpecError as err:
            raise RequestError(f"{name}: not a usable saved game: bot: {err}") from None
        except SerializationError as err:
            raise RequestError(str(err)) from None
        return record

    def upload(self, data: Any, name: str = "upload") -> ServerGame:
        """A game from an uploaded save file (the reader's message if bad)."""
        return self._add(self.read_upload(data, name))

    def add(self, record: GameRecord) -> ServerGame:
        """Keeps a game read elsewhere (:meth:`read_upload`) under a new id."""
        return self._add(record)

    def close(self, gid: str) -> None:
        """Forgets a game: its running searches stop, its save is removed."""
        game = self.get(gid)
        game.cancel()
        del self.games[gid]
        self.pool.end_bot(gid, kill=True)
        self.path(gid).unlink(missing_ok=True)

    def act(self, game: ServerGame, action: Any, version: Any) -> None:
        """The human's action (checked against the version the page drew)."""
        game.check_version(version)
        record = game.record
        if record.status() == "human" and isinstance(action, int) \
                and not isinstance(action, bool) and action not in record.core.legal_actions():
            # the page offers only legal moves: a player never sees an action id
            raise IllegalActionError("that move is not possible in this position: choose one "
                                     "of the moves offered")
        record.human_act(action)
        self.autosave(game)
        game.pondering_since = None
        if record.status() == "over":
            self.pool.end_bot(game.id)

    def undo(self, game: ServerGame) -> None:
        if game.task is not None and not game.task.done():
            game.task.cancel()
        if game.record.status() == "over":
            raise StaleActionError("the game is over: nothing to take back (start a new game, "
                                   "or review this one)")
        if not game.record.undo():
            raise RequestError("nothing to undo: you have made no decision yet")
        self.autosave(game)
        self.ponder(game)

    def resign(self, game: ServerGame) -> None:
        game.record.resign()
        game.cancel()
        self.autosave(game)
        self.pool.end_bot(game.id, kill=True)

    def set_time(self, game: ServerGame, seconds: Any) -> None:
        """The bot's seconds per move from now on."""
        if isinstance(seconds, bool) or not isinstance(seconds, (int, float)) \
                or not 0 < seconds <= self.limits.max_time:
            raise RequestError(f"time: expected seconds per move in (0, "
                               f"{self.limits.max_time:g}], got {str(seconds)[:40]!r}")
        try:
            game.record.with_bot(game.record.bot.with_time(float(seconds)))
        except BotSpecError as err:
            raise RequestError(f"time: {err}") from None
        self.autosave(game)

    # ---- searches -----------------------------------------------------------
    def running_spec(self, game: ServerGame) -> BotSpec:
        """The game's bot as this server runs it: capped, on its threads."""
        return game.record.bot.capped(self.limits)

    async def bot_move(self, game: ServerGame) -> None:
        """Plays the bot's next move (a second request waits for the same search)."""
        if game.record.status() != "bot":
            return
        if game.task is None or game.task.done():
            game.task = asyncio.create_task(self._bot_move(game))
        task = game.task
        try:
            await asyncio.shield(task)
        except asyncio.CancelledError:
            current = asyncio.current_task()
            if task.cancelled() and not (current and current.cancelling()):
                return  # the move was called off (undo, close): the request answers anyway
            raise

    async def _bot_move(self, game: ServerGame) -> None:
        record = game.record
        version = record.version()
        forced = record.bot_forced()
        if forced is not None:
            record.bot_act(forced)
            self.autosave(game)
            return
        spec = self.running_spec(game)
        game.pondering_since = None
        game.thinking_since = time.monotonic()
        try:
            if spec.searches:
                result = await self.pool.decide(game.id, record, spec)
            else:
                result = GameBot.for_record(record, spec).decide_record(record)
        finally:
            game.thinking_since = None
        if record.version() != version or game.id not in self.games:
            return  # undone or closed meanwhile: the move is for a position that is gone
        record.bot_act(result["action"], result["value"], result["alternatives"])
        self.autosave(game)
        if record.status() == "over":
            self.pool.end_bot(game.id)
        self.ponder(game)

    def ponder(self, game: ServerGame) -> None:
        """At the human's decision, the game's bot thinks on the human's
        time in its search process (``Limits.ponder``; a bot that searches
        with a time budget), until its next decision or its cap; the view
        says so (``pondering``)."""
        game.pondering_since = None
        if not self.limits.ponder or game.record.status() != "human":
            return
        if self.pool.ponder(game.id, game.record, self.running_spec(game)):
            game.pondering_since = time.monotonic()

    async def hint(self, game: ServerGame) -> dict[str, Any]:
        record = game.record
        if record.status() != "human":
            raise StaleActionError("a hint is for your decision: it is not your turn")
        legal = record.core.legal_actions()
        if len(legal) == 1:
            text = record.core.action_string(record.human, legal[0])
            return {"recommended": text, "only": True, "actions": [
                {"action": text, "frequency": 1.0, "visits": None, "value": None}]}
        game.hint_task = asyncio.ensure_future(
            self.pool.run(hint_search, record.setup.params, record.core.to_bytes(),
                          record.human, hint_seed(record), self.limits.hint_iterations,
                          self.limits.max_threads))
        return await game.hint_task

    def start_review(self, game: ServerGame) -> dict[str, Any]:
        """Rates the human's decisions in the background (``game.review``
        shows the progress); a second call while it runs changes nothing."""
        version = game.record.version()
        if game.review_task is None or game.review_task.done() \
                or game.review is None or game.review["version"] != version:
            if game.review_task is not None and not game.review_task.done():
                game.review_task.cancel()
            game.review = {"version": version,
                           "budget": f"ismcts:iterations={self.limits.review_iterations} "
                                     f"per decision, on a position resampled from your "
                                     f"information",
                           "total": len(game.record.human_steps()), "done": 0,
                           "decisions": []}
            game.review_task = asyncio.ensure_future(self._review(game, game.review))
        return game.review

    async def _review(self, game: ServerGame, review: dict[str, Any]) -> None:
        record = game.record
        events = list(record.events)
        for k, core, chosen, at in list(iter_decisions(record)):
            said = events[at]["text"] if at < len(events) else ""
            legal = core.legal_actions()
            row: dict[str, Any] = {"index": k, "turn": core.turn, "phase": core.phase,
                                   "chosen": said, "options": len(legal)}
            if len(legal) > 1:
                row.update(await self.pool.run(
                    review_search, record.setup.params, core.to_bytes(), record.human,
                    review_seed(record, k), self.limits.review_iterations, chosen,
                    self.limits.max_threads))
            review["decisions"].append(row)
            review["done"] = k + 1

    async def shutdown(self) -> None:
        for game in self.games.values():
            game.cancel()
        for gid in list(self.pool.bots):
            self.pool.end_bot(gid, kill=True)

"""Playing the games: one game (:func:`play_game`, run in a worker) and the
backends that run them, ``local`` (``--jobs`` worker processes) or ``ray``
(Ray tasks on a local instance or a cluster), and :func:`results_in_order`,
which keeps a window of games in play and hands their results back in game-id
order, so the files do not depend on ``--jobs`` or the backend.

A backend runs a worker function on each task, :func:`play_game` unless told
another (``wildhorn-solve train`` runs its data generation, a chunk of
self-play games per task, through the same backends); the function must be
importable by name in the workers (a module-level function).
"""

from __future__ import annotations

import ctypes
import os
import signal
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import ProcessPoolExecutor
from typing import Any

import pyspiel

import solver  # noqa: F401  (registers the game)
from apps.engine import EngineBot, is_external
from apps.tournament.chance import make_stream
from apps.tournament.luck import LUCK_FIELD, LuckMeter
from apps.tournament.scheduling import GameTask, derive
from apps.tournament.store import close_inherited_locks
from apps.gamebot import GameBot
from bots import BotSpec
from solver.errors import ParameterError
from solver.vocabulary import SIDES

BACKENDS = ("local", "ray")


# ---- one game (runs in a worker process) --------------------------------------

_GAME = None


def _game() -> Any:
    """The rulebook game, loaded once per worker process."""
    global _GAME
    if _GAME is None:
        _GAME = pyspiel.load_game("wildhorn")
    return _GAME


def play_game(task: GameTask) -> dict[str, Any]:
    """Play one game; the chance outcomes come from the task's chance scheme
    on its deal seed (:mod:`apps.tournament.chance`).  With ``task.luck`` (a
    value function, :mod:`apps.tournament.luck`) the row gets the game's luck
    for the Polish side, ``luck_polish``, measured at each chance event
    outside the bots' clocks."""
    game = _game()
    specs = (task.polish, task.german)
    chance = make_stream(task.chance, task.deal_seed)
    state = game.new_initial_state()
    seconds, moves, values = [0.0, 0.0], [0, 0], []
    meter = LuckMeter(task.luck) if task.luck is not None else None
    bots: list[Any] = []
    try:
        for p in (0, 1):
            bots.append(make_player(specs[p], p, derive("bot", task.deal_seed, p)))
        while not state.is_terminal():
            if state.is_chance_node():
                outcome = chance.sample(state)
                if meter is not None:
                    meter.observe(state.core, outcome)
                state.apply_action(outcome)
                continue
            player = state.current_player()
            t0 = time.perf_counter()
            result = bots[player].analyse(state)
            seconds[player] += time.perf_counter() - t0
            moves[player] += 1
            if result.get("value") is not None:
                values.append((player, moves[0] + moves[1], float(result["value"][player])))
            state.apply_action(result["action"])
    finally:
        for bot in bots:
            if isinstance(bot, EngineBot):
                bot.close(state if state.is_terminal() else None)
            else:
                bot.close()
    winner = 0 if state.returns()[0] > 0 else 1
    frags = state.core.scores()
    row = {"game": task.game, "pairing": task.pairing, "deal": task.deal,
           "deal_seed": task.deal_seed, "polish": task.polish, "german": task.german,
           "winner_side": SIDES[winner], "winner": specs[winner],
           "fragments_polish": frags[0], "fragments_german": frags[1],
           "moves": moves[0] + moves[1],
           "seconds_per_move_polish": round(seconds[0] / max(moves[0], 1), 6),
           "seconds_per_move_german": round(seconds[1] / max(moves[1], 1), 6)}
    if meter is not None:
        row[LUCK_FIELD] = round(meter.total, 6)
    value_rows = [{"game": task.game, "bot": specs[p], "side": SIDES[p], "move": m,
                   "value": round(v, 6), "won": int(p == winner)} for p, m, v in values]
    return {"row": row, "values": value_rows}


def make_player(spec: str, player: int, seed: int) -> Any:
    """The bot of one seat, kept for the whole game: a built-in bot as every
    interface drives it (:class:`apps.gamebot.GameBot`, the table's
    defaults), or for ``cmd:COMMAND ARGS`` an engine process speaking the
    engine protocol (apps.engine)."""
    if is_external(spec):
        return EngineBot(spec, player, seed, _game())
    return GameBot(_game().get_parameters(), BotSpec.parse(spec), player, seed,
                   interactive=False)


# ---- backends ---------------------------------------------------------------------

PARENT_POLL_SECONDS = 0.5   # how often a worker looks whether its run is still alive


def _exit_with_parent(main_thread: bool) -> None:
    """In a worker: end when the run that started it dies (a kill -9 of the
    run leaves no one to tell it).  Linux's parent-death signal ends it at
    once, even deep in a search (armed only for a worker forked by the main
    thread: the signal follows the thread that forked, not the process);
    everywhere, a daemon thread sees the parent change (the worker is
    re-parented) and exits."""
    parent = os.getppid()
    if main_thread:
        try:
            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(1, signal.SIGKILL, 0, 0, 0)  # PR_SET_PDEATHSIG
        except (OSError, AttributeError):
            pass
    if os.getppid() != parent:  # died before the signal was armed
        os._exit(1)

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(PARENT_POLL_SECONDS)
        os._exit(1)

    threading.Thread(target=watch, name="parent-watch", daemon=True).start()


def worker_init(main_thread: bool = False) -> None:
    """The initializer of a local worker process (``main_thread``: forked by
    the run's main thread).  SIGTERM ends a worker at once, even deep in a
    search (the run's own SIGTERM handler, inherited by a fork, is reset)."""
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    close_inherited_locks()
    _exit_with_parent(main_thread)


class LocalBackend:
    """Tasks in ``jobs`` worker processes, each run by ``fn``."""

    def __init__(self, jobs: int, address: str | None = None, fn: Callable = play_game):
        self.fn = fn
        self.pool = ProcessPoolExecutor(max_workers=jobs,
                                        initializer=worker_init,
                                        initargs=(threading.current_thread()
                                                  is threading.main_thread(),))

    def submit(self, task: Any) -> Any:
        return self.pool.submit(self.fn, task)

    def result(self, handle: Any) -> dict[str, Any]:
        return handle.result()

    def cancel(self, handle: Any) -> None:
        handle.cancel()

    def abort(self) -> None:
        """Stops the games in play (after Ctrl-C, which a terminal also sends
        to the workers, but a ``kill -INT`` of the main process does not)."""
        procs = list((getattr(self.pool, "_processes", None) or {}).values())
        for proc in procs:    # (shutdown forgets them, so they are taken first)
            proc.terminate()
        _shut_down(self.pool)

    def close(self) -> None:
        _shut_down(self.pool)


SHUTDOWN_RETRY_SECONDS = 5.0    # how long a manager thread may take to mark itself started
SHUTDOWN_RETRY_PAUSE = 0.01


def _shut_down(pool: ProcessPoolExecutor) -> None:
    """``pool.shutdown``, waiting for its workers, after an interrupt that
    may have torn the pool's first ``submit``.  That ``submit`` starts the
    pool's manager thread, and ``Thread.start`` waits until the new thread
    runs; a Ctrl-C or SIGTERM (raised as KeyboardInterrupt) during that wait
    leaves a thread that runs but is not yet marked as started, and
    ``join`` refuses it ("cannot join thread before it is started") for
    the moment it takes to mark itself.  So a refused shutdown is retried
    for up to SHUTDOWN_RETRY_SECONDS."""
    deadline = time.monotonic() + SHUTDOWN_RETRY_SECONDS
    while True:
        try:
            pool.shutdown(wait=True, cancel_futures=True)
            return
        except RuntimeError:
            if time.monotonic() >= deadline:
                raise
            time.sleep(SHUTDOWN_RETRY_PAUSE)


RAY_LOCAL_OBJECT_STORE = 128 * 1024 * 1024   # game results are tiny


class RayBackend:
    """Tasks as Ray tasks, each run by ``fn``.  ``address`` None or ``"local"`` starts a local
    Ray instance with ``jobs`` CPUs (shut down at the end); any other value
    (``auto``, ``HOST:PORT``, ``ray://HOST:PORT``) connects to that cluster,
    whose nodes need wildhorn-solve installed.  An already initialised Ray
    (e.g. a caller's ``ray.init``) is used as it is."""

    def __init__(self, jobs: int, address: str | None = None, fn: Callable = play_game):
        try:
            import ray
        except ImportError:
            raise ParameterError("--backend ray: ray is not installed "
                                 "(pip install 'wildhorn-solve[ray]')") from None
        self.ray = ray
        self.owned = not ray.is_initialized()
        if self.owned:
            import logging

            common = {"include_dashboard": False, "log_to_driver": False,
                      "logging_level": logging.WARNING}
            try:
                if address in (None, "local"):
                    ray.init(address="local", num_cpus=jobs,
                             object_store_memory=RAY_LOCAL_OBJECT_STORE, **common)
                else:
                    ray.init(address=address, **common)
            except Exception as err:  # ray raises ConnectionError, ValueError, RuntimeError...
                text = str(err).strip().splitlines()[0] if str(err).strip() else type(err).__name__
                raise ParameterError(f"--backend ray: cannot start or reach Ray at "
                                     f"{address or 'local'}: {text}") from None
        self.remote = ray.remote(num_cpus=1)(fn)
        cpus = int(ray.cluster_resources().get("CPU", 0))
        where = "a local instance" if self.owned and address in (None, "local") else \
            f"the cluster at {address}" if self.owned else "the running Ray session"
        self.description = f"Ray: {where} with {cpus} CPUs"

    def submit(self, task: Any) -> Any:
        return self.remote.remote(task)

    def result(self, handle: Any) -> dict[str, Any]:
        return self.ray.get(handle)

    def cancel(self, handle: Any) -> None:
        try:
            self.ray.cancel(handle)
        except Exception:  # already finished or gone: nothing to cancel
            pass

    def abort(self) -> None:
        """Nothing beyond ``cancel`` of each pending game (done by run)."""

    def close(self) -> None:
        if self.owned:
            self.ray.shutdown()


def make_backend(backend: str, jobs: int, address: str | None = None,
                 fn: Callable = play_game) -> Any:
    """The ``local`` or ``ray`` backend with ``jobs`` parallel tasks, each
    run by ``fn`` (by default a game, :func:`play_game`)."""
    return (RayBackend if backend == "ray" else LocalBackend)(jobs, address, fn)


def results_in_order(runner: Any, tasks: Iterable[Any], window: int,
                     handles: dict[int, Any]) -> Iterator[tuple[Any, Any]]:
    """(task, result) for each task in order, with up to ``window`` tasks
    submitted ahead.  ``tasks`` may be lazy (a generator): only the window
    is ever held.  Each task has a distinct ``game`` id (a game's, or for
    another worker function any id), the key of ``handles``: the tasks
    submitted and not yet collected, for the caller to cancel when it stops
    early."""
    queue = iter(tasks)
    ahead: deque[Any] = deque()
    while True:
        while len(handles) < window:
            task = next(queue, None)
            if task is None:
                break
            handles[task.game] = runner.submit(task)
            ahead.append(task)
        if not ahead:
            return
        task = ahead.popleft()
        yield task, runner.result(handles.pop(task.game))

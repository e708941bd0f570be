"""The run: play (or continue) a tournament in a folder, as a short sequence
of named steps: check the arguments, lock the folder, check or write its
parameters, read back the games already played, play the rest, and write the
summary and reports."""

from __future__ import annotations

import signal
import threading
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

from apps.engine import external_command, is_external
from apps.tournament import report, store
from apps.tournament.chance import check_scheme
from apps.tournament.execution import BACKENDS, make_backend, results_in_order
from apps.tournament.luck import identity_of, luck_value
from apps.tournament.progress import LineProgress, game_line
from apps.tournament.scheduling import GameTask, pairings, schedule
from apps.tournament.stats import analyse, luck_summary, pair_scores, parse_sprt, sprt
from bots import BotSpec, parse_spec, valuenet
from solver.errors import ParameterError, brief


class TournamentInterrupted(KeyboardInterrupt):
    """Ctrl-C during :func:`run`: ``summary`` holds the standings of the
    games finished before it (also written to the output folder)."""

    def __init__(self, summary: dict[str, Any]):
        super().__init__(f"interrupted after {summary['games']} of "
                         f"{summary['scheduled_games']} games")
        self.summary = summary


def run(bots: list[str], fmt: str = "round-robin", games: int = 10, jobs: int = 1,
        seed: int = 0, out: str = "tournament", sprt_text: str | None = None,
        echo=print, progress: Any = None, backend: str = "local",
        address: str | None = None, chance: str | None = None,
        luck: Any = False) -> dict[str, Any]:
    """Play (or continue) a tournament; returns the summary.  ``progress``
    (default: plain lines through ``echo``) reports each finished game.
    ``chance`` is the chance scheme (:mod:`apps.tournament.chance`): None
    means the folder's (``sequential`` for a folder written before the
    schemes existed) or, for a new folder, ``keyed``.  ``luck``: True
    measures each game's luck with the tournament's value function
    (:func:`apps.tournament.luck.default_value`), a network file's path
    with that network, a value function
    (:class:`apps.tournament.luck.ValueFunction`) with that one; the summary
    then has the luck-adjusted scores (``luck_adjusted``)."""
    sprt_params = check_arguments(bots, fmt, games, jobs, backend, address, sprt_text)
    if chance is not None:
        check_scheme(chance)
    networks = bot_networks(bots)
    value = luck_value(luck)
    identity = identity_of(value) if value is not None else None
    progress = progress or LineProgress(echo)
    outdir = Path(out)
    with store.FolderLock(outdir):
        chance = store.chance_scheme(outdir, chance)
        store.check_networks(outdir, networks, networks_before_records(networks))
        store.check_luck(outdir, identity)
        params = {"bots": bots, "format": fmt, "games": games, "seed": seed,
                  "sprt": sprt_params, "chance": chance}
        if identity is not None:
            params["luck"] = identity
        if networks:
            params["networks"] = networks
        store.check_parameters(outdir, params)
        tasks = schedule(bots, fmt, games, seed, chance)  # lazy: no memory per game
        played = store.resume(outdir, tasks, luck=value is not None)
        done = played.ids()
        pending = (t if value is None else replace(t, luck=value)
                   for t in tasks if t.game not in done)
        interrupted = False
        if len(done) < len(tasks) and not sprt_decided(bots, sprt_params, played.rows):
            interrupted = play(pending, played, outdir, params, len(tasks), jobs, backend,
                               address, progress)
        summary = summarise(params, len(tasks), played, interrupted)
        report.write_results(outdir, params, summary)
    if interrupted:
        raise TournamentInterrupted(summary)
    return summary


# ---- the steps ----------------------------------------------------------------------

def bot_networks(bots: Sequence[str]) -> dict[str, dict[str, str]]:
    """The value network each bot of this project values its leaves with
    (``BotSpec.network``; its file's name and sha256), by spec: recorded in
    ``tournament.json``, so a folder refuses to continue once the network
    behind a spec has changed (the packaged one replaced, say).  A file
    that cannot serve is refused here, before anything is written."""
    found = {}
    for spec in bots:
        if is_external(spec):
            continue
        path = BotSpec.parse(spec).network()
        if path is not None:
            found[spec] = {"file": path.name, "sha256": valuenet.load(path).sha256}
    return found


PACKAGED_BEFORE_RECORDS = {
    "file": "value_net.npz",
    "sha256": "3110d9622bd4682db16edab69854cd86632314978afd4968b8ef7648b9813fdb"}
"""The packaged value network of every build before tournament folders
recorded their networks: generation 1, the only one packaged until then."""


def networks_before_records(networks: dict[str, dict[str, str]]) -> dict[str, dict[str, str]]:
    """What the bots of ``networks`` valued their leaves with in a folder
    written before the record existed: :data:`PACKAGED_BEFORE_RECORDS` for
    a spec without ``net=``; a ``net=`` file then is not known."""
    return {spec: PACKAGED_BEFORE_RECORDS for spec in networks
            if BotSpec.parse(spec).get("net") is None}


def check_arguments(bots: list[str], fmt: str, games: int, jobs: int, backend: str = "local",
                    address: str | None = None,
                    sprt_text: str | None = None) -> dict[str, float] | None:
    """Refuse bad arguments before anything is written; returns the SPRT's
    parameters (None without ``--sprt``)."""
    pairings(max(len(bots), 1), fmt)
    if fmt == "self-play":
        if len(bots) != 1:
            raise ParameterError(f"--format self-play: give exactly one bot (it plays both "
                                 f"sides), got {len(bots)}")
    elif len(bots) < 2:
        raise ParameterError(f"--bots: a tournament needs at least two bots, got {len(bots)} "
                             f"(bot specs are separated by ';', e.g. --bots "
                             f"\"ismcts;heuristic\"; ',' separates a bot's options)")
    if len(set(bots)) != len(bots):
        raise ParameterError("--bots: each bot spec may appear only once")
    for spec in bots:
        if is_external(spec):
            external_command(spec)
        else:
            parse_spec(spec)
    if fmt == "self-play":
        if games <= 0:
            raise ParameterError(f"--games: expected a positive number of games, got {games}")
    elif games <= 0 or games % 2:
        raise ParameterError(f"--games: expected a positive even number of games per pairing "
                             f"(each deal is played twice), got {games}")
    if jobs <= 0:
        raise ParameterError(f"--jobs: expected a positive number, got {jobs}")
    if backend not in BACKENDS:
        raise ParameterError(f"--backend: expected one of {', '.join(BACKENDS)}, got {brief(backend)}")
    if address is not None and backend != "ray":
        raise ParameterError("--address: only with --backend ray")
    sprt_params = parse_sprt(sprt_text) if sprt_text is not None else None
    if sprt_params and (len(bots) != 2 or fmt == "self-play"):
        raise ParameterError("--sprt: an SPRT compares exactly two bots")
    return sprt_params


def sprt_state(bots: Sequence[str], sprt_params: dict[str, float] | None,
               rows: Sequence[dict[str, Any]]) -> dict[str, Any] | None:
    """The SPRT of the first bot against the second over the complete deals
    of ``rows`` (by pair: it never decides inside a deal; None without one)."""
    if not sprt_params:
        return None
    return sprt(pair_scores(rows, bots[0], bots[1]), **sprt_params)


def sprt_decided(bots: Sequence[str], sprt_params: dict[str, float] | None,
                 rows: Sequence[dict[str, Any]]) -> bool:
    state = sprt_state(bots, sprt_params, rows)
    return bool(state and state["result"])


def play(pending: Iterable[GameTask], played: store.Played, outdir: Path,
         params: dict[str, Any], total: int, jobs: int, backend: str, address: str | None,
         progress: Any) -> bool:
    """Play the pending games, recording each as it finishes (in game-id
    order) until they are all played or the SPRT decides.  Returns True after
    a Ctrl-C, which stops the games in play and keeps the finished ones."""
    bots, fmt, sprt_params = params["bots"], params["format"], params["sprt"]
    runner = make_backend(backend, jobs, address)
    if backend == "ray":
        progress.note(runner.description)
    progress.start(bots, fmt, total, played.rows)
    handles: dict[int, Any] = {}
    interrupted = False
    try:
        try:
            with _terminate_as_interrupt():
                for task, result in results_in_order(runner, pending, max(2, 2 * jobs),
                                                     handles):
                    store.record(outdir, result)
                    played.add(result)
                    progress.game(game_line(result["row"], task), played.rows)
                    if sprt_decided(bots, sprt_params, played.rows):
                        break
        except KeyboardInterrupt:
            # Ctrl-C: the finished games are kept (every row is on disk
            # already), the games in play are stopped and dropped, and the
            # standings of the finished games are written by the caller
            interrupted = True
            runner.abort()
            played.reload(outdir, luck="luck" in params)
        for handle in handles.values():
            runner.cancel(handle)
    finally:
        progress.close()
        runner.close()
    return interrupted


@contextmanager
def _terminate_as_interrupt() -> Iterator[None]:
    """While the games are played, SIGTERM (``kill PID``, a batch
    scheduler's stop) stops the run as Ctrl-C does: the finished games are
    kept and their standings written.  A run started in the background by a
    shell ignores SIGINT, so this is the signal that reaches it.  Only the
    main thread can set a handler; elsewhere nothing changes."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def interrupt(signum: int, frame: Any) -> None:
        raise KeyboardInterrupt

    before = signal.signal(signal.SIGTERM, interrupt)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, before)


def summarise(params: dict[str, Any], scheduled: int, played: store.Played,
              interrupted: bool) -> dict[str, Any]:
    """summary.json's content: the parameters, the analysis of the games,
    the SPRT (with ``--sprt``) and whether the run was interrupted."""
    rows = sorted(played.rows, key=lambda r: r["game"])
    summary = {"parameters": params, "scheduled_games": scheduled,
               **analyse(params["bots"], rows, params["seed"], played.values)}
    if params.get("luck"):
        summary["luck_adjusted"] = luck_summary(params["bots"], params["format"], rows,
                                                params["seed"], params["luck"])
    state = sprt_state(params["bots"], params["sprt"], rows)
    if state:
        summary["sprt"] = state
    if interrupted:
        summary["interrupted"] = True
    return summary

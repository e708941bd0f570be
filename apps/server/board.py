"""The analysis board of the web server: a position built in the browser
(a ``wildhorn-state/1`` object, the format of ``advise``), checked as it is
edited by the same checker as ``advise`` (``solver.state_io``), analysed by
``apps.advise.advise`` in the server's bounded search pool, imported from a
state.json or a save of ``play`` / the browser table, exported, and encoded
in a link.

Its routes and their table: :mod:`apps.server.routes_board` (every error
is a 4xx answer ``{"error": message}``; a position the checker refuses is
answered 422 with ``{"ok": false, "error", "path"}``, ``path`` the JSON
path the message names, such as ``$.table[2].zone``).

No request names a file: a state's ``card_set`` must be the default set.
The searcher (ISMCTS) keeps no tree between requests: every analysis
starts afresh (the answer says so in ``stats.continued``).
"""

from __future__ import annotations

import asyncio
import base64
import binascii
import copy
import json
import re
import secrets
import time
from collections import OrderedDict
from typing import Any

from apps.advise import advise
from apps.cardlist import card_rows
from apps.gamebot import mask_hidden
from apps.record import FIRST_FORMAT, record_from_json
from apps.record import FORMAT as GAME_FORMAT
from apps.saved import view_of
from apps.server.games import GameStore, Limits, ServerGame
from apps.server.http import parse_json
from solver.cards import default_card_set_path, load_card_set
from solver.errors import (BusyError, ParameterError, PositionError, RequestError,
                           SerializationError, StateFormatError, UnknownAnalysisError, brief,
                           describe_value, quote)
from solver.state_io import FORMAT as STATE_FORMAT
from solver.state_io import deck_schedule, dumps, from_json, game_config, to_json
from solver.vocabulary import SIDES

SOURCE = "position"
MAX_LINK = 16_000          # characters of a link's code (a state is ~1.5 KB of JSON)
MAX_JOBS = 32              # analyses remembered (finished ones are forgotten first)
MIN_ITERATIONS = 50
_PATH_RE = re.compile(r"^[^:]*(?: \([a-z]+ view\))?: (\$[^\s:]*):? ")
FRESH_NOTE = ("each analysis starts afresh: the searcher (ISMCTS) cannot continue the tree "
              "of an earlier request, so a larger budget searches again from the start")


def refused(err: Exception) -> PositionError:
    """The checker's one-line message as a 422 answer with the path it names."""
    message = str(err).splitlines()[0] if str(err) else type(err).__name__
    m = _PATH_RE.match(message)
    return PositionError(message, m.group(1) if m else "$")


def _no_files(data: Any) -> None:
    """A request never names a file: a card set other than the default is
    refused, at the top level or among the game's parameters, unread."""
    if not isinstance(data, dict):
        return
    if data.get("card_set", "default") != "default":
        raise PositionError(f"{SOURCE}: $.card_set: the server reads only the default card "
                            f"set (a request never names a file): leave card_set out",
                            "$.card_set")
    game = data.get("game")
    if isinstance(game, dict) and "card_set" in game:
        raise PositionError(f"{SOURCE}: $.game.card_set: the server reads only the default "
                            f"card set (a request never names a file): leave it out",
                            "$.game.card_set")


def check(data: Any) -> Any:
    """The pyspiel state of ``data`` (a state object), or PositionError."""
    _no_files(data)
    try:
        return from_json(data, 0, source=SOURCE)
    except (StateFormatError, ParameterError) as err:
        raise refused(err) from None


def _config(data: dict) -> Any:
    """The core config of the game a state names (the default card set)."""
    return game_config(data.get("game", {}) if isinstance(data.get("game"), dict) else {})


def derived(data: dict) -> dict[str, Any]:
    """What follows from the rest of a state: each side's hand size (the
    cards drawn by this turn minus those seen on the table, gone or in play;
    a redraw puts back as many as it draws, R5) and deck size, and the pool
    (15 minus the fragments placed).  {} where the state is too broken."""
    try:
        cfg = _config(data)
        turn = data["turn"]
        deck, _ = deck_schedule(cfg, int(turn))
        side_of = {c.number: c.side_id for c in cfg.card_set.cards}
        present = [0, 0]
        for c in cfg.card_set.cards:
            if cfg.present[c.global_index]:
                present[c.side_id] += 1
        seen = [0, 0]
        for number in ([t["card"] for t in data.get("table", [])] + list(data.get("gone", []))
                       + list(data.get("events_in_play", []))):
            seen[side_of[number]] += 1
        hands = {SIDES[s]: present[s] - deck[s] - seen[s] for s in (0, 1)}
        persp = data.get("perspective")
        if persp in SIDES:
            hands[persp] = len(data.get("hand", []))
        frags = data.get("fragments", {})
        pool = 15 - sum(int(v) for v in frags.values()) if isinstance(frags, dict) else None
        return {"hand_sizes": hands, "decks": {SIDES[s]: deck[s] for s in (0, 1)}, "pool": pool}
    except Exception:  # noqa: BLE001 - a broken state has no derived counts; the checker says why
        return {}


def check_request(body: dict) -> dict[str, Any]:
    """``POST /api/board/check``: ``auto`` fills the hand sizes that follow
    from the rest first; the answer holds the state as checked."""
    data = body.get("state")
    if not isinstance(data, dict):
        raise RequestError("state: expected the position as a JSON object")
    data = copy.deepcopy(data)
    _no_files(data)  # before anything reads the game it names
    extra = derived(data)
    if body.get("auto") and "hand_sizes" in extra:
        data["hand_sizes"] = extra["hand_sizes"]
    state = check(data)
    core = state.core
    out = {"ok": True, "state": data, "derived": extra, "step": core.phase,
           "decision": not (core.is_chance() or core.is_terminal())}
    if out["decision"]:
        out["to_move"] = SIDES[core.current_player()]
        out["legal_actions"] = len(core.legal_actions())
        out["advisable"] = out["to_move"] == data["perspective"]
        if not out["advisable"]:
            out["why"] = (f"advice is for the side to move ({out['to_move']}): set the view "
                          f"to that side to analyse")
    else:
        out["advisable"] = False
        out["why"] = "a chance step (a Rocket card or a die is next): nothing to decide"
    return out


def normalized(data: dict) -> dict[str, Any]:
    """The checked state as the editor holds it (every key written out)."""
    state = check(data)
    return to_json(state.core, data["perspective"])


# ---- links --------------------------------------------------------------------

def link_code(data: dict) -> str:
    """base64url (no padding) of the compact JSON of a valid position."""
    check(data)
    text = json.dumps(data, separators=(",", ":"), ensure_ascii=False)
    return base64.urlsafe_b64encode(text.encode("utf-8")).decode("ascii").rstrip("=")


def open_link(code: Any) -> dict[str, Any]:
    if not isinstance(code, str) or not code:
        raise RequestError("code: expected the text after #board= in the link")
    if len(code) > MAX_LINK:
        raise RequestError(f"code: {len(code)} characters, more than a position needs "
                           f"(at most {MAX_LINK})")
    try:
        text = base64.urlsafe_b64decode(code + "=" * (-len(code) % 4)).decode("utf-8")
    except (binascii.Error, ValueError, UnicodeDecodeError):
        raise RequestError("code: not a position link (expected base64url of a state's "
                           "JSON)") from None
    # read as a request body is: a link nested thousands deep is refused, not recursed into
    data = parse_json(text, "code", "code: not a position link (its JSON is malformed)")
    if not isinstance(data, dict):
        raise PositionError(f"{SOURCE}: $: expected a JSON object (a state), got "
                            f"{type(data).__name__}")
    return normalized(data)


# ---- imports --------------------------------------------------------------------

def import_file(data: Any, side: str | None, name: str = "upload") -> dict[str, Any]:
    """A state.json (checked) or a save of ``play`` / the table (its view:
    ``side``'s, default the human side of the save, so that importing one's
    own save never shows the bot's hand) -> {state, side}."""
    if side is not None and side not in SIDES:
        raise RequestError(f"side: expected {' or '.join(SIDES)}, got {brief(side)}")
    fmt = data.get("format") if isinstance(data, dict) else None
    if fmt in (GAME_FORMAT, FIRST_FORMAT):
        try:
            record = record_from_json(data, name, card_sets=False)
        except SerializationError as err:
            raise RequestError(str(err).splitlines()[0]) from None
        try:
            view, p = view_of(record.core, side or SIDES[record.human], name)
        except ParameterError as err:
            raise RequestError(str(err).splitlines()[0]) from None
        return {"state": normalized(view), "side": p}
    if isinstance(fmt, str) and fmt.startswith("wildhorn-cards/"):
        raise RequestError(f"{name}: $.format: this is a card set ({quote(fmt)}), not a position")
    if fmt is not None and fmt != STATE_FORMAT:
        raise PositionError(f"{name}: $.format: expected {STATE_FORMAT!r} (a state file) or "
                            f"{GAME_FORMAT!r} (a saved game), got {describe_value(fmt)}",
                            "$.format")
    state = normalized(data) if isinstance(data, dict) else check(data)
    if side is not None and state["perspective"] != side:
        raise RequestError(f"side: this state file is the {state['perspective']} view")
    return {"state": state, "side": state["perspective"]}


def game_position(game: ServerGame, k: int | None) -> dict[str, Any]:
    """The state.json of the human's view of a game now, or at the human's
    decision ``k`` of the review (the export of a view from a save)."""
    record = game.record
    core = record.core
    if k is not None:
        made = len(record.human_steps())
        if not 0 <= k < made:
            raise RequestError(f"k: this game has decisions 0 to {made - 1}"
                               if made else "k: no decision was made yet")
        core = record.decision(k)[0]
    try:
        view, p = view_of(core, SIDES[record.human], "the game")
    except ParameterError as err:
        raise RequestError(str(err).splitlines()[0]) from None
    return {"state": view, "side": p}


# ---- analyses -----------------------------------------------------------------

def board_search(data: dict, seed: int, iterations: int, nodes: int,
                 threads: int, max_seconds: float | None = None) -> dict[str, Any]:
    """``advise()`` of a position (run in a child process), the cards the
    viewer cannot see (sampled into the opponent's hand) named by type.
    ``max_seconds`` caps its time as a bot's move is capped (``Limits.max_time``):
    the search with the exact solver's share, then the responses as long again."""
    state = from_json(data, seed, source=SOURCE)
    result = advise(state, bot_spec=f"ismcts:nodes={nodes},threads={threads}",
                    iterations=iterations, seed=seed, max_seconds=max_seconds)
    result = json.loads(mask_hidden(json.dumps(result), state.core,
                                    SIDES.index(data["perspective"])))
    result["stats"]["continued"] = False
    result["stats"]["note"] = FRESH_NOTE
    return result


def _progress(status: str, done: int, iterations: int) -> tuple[str, float | None]:
    """(phase, share done) of an analysis from the iterations its process
    has searched so far: the main search's share of its budget, then the
    responses, whose searches' number depends on the replies found (None:
    not known in advance)."""
    if status == "done":
        return "done", 1.0
    if status == "queued":
        return "queued", 0.0
    if done < iterations:
        return "main search", round(done / iterations, 3)
    return "responses", None


class Analyses:
    """The board's searches: each runs in the store's pool (bounded, the
    others queue), is polled by id, and is killed when deleted."""

    def __init__(self, store: GameStore, limits: Limits):
        self.store = store
        self.limits = limits
        self.jobs: OrderedDict[str, dict[str, Any]] = OrderedDict()
        self.starting = 0   # analyses accepted whose task has not reached the pool yet

    def start(self, body: dict) -> dict[str, Any]:
        data = body.get("state")
        if not isinstance(data, dict):
            raise RequestError("state: expected the position as a JSON object")
        iterations = body.get("iterations", self.limits.hint_iterations)
        if isinstance(iterations, bool) or not isinstance(iterations, int) or iterations < 1:
            raise RequestError(f"iterations: expected a positive integer, got {brief(iterations)}")
        iterations = max(MIN_ITERATIONS, min(iterations, self.limits.max_iterations))
        seed = body.get("seed", 0)
        if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 1 << 31:
            raise RequestError(f"seed: expected an integer in [0, 2^31), got {brief(seed)}")
        info = check_request({"state": data})
        if not info["advisable"]:
            where = "$.perspective" if info["decision"] else "$.step"
            raise PositionError(f"{SOURCE}: {where}: {info['why']}", where)
        # refused at once (429) when the pool would refuse it: an analysis
        # accepted, then dropped as "busy" and forgotten, was lost to its page
        pool = self.store.pool
        in_flight = pool.running + pool.waiting + self.starting
        if in_flight >= pool.limit + pool.queue:
            raise BusyError(f"the server is busy: {in_flight} searches are running or waiting "
                            f"(at most {pool.limit + pool.queue}); try again when one is done")
        active = [j for j in self.jobs.values() if j["status"] in ("queued", "running")]
        if len(active) >= MAX_JOBS:
            raise BusyError(f"too many analyses under way ({len(active)}): wait or stop one")
        while len(self.jobs) >= MAX_JOBS:
            old = next((k for k, j in self.jobs.items() if j["status"] not in
                        ("queued", "running")), None)
            if old is None:
                break
            del self.jobs[old]
        jid = secrets.token_urlsafe(12)
        self.starting += 1
        job = {"id": jid, "status": "queued", "iterations": iterations, "seed": seed,
               "counter": self.store.pool.counter(),
               "created": time.monotonic(), "finished": None,
               "result": None, "error": None, "continued": False, "note": FRESH_NOTE}
        self.jobs[jid] = job
        job["task"] = asyncio.ensure_future(self._run(job, data))
        job["task"].add_done_callback(lambda _: self._counted(job))
        return self.view(jid)

    async def _run(self, job: dict[str, Any], data: dict) -> None:
        pool = self.store.pool
        try:
            self._counted(job)      # counted by the pool from here on (before any await)
            job["result"] = await pool.run(board_search, data, job["seed"], job["iterations"],
                                           self.limits.max_nodes, self.limits.max_threads,
                                           self.limits.max_time,
                                           on_start=lambda: job.update(status="running"),
                                           counter=job["counter"])
            job["status"] = "done"
        except asyncio.CancelledError:
            job["status"] = "stopped"
        except Exception as err:  # noqa: BLE001 - reported as the job's one-line error
            job["status"] = "error"
            job["error"] = str(err).splitlines()[0] if str(err) else type(err).__name__
        finally:
            job["finished"] = time.monotonic()

    def _counted(self, job: dict[str, Any]) -> None:
        """``job`` is no longer one of :attr:`starting`: it reached the pool,
        or its task ended before (cancelled before its first step, even)."""
        if not job.get("counted"):
            job["counted"] = True
            self.starting -= 1

    def view(self, jid: str) -> dict[str, Any]:
        job = self.jobs.get(jid)
        if job is None:
            raise UnknownAnalysisError(f"unknown analysis {jid[:40]!r} (finished long ago, or "
                                       f"never started)")
        pool = self.store.pool
        status = job["status"]
        end = job["finished"] or time.monotonic()
        out = {k: job[k] for k in ("id", "iterations", "seed", "result", "error", "continued",
                                   "note")}
        done = job["counter"].value
        out.update(status=status, elapsed=round(end - job["created"], 2),
                   searches_waiting=pool.waiting, searches_running=pool.running,
                   iterations_done=done)
        out["phase"], out["progress"] = _progress(status, done, job["iterations"])
        return out

    def stop(self, jid: str) -> dict[str, Any]:
        job = self.jobs.get(jid)
        if job is None:
            raise UnknownAnalysisError(f"unknown analysis {jid[:40]!r} (finished long ago, or "
                                       f"never started)")
        if not job["task"].done():
            job["task"].cancel()
        return {"stopped": jid}

    def shutdown(self) -> None:
        for job in self.jobs.values():
            if not job["task"].done():
                job["task"].cancel()


def card_list() -> list[dict[str, Any]]:
    """The default card set as the editor lists it (as ``wildhorn-solve cards``)."""
    return [{k: r[k] for k in ("number", "name", "type_name", "side", "kind", "bullets",
                               "abilities", "start", "text")}
            for r in card_rows(load_card_set(default_card_set_path()))]

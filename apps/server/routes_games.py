"""The games area of the API: a game against the bot, one request at a time.

Route table (``version``, from the view, names the position an action was
chosen in: an action for an older position, a double click, is refused
with 409)::

    GET    /api/games                     the games kept here: id, side, bot, turn, over
    POST   /api/games                     new game {side, bot, seed, variant} -> view
    POST   /api/games/load                a save file (the JSON ``play`` writes) -> view
    GET    /api/games/{id}[?log_from=N]   the view of the game for the human side
    POST   /api/games/{id}/action         {action, version}: the human acts -> view
    POST   /api/games/{id}/bot            the bot plays its next move -> view
    POST   /api/games/{id}/hint           advice for the human's decision
    POST   /api/games/{id}/undo           back to the human's previous decision -> view, undone
    POST   /api/games/{id}/resign         -> view
    POST   /api/games/{id}/settings       {time}: the bot's seconds per move -> view
    POST   /api/games/{id}/review         start rating your decisions (in the background)
    GET    /api/games/{id}/review         its progress and ratings so far
    GET    /api/games/{id}/review/{k}     the table at your decision k (0: the first)
    GET    /api/games/{id}/save           the save file (a download)
    DELETE /api/games/{id}                close the game (its search stops)
"""

from __future__ import annotations

import time
from typing import Any

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from apps.narration import undone_text
from apps.record import DEFAULT_BOT
from apps.server.games import ServerGame
from apps.server.http import (game_of, query_int, read_body, read_object, store_of, upload_name,
                              while_connected)
from apps.server.views import bot_label, game_view, past_view
from solver.errors import RequestError
from solver.vocabulary import SIDES

TABLE = __doc__.split("::", 1)[1].strip()
NEW_GAME_FIELDS = ("side", "bot", "seed", "variant")


def view(game: ServerGame, request: Request | None = None) -> JSONResponse:
    log_from = 0 if request is None else query_int(request, "log_from",
                                                   "a non-negative integer", 0)
    return JSONResponse(game_view(game, log_from or 0))


async def new_game(request: Request) -> Response:
    data = await read_object(request)
    unknown = set(data) - set(NEW_GAME_FIELDS)
    if unknown:
        raise RequestError(f"unknown field {sorted(unknown)[0][:40]!r} (expected "
                           f"{', '.join(NEW_GAME_FIELDS)})")
    game = store_of(request).new_game(side=data.get("side", "polish"),
                                      bot=data.get("bot", DEFAULT_BOT), seed=data.get("seed"),
                                      variant=data.get("variant", "full"))
    return view(game)


async def games(request: Request) -> Response:
    """Every game kept on this server, the most recent first, so that a full
    cap is never a lock-out: resume one (GET its view) or close it."""
    lines = store_of(request).listing()
    for line in lines:  # the bot as people name it ("ISMCTS, 1 s per move"), beside its spec
        line["bot_label"] = _label(line.get("bot"))
    return JSONResponse({"games": lines,
                         "max_games": request.app.state.limits.max_games})


def _label(spec: Any) -> str | None:
    try:
        return bot_label(spec).removeprefix("Bot: ") if isinstance(spec, str) else None
    except Exception:  # noqa: BLE001 - a spec of an older server: the spec itself
        return spec


async def load(request: Request) -> Response:
    data = await read_body(request)
    store = store_of(request)
    # the replay of a whole game is CPU work: in a thread, the event loop goes on
    record = await run_in_threadpool(store.read_upload, data, upload_name(request))
    return view(store.add(record))


async def get_game(request: Request) -> Response:
    return view(game_of(request), request)


async def action(request: Request) -> Response:
    t0, cpu0 = time.perf_counter(), time.thread_time()
    game = game_of(request)
    data = await read_object(request)
    if "action" not in data or "version" not in data:
        raise RequestError("expected {\"action\": id, \"version\": the view's version}")
    store_of(request).act(game, data["action"], data["version"])
    response = view(game, request)
    # the server's time for the click (apply, narration, the save on disk, the
    # new view), its CPU time, and the save's share (written and fsync'ed)
    response.headers["Server-Timing"] = (f"click;dur={1000 * (time.perf_counter() - t0):.3f}, "
                                         f"cpu;dur={1000 * (time.thread_time() - cpu0):.3f}, "
                                         f"save;dur={game.save_ms:.3f}")
    return response


async def bot(request: Request) -> Response:
    game = game_of(request)
    await store_of(request).bot_move(game)
    return view(game, request)


async def hint(request: Request) -> Response:
    game = game_of(request)
    return JSONResponse(await while_connected(request, store_of(request).hint(game)))


async def undo(request: Request) -> Response:
    game = game_of(request)
    preview = game.record.undo_preview()
    store_of(request).undo(game)
    response = game_view(game, query_int(request, "log_from", "a non-negative integer", 0) or 0)
    if preview is not None:  # what it took back, in the terminal's words
        response["undone"] = undone_text(*preview, SIDES[game.record.human])
    return JSONResponse(response)


async def resign(request: Request) -> Response:
    game = game_of(request)
    store_of(request).resign(game)
    return view(game, request)


async def settings(request: Request) -> Response:
    game = game_of(request)
    data = await read_object(request)
    store_of(request).set_time(game, data.get("time"))
    return view(game, request)


def review_json(review: dict[str, Any] | None) -> dict[str, Any]:
    if review is None:
        return {"total": 0, "done": 0, "decisions": [], "started": False}
    rated = [d for d in review["decisions"] if d.get("loss") is not None]
    mistakes = sorted((d for d in rated if d["loss"] > 0), key=lambda d: -d["loss"])[:5]
    return {**{k: v for k, v in review.items() if k != "version"}, "started": True,
            "mistakes": mistakes, "error_rate": error_rate(rated),
            "exact_error_rate": error_rate([d for d in rated if d.get("exact")])}


def error_rate(rated: list[dict[str, Any]]) -> dict[str, Any]:
    """The player's error rate over rated decisions, as GNU Backgammon
    gives it: the mean loss in win probability per decision (None if none
    was rated), with how many decisions it is over."""
    losses = [d["loss"] for d in rated]
    return {"decisions": len(losses),
            "mean_loss": round(sum(losses) / len(losses), 4) if losses else None}


async def review_start(request: Request) -> Response:
    game = game_of(request)
    return JSONResponse(review_json(store_of(request).start_review(game)))


async def review_get(request: Request) -> Response:
    return JSONResponse(review_json(game_of(request).review))


async def review_step(request: Request) -> Response:
    game = game_of(request)
    text = request.path_params["k"]
    if not text.isdigit() or len(text) > 9:
        raise RequestError(f"decision: expected a number, got {text[:20]!r}")
    return JSONResponse(past_view(game, int(text)))


async def save(request: Request) -> Response:
    game = game_of(request)
    name = f"wildhorn-{game.record.seed}-turn{game.record.core.turn}.json"
    return Response(game.record.save_text().encode("utf-8"), media_type="application/json",
                    headers={"Content-Disposition": f'attachment; filename="{name}"'})


async def close(request: Request) -> Response:
    gid = request.path_params["gid"]
    store_of(request).close(gid)
    return JSONResponse({"closed": gid})


G = "/api/games/{gid}"
routes = [
    Route("/api/games", games, methods=["GET"]),
    Route("/api/games", new_game, methods=["POST"]),
    Route("/api/games/load", load, methods=["POST"]),
    Route(G, get_game, methods=["GET"]),
    Route(G, close, methods=["DELETE"]),
    Route(G + "/action", action, methods=["POST"]),
    Route(G + "/bot", bot, methods=["POST"]),
    Route(G + "/hint", hint, methods=["POST"]),
    Route(G + "/undo", undo, methods=["POST"]),
    Route(G + "/resign", resign, methods=["POST"]),
    Route(G + "/settings", settings, methods=["POST"]),
    Route(G + "/save", save),
    Route(G + "/review", review_start, methods=["POST"]),
    Route(G + "/review", review_get, methods=["GET"]),
    Route(G + "/review/{k}", review_step),
]

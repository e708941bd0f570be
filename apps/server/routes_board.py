"""The analysis board's area of the API (the board itself: apps.server.board).

Route table (a position the checker refuses is answered 422 with
``{"ok": false, "error", "path"}``)::

    POST   /api/games/{id}/position[?k=N] the human's view now (or at decision N) for the board
    GET    /api/board/cards               the card set, for the analysis board
    POST   /api/board/check               {state, auto}: the state checker -> {ok, ...} or 422
    POST   /api/board/analyses            {state, iterations, seed}: advice, queued -> {id}
    GET    /api/board/analyses/{id}       its status, elapsed seconds, and the advice
    GET    /api/board/analyses/{id}/events  server-sent events: its status, then done
    DELETE /api/board/analyses/{id}       stop it
    POST   /api/board/import[?side=S]     a state.json or a saved game -> {state, side}
    POST   /api/board/export              {state} -> the state.json (a download)
    POST   /api/board/link                {state} -> {code} for a link /#board=code
    POST   /api/board/link/open           {code} -> {state}, checked like any upload
"""

from __future__ import annotations

import asyncio
import json
import time
from typing import Any

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

from apps.server import board
from apps.server.http import game_of, query_int, read_body, read_object, upload_name
from solver.errors import PositionError, RequestError

TABLE = __doc__.split("::", 1)[1].strip()


def analyses_of(request: Request) -> board.Analyses:
    return request.app.state.analyses


def _state(data: dict[str, Any]) -> dict[str, Any]:
    state = data.get("state")
    if not isinstance(state, dict):
        raise RequestError("state: expected the position as a JSON object")
    return state


async def board_cards(request: Request) -> Response:
    limits = request.app.state.limits
    return JSONResponse({"cards": request.app.state.cards,
                         "max_iterations": limits.max_iterations,
                         "default_iterations": limits.hint_iterations,
                         "continues": False, "note": board.FRESH_NOTE})


async def board_check(request: Request) -> Response:
    body = await read_object(request)
    t0 = time.perf_counter()
    try:
        response = JSONResponse(board.check_request(body))
    except PositionError as err:  # the checker's answer, timed like a valid one
        response = JSONResponse({"ok": False, "error": str(err), "path": err.path},
                                status_code=err.status)
    response.headers["Server-Timing"] = f"check;dur={1000 * (time.perf_counter() - t0):.3f}"
    return response


async def board_analyse(request: Request) -> Response:
    return JSONResponse(analyses_of(request).start(await read_object(request)))


async def board_analysis(request: Request) -> Response:
    return JSONResponse(analyses_of(request).view(request.path_params["jid"]))


async def board_events(request: Request) -> Response:
    """Server-sent events of an analysis: its status every quarter second,
    then ``done`` with the whole answer."""
    analyses = analyses_of(request)
    jid = request.path_params["jid"]
    analyses.view(jid)  # 404 for an unknown one, before the stream starts

    async def events():
        while True:
            v = analyses.view(jid)
            if v["status"] not in ("queued", "running"):
                yield f"event: done\ndata: {json.dumps(v)}\n\n"
                return
            yield f"event: status\ndata: {json.dumps(v)}\n\n"
            await asyncio.sleep(0.25)

    return StreamingResponse(events(), media_type="text/event-stream")


async def board_stop(request: Request) -> Response:
    return JSONResponse(analyses_of(request).stop(request.path_params["jid"]))


async def board_import(request: Request) -> Response:
    data = await read_body(request)
    # a saved game is replayed to be read: CPU work, in a thread
    return JSONResponse(await run_in_threadpool(board.import_file, data,
                                                request.query_params.get("side"),
                                                upload_name(request)))


async def board_export(request: Request) -> Response:
    data = _state(await read_object(request))
    state = board.check(data)
    name = f"{data['perspective']}-turn{data['turn']}-{data['step']}.json"
    return Response(board.dumps(state, data["perspective"]), media_type="application/json",
                    headers={"Content-Disposition": f'attachment; filename="{name}"'})


async def board_link(request: Request) -> Response:
    return JSONResponse({"code": board.link_code(_state(await read_object(request)))})


async def board_open_link(request: Request) -> Response:
    return JSONResponse({"state": board.open_link((await read_object(request)).get("code"))})


async def game_position(request: Request) -> Response:
    game = game_of(request)
    k = query_int(request, "k", "a decision number")
    return JSONResponse(board.game_position(game, k))


routes = [
    Route("/api/games/{gid}/position", game_position, methods=["POST"]),
    Route("/api/board/cards", board_cards),
    Route("/api/board/check", board_check, methods=["POST"]),
    Route("/api/board/analyses", board_analyse, methods=["POST"]),
    Route("/api/board/analyses/{jid}", board_analysis, methods=["GET"]),
    Route("/api/board/analyses/{jid}", board_stop, methods=["DELETE"]),
    Route("/api/board/analyses/{jid}/events", board_events),
    Route("/api/board/import", board_import, methods=["POST"]),
    Route("/api/board/export", board_export, methods=["POST"]),
    Route("/api/board/link", board_link, methods=["POST"]),
    Route("/api/board/link/open", board_open_link, methods=["POST"]),
]

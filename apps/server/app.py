"""The web server: ``wildhorn-solve serve`` (a Starlette app under uvicorn).

The API, JSON over HTTP (every error is a 4xx answer ``{"error": message}``
and leaves the game unchanged; ``GET /api`` lists the routes)::

    GET    /api/openapi.json              this API as an OpenAPI 3.1 document
    GET    /api/bots                      the bot specs to choose from
    POST   /api/games                     new game {side, bot, seed, variant} -> view
    POST   /api/games/load                a save file (the JSON ``play`` writes) -> view
    GET    /api/games/{id}[?log_from=N]   the view of the game for the human side
    POST   /api/games/{id}/action         {action, version}: the human acts -> view
    POST   /api/games/{id}/bot            the bot plays its next move -> view
    GET    /api/games/{id}/progress       server-sent events while the bot thinks
    POST   /api/games/{id}/hint           advice for the human's decision
    POST   /api/games/{id}/undo           back to the human's previous decision -> view
    POST   /api/games/{id}/resign         -> view
    POST   /api/games/{id}/settings       {time}: the bot's seconds per move -> view
    POST   /api/games/{id}/review         start rating your decisions (in the background)
    GET    /api/games/{id}/review         its progress and ratings so far
    GET    /api/games/{id}/review/{k}     the table at your decision k (0: the first)
    GET    /api/games/{id}/save           the save file (a download)
    DELETE /api/games/{id}                close the game (its search stops)
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

``version`` (from the view) names the position an action was chosen in: an
action for an older position (a double click) is refused with 409.  No
request names a file: saves are downloads, loads are uploads, autosaves go
to the data folder as ``game-<id>.json`` with ids from ``secrets``.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import sys
import threading
import time
import webbrowser
from pathlib import Path
from typing import Any

import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response, StreamingResponse
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from apps.server import board, openapi
from apps.server.games import DEFAULT_BOT, GameStore, Limits, WebSession, save_bytes, with_time
from apps.server.views import game_view, past_view
from solver import __version__, vocabulary
from solver.errors import PositionError, RequestError, WildhornError

ROUTE_TABLE = __doc__.split("::", 1)[1].strip().split("\n\n")[0]
STATIC = Path(__file__).with_name("static")
MAX_BODY = 4 * 2**20  # bytes of a request body (a save file with its undo stack is ~100 KB)
BOTS = ["ismcts:time=1.0", "ismcts:time=3.0", "oos:time=1.0", "heuristic", "random"]


def default_data_dir() -> Path:
    base = os.environ.get("XDG_DATA_HOME") or os.path.join(os.path.expanduser("~"), ".local",
                                                           "share")
    return Path(base) / "wildhorn-solve" / "games"


async def _body(request: Request) -> Any:
    raw = await request.body()
    if len(raw) > MAX_BODY:
        raise RequestError(f"request body too large ({len(raw)} bytes, at most {MAX_BODY})")
    if not raw.strip():
        return {}
    try:
        return json.loads(raw)
    except (ValueError, UnicodeDecodeError) as err:
        raise RequestError(f"malformed JSON in the request body: {str(err).splitlines()[0]}") \
            from None


async def _object(request: Request) -> dict[str, Any]:
    data = await _body(request)
    if not isinstance(data, dict):
        raise RequestError("the request body must be a JSON object")
    return data


def create_app(data_dir: str | os.PathLike | None = None, limits: Limits = Limits()) -> Starlette:
    store = GameStore(data_dir or default_data_dir(), limits)

    def session_of(request: Request) -> WebSession:
        return store.get(request.path_params["gid"])

    def view(session: WebSession, request: Request | None = None) -> JSONResponse:
        log_from = 0
        if request is not None and "log_from" in request.query_params:
            try:
                log_from = max(0, int(request.query_params["log_from"]))
            except ValueError:
                raise RequestError("log_from: expected a non-negative integer") from None
        return JSONResponse(game_view(session, log_from))

    async def index(request: Request) -> Response:
        return FileResponse(STATIC / "index.html")

    async def api(request: Request) -> Response:
        return JSONResponse({"routes": [" ".join(line.split())
                                        for line in ROUTE_TABLE.splitlines()],
                             "openapi": "/api/openapi.json",
                             "vocabulary": vocabulary.as_json()})

    async def openapi_json(request: Request) -> Response:
        return JSONResponse(schema)

    async def bots(request: Request) -> Response:
        return JSONResponse({"bots": BOTS, "default": DEFAULT_BOT,
                             "max_time": limits.max_time})

    async def new_game(request: Request) -> Response:
        data = await _object(request)
        unknown = set(data) - {"side", "bot", "seed", "variant"}
        if unknown:
            raise RequestError(f"unknown field {sorted(unknown)[0]!r} (expected side, bot, "
                               f"seed, variant)")
        session = store.new_game(side=data.get("side", "polish"),
                                 bot=data.get("bot", DEFAULT_BOT), seed=data.get("seed"),
                                 variant=data.get("variant", "full"))
        return view(session)

    async def load(request: Request) -> Response:
        data = await _body(request)
        name = request.query_params.get("name", "upload")[:60]
        return view(store.upload(data, os.path.basename(name) or "upload"))

    async def get_game(request: Request) -> Response:
        return view(session_of(request), request)

    async def action(request: Request) -> Response:
        t0, cpu0 = time.perf_counter(), time.thread_time()
        session = session_of(request)
        data = await _object(request)
        if "action" not in data or "version" not in data:
            raise RequestError("expected {\"action\": id, \"version\": the view's version}")
        session.human_action(data["action"], data["version"])
        store.autosave(session)
        response = view(session, request)
        # the server's time for the click (apply, narration, autosave text, new view)
        response.headers["Server-Timing"] = (f"click;dur={1000 * (time.perf_counter() - t0):.3f}, "
                                             f"cpu;dur={1000 * (time.thread_time() - cpu0):.3f}")
        return response

    async def bot(request: Request) -> Response:
        session = session_of(request)
        await store.bot_move(session)
        return view(session, request)

    async def progress(request: Request) -> Response:
        session = session_of(request)

        async def events():
            while session.thinking_since is not None or (
                    session.task is not None and not session.task.done()):
                since = session.thinking_since
                elapsed = 0.0 if since is None else time.monotonic() - since
                yield f"event: thinking\ndata: {json.dumps({'elapsed': round(elapsed, 1)})}\n\n"
                await asyncio.sleep(0.25)
            yield f"event: done\ndata: {json.dumps({'version': session.version()})}\n\n"

        return StreamingResponse(events(), media_type="text/event-stream")

    async def hint(request: Request) -> Response:
        session = session_of(request)
        return JSONResponse(await store.hint(session))

    async def undo(request: Request) -> Response:
        session = session_of(request)
        if session.task is not None and not session.task.done():
            session.task.cancel()
        session.undo_move()
        store.autosave(session)
        return view(session, request)

    async def resign(request: Request) -> Response:
        session = session_of(request)
        session.resign()
        store.autosave(session)
        return view(session, request)

    async def settings(request: Request) -> Response:
        session = session_of(request)
        data = await _object(request)
        seconds = data.get("time")
        if isinstance(seconds, bool) or not isinstance(seconds, (int, float)):
            raise RequestError(f"time: expected a number of seconds, got {seconds!r}")
        session.bot_spec = with_time(session.bot_spec, float(seconds), limits)
        store.autosave(session)
        return view(session, request)

    def review_json(review: dict[str, Any] | None) -> dict[str, Any]:
        if review is None:
            return {"total": 0, "done": 0, "decisions": [], "started": False}
        rated = [d for d in review["decisions"] if d.get("loss") is not None]
        mistakes = sorted((d for d in rated if d["loss"] > 0), key=lambda d: -d["loss"])[:5]
        return {**{k: v for k, v in review.items() if k != "version"}, "started": True,
                "mistakes": mistakes}

    async def review_start(request: Request) -> Response:
        session = session_of(request)
        return JSONResponse(review_json(store.start_review(session)))

    async def review_get(request: Request) -> Response:
        return JSONResponse(review_json(session_of(request).review))

    async def review_step(request: Request) -> Response:
        session = session_of(request)
        try:
            k = int(request.path_params["k"])
        except ValueError:
            raise RequestError("decision: expected a number") from None
        return JSONResponse(past_view(session, k))

    async def save(request: Request) -> Response:
        session = session_of(request)
        name = f"wildhorn-{session.seed}-turn{session.core.turn}.json"
        return Response(save_bytes(session), media_type="application/json",
                        headers={"Content-Disposition": f'attachment; filename="{name}"'})

    async def close(request: Request) -> Response:
        gid = request.path_params["gid"]
        store.close(gid)
        return JSONResponse({"closed": gid})

    # ---- the analysis board (apps.server.board) ---------------------------------
    analyses = board.Analyses(store, limits)
    cards = board.card_list()

    async def board_cards(request: Request) -> Response:
        return JSONResponse({"cards": cards, "max_iterations": limits.max_iterations,
                             "default_iterations": limits.hint_iterations,
                             "continues": False, "note": board.FRESH_NOTE})

    async def board_check(request: Request) -> Response:
        body = await _object(request)
        t0 = time.perf_counter()
        try:
            response = JSONResponse(board.check_request(body))
        except PositionError as err:  # the checker's answer, timed like a valid one
            response = JSONResponse({"ok": False, "error": str(err), "path": err.path},
                                    status_code=err.status)
        response.headers["Server-Timing"] = f"check;dur={1000 * (time.perf_counter() - t0):.3f}"
        return response

    async def board_analyse(request: Request) -> Response:
        return JSONResponse(analyses.start(await _object(request)))

    async def board_analysis(request: Request) -> Response:
        return JSONResponse(analyses.view(request.path_params["jid"]))

    async def board_events(request: Request) -> Response:
        """Server-sent events of an analysis (as the bot's progress): its
        status every quarter second, then ``done`` with the whole answer."""
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
        return JSONResponse(analyses.stop(request.path_params["jid"]))

    async def board_import(request: Request) -> Response:
        data = await _body(request)
        name = os.path.basename(request.query_params.get("name", "upload")[:60]) or "upload"
        return JSONResponse(board.import_file(data, request.query_params.get("side"), name))

    async def board_export(request: Request) -> Response:
        data = (await _object(request)).get("state")
        if not isinstance(data, dict):
            raise RequestError("state: expected the position as a JSON object")
        state = board.check(data)
        name = f"{data['perspective']}-turn{data['turn']}-{data['step']}.json"
        return Response(board.dumps(state, data["perspective"]), media_type="application/json",
                        headers={"Content-Disposition": f'attachment; filename="{name}"'})

    async def board_link(request: Request) -> Response:
        data = (await _object(request)).get("state")
        if not isinstance(data, dict):
            raise RequestError("state: expected the position as a JSON object")
        return JSONResponse({"code": board.link_code(data)})

    async def board_open_link(request: Request) -> Response:
        return JSONResponse({"state": board.open_link((await _object(request)).get("code"))})

    async def game_position(request: Request) -> Response:
        session = session_of(request)
        k = request.query_params.get("k")
        try:
            step = None if k is None else int(k)
        except ValueError:
            raise RequestError("k: expected a decision number") from None
        return JSONResponse(board.game_position(session, step))

    async def wildhorn_error(request: Request, exc: Exception) -> Response:
        status = getattr(exc, "status", 400)
        body = {"error": str(exc).splitlines()[0] if str(exc) else type(exc).__name__}
        if isinstance(exc, PositionError):
            body.update(ok=False, path=exc.path)
        return JSONResponse(body, status_code=status)

    async def not_found(request: Request, exc: Exception) -> Response:
        code = getattr(exc, "status_code", 404)
        return JSONResponse({"error": f"{request.method} {request.url.path}: "
                             f"{getattr(exc, 'detail', 'not found')}"}, status_code=code)

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette):
        yield
        analyses.shutdown()
        await store.shutdown()

    g = "/api/games/{gid}"
    routes = [
        Route("/", index),
        Route("/api", api),
        Route("/api/openapi.json", openapi_json),
        Route("/api/bots", bots),
        Route("/api/games", new_game, methods=["POST"]),
        Route("/api/games/load", load, methods=["POST"]),
        Route(g, get_game, methods=["GET"]),
        Route(g, close, methods=["DELETE"]),
        Route(g + "/action", action, methods=["POST"]),
        Route(g + "/bot", bot, methods=["POST"]),
        Route(g + "/progress", progress),
        Route(g + "/hint", hint, methods=["POST"]),
        Route(g + "/undo", undo, methods=["POST"]),
        Route(g + "/resign", resign, methods=["POST"]),
        Route(g + "/settings", settings, methods=["POST"]),
        Route(g + "/save", save),
        Route(g + "/review", review_start, methods=["POST"]),
        Route(g + "/review", review_get, methods=["GET"]),
        Route(g + "/review/{k}", review_step),
        Route(g + "/position", game_position, methods=["POST"]),
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
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
    ]
    app = Starlette(routes=routes, lifespan=lifespan,
                    exception_handlers={WildhornError: wildhorn_error, 404: not_found,
                                        405: not_found})
    app.state.store = store
    # the document, built once: it fails here if a route has no line in the
    # table (or a line no route), so the two cannot drift apart
    schema = openapi.document(ROUTE_TABLE, routes, __version__)
    return app


def run(host: str = "127.0.0.1", port: int = 8000, open_browser: bool = False,
        data: str | None = None) -> int:
    """``wildhorn-solve serve``: serves the table until interrupted."""
    if host not in ("127.0.0.1", "localhost", "::1"):
        print(f"warning: serving on {host}: anyone who can reach this address and port "
              f"can use this server (play, load games, start searches)", file=sys.stderr)
    data_dir = Path(data) if data else default_data_dir()
    app = create_app(data_dir)
    for problem in app.state.store.load_errors:
        print(f"warning: autosave not loaded: {problem}", file=sys.stderr)
    url = f"http://{'[' + host + ']' if ':' in host else host}:{port}/"
    print(f"Operation Wildhorn III: the table is at {url} (games autosaved in {data_dir}); "
          f"Ctrl-C stops the server", file=sys.stderr)
    if open_browser:
        threading.Timer(1.0, webbrowser.open, args=(url,)).start()
    uvicorn.run(app, host=host, port=port, log_level="warning")
    return 0

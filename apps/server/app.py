"""The web server: ``wildhorn-solve serve`` (a Starlette app under uvicorn).

The API is JSON over HTTP; every error is a 4xx answer ``{"error": message}``
and leaves the game unchanged.  Its routes live by area, each module with
its handlers and its route table: :mod:`apps.server.routes_games` (a game
against the bot), :mod:`apps.server.routes_board` (the analysis board) and
:mod:`apps.server.routes_meta` (the page, the bots, this API's description).
``GET /api`` lists every route; ``GET /api/openapi.json`` is the OpenAPI
document built from the same tables, checked against the routes served when
the app is built.  No request names a file: saves are downloads, loads are
uploads, games are saved in the data folder as ``game-<id>.json`` with ids
from ``secrets``.
"""

from __future__ import annotations

import contextlib
import os
import sys
import threading
import webbrowser
from pathlib import Path

import uvicorn
from starlette.applications import Starlette

from apps.server import board, openapi, routes_board, routes_games, routes_meta
from apps.server.games import GameStore, Limits
from apps.server.http import not_found, wildhorn_error
from solver import __version__
from solver.errors import WildhornError

ROUTE_TABLE = "\n".join(m.TABLE for m in (routes_meta, routes_games, routes_board))
"""Every API route, one line each: the tables of the areas."""


def default_data_dir() -> Path:
    base = os.environ.get("XDG_DATA_HOME") or os.path.join(os.path.expanduser("~"), ".local",
                                                           "share")
    return Path(base) / "wildhorn-solve" / "games"


def create_app(data_dir: str | os.PathLike | None = None, limits: Limits = Limits()) -> Starlette:
    """The app, its games saved in ``data_dir`` (default: the user's data folder)."""
    store = GameStore(data_dir or default_data_dir(), limits)
    analyses = board.Analyses(store, limits)

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette):
        yield
        analyses.shutdown()
        await store.shutdown()

    routes = routes_meta.routes + routes_games.routes + routes_board.routes
    app = Starlette(routes=routes, lifespan=lifespan,
                    exception_handlers={WildhornError: wildhorn_error, 404: not_found,
                                        405: not_found})
    app.state.store = store
    app.state.limits = limits
    app.state.analyses = analyses
    app.state.cards = board.card_list()
    app.state.route_table = ROUTE_TABLE
    # the document, built once: it fails here if a route has no line in the
    # tables (or a line no route), so the two cannot drift apart
    app.state.openapi = openapi.document(ROUTE_TABLE, routes, __version__)
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

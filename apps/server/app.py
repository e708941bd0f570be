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
import errno
import os
import socket
import sys
import threading
import webbrowser
from pathlib import Path

import uvicorn
from starlette.applications import Starlette
from starlette.middleware import Middleware

from apps.server import board, openapi, routes_board, routes_games, routes_meta
from apps.server.games import GameStore, Limits, private_folder
from apps.server.guard import LOCAL_HOSTS, Access, Guard, stored_token
from apps.server.http import not_found, wildhorn_error
from apps.tournament.store import FolderLock
from solver import __version__
from solver.errors import ParameterError, WildhornError

ROUTE_TABLE = "\n".join(m.TABLE for m in (routes_meta, routes_games, routes_board))
"""Every API route, one line each: the tables of the areas."""


def default_data_dir() -> Path:
    base = os.environ.get("XDG_DATA_HOME") or os.path.join(os.path.expanduser("~"), ".local",
                                                           "share")
    return Path(base) / "wildhorn-solve" / "games"


def create_app(data_dir: str | os.PathLike | None = None, limits: Limits = Limits(),
               access: Access | None = None) -> Starlette:
    """The app, its games saved in ``data_dir`` (default: the user's data
    folder).  ``access``: who may talk to it (apps.server.guard: the token,
    the Host and Origin checks); None serves every request (a library use:
    the tests of the routes, benchmarks in one process), never ``serve``."""
    store = GameStore(data_dir or default_data_dir(), limits)
    analyses = board.Analyses(store, limits)

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette):
        _warm(store)
        yield
        analyses.shutdown()
        await store.shutdown()

    routes = routes_meta.routes + routes_games.routes + routes_board.routes
    middleware = [] if access is None else [Middleware(Guard, access=access)]
    app = Starlette(routes=routes, lifespan=lifespan, middleware=middleware,
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


SERVE_LOCK = "serve.lock"
"""The lock of a data folder while a server uses it (one server per folder)."""


def listening_socket(host: str, port: int) -> socket.socket:
    """A socket bound to ``host``:``port`` and listening, made before
    anything is printed or created: a port in use (another server's), or
    one this user may not take, is a one-line ParameterError."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET   # as uvicorn binds
    try:
        infos = socket.getaddrinfo(host.strip("[]"), port, family, socket.SOCK_STREAM)
    except (socket.gaierror, UnicodeError) as err:
        raise ParameterError(f"--host {host}: not an address of this machine "
                             f"({getattr(err, 'strerror', None) or err})") from None
    family, _, _, _, address = infos[0]
    sock = socket.socket(family, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as uvicorn does
        sock.bind(address)
        sock.listen(2048)
    except OSError as err:
        sock.close()
        if err.errno == errno.EADDRINUSE:
            raise ParameterError(f"--port {port}: the port is in use on {host} (another "
                                 f"server is there): stop it, or choose another --port") from None
        raise ParameterError(f"--host {host} --port {port}: cannot listen there: "
                             f"{err.strerror or err}") from None
    sock.set_inheritable(True)
    return sock


def _warm(store: GameStore) -> None:
    """Starts the search processes' fork server with the server, so that
    its imports are not paid by the first bot move (1.4 s measured: a move
    capped at 10 s answered in 11.4 s)."""
    ctx = getattr(store.pool, "ctx", None)
    if ctx is not None and ctx.get_start_method() == "forkserver":
        from multiprocessing import forkserver
        forkserver.ensure_running()


def run(host: str = "127.0.0.1", port: int = 8000, open_browser: bool = False,
        data: str | None = None, token: bool = True, new_token: bool = False,
        ponder: bool = True) -> int:
    """``wildhorn-solve serve``: serves the table until interrupted.  In
    order: the port is taken (a port in use: one line, nothing printed or
    made), the data folder made and locked (a second server on it is
    refused with the first's pid and address), the token read from the
    folder (or made: ``new_token``), then the address printed."""
    sock = listening_socket(host, port)
    try:
        port = sock.getsockname()[1]      # the port the system chose for --port 0
        url = f"http://{'[' + host + ']' if ':' in host else host}:{port}/"
        data_dir = Path(data) if data else default_data_dir()
        private_folder(data_dir)
        lock = FolderLock(data_dir, SERVE_LOCK, "server",
                          advice="stop it (Ctrl-C where it runs), or use another --data",
                          about={"address": url})
        with lock:
            return _serve(sock, host, url, data_dir, open_browser, token, new_token, ponder)
    finally:
        sock.close()


def _serve(sock: socket.socket, host: str, url: str, data_dir: Path, open_browser: bool,
           token: bool, new_token: bool, ponder: bool = True) -> int:
    if host not in LOCAL_HOSTS:
        print(f"warning: serving on {host}: anyone who can reach this address and port "
              f"can use this server (play, load games, start searches)", file=sys.stderr)
    hosts = () if host in LOCAL_HOSTS else (host.strip("[]").lower(),)
    if token:
        secret, note = stored_token(data_dir, renew=new_token)
        if note is not None:
            print(f"note: {note}", file=sys.stderr)
        access = Access(token=secret, hosts=hosts)
    else:
        access = Access(token=None, hosts=hosts)
        print("warning: --no-token: any program on this machine, and any web page whose "
              "script reaches this port, can drive this server", file=sys.stderr)
    app = create_app(data_dir, Limits(ponder=ponder), access=access)
    for problem in app.state.store.load_errors:
        print(f"warning: a saved game was not loaded: {problem}", file=sys.stderr)
    address = url + (f"?token={access.token}" if access.token else "")
    print(f"Operation Wildhorn III: the table is at {address} (games saved in {data_dir}); "
          f"Ctrl-C stops the server", file=sys.stderr)
    if open_browser:
        threading.Timer(1.0, _open, args=(address,)).start()
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning"))
    server.run(sockets=[sock])
    return 0


def _open(address: str) -> None:
    """Opens the table in the default browser, or says that none could be
    (``webbrowser.open`` returning False or raising): the server goes on."""
    try:
        opened = webbrowser.open(address)
    except (webbrowser.Error, OSError) as err:
        opened = False
        why = f" ({err})" if str(err) else ""
    else:
        why = ""
    if not opened:
        print(f"note: no browser could be opened here{why}: open {address} yourself",
              file=sys.stderr)

"""The page and what describes the API.

Route table::

    GET    /api/openapi.json              this API as an OpenAPI 3.1 document
    GET    /api/bots                      the bot specs to choose from
    GET    /api/reference                 every card's full text and the rulings by number
"""

from __future__ import annotations

from pathlib import Path

from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from apps.record import DEFAULT_BOT
from apps.server import reference as rules_reference
from apps.server.views import bot_label
from solver import vocabulary

TABLE = __doc__.split("::", 1)[1].strip()
STATIC = Path(__file__).with_name("static")
BOTS = ["default", "default:time=3", "ismcts:time=1.0", "oos:time=1.0", "heuristic", "random"]


async def index(request: Request) -> Response:
    return FileResponse(STATIC / "index.html")


async def api(request: Request) -> Response:
    """``GET /api``: the routes, one line each (the tables of every area), and
    the game's vocabulary (solver.vocabulary), which the page reads instead
    of declaring any of it."""
    return JSONResponse({"routes": [" ".join(line.split())
                                    for line in request.app.state.route_table.splitlines()],
                         "openapi": "/api/openapi.json",
                         "vocabulary": vocabulary.as_json()})


async def openapi_json(request: Request) -> Response:
    return JSONResponse(request.app.state.openapi)


async def bots(request: Request) -> Response:
    return JSONResponse({"bots": BOTS, "default": DEFAULT_BOT,
                         "labels": {spec: bot_label(spec) for spec in BOTS},
                         "max_time": request.app.state.limits.max_time})


async def reference(request: Request) -> Response:
    """``GET /api/reference``: the card set's cards with their full text (as
    the board lists them) and the rulings by number (the packaged copy of
    docs/rules.md's, :mod:`apps.server.reference`)."""
    return JSONResponse({"cards": request.app.state.cards, "rules": rules_reference.rules(),
                         "source": "docs/rules.md"})


routes = [
    Route("/", index),
    Route("/api", api),
    Route("/api/openapi.json", openapi_json),
    Route("/api/bots", bots),
    Route("/api/reference", reference),
    Mount("/static", StaticFiles(directory=STATIC), name="static"),
]

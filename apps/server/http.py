"""What every route of the web server shares: reading a request's JSON
body within its limit, and turning errors into 4xx answers."""

from __future__ import annotations

import asyncio
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from apps.record import MAX_SAVE_ITEMS
from apps.server.games import GameStore, ServerGame
from solver.jsonio import find_problem, loads
from solver.errors import PositionError, RequestError

MAX_BODY = 4 * 2**20  # bytes of a request body (a save file is a few tens of KB)
DISCONNECT_POLL = 0.25  # seconds between the checks that a waiting client is still there


async def read_body(request: Request) -> Any:
    """The request's JSON body ({} if empty), read up to :data:`MAX_BODY`
    bytes: a larger one is refused as it streams in, before it is all read."""
    declared = request.headers.get("content-length")
    if declared is not None and declared.isdigit() and int(declared) > MAX_BODY:
        raise RequestError(f"request body too large ({declared} bytes, at most {MAX_BODY})")
    chunks, size = [], 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > MAX_BODY:
            raise RequestError(f"request body too large (more than {MAX_BODY} bytes)")
        chunks.append(chunk)
    raw = b"".join(chunks)
    if not raw.strip():
        return {}
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as err:
        raise RequestError(f"malformed JSON in the request body: not UTF-8 text at byte "
                           f"{err.start}") from None
    return parse_json(text, "the request body", "malformed JSON in the request body")


def parse_json(text: str, where: str, malformed: str) -> Any:
    """JSON text from a request (a body, a link's code) as every route reads
    it: strict numbers, at most 8 levels deep and ``MAX_SAVE_ITEMS`` items
    (deeper nesting, even thousands of levels, is a one-line RequestError,
    never a RecursionError); ``where`` names it in a problem found in the
    value, ``malformed`` starts the message of bad syntax."""
    try:
        data = loads(text)  # as the command line reads files: strict numbers, no BOM
    except RecursionError:
        raise RequestError(f"{malformed}: nested too deeply (at most 8 levels)") from None
    except ValueError as err:
        raise RequestError(f"{malformed}: {str(err).splitlines()[0][:120]}") from None
    problem = find_problem(data, max_items=MAX_SAVE_ITEMS, max_keys=64, max_depth=8)
    if problem is not None:
        path = "$" + "".join(f"[{p}]" if isinstance(p, int) else f".{str(p)[:40]}"
                             for p in problem[0])
        raise RequestError(f"{where}: {path}: {problem[1]}")
    return data


async def read_object(request: Request) -> dict[str, Any]:
    data = await read_body(request)
    if not isinstance(data, dict):
        raise RequestError("the request body must be a JSON object")
    return data


async def while_connected(request: Request, work: Any) -> Any:
    """Awaits ``work`` (a coroutine or future) while the client waits for the
    answer: if it goes away first (a closed tab, a page that moved on), the
    work is cancelled (a queued search leaves the queue, a running one is
    killed) instead of running for nobody."""
    task = asyncio.ensure_future(work)
    try:
        while True:
            done, _ = await asyncio.wait({task}, timeout=DISCONNECT_POLL)
            if done:
                return task.result()
            if await request.is_disconnected():
                task.cancel()
                await asyncio.gather(task, return_exceptions=True)  # out of the queue now
                raise RequestError("the client went away: the search was called off")
    finally:
        if not task.done():
            task.cancel()


def query_int(request: Request, name: str, what: str, default: int | None = None) -> int | None:
    """A non-negative integer query parameter (``default`` when absent)."""
    text = request.query_params.get(name)
    if text is None:
        return default
    if not text.isdigit() or len(text) > 9:
        raise RequestError(f"{name}: expected {what}, got {text[:20]!r}")
    return int(text)


def upload_name(request: Request) -> str:
    """The name an upload gives itself (``?name=``), for messages only."""
    name = request.query_params.get("name", "upload")[:60]
    return name.replace("\\", "/").rsplit("/", 1)[-1] or "upload"


def store_of(request: Request) -> GameStore:
    return request.app.state.store


def game_of(request: Request) -> ServerGame:
    return store_of(request).get(request.path_params["gid"])


async def wildhorn_error(request: Request, exc: Exception) -> Response:
    status = getattr(exc, "status", 400)
    body = {"error": str(exc).splitlines()[0] if str(exc) else type(exc).__name__}
    if isinstance(exc, PositionError):
        body.update(ok=False, path=exc.path)
    return JSONResponse(body, status_code=status)


async def not_found(request: Request, exc: Exception) -> Response:
    code = getattr(exc, "status_code", 404)
    return JSONResponse({"error": f"{request.method} {request.url.path[:200]}: "
                         f"{getattr(exc, 'detail', 'not found')}"}, status_code=code)

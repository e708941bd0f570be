"""Who may talk to the server, checked before any route runs (as Jupyter's
server does for a local server):

* **the Host header** names an address the server serves (127.0.0.1,
  localhost, [::1], or what ``--host`` names): another name is a DNS
  rebinding, refused (400);
* **a state-changing request** (anything but GET, HEAD, OPTIONS) whose
  ``Origin`` is another site is refused (403), and a body must be JSON
  (``Content-Type: application/json``; 415 otherwise), so a cross-site
  form or ``text/plain`` POST never reaches a route;
* **the token**: a random token kept in the data folder (``token``, mode
  0600, :func:`stored_token`), made when ``serve`` first starts there (or
  with ``--new-token``), printed in the address it shows and opens
  (``http://127.0.0.1:PORT/?token=T``); a restart keeps it, so a page left
  open goes on working.  The page
  opened with it sets an HttpOnly, SameSite=Strict cookie and goes on
  without it in the address; scripts send ``Authorization: Bearer T``.
  Every ``/api`` request without it is refused (401); the page opened
  without it says how to get in.  ``serve --no-token`` turns this off.
"""

from __future__ import annotations

import json
import os
import re
import secrets
import stat
from dataclasses import dataclass, field
from http.cookies import SimpleCookie
from pathlib import Path
from typing import Any, Awaitable, Callable
from urllib.parse import parse_qs, urlsplit

LOCAL_HOSTS = ("127.0.0.1", "localhost", "::1")
"""The addresses a local server answers to."""
SAFE_METHODS = ("GET", "HEAD", "OPTIONS")
COOKIE = "wildhorn-token"

Scope = dict[str, Any]
Receive = Callable[[], Awaitable[dict[str, Any]]]
Send = Callable[[dict[str, Any]], Awaitable[None]]

NO_TOKEN_PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Operation Wildhorn III</title></head>
<body style="font-family: sans-serif; max-width: 40em; margin: 3em auto">
<h1>Operation Wildhorn III</h1>
<p>This table is private to the person who started the server. Open it with
the address that <code>wildhorn-solve serve</code> printed when it started,
which ends in <code>/?token=...</code>; the page remembers it from then on.</p>
<p>Lost it? Stop the server (Ctrl-C) and start it again: it prints the
address again (<code>--new-token</code> makes a new token, and locks out
every page opened with the old one).</p>
</body></html>
"""


TOKEN_FILE = "token"
"""The server's token in its data folder (mode 0600)."""
_TOKEN_RE = re.compile(r"[A-Za-z0-9_-]{32,128}")


def new_token() -> str:
    return secrets.token_urlsafe(32)


def stored_token(folder: Path, renew: bool = False) -> tuple[str, str | None]:
    """(the token kept in ``folder``'s :data:`TOKEN_FILE`, a note or None):
    the one there, so that a restart keeps the pages open with it working;
    a new one (written atomically, mode 0600) when ``renew``, when there is
    none, or when the file is not a token only its owner can read (the note
    says why: a token others could read is no longer a secret)."""
    path = folder / TOKEN_FILE
    note = None
    if not renew:
        try:
            info = os.lstat(path)
        except FileNotFoundError:
            info = None
        if info is not None:
            if not stat.S_ISREG(info.st_mode) or info.st_mode & 0o077 \
                    or info.st_uid != os.getuid():
                note = (f"{path} could be read by others (mode "
                        f"{stat.S_IMODE(info.st_mode):04o}) or is not a file: a new token "
                        f"was made")
            else:
                with open(path, "rb") as f:
                    text = f.read(200).decode("ascii", "replace").strip()
                if _TOKEN_RE.fullmatch(text):
                    return text, None
                note = f"{path} does not hold a token: a new one was made"
    token = new_token()
    temp = path.with_name(f".{TOKEN_FILE}.{os.getpid()}.tmp")
    fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o600)
    try:
        os.fchmod(fd, 0o600)                   # whatever the umask
        os.write(fd, (token + "\n").encode())
        os.fsync(fd)
    finally:
        os.close(fd)
    os.replace(temp, path)
    return token, note


@dataclass(frozen=True)
class Access:
    """What the guard lets in: the server's token (None: no token, ``serve
    --no-token``) and the host names it serves besides the local ones."""

    token: str | None = field(default_factory=new_token)
    hosts: tuple[str, ...] = ()

    def allows_host(self, name: str) -> bool:
        return name in LOCAL_HOSTS or name in self.hosts

    def admits(self, presented: str | None) -> bool:
        return self.token is None or (presented is not None
                                      and secrets.compare_digest(presented, self.token))


def host_name(value: str) -> str:
    """The host of a Host header ("127.0.0.1:8000" -> "127.0.0.1",
    "[::1]:8000" -> "::1")."""
    value = value.strip().lower()
    if value.startswith("["):
        return value[1:value.find("]")] if "]" in value else value
    return value.rsplit(":", 1)[0] if value.count(":") == 1 else value


class Guard:
    """ASGI middleware that applies :class:`Access` to every HTTP request."""

    def __init__(self, app: Callable, access: Access):
        self.app = app
        self.access = access

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = {k.decode("latin-1").lower(): v.decode("latin-1")
                   for k, v in scope.get("headers", [])}
        host = headers.get("host", "")
        if not self.access.allows_host(host_name(host)):
            await _error(send, 400, f"Host {host[:60]!r} is not an address this server serves "
                                    f"(a page of another site reached it through DNS)")
            return
        method = scope["method"]
        if method not in SAFE_METHODS:
            origin = headers.get("origin")
            if origin is not None and origin != "null" and _origin_host(origin) != host.lower():
                await _error(send, 403, f"a request from another site ({origin[:60]}) is "
                                        f"refused: this server takes requests from its own page")
                return
            if origin == "null":
                await _error(send, 403, "a request from an opaque origin is refused")
                return
            has_body = headers.get("content-length", "0") not in ("0", "") \
                or "transfer-encoding" in headers
            kind = headers.get("content-type", "").split(";")[0].strip().lower()
            if has_body and kind != "application/json":
                await _error(send, 415, f"expected a JSON body (Content-Type: application/json), "
                                        f"got {kind[:40] or 'no Content-Type'}")
                return
        path = scope["path"]
        query = parse_qs(scope.get("query_string", b"").decode("latin-1"))
        cookie = _cookie(headers.get("cookie", ""), _cookie_name(host))
        if path == "/" and self.access.token is not None:
            offered = query.get("token", [None])[0]
            if offered is not None and self.access.admits(offered):
                await _enter(send, _cookie_name(host), offered)
                return
            if not self.access.admits(cookie):
                await _page(send, 401, NO_TOKEN_PAGE)
                return
        if path.startswith("/api") and not (self.access.admits(cookie)
                                            or self.access.admits(_bearer(headers))):
            await _error(send, 401, "this server needs its token: open the address `wildhorn-"
                                    "solve serve` printed (it ends in /?token=...), or send "
                                    "Authorization: Bearer TOKEN")
            return
        await self.app(scope, receive, send)


def _origin_host(origin: str) -> str:
    """The host[:port] of an Origin ("http://127.0.0.1:8000" -> "127.0.0.1:8000")."""
    try:
        return urlsplit(origin).netloc.lower()
    except ValueError:
        return ""


def _cookie_name(host: str) -> str:
    """The cookie of the server at this address (browsers share cookies
    between the ports of one host: each server's has its port)."""
    port = host.rsplit(":", 1)[1] if ":" in host and not host.endswith("]") else ""
    return f"{COOKIE}-{port}" if port.isdigit() else COOKIE


def _cookie(header: str, name: str) -> str | None:
    jar = SimpleCookie()
    try:
        jar.load(header)
    except Exception:  # noqa: BLE001 - a malformed Cookie header holds no token
        return None
    morsel = jar.get(name)
    return morsel.value if morsel is not None else None


def _bearer(headers: dict[str, str]) -> str | None:
    value = headers.get("authorization", "")
    scheme, _, token = value.partition(" ")
    return token.strip() if scheme.lower() == "bearer" and token.strip() else None


async def _error(send: Send, status: int, message: str) -> None:
    body = json.dumps({"error": message}).encode()
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"application/json"),
                            (b"content-length", str(len(body)).encode())]})
    await send({"type": "http.response.body", "body": body})


async def _page(send: Send, status: int, html: str) -> None:
    body = html.encode()
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"text/html; charset=utf-8"),
                            (b"content-length", str(len(body)).encode())]})
    await send({"type": "http.response.body", "body": body})


async def _enter(send: Send, name: str, token: str) -> None:
    """The token from the address becomes the page's cookie; back to the
    page without it in the address (nor in the history)."""
    cookie = f"{name}={token}; HttpOnly; SameSite=Strict; Path=/"
    await send({"type": "http.response.start", "status": 303,
                "headers": [(b"location", b"/"), (b"set-cookie", cookie.encode()),
                            (b"content-length", b"0")]})
    await send({"type": "http.response.body", "body": b""})

"""Who may talk to the web server, and what a request may make it do
(issue 29): the token, Host and Origin checks, JSON bodies only, bounded
work, the bounded queue, the list of games, durable moves, private folders,
and an HTTP fuzz of every route that must never get a 500."""

from __future__ import annotations

import asyncio
import json
import os
import random
import re
import signal
import socket
import stat
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

pytest.importorskip("starlette")
pytest.importorskip("httpx")

from starlette.testclient import TestClient  # noqa: E402

from apps.server import app as server_app  # noqa: E402
from apps.server.games import GameStore, Limits, SearchPool  # noqa: E402
from apps.server.guard import Access  # noqa: E402
from apps.server.http import MAX_BODY, while_connected  # noqa: E402
from conftest import ROOT  # noqa: E402
from solver.errors import BusyError, RequestError  # noqa: E402

TOKEN = "t0ken-for-the-tests"
GOOD = {"Authorization": f"Bearer {TOKEN}"}
ESCORT = json.loads((ROOT / "examples" / "german-escort.json").read_text())


@pytest.fixture
def guarded(tmp_path):
    """The app behind its guard (the token, Host 'testserver' allowed as
    the test client's address)."""
    app = server_app.create_app(tmp_path / "data", Limits(max_iterations=150, max_searches=1),
                                access=Access(token=TOKEN, hosts=("testserver",)))
    with TestClient(app) as c:
        yield c


def test_every_api_request_needs_the_token(guarded):
    assert guarded.get("/api/bots").status_code == 401
    assert "token" in guarded.get("/api/bots").json()["error"]
    assert guarded.get("/api/bots", headers={"Authorization": "Bearer wrong"}).status_code == 401
    assert guarded.get("/api/bots", headers=GOOD).status_code == 200
    res = guarded.post("/api/games", json={"bot": "random"})
    assert res.status_code == 401
    assert guarded.get("/api/games", headers=GOOD).json()["games"] == []  # nothing was made


def test_the_page_exchanges_the_token_for_a_cookie(guarded):
    page = guarded.get("/", follow_redirects=False)
    assert page.status_code == 401 and "wildhorn-solve serve" in page.text  # how to get in
    res = guarded.get(f"/?token={TOKEN}", follow_redirects=False)
    assert res.status_code == 303 and res.headers["location"] == "/"
    cookie = res.headers["set-cookie"]
    assert "HttpOnly" in cookie and "SameSite=Strict" in cookie and TOKEN in cookie
    # the client keeps the cookie: the page and the API answer from then on
    assert guarded.get("/").status_code == 200
    assert guarded.get("/api/bots").status_code == 200
    assert guarded.get("/?token=wrong", follow_redirects=False).status_code == 200  # the cookie


def test_another_host_is_refused_as_dns_rebinding(guarded):
    for host in ("evil.example", "evil.example:8000", "127.0.0.1.evil.example"):
        res = guarded.get("/api/bots", headers={**GOOD, "Host": host})
        assert res.status_code == 400 and "Host" in res.json()["error"], host
    for host in ("127.0.0.1:8000", "localhost:8000", "[::1]:8000", "testserver"):
        assert guarded.get("/api/bots", headers={**GOOD, "Host": host}).status_code == 200, host


def test_a_cross_site_request_never_reaches_a_route(guarded):
    before = len(guarded.get("/api/games", headers=GOOD).json()["games"])
    # a page elsewhere: its Origin, and a text/plain body (no preflight)
    res = guarded.post("/api/games", content=b'{"bot": "random"}',
                       headers={**GOOD, "Origin": "http://evil.example",
                                "Content-Type": "text/plain"})
    assert res.status_code == 403
    res = guarded.post("/api/games", content=b'{"bot": "random"}',
                       headers={**GOOD, "Content-Type": "text/plain"})
    assert res.status_code == 415
    res = guarded.post("/api/board/analyses", json={"state": ESCORT, "iterations": 200000},
                       headers={**GOOD, "Origin": "null"})
    assert res.status_code == 403
    assert len(guarded.get("/api/games", headers=GOOD).json()["games"]) == before
    same = guarded.post("/api/games", json={"bot": "random"},
                        headers={**GOOD, "Origin": "http://testserver"})
    assert same.status_code == 200


def test_a_huge_turn_is_refused_before_any_loop(client):
    """POST /api/board/check with turn 10^12 used to loop once per turn on
    the event loop; now every input is bounded before it is used."""
    state = dict(ESCORT, turn=10**12)
    answer = {}

    def ask():
        answer["res"] = client.post("/api/board/check", json={"state": state})

    thread = threading.Thread(target=ask, daemon=True)
    thread.start()
    thread.join(60)  # a generous bound: the request takes milliseconds
    assert not thread.is_alive(), "the server is still working on the request"
    res = answer["res"]
    assert res.status_code == 422 and res.json()["path"] == "$.turn"
    assert client.post("/api/board/analyses",
                       json={"state": dict(ESCORT, turn=1e12)}).status_code == 422


def test_a_body_too_large_is_refused_as_it_streams_in(client):
    def chunks():
        for _ in range(MAX_BODY // 2**16 + 2):
            yield b" " * 2**16
    res = client.post("/api/games/load", content=chunks(),
                      headers={"Content-Type": "application/json"})
    assert res.status_code == 400 and "too large" in res.json()["error"]
    res = client.post("/api/games/load", content=b"{}",
                      headers={"Content-Type": "application/json",
                               "Content-Length": str(MAX_BODY * 50)})
    assert res.status_code == 400


@pytest.mark.parametrize("body, words", [
    (b'{"bot": "random", "bot": "ismcts"}', "duplicate key"),
    ('{"bot": "random"}'.encode("utf-16"), "UTF-8"),
    (b'\xef\xbb\xbf{"bot": "random"}', "malformed JSON"),
    (b"[" * 5000 + b"]" * 5000, "malformed JSON"),
    (b'{"a": ' * 40 + b"1" + b"}" * 40, "nested"),
    (b'{"time": 1e999}', "out of range"),
])
def test_the_web_reads_json_as_strictly_as_the_command_line(client, body, words):
    res = client.post("/api/games", content=body, headers={"Content-Type": "application/json"})
    assert res.status_code == 400 and words in res.json()["error"], res.text
    assert len(res.json()["error"]) < 300


def test_a_full_queue_is_429_and_a_gone_client_calls_its_search_off():
    async def scenario():
        pool = SearchPool(1, queue=1)
        first = asyncio.ensure_future(pool.run(time.sleep, 0.5))
        await asyncio.sleep(0.1)

        class Gone:  # a request whose client has left
            async def is_disconnected(self):
                return True
        with pytest.raises(RequestError, match="went away"):  # it leaves the queue
            await while_connected(Gone(), pool.run(time.sleep, 5))
        assert pool.waiting == 0
        second = asyncio.ensure_future(pool.run(time.sleep, 0.5))
        await asyncio.sleep(0.1)
        with pytest.raises(BusyError):  # one running, one waiting: the queue is full
            await pool.run(time.sleep, 0.5)
        second.cancel()
        await asyncio.gather(first, second, return_exceptions=True)
        return pool.waiting, pool.running

    assert asyncio.run(scenario()) == (0, 0)


def test_the_games_are_listed_and_a_full_cap_is_no_lock_out(tmp_path):
    app = server_app.create_app(tmp_path, Limits(max_games=3, max_loaded=2))
    with TestClient(app) as c:
        ids = [c.post("/api/games", json={"bot": "random", "seed": s}).json()["id"]
               for s in range(3)]
        full = c.post("/api/games", json={"bot": "random"})
        assert full.status_code == 400 and "GET /api/games" in full.json()["error"]
        listed = c.get("/api/games").json()["games"]
        assert [g["id"] for g in listed] == ids[::-1]  # the most recent first
        assert all(g["side"] == "polish" and g["bot"] == "random" and g["turn"] == 1
                   for g in listed)
        assert len(app.state.store.games) == 2  # one of them is on disk only
        for gid in ids:  # each loads on demand
            assert c.get(f"/api/games/{gid}").status_code == 200
        assert c.delete(f"/api/games/{ids[0]}").status_code == 200
        assert c.post("/api/games", json={"bot": "random"}).status_code == 200


def test_the_data_folder_and_its_parents_are_private(tmp_path):
    folder = tmp_path / "a" / "b" / "games"
    store = GameStore(folder)
    game = store.new_game(bot="random", seed=1)
    for path in (tmp_path / "a", tmp_path / "a" / "b", folder):
        assert stat.S_IMODE(path.stat().st_mode) == 0o700, path
    assert stat.S_IMODE(store.path(game.id).stat().st_mode) == 0o600


def test_a_failed_save_is_reported_and_the_game_kept(client, monkeypatch):
    from apps import record as record_module
    from solver.errors import SerializationError
    view = client.post("/api/games", json={"bot": "random", "seed": 3}).json()

    def full_disk(path, data):
        raise SerializationError(f"{path}: cannot save: No space left on device")
    monkeypatch.setattr(record_module, "write_atomic", full_disk)
    while view["status"] != "human":
        view = client.post(f"/api/games/{view['id']}/bot").json()
    res = client.post(f"/api/games/{view['id']}/action",
                      json={"action": view["actions"][0]["id"], "version": view["version"]})
    assert res.status_code == 200
    assert "No space left" in res.json()["save_error"]
    assert res.json()["version"] != view["version"]  # the move is kept in memory


# ---- every route, every kind of bad input: 4xx, never a 500 -------------------------

BAD_BODIES = [b"", b"{", b"[]", b"null", b"1e999", b'"x"', b"[" * 3000,
              b'{"state": 1}', b'{"state": {"turn": 1e12}}', b'{"action": "x", "version": 1}',
              b'{"time": 1e400}', b'{"iterations": -1}', b'{"seed": 1.5}',
              b'{"side": {"a": 1}}', b'{"bot": ["x"]}', b'{"code": 5}', b"\xff\xfe",
              json.dumps({"format": "wildhorn-game/2", "steps": [{}] * 3}).encode(),
              json.dumps({"format": "wildhorn-state/1", "turn": 10**12}).encode(),
              b'{"a": ' * 30 + b"1" + b"}" * 30]


def test_http_fuzz_every_route_answers_4xx_never_500(tmp_path):
    app = server_app.create_app(tmp_path, Limits(max_iterations=100, max_searches=1),
                                access=Access(token=TOKEN, hosts=("testserver",)))
    rng = random.Random(29)
    tried = statuses = 0
    counts: dict[int, int] = {}
    with TestClient(app, raise_server_exceptions=False) as c:
        gid = c.post("/api/games", json={"bot": "random", "seed": 1}, headers=GOOD).json()["id"]
        paths = []
        for line in app.state.route_table.splitlines():
            method, path = line.split()[:2]
            path = path.split("[")[0].replace("{id}", rng.choice([gid, "x" * 24, "..%2F"]))
            path = path.replace("{k}", rng.choice(["0", "-1", "99999999999", "x"]))
            paths.append((method, path))
        for method, path in paths:
            if path.endswith("/events") or path.endswith("/hint") or path.endswith("/bot"):
                continue  # streams and searches: their bad inputs are the ids, tried above
            for body in BAD_BODIES:
                for headers in (GOOD, {}, {**GOOD, "Origin": "http://evil.example"}):
                    res = c.request(method, path, content=body,
                                    headers={**headers, "Content-Type": "application/json"})
                    tried += 1
                    counts[res.status_code] = counts.get(res.status_code, 0) + 1
                    assert res.status_code < 500, (method, path, body[:40], res.text[:200])
                    statuses += res.status_code >= 400
        assert c.get("/api/bots", headers=GOOD).status_code == 200  # alive
    assert tried > 1000 and counts.get(401, 0) > 0 and counts.get(403, 0) > 0
    print(f"http fuzz: {tried} requests, status counts {sorted(counts.items())}")


# ---- a move answered 200 is on disk ---------------------------------------------------

def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _serve(data: Path, port: int) -> tuple[subprocess.Popen, str]:
    """``wildhorn-solve serve`` in a child process; (the process, its token)."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen([sys.executable, "-m", "apps.cli", "serve", "--port", str(port),
                             "--data", str(data)], stderr=subprocess.PIPE, text=True, env=env)
    line = proc.stderr.readline()
    for _ in range(200):
        if "token=" in line:
            break
        line = proc.stderr.readline()
    token = re.search(r"token=([A-Za-z0-9_-]+)", line).group(1)
    return proc, token


@pytest.mark.slow
def test_kill_9_after_a_200_loses_nothing(tmp_path):
    import httpx
    port = _free_port()
    proc, token = _serve(tmp_path, port)
    try:
        with httpx.Client(base_url=f"http://127.0.0.1:{port}",
                          headers={"Authorization": f"Bearer {token}"}, timeout=30) as c:
            for _ in range(100):
                try:
                    view = c.post("/api/games", json={"bot": "random", "seed": 4}).json()
                    break
                except httpx.TransportError:
                    time.sleep(0.1)
            acked = []
            for _ in range(12):
                while view["status"] == "bot":
                    view = c.post(f"/api/games/{view['id']}/bot").json()
                res = c.post(f"/api/games/{view['id']}/action",
                             json={"action": view["actions"][-1]["id"],
                                   "version": view["version"]})
                assert res.status_code == 200
                view = res.json()
                acked.append(view["version"])
        proc.send_signal(signal.SIGKILL)  # right after the answer
        proc.wait(10)
        proc, token = _serve(tmp_path, port)
        with httpx.Client(base_url=f"http://127.0.0.1:{port}",
                          headers={"Authorization": f"Bearer {token}"}, timeout=30) as c:
            for _ in range(100):
                try:
                    again = c.get(f"/api/games/{view['id']}").json()
                    break
                except httpx.TransportError:
                    time.sleep(0.1)
        assert again["version"] == acked[-1] and again["log"] == view["log"]
    finally:
        proc.kill()
        proc.wait(10)


# ---- one server per data folder, the port first, the token kept (issue 46 11-13) ---------

def _refused(args, timeout=60):
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-m", "apps.cli", "serve", *args],
                          capture_output=True, text=True, env=env, timeout=timeout)


def _stop(proc):
    proc.send_signal(signal.SIGINT)
    try:
        proc.wait(20)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(10)


@pytest.mark.slow
def test_a_second_server_on_one_data_folder_is_refused_with_the_firsts_pid_and_address(
        tmp_path):
    """Point 11: two servers on one folder both accepted moves in the same
    game, and the file kept one; the second is refused, on any port."""
    data = tmp_path / "data"
    port = _free_port()
    first, _ = _serve(data, port)
    try:
        r = _refused(["--port", str(_free_port()), "--data", str(data)])
        assert r.returncode == 2 and "Traceback" not in r.stderr, r.stderr
        assert len(r.stderr.strip().splitlines()) == 1, r.stderr
        assert f"{data} is in use by another server (pid {first.pid}, " in r.stderr
        assert f"at http://127.0.0.1:{port}/)" in r.stderr and "--data" in r.stderr
        assert "token=" not in r.stderr
    finally:
        _stop(first)
    again, _ = _serve(data, _free_port())   # the lock goes with the server
    _stop(again)


@pytest.mark.slow
def test_a_port_in_use_is_one_line_before_anything_is_printed_or_made(tmp_path):
    """Point 12: the address of the other server's port (a wrong token),
    uvicorn's [Errno 98], exit 3 and a data folder made; now one line,
    exit 2, nothing made."""
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen(1)
        port = busy.getsockname()[1]
        r = _refused(["--port", str(port), "--data", str(tmp_path / "data")])
    assert r.returncode == 2 and "Traceback" not in r.stderr, r.stderr
    assert r.stderr.strip().splitlines() == [
        f"wildhorn-solve: error: --port {port}: the port is in use on 127.0.0.1 (another "
        f"server is there): stop it, or choose another --port"]
    assert r.stdout == "" and not (tmp_path / "data").exists()

def _get_when_up(url: str, **kw):
    """GET ``url`` once the server answers (it is starting: up to 10 s)."""
    import httpx
    for _ in range(100):
        try:
            return httpx.get(url, **kw)
        except httpx.TransportError:
            time.sleep(0.1)
    return httpx.get(url, **kw)



@pytest.mark.slow
def test_a_restart_keeps_the_token_so_an_open_page_goes_on(tmp_path):
    """Point 13: the token changed at each start, so an open tab answered
    "This table is private"; it is kept in the data folder (0600), and
    --new-token makes a new one."""
    import httpx
    data = tmp_path / "data"
    port = _free_port()
    proc, token = _serve(data, port)
    base = f"http://127.0.0.1:{port}"
    try:
        entered = _get_when_up(f"{base}/?token={token}", follow_redirects=False)
        assert entered.status_code == 303
        cookies = dict(entered.cookies)          # what the open page holds
    finally:
        _stop(proc)
    path = data / "token"
    assert path.read_text().strip() == token
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    proc, again = _serve(data, port)
    try:
        assert again == token
        page = _get_when_up(f"{base}/", cookies=cookies)
        assert page.status_code == 200 and "This table is private" not in page.text
        assert httpx.get(f"{base}/api/games", cookies=cookies).status_code == 200
    finally:
        _stop(proc)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen([sys.executable, "-m", "apps.cli", "serve", "--port", str(port),
                             "--data", str(data), "--new-token"], stderr=subprocess.PIPE,
                            text=True, env=env)
    try:
        line = proc.stderr.readline()
        while "token=" not in line:
            line = proc.stderr.readline()
        fresh = re.search(r"token=([A-Za-z0-9_-]+)", line).group(1)
        assert fresh != token and path.read_text().strip() == fresh
        for _ in range(100):
            try:
                old = httpx.get(f"{base}/api/games", cookies=cookies)
                break
            except httpx.TransportError:
                time.sleep(0.1)
        assert old.status_code == 401                     # the old page must come in again
    finally:
        _stop(proc)


def test_the_token_file_is_reused_only_when_it_is_private(tmp_path):
    from apps.server.guard import stored_token
    token, note = stored_token(tmp_path)
    assert note is None and stored_token(tmp_path) == (token, None)
    assert stat.S_IMODE((tmp_path / "token").stat().st_mode) == 0o600
    os.chmod(tmp_path / "token", 0o644)                   # others could read it
    other, note = stored_token(tmp_path)
    assert other != token and "could be read by others" in note
    assert stat.S_IMODE((tmp_path / "token").stat().st_mode) == 0o600
    (tmp_path / "token").write_text("not a token\n")
    third, note = stored_token(tmp_path)
    assert third not in (token, other) and "does not hold a token" in note
    assert stored_token(tmp_path, renew=True)[0] != third

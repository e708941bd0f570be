"""The web server under load: 20 games played at once through the HTTP API.

    python benchmarks/serve_load.py [--games 20] [--seed 1] [--out results/bench-serve.json]

Starts ``wildhorn-solve serve`` in a child process on a free port (a fresh
data folder), then plays ``--games`` games against the ``random`` bot at the
same time from one asyncio client: every human decision is a click (POST
/action, a seeded random legal action), every bot move a POST /bot.  The
figure is the server's own time per click, from the ``Server-Timing``
header of /action (apply the action, narrate it, write the game to disk
and fsync it before answering, build the new view; the bot's thinking is
another request and is not in it), with the save's own share; the time the client saw (with HTTP and the queue of 20 games on one
event loop) is reported beside it, and so is the CPU time of the click
(the handler's thread time, which a busy shared machine does not inflate)
with the load average before and after.  Median and 99th percentile are
written under ``"clicks"`` in ``--out`` (other keys of the file are kept).
Targets (issue 19): median at most 20 ms, p99 at most 100 ms.
"""
from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import re
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

from apps.bench import _meta, write_json
from solver.vocabulary import SIDES


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


async def play(client: httpx.AsyncClient, seed: int, server_ms: list[float],
               cpu_ms: list[float], client_ms: list[float], save_ms: list[float]) -> int:
    rng = random.Random(seed)
    view = (await client.post("/api/games", json={"bot": "random", "seed": seed,
                                                  "side": SIDES[seed % 2]})).json()
    clicks = 0
    while view["status"] != "over":
        if view["status"] == "bot":
            res = await client.post(f"/api/games/{view['id']}/bot")
        else:
            action = rng.choice(view["actions"])["id"]
            t0 = time.perf_counter()
            res = await client.post(f"/api/games/{view['id']}/action",
                                    json={"action": action, "version": view["version"]})
            client_ms.append(1000 * (time.perf_counter() - t0))
            timing = dict(part.strip().split(";dur=") for part in
                          res.headers["server-timing"].split(","))
            server_ms.append(float(timing["click"]))
            cpu_ms.append(float(timing["cpu"]))
            save_ms.append(float(timing["save"]))
            clicks += 1
        res.raise_for_status()
        view = res.json()
    return clicks


async def load(url: str, games: int, seed: int, token: str | None) -> dict:
    server_ms: list[float] = []
    cpu_ms: list[float] = []
    client_ms: list[float] = []
    save_ms: list[float] = []
    load_before = os.getloadavg()[0]
    # keep-alive shorter than uvicorn's 5 s, so no request goes out on a closing connection
    limits = httpx.Limits(keepalive_expiry=1.0)
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    async with httpx.AsyncClient(base_url=url, timeout=120, limits=limits,
                                 headers=headers) as client:
        t0 = time.perf_counter()
        clicks = await asyncio.gather(*(play(client, seed + k, server_ms, cpu_ms, client_ms,
                                             save_ms) for k in range(games)))
        wall = time.perf_counter() - t0
    return {
        "games_at_once": games, "clicks": len(server_ms), "clicks_per_game": clicks,
        "wall_s": round(wall, 2),
        "server_ms": {"median": round(statistics.median(server_ms), 3),
                      "p99": round(percentile(server_ms, 0.99), 3),
                      "max": round(max(server_ms), 3)},
        "server_cpu_ms": {"median": round(statistics.median(cpu_ms), 3),
                          "p99": round(percentile(cpu_ms, 0.99), 3)},
        "save_ms": {"median": round(statistics.median(save_ms), 3),
                    "p99": round(percentile(save_ms, 0.99), 3)},
        "load_average": [round(load_before, 2), round(os.getloadavg()[0], 2)],
        "client_ms": {"median": round(statistics.median(client_ms), 3),
                      "p99": round(percentile(client_ms, 0.99), 3)},
        "targets_ms": {"median": 20, "p99": 100},
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=20, help="games at once (default 20)")
    parser.add_argument("--seed", type=int, default=1, help="first game's seed (default 1)")
    parser.add_argument("--out", default="results/bench-serve.json")
    args = parser.parse_args(argv)
    port = free_port()
    with tempfile.TemporaryDirectory() as data, \
            open(os.path.join(data, "server.log"), "w+") as log:
        server = subprocess.Popen([sys.executable, "-m", "apps.cli", "serve", "--port", str(port),
                                   "--data", data], stderr=log)
        try:
            url = f"http://127.0.0.1:{port}"
            token = None
            for _ in range(300):  # until it prints its address (with the token) and answers
                log.seek(0)
                found = re.search(r"\?token=([A-Za-z0-9_-]+)", log.read())
                token = found.group(1) if found else None
                try:
                    if token:
                        httpx.get(url + "/api/bots", timeout=1,
                                  headers={"Authorization": f"Bearer {token}"})
                        break
                except httpx.TransportError:
                    pass
                time.sleep(0.1)
            result = asyncio.run(load(url, args.games, args.seed, token))
        except BaseException:
            log.seek(0)
            print("the server's messages:\n" + log.read()[-3000:], file=sys.stderr)
            raise
        finally:
            server.terminate()
            server.wait(10)
    out = Path(args.out)
    data = json.loads(out.read_text()) if out.exists() else {}
    data["clicks"] = {"what": "server time per click (POST /action: apply, narration, the "
                              "game written to disk and fsync'ed before the answer, whose "
                              "share is save_ms, the new view; bot thinking excluded), games "
                              "against random played at once through HTTP", **result,
                      "meta": _meta(),
                      "command": "python benchmarks/serve_load.py --games "
                                 f"{args.games} --seed {args.seed}"}
    write_json(data, out)
    print(json.dumps(data["clicks"], indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())

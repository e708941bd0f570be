"""Regenerates the screenshots of the web table in docs/screenshots/.

    python scripts/screenshots.py [--seed 4] [--out docs/screenshots]

Starts the server in a thread (a temporary data folder), plays a seeded game
against ``ismcts:time=0.2`` through the API with a fixed policy (always the
first action that is not pass or decline), and photographs it in headless
Chromium (/usr/bin/chromium, through Playwright):

- ``table.png``: the table in the middle of the game (cards upright and
  turned, fragments as cubes, both hands, the prompt and the log);
- ``review.png``: after the game, the review: the graph of your chance to win
  as the bot saw it, the rating of each of your decisions and the largest
  mistakes with the better move;
- ``board.png``: the analysis board with examples/german-escort.json entered
  and its advice (1000 iterations): the recommended action, every action
  with its frequency, value, standard error and loss, and the responses.

``--only board`` makes board.png alone (no game is played).
"""
from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

import httpx
from playwright.sync_api import sync_playwright

from apps.server.app import create_app
from apps.server.guard import Access
from apps.server.games import Limits
from apps.server.harness import launch_chromium, serve_in_thread

ROOT = Path(__file__).resolve().parent.parent
IDLE = ("() => window.wildhorn && window.wildhorn.view && !window.wildhorn.busy"
        " && !window.wildhorn.botLoop && window.wildhorn.view.status !== 'bot'")


def play(client: httpx.Client, view: dict, decisions: int | None) -> dict:
    """Plays ``decisions`` of the human's decisions (None: to the end)."""
    done = 0
    while view["status"] != "over" and (decisions is None or done < decisions):
        if view["status"] == "bot":
            view = client.post(f"/api/games/{view['id']}/bot").json()
            continue
        acts = view["actions"]
        busy = [a for a in acts if a["kind"] not in ("pass", "decline")]
        action = (busy or acts)[0]["id"] if done % 4 != 3 else acts[0]["id"]
        view = client.post(f"/api/games/{view['id']}/action",
                           json={"action": action, "version": view["version"]}).json()
        done += 1
    while view["status"] == "bot":
        view = client.post(f"/api/games/{view['id']}/bot").json()
    return view


def board_shot(browser, url: str, out: Path) -> None:
    """board.png: german-escort imported into the analysis board, analysed."""
    page = browser.new_page(viewport={"width": 1500, "height": 1000})
    page.goto(url + "#board")
    page.wait_for_function("() => window.wildhornBoard && window.wildhornBoard.ready")
    page.set_input_files("#b-import", str(ROOT / "examples" / "german-escort.json"))
    page.wait_for_function("() => window.wildhornBoard.last && window.wildhornBoard.last.ok")
    page.fill("#b-budget", "1000")
    page.click("#b-analyse")
    page.wait_for_selector("#b-advice [data-testid=board-recommended]", timeout=600_000)
    page.screenshot(path=str(out / "board.png"), full_page=True)
    page.close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seed", type=int, default=4, help="the game's seed (default 4)")
    parser.add_argument("--midgame", type=int, default=8,
                        help="human decisions before table.png (default 8)")
    parser.add_argument("--out", default="docs/screenshots", help="output folder")
    parser.add_argument("--only", choices=["board"], help="make only this screenshot")
    args = parser.parse_args(argv)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as data:
        access = Access()  # the server's token, as `serve` makes one
        app = create_app(data, Limits(review_iterations=300), access=access)
        with serve_in_thread(app) as base, \
                httpx.Client(base_url=base, timeout=600,
                             headers={"Authorization": f"Bearer {access.token}"}) as client, \
                sync_playwright() as p:
            url = f"{base}?token={access.token}"  # the address `serve` prints
            if args.only == "board":
                browser = launch_chromium(p)
                board_shot(browser, url, out)
                browser.close()
                print(f"wrote {out / 'board.png'}")
                return 0
            view = client.post("/api/games", json={"side": "polish", "bot": "ismcts:time=0.2",
                                                   "seed": args.seed}).json()
            view = play(client, view, args.midgame)
            browser = launch_chromium(p)
            page = browser.new_page(viewport={"width": 1400, "height": 1050})
            page.goto(url)
            page.evaluate("id => localStorage.setItem('wildhorn-game', id)", view["id"])
            page.reload()
            page.wait_for_function(IDLE, timeout=60_000)
            page.screenshot(path=str(out / "table.png"), full_page=True)
            view = play(client, view, None)
            page.reload()
            page.wait_for_function(IDLE, timeout=60_000)
            page.click("#btn-end-close")
            page.click("#btn-review")
            page.wait_for_function("() => /Rated (\\d+) of \\1 /.test("
                                   "document.querySelector('#review-progress').textContent)",
                                   timeout=600_000)
            page.screenshot(path=str(out / "review.png"))
            board_shot(browser, url, out)
            browser.close()
    print(f"wrote {out / 'table.png'}, {out / 'review.png'} and {out / 'board.png'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

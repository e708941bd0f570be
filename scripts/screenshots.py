"""Regenerates the screenshots of the web table in docs/screenshots/.

    python scripts/screenshots.py [--seed 4] [--out docs/screenshots]

Starts the server in a thread (a temporary data folder), plays a seeded game
against ``ismcts:time=0.2`` through the API with a fixed policy (always the
first action that is not pass or decline), and photographs it in headless
Chromium (/usr/bin/chromium, through Playwright):

- ``table.png``: the table in the middle of the game at 1400x900 (cards
  upright and turned, fragments as cubes, the bot's last move marked on the
  table, your hand with each card's text and your choices in the dock, the
  piles of cards gone, the log);
- ``table-800x600.png`` and ``table-390x844.png``: the same position in a
  small window and at a phone's width (the dock with your hand and your
  choices sticks to the bottom);
- ``hint-1400x900.png``, ``hint-800x600.png`` and ``hint-390x844.png``: the
  same position after Hint, at the three sizes (the hint in the choices, in
  view, saying whose chance it gives);
- ``window.png`` and ``window-390x844.png``: a reaction window with dice (the
  modifier window of an attack, search or spy: the dice drawn with their
  bullets and modifiers, each labelled with the side that rolled it), at
  1400x900 and at a phone's width;
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

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # this checkout's page, whatever is installed

from apps.server.app import create_app  # noqa: E402
from apps.server.guard import Access  # noqa: E402
from apps.server.games import Limits  # noqa: E402
from apps.server.harness import launch_chromium, serve_in_thread  # noqa: E402

IDLE = ("() => window.wildhorn && window.wildhorn.view && !window.wildhorn.busy"
        " && !window.wildhorn.botLoop && window.wildhorn.view.status !== 'bot'")


def dice_window(view: dict) -> bool:
    """The human decides in a modifier window with dice rolled."""
    pend = view.get("pending") or {}
    return view["status"] == "human" and view["phase"] == "modifiers" and bool(pend.get("dice"))


def play(client: httpx.Client, view: dict, decisions: int | None, until=None) -> dict:
    """Plays ``decisions`` of the human's decisions (None: to the end, or
    until ``until(view)`` holds at a decision of the human)."""
    done = 0
    while view["status"] != "over" and (decisions is None or done < decisions):
        if until is not None and view["status"] == "human" and until(view):
            return view
        if view["status"] == "bot":
            view = client.post(f"/api/games/{view['id']}/bot").json()
            continue
        acts = view["actions"]
        busy = [a for a in acts if a["kind"] not in ("pass", "decline")]
        attacks = [a for a in busy if a["kind"] in ("attack", "select_enemy", "search", "steal")]
        action = (attacks or busy or acts)[0]["id"] if done % 4 != 3 else acts[0]["id"]
        view = client.post(f"/api/games/{view['id']}/action",
                           json={"action": action, "version": view["version"]}).json()
        done += 1
    while view["status"] == "bot":
        view = client.post(f"/api/games/{view['id']}/bot").json()
    return view


def shot(browser, url: str, game: str, width: int, height: int, path: Path,
         hint: bool = False) -> None:
    """The table of ``game`` in a window of ``width`` x ``height`` (what the
    window shows, once the marks' animation is over); ``hint``: after a
    click on Hint, once its answer is drawn."""
    page = browser.new_page(viewport={"width": width, "height": height})
    page.goto(url)
    page.evaluate("id => localStorage.setItem('wildhorn-game', id)", game)
    page.reload()
    page.wait_for_function(IDLE, timeout=60_000)
    page.wait_for_timeout(2000)
    if hint:
        page.click("#btn-hint")
        page.wait_for_selector("#hint h3", timeout=600_000)
    page.screenshot(path=str(path))
    page.close()


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
                        help="human decisions before table.png, which shows the first "
                             "one after that where a move of the bot is marked (default 8)")
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
            # then the first decision after a bot's move that the table marks
            view = play(client, view, None, until=lambda v: any(
                c["side"] == v["bot_side"] for c in v["last_move"]["cards"]))
            browser = launch_chromium(p)
            for (width, height), name in (((1400, 900), "table.png"), ((800, 600), "table-800x600.png"),
                                          ((390, 844), "table-390x844.png")):
                shot(browser, url, view["id"], width, height, out / name)
                shot(browser, url, view["id"], width, height, out / f"hint-{width}x{height}.png",
                     hint=True)
            # a reaction window with dice: this game's first, or another seed's
            view = play(client, view, None, until=dice_window)
            windowed, seed = view, args.seed
            while not dice_window(windowed) and seed < args.seed + 20:
                seed += 1
                windowed = play(client, client.post("/api/games", json={
                    "side": "polish", "bot": "ismcts:time=0.2", "seed": seed}).json(), None,
                    until=dice_window)
            if not dice_window(windowed):
                raise SystemExit("no modifier window with dice in 20 seeded games")
            shot(browser, url, windowed["id"], 1400, 900, out / "window.png")
            shot(browser, url, windowed["id"], 390, 844, out / "window-390x844.png")
            view = play(client, view, None)  # this game to its end, for the review
            page = browser.new_page(viewport={"width": 1400, "height": 1050})
            page.goto(url)
            page.evaluate("id => localStorage.setItem('wildhorn-game', id)", view["id"])
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
    print(f"wrote table.png, table-800x600.png, table-390x844.png, hint-1400x900.png, "
          f"hint-800x600.png, hint-390x844.png, window.png, window-390x844.png, review.png and "
          f"board.png in {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

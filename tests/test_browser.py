"""The web table in a real browser: headless Chromium (Debian's
/usr/bin/chromium, which .ci/run installs) driven by Playwright, against
``wildhorn-solve serve`` running in a thread on a free port."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest

from apps.record import DEFAULT_BOT, read_save
from apps.saved import export_view, load_position
from apps.server.app import create_app
from apps.server.games import Limits
from apps.server.harness import CHROMIUM, serve_in_thread
from browser_helpers import browser, open_page, server_fixture  # noqa: F401 (fixtures)

WINDOWS = ("escort", "ambush", "witnesses", "nurses", "motorcycle", "modifiers")

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(not os.path.exists(CHROMIUM),
                       reason=f"{CHROMIUM} is missing (apt-get install chromium)"),
]
pytest.importorskip("playwright.sync_api")


server = server_fixture("serve-data")


@pytest.fixture
def page(browser, server):
    with open_page(browser, 1400, 1000) as pg:
        pg.payloads = []
        pg.browser_dialogs = []  # the page asks in its own <dialog>s, never confirm()
        pg.on("dialog", lambda d: (pg.browser_dialogs.append(d.message), d.dismiss()))

        def record(response):
            if "/api/" in response.url and "/save" not in response.url:
                try:
                    pg.payloads.append(response.text())
                except Exception:  # a response whose body is gone (the page moved on)
                    pass

        pg.on("response", record)
        yield pg


def settled(page) -> dict:
    """Waits until the page is idle (no request, no bot move under way); the view."""
    page.wait_for_function("() => window.wildhorn && window.wildhorn.view && !window.wildhorn.busy"
                           " && !window.wildhorn.botLoop && window.wildhorn.view.status !== 'bot'",
                           timeout=60_000)
    return page.evaluate("() => window.wildhorn.view")


def start(page, server, seed: int, side: str = "polish", bot: str = "random") -> dict:
    page.goto(server["url"])
    page.wait_for_selector("#new-dialog[open]")
    page.select_option("select[name=side]", side)
    page.select_option("#bot-select", bot)
    page.fill("input[name=seed]", str(seed))
    page.click("#btn-start")
    return settled(page)


def click_action(page, view, action: dict) -> dict:
    """Acts as a person would: through the card's menu, a zone, or the list."""
    number = action.get("card") or action.get("target")
    if number:
        page.click(f'#table .card[data-number="{number}"], #dock .card[data-number="{number}"] '
                   f'>> nth=0')
        page.click(f'#menu button[data-action="{action["id"]}"]')
    elif action.get("zone"):
        page.click(f'.zone[data-zone="{action["zone"]}"] .zone-head')
    else:
        page.click(f'#actions button[data-action="{action["id"]}"]')
    page.wait_for_function("v => window.wildhorn.view.version !== v", arg=view["version"],
                           timeout=60_000)
    return settled(page)


def choose(view: dict, k: int) -> dict:
    """A fixed policy that does things: not pass/decline when something else is offered."""
    acts = view["actions"]
    busy = [a for a in acts if a["kind"] not in ("pass", "decline")]
    return busy[k % len(busy)] if busy and k % 5 else acts[0]


def test_whole_game_against_random_to_the_end_screen(page, server):
    view = start(page, server, seed=3)
    game = server["app"].state.store.get(view["id"])
    windows = attacks = 0
    for k in range(600):
        if view["status"] == "over":
            break
        if view["phase"] in WINDOWS:  # a reaction window: the prompt says what is under way
            prompt = page.inner_text("#prompt")
            assert "Under way" in prompt, prompt
            windows += 1
        record = game.record
        hidden = {record.cards[g].number for g in record.core.cards_at("hand", record.bot_side)}
        view = click_action(page, view, choose(view, k))
        hidden &= {record.cards[g].number for g in record.core.cards_at("hand", record.bot_side)}
        for text in page.payloads:  # the bot's hand in no payload the page received
            for number in hidden:
                assert number not in text, f"{number} of the bot's hand sent to the page"
        page.payloads.clear()
    assert view["status"] == "over"
    page.wait_for_selector("#end-dialog[open]")
    assert re.search(r"(You win|The bot wins)", page.inner_text("#end-dialog"))
    log = page.inner_text("#log")
    attacks = len(re.findall(r"The attack (succeeds|fails)[^\n]*\d+ \(die \d", log))
    assert attacks >= 1, "the log shows an attack's outcome"
    assert windows >= 1, "a reaction window was answered"
    assert "End of turn" in log
    # the review: every decision rated, then the table as it was at one of them
    page.click("#btn-end-close")
    page.click("#btn-review")
    page.wait_for_function("() => /Rated (\\d+) of \\1 /.test("
                           "document.querySelector('#review-progress').textContent)",
                           timeout=300_000)
    # the error rate, as GNU Backgammon gives it: the mean loss per rated decision
    review = page.evaluate("() => fetch(`/api/games/${window.wildhorn.id}/review`)"
                           ".then(r => r.json())")
    rated = [d["loss"] for d in review["decisions"] if d.get("loss") is not None]
    assert review["error_rate"]["decisions"] == len(rated) > 0
    shown = re.search(r"Your error rate: ([\d.]+)% of win chance lost per decision",
                      page.inner_text("#review-progress"))
    assert shown and abs(float(shown.group(1)) - 100 * sum(rated) / len(rated)) <= 0.051
    page.click("#review-dialog details summary")
    page.click("#review-moves li[data-index='3']")
    page.wait_for_selector("#review-banner:not([hidden])")
    assert "Your decision 4 of" in page.inner_text("#review-banner")
    assert page.evaluate("() => window.wildhorn.view.status") == "review"
    page.click("#btn-review-back")
    page.wait_for_function("() => window.wildhorn.view.status === 'over'")


def test_hint_and_undo(page, server):
    view = start(page, server, seed=11)
    while len(view["actions"]) < 2:
        view = click_action(page, view, view["actions"][0])
    page.click("#btn-hint")
    page.wait_for_function("() => document.querySelector('#hint h3')", timeout=60_000)
    assert page.inner_text("#hint h3").startswith("Hint: ")
    # issue 30: the hint in a player's words (advice_view.js): no raw field, the
    # search's frequency labelled as a frequency, every win chance as "59% ± 1%"
    hint = page.inner_text("#hint")
    for raw in ("responses_note", "opponent_model", "null", "value 0.", "recommended_id"):
        assert raw not in hint, raw
    assert "chosen in" in hint and "of the search" in hint and "Win chance" in hint
    before = view
    view = click_action(page, view, choose(view, 1))
    assert view["can_undo"]
    page.click("#btn-undo")
    page.wait_for_function("v => window.wildhorn.view.version === v", arg=before["version"])
    assert settled(page)["log"] == before["log"]


def test_save_reload_load_same_position(page, server, tmp_path):
    view = start(page, server, seed=5)
    for k in range(6):
        view = click_action(page, view, choose(view, k))
    with page.expect_download() as info:
        page.click("#btn-save")
    path = tmp_path / "saved.json"
    info.value.save_as(path)
    assert json.loads(path.read_text())["format"] == "wildhorn-game/2"
    page.reload()  # the game comes back from the server
    again = settled(page)
    assert again["version"] == view["version"] and again["id"] == view["id"]
    page.set_input_files("#file-load", str(path))
    page.click("#confirm-yes")  # "this closes the game in progress": the page's own dialog
    page.wait_for_function("v => window.wildhorn.view.id !== v", arg=view["id"])
    loaded = settled(page)
    assert loaded["version"] == view["version"]
    assert {k: loaded[k] for k in ("zones", "hand", "log")} == \
        {k: view[k] for k in ("zones", "hand", "log")}


def test_the_new_game_dialog_lists_the_other_games_to_resume_or_close(page, server):
    view = start(page, server, seed=21)
    store = server["app"].state.store
    others = [store.new_game(side="german", bot="random", seed=s) for s in (22, 23)]
    page.click("#btn-new")
    page.wait_for_selector(f'#games-list li[data-game="{others[1].id}"]')
    # the bot named for people, not by its spec (issue 46)
    assert "You play German against the bot (Random, any legal move at random), turn 1" \
        in page.inner_text("#games-list")
    assert page.locator(f'#games-list li[data-game="{view["id"]}"]').count() == 0  # this one
    page.click(f'#games-list li[data-game="{others[0].id}"] button.close')
    page.wait_for_selector(f'#games-list li[data-game="{others[0].id}"]', state="detached")
    assert others[0].id not in {g["id"] for g in store.listing()}
    page.click(f'#games-list li[data-game="{others[1].id}"] button.resume')
    page.wait_for_function("id => window.wildhorn && window.wildhorn.view && window.wildhorn.view.id === id",
                           arg=others[1].id)
    assert settled(page)["you"] == "german"


def test_a_bad_upload_shows_its_error(page, server):
    view = start(page, server, seed=9)
    page.set_input_files("#file-load", files=[{"name": "broken.json", "mimeType": "application/json",
                                               "buffer": b'{"format": "wildhorn-game/1"}'}])
    page.click("#confirm-yes")
    page.wait_for_selector("#error:not([hidden])")
    assert "broken.json: not a usable saved game" in page.inner_text("#error")
    assert settled(page)["id"] == view["id"]  # still the same game


def test_the_default_bot_saves_loads_and_survives_a_restart(browser, tmp_path):
    """Against the default bot (ISMCTS; the server caps its time per move to
    0.05 s here): play, save, reload the page, load the download into the
    same position, restart the server on the same data folder and find the
    game; the download loads in play, advise and export too."""
    data = tmp_path / "data"
    limits = Limits(max_time=0.05, review_iterations=30)
    app = create_app(data, limits)
    with open_page(browser, 1400, 1000) as page:
        with serve_in_thread(app) as url:
            port = int(url.rsplit(":", 1)[1].strip("/"))
            page.goto(url)
            page.wait_for_selector("#new-dialog[open]")
            assert page.input_value("#bot-select") == DEFAULT_BOT
            page.fill("input[name=seed]", "5")
            page.click("#btn-start")
            view = settled(page)
            for k in range(8):
                view = click_action(page, view, choose(view, k))
            rated = [e for e in view["log"] if e.get("value") is not None]
            assert rated and all(e["who"] == view["bot_side"] for e in rated)  # the bot searched
            with page.expect_download() as info:
                page.click("#btn-save")
            path = tmp_path / "saved.json"
            info.value.save_as(path)
            saved = json.loads(path.read_text())
            assert saved["format"] == "wildhorn-game/2" and saved["bot"] == DEFAULT_BOT
            page.reload()  # the game comes back from the server
            assert settled(page)["version"] == view["version"]
            page.set_input_files("#file-load", str(path))
            page.click("#confirm-yes")
            page.wait_for_function("v => window.wildhorn.view.id !== v", arg=view["id"])
            loaded = settled(page)
            assert loaded["version"] == view["version"]
            assert {k: loaded[k] for k in ("zones", "hand", "log")} == \
                {k: view[k] for k in ("zones", "hand", "log")}
        # a new server on the same folder and port: the page finds its game again
        restarted = create_app(data, limits)
        with serve_in_thread(restarted, port=port):
            page.reload()
            again = settled(page)
            assert again["id"] == loaded["id"] and again["version"] == view["version"]
            assert again["log"] == view["log"]
    # the download is a save every command reads
    assert read_save(str(path)).core.to_bytes() == \
        restarted.state.store.get(loaded["id"]).record.core.to_bytes()
    state, side = export_view(str(path))
    assert json.loads(state)["format"] == "wildhorn-state/1" and side == view["you"]
    assert load_position(str(path)).core.current_player() == ("polish", "german").index(side)
    played = subprocess.run([sys.executable, "-m", "apps.cli", "play", "--load", str(path)],
                            input="quit\n", capture_output=True, text=True, timeout=120)
    assert played.returncode == 0 and "Goodbye" in played.stdout, played.stderr


def test_page_load(page, server):
    """The table comes back on a reload with a game in progress; the time
    of each load goes to the file ``WILDHORN_BENCH_OUT`` names, when it is set
    (``python benchmarks/browser_figures.py``; never asserted)."""
    view = start(page, server, seed=2)
    times = []
    for _ in range(5):
        t0 = time.perf_counter()
        page.goto(server["url"])
        settled(page)
        page.wait_for_selector(".zone .zone-title")
        times.append(time.perf_counter() - t0)
    assert view["id"] == settled(page)["id"]
    out = os.environ.get("WILDHORN_BENCH_OUT")
    if out:
        nav = page.evaluate("() => performance.getEntriesByType('navigation')[0].toJSON()")
        path = Path(out)
        data = json.loads(path.read_text()) if path.exists() else {}
        data["page_load"] = {
            "what": "headless Chromium: page.goto of the table with a game in progress until "
                    "the table is drawn (the view fetched and rendered), 5 loads",
            "median_s": round(sorted(times)[len(times) // 2], 4), "max_s": round(max(times), 4),
            "load_event_ms": round(nav["loadEventEnd"], 1), "target_s": 1.0,
        }
        path.write_text(json.dumps(data, indent=2) + "\n")


SIZES = [(1400, 900), (800, 600), (390, 844)]


def in_window(page, selector: str, width: int, height: int) -> None:
    """The element is wholly inside the window (its bounding box)."""
    box = page.locator(selector).bounding_box()
    assert box is not None, f"{selector} is not shown"
    assert box["x"] >= -0.5 and box["y"] >= -0.5 and box["x"] + box["width"] <= width + 0.5 \
        and box["y"] + box["height"] <= height + 0.5, (selector, box, width, height)


def no_menu(page) -> None:
    """No card menu is visible, and none is left behind with buttons."""
    assert not page.is_visible("#menu")
    assert page.locator("#menu button").count() == 0


def check_decision(page, view: dict, width: int, height: int) -> int:
    """At a decision of the human: the choices and the hand in the window, no
    menu, the tab title says so, and each card of what happened since the
    last decision that is on the table is marked; how many were marked."""
    assert view["status"] == "human"
    in_window(page, "#actions", width, height)
    in_window(page, "[data-testid=hand]", width, height)
    in_window(page, "#prompt", width, height)
    no_menu(page)
    assert page.title().startswith("\u25B6 Your decision")
    marked = 0
    for c in view["last_move"]["cards"]:
        cards = page.locator(f'#table .card[data-number="{c["number"]}"], '
                             f'#dock .card[data-number="{c["number"]}"]')
        if c["role"] == "destroyed":
            pile = page.locator(f'[data-testid=pile-{c["side"]}]')
            assert "lm-destroyed" in pile.get_attribute("class")
            marked += 1
        for i in range(cards.count()):
            assert "last-move" in cards.nth(i).get_attribute("class"), c
            assert cards.nth(i).get_attribute("data-role") == c["role"]
            marked += 1
    text = page.inner_text("#bot-move") if view["last_move"]["moves"] else ""
    assert "draws a card" not in text.split("Chance and the rules")[0]
    return marked


def act_by_hand(page, view: dict, action: dict) -> dict:
    """As a person: a card's menu for a card action, the list otherwise;
    after it, no menu is left."""
    number = action.get("card") or action.get("target")
    if number:
        page.click(f'#table .card[data-number="{number}"], #dock .card[data-number="{number}"] >> nth=0')
        page.click(f'#menu button[data-action="{action["id"]}"]')
    else:
        page.click(f'#actions button[data-action="{action["id"]}"]')
    no_menu(page)
    page.wait_for_function("v => window.wildhorn.view.version !== v", arg=view["version"],
                           timeout=60_000)
    view = settled(page)
    no_menu(page)
    return view


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_a_whole_game_in_view_at_each_size(browser, server, size):
    """A whole game against random at 1400x900, 800x600 and 390x844: at each
    decision the choices and the hand are in the window, no menu is left
    after a click, the cards of the bot's last move are marked on the table;
    a hint is gone after the next decision; a card menu closes on Escape and
    on a click elsewhere, and a click in a menu of an older position sends
    nothing; at the end Undo and Resign are off and the graph has axes."""
    width, height = size
    with open_page(browser, width, height) as page:
        page.browser_dialogs = []
        page.on("dialog", lambda d: (page.browser_dialogs.append(d.message), d.dismiss()))
        actions_sent = []
        page.on("request", lambda r: actions_sent.append(r.url) if r.url.endswith("/action") else None)
        view = start(page, server, seed=31 + width)
        marked = hinted = 0
        for k in range(600):
            if view["status"] == "over":
                break
            marked += check_decision(page, view, width, height)
            if k == 4:  # the menu closes on Escape and on a click elsewhere; an old menu is inert
                card = next((a for a in view["actions"] if a.get("card")), None)
                if card is not None:
                    sel = f'.card[data-number="{card["card"]}"] >> nth=0'
                    page.click(sel)
                    assert page.is_visible("#menu")
                    page.keyboard.press("Escape")
                    no_menu(page)
                    assert settled(page)["version"] == view["version"]  # Escape declined nothing
                    page.click(sel)
                    page.click("#status")
                    no_menu(page)
                    page.click(sel)
                    page.evaluate("() => { window.oldButton = document.querySelector('#menu button'); }")
                    other = next(a for a in view["actions"] if a["id"] != card["id"]) \
                        if len(view["actions"]) > 1 else None
                    if other is not None:
                        sent = len(actions_sent)
                        view = act_by_hand(page, view, {"id": other["id"]})
                        assert len(actions_sent) == sent + 1
                        page.evaluate("() => window.oldButton.click()")  # a stale click
                        page.wait_for_timeout(300)
                        assert len(actions_sent) == sent + 1, "a stale menu sent a move"
                        continue
            if view["status"] == "human" and hinted < 1 and len(view["actions"]) > 1 and k >= 2:
                page.click("#btn-hint")
                page.wait_for_function("() => document.querySelector('#hint h3')", timeout=120_000)
                assert page.is_visible("#hint")
                view = act_by_hand(page, view, choose(view, k))
                assert not page.is_visible("#hint") and page.inner_text("#hint") == ""
                hinted += 1
                continue
            view = act_by_hand(page, view, choose(view, k))
        assert view["status"] == "over"
        assert marked > 0, "no card of the bot's moves was marked on the table"
        assert hinted == 1
        page.wait_for_selector("#end-dialog[open]")
        assert page.locator("#end-graph svg .axis-title").count() == 2
        page.click("#btn-end-close")
        assert page.is_disabled("#btn-undo") and page.is_disabled("#btn-resign")
        assert not page.browser_dialogs


def test_a_few_decisions_against_the_default_bot_at_each_size(browser, tmp_path):
    """The default bot (ISMCTS, its time capped to 0.05 s here) at the three
    sizes: the same checks at each decision; the opponent named for people,
    its spec in a tooltip; Resign asks in the page's own dialog."""
    app = create_app(tmp_path / "data", Limits(max_time=0.05, review_iterations=30))
    with serve_in_thread(app) as url:
        for width, height in SIZES:
            with open_page(browser, width, height) as page:
                page.browser_dialogs = []
                page.on("dialog", lambda d: (page.browser_dialogs.append(d.message), d.dismiss()))
                page.goto(url)
                page.wait_for_selector("#new-dialog[open]")
                page.fill("input[name=seed]", "8")
                page.click("#btn-start")
                view = settled(page)
                assert view["bot"] == DEFAULT_BOT
                who = page.locator("[data-testid=opponent-name]")
                assert who.inner_text().startswith("Bot: the players' bot, ") and \
                    who.get_attribute("title").endswith(DEFAULT_BOT)
                marked = 0
                for k in range(6):
                    marked += check_decision(page, view, width, height)
                    view = act_by_hand(page, view, choose(view, k))
                    if view["status"] == "over":
                        break
                assert marked > 0
                page.click("#btn-resign")
                page.wait_for_selector("#confirm-dialog[open]")
                page.click("#confirm-no")
                assert settled(page)["status"] == "human"
                page.click("#btn-resign")
                page.click("#confirm-yes")
                page.wait_for_function("() => window.wildhorn.view.status === 'over'")
                assert page.is_disabled("#btn-undo") and page.is_disabled("#btn-resign")
                assert not page.browser_dialogs


def test_reference_piles_and_review_steps(page, server):
    """The reference (every card, every ruling) one click away; the piles
    open; the review steps with buttons and arrow keys and marks the
    better move on the table."""
    view = start(page, server, seed=41)
    page.click("#btn-reference")
    page.wait_for_selector("#ref-dialog[open]")
    assert page.locator("#ref-cards .ref-card").count() == 46
    page.click("#ref-tab-rules")
    assert page.locator("#ref-rules .ref-rule").count() >= 36
    page.fill("#ref-filter", "R27")
    assert page.is_visible("#rule-R27") and not page.is_visible("#rule-R5")
    page.click("#btn-ref-close")
    for k in range(400):
        if view["status"] == "over":
            break
        view = click_action(page, view, choose(view, k))
    page.wait_for_selector("#end-dialog[open]")
    page.click("#btn-end-close")
    gone = view["piles"][view["bot_side"]]
    page.click(f"[data-testid=pile-{view['bot_side']}]")
    assert page.locator("#pile-cards .card").count() == len(gone)
    page.click("#btn-pile-close")
    # issue 46: the review can be closed while it rates (its progress requests held here,
    # so that it is still at work), and shows its progress when opened again
    held = []
    page.route("**/api/games/*/review", lambda route: held.append(route)
               if route.request.method == "GET" else route.continue_())
    page.click("#btn-review")
    page.wait_for_selector("#review-dialog[open]")
    page.wait_for_function("() => /Rated \\d+ of \\d+/.test(document.querySelector('#review-progress').textContent)")
    assert page.is_visible("#review-bar") and page.is_visible("#review-closable")
    page.click("#btn-review-close")
    assert not page.is_visible("#review-dialog")
    page.unroute("**/api/games/*/review")
    for route in held:
        route.continue_()
    page.click("#btn-review")
    page.wait_for_function("() => /Rated (\\d+) of \\1 /.test("
                           "document.querySelector('#review-progress').textContent)",
                           timeout=300_000)
    assert page.locator("#review-graph svg .axis-title").count() == 2
    # its progress as a bar too (issue 46); Close stays in the window however long the list
    bar = page.evaluate("() => [document.querySelector('#review-bar').value, "
                        "document.querySelector('#review-bar').max]")
    assert bar[0] == bar[1] >= 1
    page.click("#review-dialog details summary")
    in_window(page, "#btn-review-close", 1400, 1000)
    page.click("#review-dialog details summary")
    review = page.evaluate("() => fetch(`/api/games/${window.wildhorn.id}/review`).then(r => r.json())")
    worse = [d["index"] for d in review["decisions"] if d.get("loss")]
    page.click("#review-dialog details summary")
    first = worse[0] if worse else 1
    page.click(f"#review-moves li[data-index='{first}']")
    page.wait_for_selector("#review-banner:not([hidden])")
    assert page.evaluate("() => window.wildhorn.view.review_step.index") == first
    assert page.is_disabled("#btn-undo") and page.is_disabled("#btn-resign")
    if worse:
        best = page.evaluate("() => window.wildhorn.view.review_step.best_action")
        if best and (best.get("card") or best.get("target") or best.get("zone")):
            assert page.locator(".rv-best").count() >= 1
        assert "better:" in page.inner_text("#review-banner")
    page.keyboard.press("ArrowRight")
    page.wait_for_function("k => window.wildhorn.view.review_step.index === k", arg=first + 1)
    page.click("#btn-review-prev")
    page.wait_for_function("k => window.wildhorn.view.review_step.index === k", arg=first)
    page.keyboard.press("ArrowLeft")
    page.wait_for_function("k => window.wildhorn.view.review_step.index === k", arg=first - 1)
    assert not page.is_visible("#hint")
    page.click("#btn-review-back")
    page.wait_for_function("() => window.wildhorn.view.status === 'over'")
    assert not page.browser_dialogs


# ---- issue 46: the table at every size, against the default bot ------------------------

UNCOVERED = """sel => [...document.querySelectorAll(sel)].filter(e => e.getClientRects().length).map(e => {
  e.scrollIntoView({block: 'nearest', inline: 'nearest'});
  const r = e.getBoundingClientRect();
  const x = r.left + r.width / 2, y = r.top + r.height / 2;
  const hit = document.elementFromPoint(x, y);
  const inside = x >= 0 && y >= 0 && x <= innerWidth && y <= innerHeight;
  return {text: (e.textContent || '').trim().slice(0, 50), ok: inside && !!hit && (hit === e || e.contains(hit)),
          on: hit ? (hit.id || hit.className || hit.tagName) : null};
})"""


FIRST_MARK_SEEN = """() => {
  const c = document.querySelector('#table .card.last-move');
  if (!c) return null;
  const r = c.getBoundingClientRect();
  const x = r.left + r.width / 2, y = r.top + r.height / 2;
  const hit = document.elementFromPoint(x, y);
  return y >= 0 && y <= innerHeight && !!hit && (hit === c || c.contains(hit));
}"""


def uncovered(page, selector: str) -> list[dict]:
    """Each element of ``selector``, scrolled into view as a person would: is
    the element at its centre the element itself (or inside it)?"""
    return page.evaluate(UNCOVERED, selector)


def check_dice_labels(page) -> int:
    """Each die drawn (the action under way, the rolls settled since your
    last decision) is labelled with the side whose card rolled it; how many."""
    rolls = page.evaluate("""() => [...document.querySelectorAll('#choices [data-testid=roll]')].map(r => ({
        side: r.dataset.side, card: r.dataset.card, who: r.querySelector('.roll-who').textContent}))""")
    for r in rolls:
        if not r["card"]:
            continue  # a die not rolled yet for a defender not chosen yet
        side = {"PL": "polish", "DE": "german"}[r["card"][:2]]
        assert r["side"] == side and r["who"].startswith(side.title()), r
    return len(rolls)


def aggressive(view: dict, k: int) -> dict:
    """A policy that rolls dice: an attack, search or spy (and its target)
    when offered, else as ``choose``."""
    rolls = [a for a in view["actions"] if a["kind"] in ("attack", "search", "steal", "select_enemy")]
    return rolls[0] if rolls else choose(view, k)


@pytest.fixture(scope="module")
def bot_server(tmp_path_factory):
    """The server with the default bot, its time capped to 0.05 s a move."""
    app = create_app(tmp_path_factory.mktemp("bot-data"), Limits(max_time=0.05, review_iterations=30))
    with serve_in_thread(app) as url:
        yield {"url": url, "app": app}


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_every_choice_the_hint_the_toolbar_and_the_dice_at_each_size(browser, bot_server, size):
    """Issue 46, as a player meets it at 1400x900, 800x600 and 390x844
    against the default bot: at every decision no choice button is covered
    once scrolled into view (the element at its centre is the button), nor
    is a die of the action under way; every die is labelled with the side
    that rolled it; every toolbar control can be reached; after Hint its
    answer is in the window and says whose chance it gives; the hand shows
    every card without a sideways strip; Undo says what it took back."""
    width, height = size
    with open_page(browser, width, height) as page:
        page.goto(bot_server["url"])
        page.wait_for_selector("#new-dialog[open]")
        assert "loading" not in page.inner_text("#status")
        assert page.input_value("#bot-select") == DEFAULT_BOT
        page.fill("input[name=seed]", "8")
        page.click("#btn-start")
        view = settled(page)
        for control in uncovered(page, "header nav > *"):
            assert control["ok"], (control, size)
        hinted = dice = marks = 0
        for k in range(30):
            if view["status"] == "over" or (k >= 12 and dice):
                break
            # the first card the bot's moves marked on the table is in sight, not under the dock,
            # before anything is scrolled (the page brought it into view)
            seen = page.evaluate(FIRST_MARK_SEEN)
            assert seen is not False, (f"a marked card is under the dock at {size}",
                                       view["last_move"]["cards"])
            marks += seen is True
            check_decision(page, view, width, height)
            for button in uncovered(page, "#actions button"):
                assert button["ok"], (button, size)
            for die in uncovered(page, "#prompt .die"):
                assert die["ok"], (die, size)
            dice += check_dice_labels(page)
            words = page.inner_text("#choices")
            assert not re.search(r"\b1 cards\b|\+ ?\d+ cards\b", words), words
            assert "your chance after it" not in words
            if "bot rates its chance" in page.inner_text("#bot-move"):
                assert "is the bot's own (" in page.inner_text("[data-testid=bot-rating-note]")
            # (once the marks' animations, a card arriving from above, are over)
            page.wait_for_function("() => !document.getAnimations().some(a => a.playState === 'running'"
                                   " && a.effect && a.effect.target && a.effect.target.closest('#table'))")
            for heading in uncovered(page, ".zone-title"):  # no heading stays under the hand
                assert heading["ok"], (heading, size)
            hand = page.evaluate("() => { const h = document.querySelector('[data-testid=hand]');"
                                 " return [h.scrollWidth, h.clientWidth]; }")
            assert hand[0] <= hand[1] + 1, f"the hand scrolls sideways: {hand}"
            assert page.inner_text("[data-testid=hand-title]").endswith(
                f"{len(view['hand'])} card{'s' if len(view['hand']) != 1 else ''})")
            if not hinted and len(view["actions"]) > 1:
                page.evaluate("() => window.scrollTo(0, 0)")
                page.click("#btn-hint")
                page.wait_for_function("() => document.querySelector('#hint h3')", timeout=120_000)
                answer = uncovered(page, "#hint h3")
                assert answer and answer[0]["ok"], (answer, size)
                in_window(page, "#hint h3", width, height)
                assert f"yours ({view['you'].title()})" in page.inner_text("[data-testid=hint-note]")
                hinted = 1
            view = act_by_hand(page, view, aggressive(view, k))
        assert hinted and dice > 0 and marks > 0
        if view["can_undo"]:
            page.click("#btn-undo")
            page.wait_for_selector("#notice:not([hidden])")
            assert page.inner_text("#notice").startswith('Undone: your decision "You ')


@pytest.mark.parametrize("size", [(390, 844), (1400, 900)], ids=lambda s: f"{s[0]}x{s[1]}")
def test_each_decision_of_the_bot_shows_as_it_is_made(browser, bot_server, size):
    """Issue 46: a bot making several decisions in a row showed nothing for
    10-30 s.  Each of its requests is held until the page has shown it: the
    thinking indicator, in the window, names which decision of the bot it
    is, and from the second on the decisions made so far are on the table
    and in the bot's box."""
    width, height = size
    held = []
    with open_page(browser, width, height) as page:
        page.goto(bot_server["url"])
        page.wait_for_selector("#new-dialog[open]")
        page.fill("input[name=seed]", "12")
        page.click("#btn-start")
        view = settled(page)
        page.route("**/api/games/*/bot", lambda route: held.append(route))
        most = 0
        for k in range(40):
            if view["status"] == "over" or most >= 2:
                break
            act = choose(view, k)
            if act.get("card") or act.get("target"):
                page.click(f'#table .card[data-number="{act.get("card") or act.get("target")}"], '
                           f'#dock .card[data-number="{act.get("card") or act.get("target")}"] >> nth=0')
                page.click(f'#menu button[data-action="{act["id"]}"]')
            else:
                page.click(f'#actions button[data-action="{act["id"]}"]')
            n = 0
            while True:
                page.wait_for_function(
                    "() => !document.querySelector('#thinking').hidden || (!window.wildhorn.busy"
                    " && !window.wildhorn.botLoop && window.wildhorn.view.status !== 'bot')",
                    timeout=60_000)
                if page.evaluate("() => document.querySelector('#thinking').hidden"):
                    break  # the bot's turn is over (or it made no decision)
                for _ in range(400):  # the request the indicator waits for reaches the route
                    if held:
                        break
                    page.wait_for_timeout(25)
                n += 1
                in_window(page, "#thinking", width, height)
                words = page.inner_text("#thinking")
                assert "(the bot) is thinking about its decision" in words, words
                if n > 1:
                    assert f"its decision {n} since yours" in words, words
                    shown = page.evaluate("() => window.wildhorn.view.last_move")
                    if shown and shown.get("moves"):   # a decision in a window is silent (R29)
                        assert "(the bot) so far" in page.inner_text("#bot-move")
                most = max(most, n)
                held.pop(0).continue_()
                page.wait_for_function("() => document.querySelector('#thinking').hidden",
                                       timeout=60_000)
            view = settled(page)
        page.unroute("**/api/games/*/bot")
        assert most >= 2, "no two decisions of the bot in a row in 40 of yours"


def test_the_page_says_when_the_bot_thinks_on_your_time(page, server):
    """The players' bot ponders while you decide (issue 47): the page says
    so at your decision, and not while the bot itself decides."""
    view = start(page, server, seed=5, side="german", bot="default")
    assert view["status"] == "human" and view["pondering"] is True
    page.wait_for_selector("#pondering", state="visible")
    assert "thinking on your time" in page.text_content("#pondering")
    page.evaluate("() => { window.__seen = []; new MutationObserver(() => window.__seen.push("
                  "[window.wildhorn.view.status, document.querySelector('#pondering').hidden]))"
                  ".observe(document.querySelector('#pondering'), {attributes: true}); }")
    view = click_action(page, view, view["actions"][0])
    assert view["status"] in ("human", "over")
    seen = page.evaluate("() => window.__seen")
    assert all(hidden for status, hidden in seen if status == "bot"), seen

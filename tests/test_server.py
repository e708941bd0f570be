"""The web server's API (apps.server): play through it, and its security
points (issue 19), with Starlette's TestClient (no network, no browser)."""

from __future__ import annotations

import asyncio
import json
import random
import re
import time

import pytest

from bots import BotSpecError

pytest.importorskip("starlette")
pytest.importorskip("httpx")

from starlette.testclient import TestClient  # noqa: E402

from apps import cli  # noqa: E402
from apps.record import read_save  # noqa: E402
from apps.server import app as server_app  # noqa: E402
from apps.server.games import GameStore, Limits, SearchPool  # noqa: E402
from apps.server.views import game_view  # noqa: E402
from bots.spec import BotSpec  # noqa: E402


def new_game(client, **body):
    body.setdefault("bot", "random")
    body.setdefault("seed", 7)
    res = client.post("/api/games", json=body)
    assert res.status_code == 200, res.text
    return res.json()


def bot_hand_numbers(client, gid):
    record = client.app.state.store.get(gid).record
    return [record.cards[g].number for g in record.core.cards_at("hand", record.bot_side)]


def play_locally(game, rng, moves=None):
    """Drives a game held in a store without the search pool: the bot plays
    a random legal action; ``moves`` steps at most (None: to the end)."""
    record = game.record
    k = 0
    while record.status() != "over" and (moves is None or k < moves):
        legal = record.core.legal_actions()
        if record.status() == "bot":
            record.bot_act(rng.choice(legal))
        else:
            record.human_act(rng.choice(legal))
        k += 1


def step(client, view):
    """One thing: the bot's move or the human's first legal action."""
    gid = view["id"]
    if view["status"] == "bot":
        res = client.post(f"/api/games/{gid}/bot")
    else:
        res = client.post(f"/api/games/{gid}/action",
                          json={"action": view["actions"][0]["id"], "version": view["version"]})
    assert res.status_code == 200, res.text
    return res


def to_human(client, view):
    while view["status"] == "bot":
        view = step(client, view).json()
    return view


def test_whole_game_through_the_api_hides_the_bot_hand(client):
    """A script plays a whole game; no payload names a card in the bot's hand."""
    view = new_game(client, side="german", seed=3)
    gid = view["id"]
    checked = 0
    for _ in range(2000):
        if view["status"] == "over":
            break
        hidden = bot_hand_numbers(client, gid)
        res = step(client, view)
        hidden_after = bot_hand_numbers(client, gid)
        for number in set(hidden) & set(hidden_after):  # in the bot's hand before and after
            assert number not in res.text, f"{number} from the bot's hand in a payload"
            checked += 1
        view = res.json()
    assert view["status"] == "over" and view["result"]["winner"] in ("polish", "german")
    assert checked > 50
    assert any("End of turn" in e["text"] for e in view["log"])


def test_bad_requests_are_4xx_and_leave_the_game_unchanged(client):
    view = to_human(client, new_game(client, side="polish"))
    gid = view["id"]
    before = client.get(f"/api/games/{gid}").json()
    legal = {a["id"] for a in view["actions"]}
    illegal = next(a for a in range(300) if a not in legal)
    cases = [
        (client.post(f"/api/games/{gid}/action", json={"action": illegal, "version": view["version"]}),
         400, "not possible in this position"),
        (client.post(f"/api/games/{gid}/action", json={"action": view["actions"][0]["id"],
                                                       "version": "0123456789abcdef"}), 409, "the table has changed"),
        (client.post(f"/api/games/{gid}/action", content=b"{not json"), 400, "malformed JSON"),
        (client.post(f"/api/games/{gid}/action", json=[1, 2]), 400, "JSON object"),
        (client.post(f"/api/games/{gid}/action", json={"action": "x", "version": view["version"]}),
         400, "integer"),
        (client.post("/api/games/nosuchgame/action", json={"action": 0, "version": "x"}), 404,
         "unknown game"),
        (client.get("/api/games/nosuchgame"), 404, "unknown game"),
        (client.post(f"/api/games/{gid}/settings", json={"time": 1e6}), 400, "time"),
        (client.post("/api/games", json={"side": "martian"}), 400, "side"),
        (client.post("/api/games", json={"bot": "nosuchbot"}), 400, "bot"),
        (client.post("/api/games", json={"seed": -1}), 400, "seed"),
        (client.get("/api/nothing/here"), 404, "not found"),
    ]
    for res, status, words in cases:
        assert res.status_code == status, (res.status_code, res.text)
        assert words.lower() in res.json()["error"].lower(), res.json()
        assert "\n" not in res.json()["error"]
    assert client.get(f"/api/games/{gid}").json() == before


def test_a_double_click_is_refused_as_stale(client):
    view = to_human(client, new_game(client, side="polish"))
    gid = view["id"]
    body = {"action": view["actions"][0]["id"], "version": view["version"]}
    assert client.post(f"/api/games/{gid}/action", json=body).status_code == 200
    after = client.get(f"/api/games/{gid}").json()
    second = client.post(f"/api/games/{gid}/action", json=body)
    assert second.status_code == 409 and "the table has changed" in second.json()["error"]
    assert client.get(f"/api/games/{gid}").json() == after


def test_game_ids_are_unguessable(client):
    ids = {new_game(client, seed=s)["id"] for s in range(5)}
    assert len(ids) == 5
    assert all(re.fullmatch(r"[A-Za-z0-9_-]{24}", i) for i in ids)


def test_budgets_are_capped_by_the_server():
    limits = Limits(max_time=10.0, max_iterations=200_000, max_nodes=2_000_000, max_threads=2)
    spec = str(BotSpec.parse("ismcts:time=1000,nodes=30000000").capped(limits))
    assert "time=10.0" in spec and "nodes=2000000" in spec and "threads=2" in spec
    with pytest.raises(BotSpecError, match="nodes must be in"):   # past the registry's range
        BotSpec.parse("ismcts:nodes=999999999").capped(limits)
    assert "iterations=200000" in str(BotSpec.parse("oos:iterations=10000000000").capped(limits))
    assert "sims=200000" in str(BotSpec.parse("openspiel-ismcts:sims=99999999").capped(limits))
    assert str(BotSpec.parse("openspiel-ismcts:time=1.0").capped(limits)) \
        == "openspiel-ismcts:time=1.0"  # time alone is a budget too
    assert str(BotSpec.parse("random").capped(limits)) == "random"


def test_the_bot_time_setting(client):
    view = new_game(client, bot="ismcts:time=1.0")
    res = client.post(f"/api/games/{view['id']}/settings", json={"time": 0.5})
    assert res.status_code == 200 and "time=0.5" in res.json()["bot"]


def test_no_request_names_a_file(client, tmp_path):
    view = new_game(client)
    save = client.get(f"/api/games/{view['id']}/save")
    assert save.headers["content-disposition"].startswith("attachment")
    res = client.post("/api/games/load?name=../../../tmp/evil.json", content=save.content)
    assert res.status_code == 200
    files = sorted(p.name for p in (tmp_path / "data").iterdir())
    assert len(files) == 2 and all(re.fullmatch(r"game-[A-Za-z0-9_-]{24}\.json", f) for f in files)
    assert not (tmp_path / "evil.json").exists()
    assert client.get("/api/games/..%2F..%2Fetc%2Fpasswd").status_code == 404


def test_a_corrupt_upload_is_refused_with_the_checkers_message(client, tmp_path):
    view = new_game(client)
    saved = json.loads(client.get(f"/api/games/{view['id']}/save").content)
    bad = dict(saved, core="AAAA")
    res = client.post("/api/games/load?name=mine.json", json=bad)
    assert res.status_code == 400
    assert res.json()["error"].startswith("mine.json: not a usable saved game")
    res = client.post("/api/games/load", content=b"\x00garbage")
    assert res.status_code == 400 and "malformed JSON" in res.json()["error"]
    # nothing saved is lost: the game is still there, on disk too
    assert client.get(f"/api/games/{view['id']}").status_code == 200
    assert len(list((tmp_path / "data").iterdir())) == 1


def test_save_load_same_position_and_play_reads_it(client, tmp_path):
    view = to_human(client, new_game(client, side="polish"))
    view = step(client, view).json()
    save = client.get(f"/api/games/{view['id']}/save").content
    loaded = client.post("/api/games/load", content=save).json()
    strip = lambda v: {k: v[k] for k in v if k != "id"}  # noqa: E731
    assert strip(loaded) == strip(client.get(f"/api/games/{view['id']}").json())
    path = tmp_path / "game.json"
    path.write_bytes(save)
    record = read_save(str(path))  # the terminal game reads the download
    assert record.core.to_bytes() == client.app.state.store.get(view["id"]).record.core.to_bytes()


def test_undo_and_resign(client):
    view = to_human(client, new_game(client, side="polish"))
    gid = view["id"]
    assert not view["can_undo"]
    assert client.post(f"/api/games/{gid}/undo").status_code == 400
    first = client.get(f"/api/games/{gid}").json()
    after = step(client, view).json()
    assert after["can_undo"]
    back = client.post(f"/api/games/{gid}/undo").json()
    assert back["version"] == first["version"] and back["log"] == first["log"]
    over = client.post(f"/api/games/{gid}/resign").json()
    assert over["status"] == "over" and not over["result"]["you_win"]
    assert client.post(f"/api/games/{gid}/resign").status_code == 409


def test_a_game_survives_a_server_restart(tmp_path):
    with TestClient(server_app.create_app(tmp_path)) as c:
        view = step(c, to_human(c, new_game(c, side="polish"))).json()
    with TestClient(server_app.create_app(tmp_path)) as c:
        again = c.get(f"/api/games/{view['id']}").json()
    assert again["version"] == view["version"] and again["log"] == view["log"]


def test_hint_answers_with_the_advice(client):
    view = to_human(client, new_game(client, side="polish", seed=11))
    while len(view["actions"]) < 2:
        view = to_human(client, step(client, view).json())
    res = client.post(f"/api/games/{view['id']}/hint")
    assert res.status_code == 200, res.text
    hint = res.json()
    assert hint["recommended"] in {a["text"] for a in view["actions"]} or hint["recommended"]
    assert {"actions", "value"} <= set(hint)
    for number in bot_hand_numbers(client, view["id"]):
        assert number not in res.text


def _to_a_searched_bot_decision(game, undone=False):
    """Plays first legal actions up to a bot decision worth a search (two
    options or more), with a decision of the human before it if ``undone``."""
    record = game.record
    while record.status() != "bot" or len(record.core.legal_actions()) < 2 \
            or (undone and not record.human_steps()):
        first = record.core.legal_actions()[0]
        if record.status() == "human":
            record.human_act(first)
        else:
            record.bot_act(first)


def test_the_close_of_a_game_stops_its_search(tmp_path):
    """The bot's move runs in the game's own search process; closing the
    game kills it, and the request answers without a move."""
    async def scenario():
        store = GameStore(tmp_path, Limits())
        game = store.new_game(side="german", bot="ismcts:time=10", seed=5)
        _to_a_searched_bot_decision(game)
        task = asyncio.create_task(store.bot_move(game))
        for _ in range(1000):
            if game.id in store.pool.bots and store.pool.running:
                break
            await asyncio.sleep(0.02)
        proc = store.pool.bots[game.id].proc
        assert proc.is_alive()
        store.close(game.id)
        await task  # the request answers, without a move
        proc.join(5)
        return proc.is_alive(), store.games, dict(store.pool.bots)

    alive, games, bots = asyncio.run(scenario())
    assert not alive and not games and not bots
    assert not list(tmp_path.glob("game-*.json"))


def test_the_games_bot_is_kept_between_its_moves(tmp_path):
    """Two searched moves of one game are answered by the same search
    process (the game's bot kept there); a new spec (another time) gets a
    new one; at most Limits.max_bots such processes live, the least
    recently used ended first."""
    async def scenario():
        store = GameStore(tmp_path, Limits(max_bots=1))
        game = store.new_game(side="german", bot="ismcts:iterations=30", seed=5)
        pids = []
        try:
            for _ in range(2):
                _to_a_searched_bot_decision(game)
                await store.bot_move(game)
                pids.append(store.pool.bots[game.id].proc.pid)
            store.set_time(game, 0.05)
            _to_a_searched_bot_decision(game)
            await store.bot_move(game)
            pids.append(store.pool.bots[game.id].proc.pid)
            other = store.new_game(side="german", bot="ismcts:iterations=30", seed=6)
            _to_a_searched_bot_decision(other)
            await store.bot_move(other)
            return pids, list(store.pool.bots), other.id
        finally:
            await store.shutdown()

    pids, kept, other = asyncio.run(scenario())
    assert pids[0] == pids[1] != pids[2]
    assert kept == [other]


def test_at_most_n_searches_run_at_once():
    async def scenario():
        pool = SearchPool(1)
        tasks = [asyncio.create_task(pool.run(time.sleep, 0.2)) for _ in range(3)]
        seen = []
        while not all(t.done() for t in tasks):
            seen.append((pool.running, pool.waiting))
            await asyncio.sleep(0.01)
        await asyncio.gather(*tasks)
        return seen

    seen = asyncio.run(scenario())
    assert max(r for r, _ in seen) == 1
    assert max(w for _, w in seen) == 2


def test_serve_binds_localhost_and_warns_for_another_host(monkeypatch, capsys, tmp_path):
    calls = []   # the address of the socket the server was given (port 0: any free one)

    class Server:       # uvicorn's, not run: its Config would point the process's
        def __init__(self, config):     # logging at this test's captured stderr for good
            pass

        def run(self, sockets=None):
            calls.append(sockets[0].getsockname())

    monkeypatch.setattr(server_app.uvicorn, "Server", Server)
    monkeypatch.setattr(server_app.uvicorn, "Config", lambda app, **kw: None)
    args = cli.build_parser().parse_args(["serve", "--data", str(tmp_path)])
    assert args.host == "127.0.0.1" and args.port == 8000
    assert cli.main(["serve", "--port", "0", "--data", str(tmp_path)]) == 0
    assert calls[-1][0] == "127.0.0.1"
    err = capsys.readouterr().err
    assert "warning" not in err and f"http://127.0.0.1:{calls[-1][1]}/?token=" in err
    assert cli.main(["serve", "--port", "0", "--host", "0.0.0.0", "--data", str(tmp_path)]) == 0
    assert calls[-1][0] == "0.0.0.0"
    assert "anyone who can reach" in capsys.readouterr().err
    assert cli.main(["serve", "--port", "70000", "--data", str(tmp_path)]) == 2


def test_every_change_is_on_disk_before_the_answer(tmp_path):
    """The save in the data folder is the game after every request that
    changed it: a store started on the folder now finds the same game."""
    store = GameStore(tmp_path)
    game = store.new_game(side="polish", bot="random", seed=4)
    rng = random.Random(4)
    for k in range(40):
        if game.record.status() == "over":
            break
        if game.record.status() == "bot":
            asyncio.run(store.bot_move(game))
        else:
            store.act(game, rng.choice(game.record.core.legal_actions()), game.record.version())
        if k % 7 == 6 and game.record.human_steps():
            store.undo(game)
        again = GameStore(tmp_path).get(game.id).record
        assert again.version() == game.record.version() and again.events == game.record.events


def test_review_rates_every_decision_and_steps_back(tmp_path):
    with TestClient(server_app.create_app(tmp_path, Limits(review_iterations=60))) as c:
        view = new_game(c, side="polish", seed=8)
        while len(c.app.state.store.get(view["id"]).record.human_steps()) < 5:
            view = step(c, view).json()
        gid = view["id"]
        review = c.post(f"/api/games/{gid}/review").json()
        assert review["total"] == 5 and "iterations=60" in review["budget"]
        for _ in range(3000):  # until the background search is through (bounded)
            if review["done"] == review["total"]:
                break
            time.sleep(0.05)
            review = c.get(f"/api/games/{gid}/review").json()
        assert review["done"] == 5 and len(review["decisions"]) == 5
        for d in review["decisions"]:
            assert d["options"] == 1 or (d["loss"] >= 0 and d["best"])
        assert all(m["loss"] > 0 for m in review["mistakes"])
        record = c.app.state.store.get(gid).record
        for k in range(5):
            core, chosen, at = record.decision(k)
            past = c.get(f"/api/games/{gid}/review/{k}").json()
            assert past["status"] == "review" and past["actions"] == []
            assert past["log"] == record.events[:at]
            assert past["review_step"]["chosen"] == record.events[at]["text"]
            assert chosen in core.legal_actions()
        assert c.get(f"/api/games/{gid}/review/5").status_code == 400
        assert c.get(f"/api/games/{gid}").json()["version"] == view["version"]  # unchanged


def test_one_choice_for_identical_cards_says_so(tmp_path):
    """R27: where the engine offers one action for interchangeable cards, the
    view names all of them; a card with its own action is never among them."""
    store = GameStore(tmp_path)
    rng = random.Random(2)
    notes = 0
    for seed in range(3):
        game = store.new_game(side="polish", bot="random", seed=seed)
        record = game.record
        while record.status() != "over":
            if record.status() == "bot":
                record.bot_act(rng.choice(record.core.legal_actions()))
                continue
            view = game_view(game)
            offered = {a.get("card") or a.get("target") for a in view["actions"]}
            for a in view["actions"]:
                for number in a.get("same_as", []):
                    notes += 1
                    assert number not in offered and "interchangeable (R27)" in a["note"]
                    mine = next(c for c in record.cards.values() if c.number == number)
                    theirs = next(c for c in record.cards.values()
                                  if c.number == (a.get("card") or a.get("target")))
                    assert (mine.type, mine.start) == (theirs.type, theirs.start)
                    where = lambda c: record.core.location(c.side_id * 23 + c.index)  # noqa
                    assert where(mine) == where(theirs)
            record.human_act(rng.choice(record.core.legal_actions()))
    assert notes > 0


def test_undo_while_the_bot_thinks_calls_its_move_off(tmp_path):
    """Undo during the bot's search: the move is called off, the game's
    search process killed (a fresh bot at the next move) and its slot given
    back."""
    async def scenario():
        store = GameStore(tmp_path, Limits(ponder=False))
        game = store.new_game(side="polish", bot="ismcts:time=10", seed=5)
        _to_a_searched_bot_decision(game, undone=True)
        request = asyncio.create_task(store.bot_move(game))
        for _ in range(1000):
            if store.pool.running and game.id in store.pool.bots:
                break
            await asyncio.sleep(0.02)
        proc = store.pool.bots[game.id].proc
        store.undo(game)  # what POST /undo does
        await request  # answers (no error) without a move
        for _ in range(100):  # the killed search's slot is given back
            if not store.pool.running:
                break
            await asyncio.sleep(0.02)
        proc.join(5)
        return game.record.status(), store.pool.running, proc.is_alive(), dict(store.pool.bots)

    status, running, alive, bots = asyncio.run(scenario())
    assert status == "human" and running == 0 and not alive and not bots


def test_the_log_names_an_attacks_dice_and_tells_its_outcome(tmp_path):
    store = GameStore(tmp_path)
    game = store.new_game(side="german", bot="random", seed=3)
    play_locally(game, random.Random(1))
    events = game.record.events          # narrated by apps.narration, as in play
    attacks = [i for i, e in enumerate(events)
               if e["kind"] == "roll" and e["details"].get("roll") == "attack"]
    assert attacks
    for i in attacks:
        assert events[i]["text"].startswith("Attack die")
        assert events[i + 1]["text"].startswith("Defence die")
        outcome = next(e for e in events[i + 2:] if e["kind"] == "outcome")
        assert outcome["details"]["action"] == "attack"
        assert isinstance(outcome["details"]["success"], bool)
        assert re.search(r"\d+ \(die \d+.*(against|beats|does not beat).*\d+", outcome["text"])


def test_the_api_lists_its_routes(client):
    routes = client.get("/api").json()["routes"]
    assert any("/api/games/{id}/action" in r for r in routes)
    assert len(routes) >= 15


def test_the_polish_bots_redraw_choice_stays_hidden_from_the_german(client):
    """R5: as the German you decide without knowing the Polish redraw choice."""
    view = to_human(client, new_game(client, side="german", seed=6))
    assert view["phase"] == "redraw"
    said = [e["text"] for e in view["log"] if e["who"] == "polish"]
    assert said and all("keep hand" not in t and ": redraw" not in t for t in said)
    assert "decides in secret whether to redraw" in said[-1]


def test_openapi_document_lists_every_served_route(client):
    from apps.server import openapi
    doc = client.get("/api/openapi.json").json()
    assert doc["openapi"].startswith("3.1")
    served = openapi.served(client.app.routes)
    assert len(served) >= 25
    for method, path in served:
        op = doc["paths"][path][method.lower()]
        assert op["summary"] and "4XX" in op["responses"], (method, path)
    listed = client.get("/api").json()["routes"]
    assert len(listed) == len(served)
    action = doc["paths"]["/api/games/{gid}/action"]["post"]
    assert set(action["requestBody"]["content"]["application/json"]["schema"]["properties"]) \
        == {"action", "version"}
    assert [p["name"] for p in action["parameters"]] == ["gid"]
    assert "text/event-stream" in doc["paths"]["/api/board/analyses/{jid}/events"]["get"][
        "responses"]["200"]["content"]


def test_openapi_table_and_routes_cannot_drift_apart():
    from starlette.routing import Route

    from apps.server import openapi
    rows = openapi.parse_table("GET    /api/games/{id}   the view\n"
                               "POST   /api/games/{id}/undo  back")
    async def endpoint(request):  # noqa: E306
        return None
    routes = [Route("/api/games/{gid}", endpoint), Route("/api/games/{gid}/undo", endpoint,
                                                           methods=["POST"])]
    assert set(openapi.check_table(rows, routes)) == {("GET", "/api/games/{gid}"),
                                                      ("POST", "/api/games/{gid}/undo")}
    with pytest.raises(ValueError, match="POST /api/extra is served but not listed"):
        openapi.check_table(rows, routes + [Route("/api/extra", endpoint, methods=["POST"])])
    with pytest.raises(ValueError, match="POST /api/games/{}/undo is listed but not served"):
        openapi.check_table(rows, routes[:1])


def test_the_view_shows_what_happened_since_your_last_decision(client):
    """last_move: the bot's moves in words (chance apart: a draw is never
    a bot move), every card it moved, placed, attacked with... with its
    role, the dice of each roll settled with bullets and modifiers; the
    piles of cards gone per side; the bot named for people."""
    rng = random.Random(5)
    view = to_human(client, new_game(client, side="polish", seed=3))
    assert view["bot_label"] == "Bot: Random, any legal move at random"
    roles, rolls, chance = set(), [], 0
    for _ in range(400):
        if view["status"] == "over":
            break
        last = view["last_move"]
        assert last["side"] == "german"
        assert not any(re.search(r"draws a card|Rocket card revealed", m) for m in last["moves"])
        chance += len(last["chance"])
        for c in last["cards"]:
            assert c["role"] in {"placed", "played", "activated", "moved", "attacker", "targeted",
                                 "refreshed", "destroyed", "sent_home"}
            roles.add(c["role"])
            if c["role"] not in ("destroyed", "sent_home", "targeted"):
                assert c["side"] == "german"
        for d in last["dice"]:
            rolls.append(d)
            assert d["title"] in ("Attack", "Search", "Spy", "Sturmwind")
            for r in d["rolls"]:
                assert r["total"] == r["die"] + r["bullets"] + r["modifier"]
                assert 1 <= r["die"] <= 6
        pend = view["pending"]
        if pend and pend["kind"] == "attack" and pend["dice"]:
            assert [r["die"] for r in pend["rolls"]][:len(pend["dice"])] == pend["dice"]
        for side, pile in view["piles"].items():
            assert all(c["side"] == side for c in pile)
        assert sum(map(len, view["piles"].values())) == len(view["gone"])
        act = rng.choice(view["actions"])["id"]
        res = client.post(f"/api/games/{view['id']}/action",
                          json={"action": act, "version": view["version"]})
        view = to_human(client, res.json())
    assert {"placed", "activated"} <= roles and chance > 0
    assert any(d["action"] == "attack" and len(d["rolls"]) == 2 for d in rolls)
    over = view
    assert over["status"] == "over" and not over["can_undo"] and not over["can_resign"]
    res = client.post(f"/api/games/{over['id']}/undo")
    assert res.status_code == 409 and "over" in res.json()["error"]


def test_bot_labels_name_the_bot_for_people():
    from apps.server.views import bot_label
    assert bot_label("ismcts:time=1.0") == "Bot: ISMCTS, 1 s per move"
    assert bot_label("oos:time=0.5") == "Bot: OOS, 0.5 s per move"
    assert bot_label("ismcts:iterations=3000") == "Bot: ISMCTS, 3,000 iterations per move"
    assert bot_label("heuristic") == "Bot: Heuristic"


def test_reference_serves_every_card_and_every_ruling(client):
    ref = client.get("/api/reference").json()
    assert len(ref["cards"]) == 46 and all(c["text"] for c in ref["cards"])
    ids = [r["id"] for r in ref["rules"]]
    assert ids[:30] == [f"R{i}" for i in range(1, 31)] and "D1" in ids
    assert all(r["title"] and r["text"] and "Engine:" not in r["text"] for r in ref["rules"])


def test_the_review_step_marks_the_chosen_and_the_better_move(client):
    view = to_human(client, new_game(client, side="polish", seed=4))
    gid = view["id"]
    store = client.app.state.store
    for _ in range(3):
        view = to_human(client, step(client, view).json())
    past = client.get(f"/api/games/{gid}/review/1").json()
    step_ = past["review_step"]
    assert past["status"] == "review" and not past["can_undo"] and not past["can_resign"]
    assert step_["chosen_action"]["text"] and "best_action" not in step_
    # once rated (here: a rating written as the review writes it), the better move is marked
    game = store.get(gid)
    record = game.record
    core, chosen, _ = record.decision(1)
    other = next(a for a in core.legal_actions() if a != chosen)
    game.review = {"version": record.version(), "done": 2, "total": 2, "budget": "",
                   "decisions": [{"index": 1, "loss": 0.2, "best_value": 0.6, "chosen_value": 0.4,
                                  "best": core.action_string(record.human, other)}]}
    step_ = client.get(f"/api/games/{gid}/review/1").json()["review_step"]
    assert step_["best_action"]["id"] == other and step_["loss"] == 0.2


def test_the_view_s_fields_are_in_the_openapi_document_and_in_api_js(client):
    """Every field of a view is named by the OpenAPI document's View schema
    and by api.js's View typedef (the page's types), so the three stay in step."""
    from pathlib import Path
    view = to_human(client, new_game(client, side="polish", seed=12))
    doc = client.get("/api/openapi.json").json()
    schema = doc["components"]["schemas"]["View"]["properties"]
    assert set(view) <= set(schema), set(view) - set(schema)
    assert set(view["last_move"]) == set(doc["components"]["schemas"]["LastMove"]["properties"])
    js = (Path(server_app.__file__).with_name("static") / "api.js").read_text()
    typedef = js[js.index("@typedef {object} View"):]
    typedef = typedef[:typedef.index("*/")]
    typed = set(re.findall(r"@property \{[^}]*\}\s+\[?(\w+)", typedef))
    loose = {"fragments", "rockets", "decks", "save_error", "thinking", "seed", "bot_hand"}
    assert set(view) - loose <= typed, set(view) - loose - typed
    last = js[js.index("@typedef {object} LastMove"):]
    last = last[:last.index("*/")]
    assert set(view["last_move"]) <= set(re.findall(r"@property \{[^}]*\}\s+\[?(\w+)", last))


def test_every_settled_die_is_labelled_with_the_side_that_rolled_it(client):
    """Issue 46: playing Polish, a search of yours settled after your last
    decision (a reaction window of yours came between the die and the
    outcome) was drawn as the bot's die.  Seeded games through the API:
    every die of last_move and of the action under way has the side of the
    card that rolled it, and your own rolls appear."""
    owner = {"PL": "polish", "DE": "german"}
    mine = 0
    for seed, side in ((3, "polish"), (4, "polish"), (5, "german")):
        rng = random.Random(seed)
        view = to_human(client, new_game(client, side=side, seed=seed))
        for _ in range(400):
            if view["status"] == "over":
                break
            settled = [r for d in view["last_move"]["dice"] for r in d["rolls"]]
            pend = view["pending"] or {}
            for r in settled + [r for r in pend.get("rolls", []) if r["die"] is not None]:
                assert r["card"] and r["side"] == owner[r["card"][:2]], (r, view["last_move"])
            for d in view["last_move"]["dice"]:
                if len(d["rolls"]) == 2:
                    assert d["rolls"][0]["side"] != d["rolls"][1]["side"]
                mine += d["rolls"][0]["side"] == view["you"]
            act = rng.choice(view["actions"])["id"]
            res = client.post(f"/api/games/{view['id']}/action",
                              json={"action": act, "version": view["version"]})
            view = to_human(client, res.json())
    assert mine > 0


def test_issue_46_wording_undo_games_list_and_the_piles_top(client):
    """Undo's answer says what it took back, in the terminal's words; the
    list of games names the bot for people; a pile's last card is the last
    card that went there."""
    from apps.narration import undone_text
    rng = random.Random(8)
    view = to_human(client, new_game(client, side="polish", seed=8))
    gid = view["id"]
    game = client.app.state.store.get(gid)
    for _ in range(6):
        act = rng.choice(view["actions"])["id"]
        view = to_human(client, client.post(f"/api/games/{gid}/action",
                                            json={"action": act, "version": view["version"]}).json())
    entries, bot = game.record.undo_preview()
    undone = client.post(f"/api/games/{gid}/undo").json()["undone"]
    assert undone == undone_text(entries, bot, "polish")
    assert undone.startswith('Undone: your decision "You ') and "taken back" in undone
    new_game(client, side="german", bot="ismcts:time=1.0", seed=2)
    lines = client.get("/api/games").json()["games"]
    assert {"ISMCTS, 1 s per move", "Random, any legal move at random"} <= \
        {g["bot_label"] for g in lines}
    # the piles: play to the end; a pile's top is the card of that side that went last
    # (found from the positions step by step, not from the log)
    play_locally(game, rng)
    view = client.get(f"/api/games/{gid}").json()
    record = game.record
    positions = list(record.before) + [record.core]
    went: dict[str, int] = {}
    for i in range(1, len(positions)):
        before = set(positions[i - 1].cards_at("gone"))
        for g in set(positions[i].cards_at("gone")) - before:
            went[record.cards[g].number] = i
    for side, pile in view["piles"].items():
        if pile:
            last = max(went[c["number"]] for c in pile)
            assert went[pile[-1]["number"]] == last, (pile[-1], went)


def test_the_bot_ponders_at_the_humans_decision_unless_told_not_to(tmp_path):
    """A bot with a time budget thinks on the human's time in its game's
    search process; the view says so; Limits(ponder=False) (serve
    --no-ponder) turns it off, and an iteration budget never ponders."""
    async def scenario(limits, bot):
        store = GameStore(tmp_path / f"{limits.ponder}-{bot}", limits)
        try:
            game = store.new_game(side="german", bot=bot, seed=3)
            while game.record.status() == "bot":
                await store.bot_move(game)
            return game_view(game)["pondering"], list(store.pool.bots)
        finally:
            await store.shutdown()

    pondering, processes = asyncio.run(scenario(Limits(), "default:time=0.05"))
    assert pondering and len(processes) == 1
    assert asyncio.run(scenario(Limits(ponder=False), "default:time=0.05"))[0] is False
    assert asyncio.run(scenario(Limits(), "default:iterations=30"))[0] is False

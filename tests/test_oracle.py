"""The benchmark-only ``ismcts-oracle`` bot (issue 31's cheating bound): an
ISMCTS whose every world is the true position, so it sees the opponent's
hand.  It must see it (its search depends on the hidden hand, a plain
search's does not), stay otherwise the same search, and never reach a
player: play, advise, the browser server and the engine protocol refuse it."""

from __future__ import annotations

import random

import pyspiel
import pytest

from bots import BotSpecError, make_bot
from bots._ismcts import ISMCTS
from bots.spec import BotSpec
from conftest import run_cli
from tests.playouts import playout

pytest.importorskip("starlette")


def _position_with_a_hidden_hand(seed: int):
    """A decision of the first turn's main step (the opponent's hand hidden
    and not yet told by the play), and the same position with the
    opponent's hand drawn again for the player to move (same information)."""
    game = pyspiel.load_game("wildhorn")
    rng = random.Random(seed)
    for core in playout(game.core_config, rng):
        if (not core.is_chance() and core.turn == 1 and core.phase == "actions"
                and len(core.legal_actions()) > 2):
            me = core.current_player()
            for k in range(50):
                other = core.resample(me, 1000 + k)
                if other != core:
                    return core.copy(), other
    raise AssertionError("no such position in this game")


def _search(core, oracle: bool, seed: int = 5):
    stats = ISMCTS(seed=seed, oracle=oracle).search(core, iterations=600)
    return [(a["action"], a["visits"], round(a["value"], 12)) for a in stats["actions"]]


def test_the_oracle_sees_the_hidden_hand_and_a_plain_search_does_not():
    true, other = _position_with_a_hidden_hand(3)
    assert _search(true, oracle=False) == _search(other, oracle=False)
    assert _search(true, oracle=True) != _search(other, oracle=True)


def test_the_oracle_search_is_deterministic_for_a_seed():
    true, _ = _position_with_a_hidden_hand(4)
    assert _search(true, oracle=True) == _search(true, oracle=True)


def test_the_oracle_bot_plays_a_legal_game_in_a_tournament_folder(tmp_path):
    out = tmp_path / "m"
    done = run_cli("tournament", "--bots", "ismcts-oracle:iterations=30;ismcts:iterations=30",
                   "--games", "2", "--seed", "1", "--jobs", "1", "--out", str(out))
    assert done.returncode == 0, done.stderr
    rows = (out / "games.csv").read_text().splitlines()
    assert len(rows) == 3 and "ismcts-oracle" in (out / "standings.md").read_text()


def test_the_oracle_takes_no_inference():
    with pytest.raises(BotSpecError, match="inference"):
        make_bot("ismcts-oracle:inference=heuristic", 0)
    with pytest.raises(ValueError, match="inference=off"):
        ISMCTS(oracle=True, inference="heuristic")


@pytest.mark.parametrize("args", [
    ("play", "--bot", "ismcts-oracle:iterations=10"),
    ("advise", "examples/polish-opening.json", "--bot", "ismcts-oracle"),
    ("engine", "--bot", "ismcts-oracle:iterations=10"),
])
def test_players_tools_refuse_the_oracle_in_one_line(args):
    done = run_cli(*args, input="")
    assert done.returncode == 2, (done.stdout, done.stderr)
    err = done.stderr.strip()
    assert "Traceback" not in err and len(err.splitlines()) == 1
    assert "ismcts-oracle" in err and "opponent's hand" in err


def test_the_server_refuses_the_oracle(client):
    res = client.post("/api/games", json={"bot": "ismcts-oracle:iterations=10", "seed": 1})
    assert res.status_code == 400 and "opponent's hand" in res.json()["error"]
    assert "ismcts-oracle" not in client.get("/api/bots").json()["bots"]


def test_a_spec_is_refused_for_players_only():
    spec = BotSpec.parse("ismcts-oracle:iterations=10")
    assert spec.make(0, 1).name == "ismcts-oracle"            # tournaments build it
    with pytest.raises(BotSpecError, match="opponent's hand"):
        spec.make(0, 1, interactive=True)

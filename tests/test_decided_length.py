"""benchmarks/decided_length.py: the match's figures follow from its files,
and the self-play comparison plays the same deal with and without the rule."""
import csv
import json
from pathlib import Path

import pytest
from tournament_helpers import benchmark_script

ON, OFF = "ismcts:iterations=300,decided=heuristic", "ismcts:iterations=300,decided=off"


@pytest.fixture(scope="module")
def script():
    return benchmark_script("decided_length")


def made_up_match(folder: Path) -> Path:
    """Two deals, each played twice with the sides swapped: the rule's bot
    wins 3 of the 4 games; its searched decisions and seconds per move known."""
    folder.mkdir()
    (folder / "tournament.json").write_text(json.dumps({"bots": [ON, OFF], "games": 4}))
    games = [  # game, deal, polish, german, winner, moves, s/move polish, s/move german
        (1, 0, ON, OFF, ON, 100, 0.01, 0.02), (2, 0, OFF, ON, ON, 120, 0.03, 0.01),
        (3, 1, ON, OFF, OFF, 80, 0.01, 0.02), (4, 1, OFF, ON, ON, 90, 0.02, 0.01)]
    with open(folder / "games.csv", "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["game", "deal", "polish", "german", "winner", "moves",
                    "seconds_per_move_polish", "seconds_per_move_german"])
        w.writerows(games)
    with open(folder / "values.csv", "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["game", "bot", "side", "move", "value", "won"])
        for game, *_ in games:  # the rule's bot searched 2 decisions a game, the other 4
            for bot, n in ((ON, 2), (OFF, 4)):
                w.writerows([game, bot, "polish", m, 0.5, 0] for m in range(n))
    return folder


def test_the_match_figures_follow_from_its_files(script, tmp_path):
    m = script.read_match(made_up_match(tmp_path / "m"))
    assert m["games"] == 4 and m["deal_pairs"] == 2
    assert m["decided_heuristic_wins"] == 3 and m["decided_heuristic_score"] == 0.75
    assert m["moves_per_game"]["mean"] == 97.5
    by_seat = m["moves_per_game_by_seat_of_decided_heuristic"]
    assert by_seat["polish"]["mean"] == 90 and by_seat["german"]["mean"] == 105
    assert m["by_bot"][ON]["searched_decisions_per_game"]["mean"] == 2
    assert m["by_bot"][OFF]["searched_decisions_per_game"]["mean"] == 4
    assert m["by_bot"][ON]["seconds_per_move"]["mean"] == 0.01
    assert m["by_bot"][OFF]["seconds_per_move"]["mean"] == pytest.approx(0.0225)
    lo, hi = m["ci95_wilson"]
    assert lo < 0.75 < hi


def test_self_play_plays_each_deal_with_and_without_the_rule(script):
    out = script.self_play(deals=2, iterations=20, seed=1, log=lambda m: None)
    assert out["deals"] == 2
    for s in ("decided=heuristic", "decided=off"):
        r = out[s]
        assert r["moves_per_game"]["mean"] == pytest.approx(
            r["decisions_per_game"]["polish"]["mean"] + r["decisions_per_game"]["german"]["mean"])
        assert r["seconds_per_game_both_sides"]["mean"] > 0
    assert out["decided=off"]["decided_decisions_per_game"]["mean"] == 0
    diff = out["paired_difference_heuristic_minus_off"]
    assert diff["games_shorter"] + diff["games_longer"] + diff["games_same_length"] == 2
    assert diff["moves_per_game"]["mean"] == pytest.approx(
        out["decided=heuristic"]["moves_per_game"]["mean"]
        - out["decided=off"]["moves_per_game"]["mean"])

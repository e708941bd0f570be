"""Does ``decided=heuristic`` end decided games sooner, and at what cost in
strength?  The figures of issue 30, item 5.

    python benchmarks/decided_length.py --deals 100 --iterations 300 --seed 30
    python benchmarks/decided_length.py --deals 0    # the match again, as it stands

(the second command re-reads the match and keeps the self-play figures
already in the file; each part records the command that wrote it).

Two parts, written together to results/decided-length.json:

* ``match``: read back from the paired match the tournament runner played
  (``--match``, default results/tournaments/decided-ismcts300, whose README
  gives its command): the score of ``decided=heuristic`` against
  ``decided=off`` with its 95% Wilson interval, the Elo and its bootstrap
  interval over deal pairs (the folder's summary.json), the moves per game
  (both sides: games.csv writes their sum) overall and by the seat the
  ``decided=heuristic`` bot had, and for each bot its searched decisions
  per game (its rows of values.csv) and seconds per move (games.csv).
  games.csv does not split a game's moves by side, so each side's seconds
  per game are measured by the second part.
* ``self_play``: ``--deals`` deals each played twice with the same chance
  (keyed common random numbers, apps.tournament.chance) and the same bot
  seeds, once with ``decided=heuristic`` on both sides, once with
  ``decided=off`` on both sides, at ``--iterations`` per decision, so the
  length of the same game with and without the rule is compared directly:
  moves per game, each side's decisions and seconds per game, the
  decisions the search found decided and those where the rule changed the
  move (the heuristic's choice was not the search's), and
  the paired differences with 95% intervals (normal, over deals).
"""
from __future__ import annotations

import argparse
import csv
import json
import math
import statistics
import sys
import time
from collections import defaultdict
from pathlib import Path

import pyspiel

import solver  # noqa: F401  (registers the game)
from apps.tournament import wilson
from apps.tournament.chance import make_stream
from apps.tournament.scheduling import derive
from bots.registry import make_bot
from solver.vocabulary import SIDES

SETTINGS = ("heuristic", "off")   # the default; --settings adds others (pass)


def mean_ci(values: list[float]) -> dict[str, float]:
    """Mean and its 95% interval (normal approximation)."""
    m = statistics.fmean(values)
    half = 1.96 * statistics.stdev(values) / math.sqrt(len(values)) if len(values) > 1 else 0.0
    return {"mean": round(m, 4), "ci95": [round(m - half, 4), round(m + half, 4)]}


def read_match(folder: Path) -> dict:
    """The match's figures from its games.csv, values.csv and summary.json."""
    games = list(csv.DictReader((folder / "games.csv").open()))
    values = list(csv.DictReader((folder / "values.csv").open()))
    bots = json.loads((folder / "tournament.json").read_text())["bots"]
    on = next(b for b in bots if "decided=heuristic" in b)
    searched = defaultdict(int)   # (game, bot) -> searched decisions
    for v in values:
        searched[(v["game"], v["bot"])] += 1
    per_bot = {}
    for bot in bots:
        decisions, spm = [], []
        for g in games:
            side = "polish" if g["polish"] == bot else "german"
            decisions.append(searched[(g["game"], bot)])
            spm.append(float(g[f"seconds_per_move_{side}"]))
        per_bot[bot] = {"searched_decisions_per_game": mean_ci(decisions),
                        "seconds_per_move": mean_ci(spm)}
    wins = sum(1 for g in games if g["winner"] == on)
    by_seat = {side: mean_ci([int(g["moves"]) for g in games if g[side] == on]) for side in SIDES}
    out = {"folder": str(folder), "bots": bots, "games": len(games),
           "deal_pairs": len({g["deal"] for g in games
                              if sum(1 for h in games if h["deal"] == g["deal"]) == 2}),
           "decided_heuristic_wins": wins, "decided_heuristic_score": round(wins / len(games), 4),
           "ci95_wilson": [round(x, 4) for x in wilson(wins, len(games))],
           "moves_per_game": mean_ci([int(g["moves"]) for g in games]),
           "moves_per_game_by_seat_of_decided_heuristic": by_seat, "by_bot": per_bot}
    summary = folder / "summary.json"
    if summary.exists():
        data = json.loads(summary.read_text())
        out["summary"] = {k: data[k] for k in ("scheduled_games", "games", "interrupted",
                                               "pairs", "head_to_head", "los")
                          if k in data}
        out["summary"]["elo"] = {b: {"elo": data["bots"][b]["elo"],
                                     "elo_ci95": data["bots"][b]["elo_ci95"]}
                                 for b in data.get("bots", {})}
    return out


def play(game, spec: str, deal_seed: int) -> dict:
    """One game of ``spec`` on both sides on the deal ``deal_seed``: moves,
    each side's decisions, searched decisions, seconds, and how often the
    decided rule acted."""
    chance = make_stream("keyed", deal_seed)
    bots = [make_bot(spec, p, derive("bot", deal_seed, p)) for p in (0, 1)]
    state = game.new_initial_state()
    decisions, searched, seconds = [0, 0], [0, 0], [0.0, 0.0]
    acted, changed = [0, 0], [0, 0]
    while not state.is_terminal():
        if state.is_chance_node():
            state.apply_action(chance.sample(state))
            continue
        p = state.current_player()
        t0 = time.perf_counter()
        result = bots[p].analyse(state)
        seconds[p] += time.perf_counter() - t0
        decisions[p] += 1
        searched[p] += result.get("value") is not None
        acted[p] += bool(result.get("decided"))
        changed[p] += bool(result.get("decided")) and result["search_action"] != result["action"]
        state.apply_action(result["action"])
    return {"moves": sum(decisions), "decisions": decisions, "searched": searched,
            "seconds": seconds, "acted": acted, "changed": changed, "winner": 0 if state.returns()[0] > 0 else 1}


def self_play(deals: int, iterations: int, seed: int, log, settings=SETTINGS) -> dict:
    """``settings``: the decided= rules compared, "off" among them; each
    other rule's paired difference to "off" is reported."""
    game = pyspiel.load_game("wildhorn")
    runs = {s: [] for s in settings}
    for i in range(deals):
        deal_seed = derive("decided-length", seed, i)
        for s in settings:
            runs[s].append(play(game, f"ismcts:iterations={iterations},decided={s}", deal_seed))
        log(f"deal {i + 1}/{deals}: moves " + ", ".join(f"{runs[s][-1]['moves']} with {s}"
                                                         for s in settings))
    out = {"deals": deals, "iterations": iterations, "seed": seed}
    for s in settings:
        r = runs[s]
        out[f"decided={s}"] = {
            "moves_per_game": mean_ci([g["moves"] for g in r]),
            "decisions_per_game": {side: mean_ci([g["decisions"][k] for g in r])
                                   for k, side in enumerate(SIDES)},
            "seconds_per_game": {side: mean_ci([g["seconds"][k] for g in r])
                                 for k, side in enumerate(SIDES)},
            "seconds_per_game_both_sides": mean_ci([sum(g["seconds"]) for g in r]),
            "decided_decisions_per_game": mean_ci([sum(g["acted"]) for g in r]),
            "decisions_changed_per_game": mean_ci([sum(g["changed"]) for g in r]),
            "polish_wins": sum(1 for g in r if g["winner"] == 0)}
    for rule in settings:
        if rule != "off":
            out[f"paired_difference_{rule}_minus_off"] = paired(runs[rule], runs["off"])
    return out


def paired(on: list[dict], off: list[dict]) -> dict:
    """The same deals with a rule and without: differences of length and time."""
    return {
        "moves_per_game": mean_ci([a["moves"] - b["moves"] for a, b in zip(on, off)]),
        "seconds_per_game_both_sides": mean_ci([sum(a["seconds"]) - sum(b["seconds"])
                                                for a, b in zip(on, off)]),
        "games_shorter": sum(1 for a, b in zip(on, off) if a["moves"] < b["moves"]),
        "games_longer": sum(1 for a, b in zip(on, off) if a["moves"] > b["moves"]),
        "games_same_length": sum(1 for a, b in zip(on, off) if a["moves"] == b["moves"]),
        "same_winner": sum(1 for a, b in zip(on, off) if a["winner"] == b["winner"])}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--match", default="results/tournaments/decided-ismcts300",
                    help="the folder of the paired match (default %(default)s)")
    ap.add_argument("--deals", type=int, default=100,
                    help="deals of the self-play comparison (default 100; 0: skip it and keep "
                         "the self-play figures --out already holds, re-reading the match)")
    ap.add_argument("--iterations", type=int, default=300, help="per decision (default 300)")
    ap.add_argument("--seed", type=int, default=30, help="seed of the deals (default 30)")
    ap.add_argument("--settings", default=",".join(SETTINGS),
                    help="the decided= rules of the self-play comparison, off among them "
                         "(default %(default)s)")
    ap.add_argument("--out", default="results/decided-length.json")
    args = ap.parse_args(argv)
    if args.deals < 0 or args.iterations < 1:
        ap.error("--deals must be at least 0 and --iterations at least 1")
    settings = tuple(s.strip() for s in args.settings.split(",") if s.strip())
    if "off" not in settings or len(settings) < 2:
        ap.error("--settings: give off and at least one other rule, e.g. heuristic,pass,off")
    command = " ".join(["python", *sys.argv])
    out: dict = {}
    if args.deals == 0 and Path(args.out).exists():  # keep the self-play figures written before
        previous = json.loads(Path(args.out).read_text())
        if "self_play" in previous:
            out["self_play"] = previous["self_play"]
    folder = Path(args.match)
    if (folder / "games.csv").exists():
        out["match"] = {**read_match(folder), "command": command}
    if args.deals:
        t0 = time.time()
        out["self_play"] = self_play(args.deals, args.iterations, args.seed,
                                     lambda m: print(m, file=sys.stderr, flush=True), settings)
        out["self_play"].update(command=command, seconds=round(time.time() - t0, 1))
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(out, indent=2) + "\n")
    print(json.dumps(out, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""What more search buys: ISMCTS at 2N against N iterations per move.

    python benchmarks/scaling.py --jobs 2                      # N = 250 ... 16000, 200 games each
    python benchmarks/scaling.py --ns 250,500 --games 40 --jobs 2   # a short run
    python benchmarks/scaling.py --report-only                 # rewrite the report from the folders

For each N, a two-bot tournament through the project's runner
(``apps.tournament.run``: paired deals, seats swapped, same chance seed; a
new folder uses the keyed chance scheme, common random numbers, and a folder
played before it keeps the sequential one: the report names each folder's)
between ``ismcts:iterations=2N`` and ``ismcts:iterations=N`` (the bot's
default options otherwise, one thread: the jobs fill the cores), in
``results/tournaments/scaling/ismcts-2N-vs-N/``; repeating the command
continues an interrupted run.  Then it writes ``results/scaling.md`` and
``results/scaling.png`` from every match folder present: the 2N bot's score
with a 95% Wilson interval and the Elo per doubling, 400 log10(p / (1 - p)),
with the interval mapped the same way, and the Elo with its interval by
deal pair (the pentanomial model, ``apps.tournament.stats``), which counts
the two games of a deal as one observation.
"""
from __future__ import annotations

import argparse
import json
import re
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import solver  # noqa: E402,F401  (registers the game)
from apps import tournament  # noqa: E402
from apps.tournament.scheduling import LEGACY_CHANCE  # noqa: E402
from apps.tournament.stats import (elo_of_score, pair_scores, pair_statistics,  # noqa: E402
                                   pentanomial, wilson)
from apps.tournament.store import read_games  # noqa: E402

DEFAULT_NS = (250, 500, 1000, 2000, 4000, 8000, 16000)


def specs(n: int) -> list[str]:
    """The match at N: the bot at 2N first."""
    return [f"ismcts:iterations={2 * n}", f"ismcts:iterations={n}"]


def folder(out: Path, n: int) -> Path:
    return out / f"ismcts-{2 * n}-vs-{n}"


elo = elo_of_score


def rows(out: Path) -> list[dict]:
    """One row per match folder present, by N."""
    found = []
    for path in sorted(out.glob("ismcts-*-vs-*")):
        summary_path = path / "summary.json"
        if not summary_path.exists():
            continue
        summary = json.loads(summary_path.read_text())
        strong, weak = summary["parameters"]["bots"]
        n = int(weak.split("iterations=")[1].split(",")[0])
        h2h = next(h for h in summary["head_to_head"] if h["first"] == strong)
        k, games = h2h["first_wins"], h2h["games"]
        if games == 0:
            continue
        p = k / games
        lo, hi = wilson(k, games)
        by_pair = pair_statistics(pentanomial(pair_scores(read_games(path), strong, weak)))
        found.append({
            "n": n, "strong": strong, "weak": weak, "games": games, "wins": k, "score": p,
            "score_ci95": [lo, hi], "elo": elo(p), "elo_ci95": [elo(lo), elo(hi)],
            "pairs": by_pair["pairs"], "pair_elo": by_pair["elo"],
            "pair_elo_ci95": by_pair["elo_ci95"],
            "chance": summary["parameters"].get("chance", LEGACY_CHANCE),
            "seconds_per_move_strong": summary["bots"][strong]["mean_seconds_per_move"],
            "seconds_per_move_weak": summary["bots"][weak]["mean_seconds_per_move"],
            "seed": summary["parameters"]["seed"], "folder": str(path.relative_to(ROOT))
            if path.is_relative_to(ROOT) else str(path),
            "interrupted": bool(summary.get("interrupted")),
            "scheduled": summary["scheduled_games"],
        })
    return sorted(found, key=lambda r: r["n"])


def moves_per_game(path: Path) -> float | None:
    """The mean moves per game in a match folder's games.csv (None if none)."""
    import csv
    try:
        with open(path / "games.csv", newline="") as f:
            moves = [int(row["moves"]) for row in csv.DictReader(f)]
    except (OSError, KeyError, ValueError):
        return None
    return sum(moves) / len(moves) if moves else None


def cost_estimate(found: list[dict], games: int = 200) -> dict | None:
    """What the rest of the curve (every N of DEFAULT_NS to ``games`` games)
    would cost on one core, extrapolated from the folders present: seconds
    per move proportional to the iterations (the median of s/move / N over
    the bots measured) and the mean moves per game; a game of 2N against N
    costs moves x (2N + N) / 2 x that rate.  None without a measured match."""
    per_iteration = [r[f"seconds_per_move_{k}"] / (r["n"] * (2 if k == "strong" else 1))
                     for r in found for k in ("strong", "weak")
                     if r[f"seconds_per_move_{k}"] is not None]
    moves = [m for m in (moves_per_game(ROOT / r["folder"]) for r in found) if m]
    if not per_iteration or not moves:
        return None
    rate = statistics.median(per_iteration)
    move_count = sum(moves) / len(moves)
    played = {r["n"]: r["games"] for r in found}
    by_n = {n: max(0, games - played.get(n, 0)) * move_count * 1.5 * n * rate
            for n in DEFAULT_NS}
    return {"games": games, "seconds_per_iteration": rate, "moves_per_game": move_count,
            "core_seconds_by_n": by_n, "core_hours": sum(by_n.values()) / 3600}


def last_command(md: Path) -> str | None:
    """The playing command an earlier report names, if any."""
    try:
        found = re.search(r"^    (python benchmarks/scaling\.py.*)$", md.read_text(), re.M)
    except OSError:
        return None
    return found.group(1) if found else None


def write_report(found: list[dict], md: Path, png: Path, command: str) -> None:
    lines = ["# What more search buys: ISMCTS at 2N against N iterations", "",
             "Written by `benchmarks/scaling.py` from the match folders present; the last run:",
             "", f"    {command}", "",
             "Each match: seat-swapped paired deals through the tournament runner, both bots "
             "with the default options (heuristic rollouts and prior, one thread). Score: the "
             "2N bot's share of wins with a 95% Wilson interval; Elo per doubling = "
             "400 log10(p / (1 - p)), its interval the score's mapped the same way; "
             "by pair: the Elo and its interval over deal pairs (pentanomial model); "
             "chance: the folder's chance scheme (keyed: common random numbers).", "",
             "| N | 2N vs N | games | 2N wins | score (95%) | Elo per doubling (95%) "
             "| pairs | Elo by pair (95%) | chance | s/move 2N | s/move N | folder |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in found:
        partial = f" (of {r['scheduled']})" if r["games"] < r["scheduled"] else ""
        lines.append(
            f"| {r['n']} | {2 * r['n']} vs {r['n']} | {r['games']}{partial} | {r['wins']} "
            f"| {r['score']:.3f} [{r['score_ci95'][0]:.3f}, {r['score_ci95'][1]:.3f}] "
            f"| {r['elo']:+.0f} [{r['elo_ci95'][0]:+.0f}, {r['elo_ci95'][1]:+.0f}] "
            f"| {r['pairs']} | " + ("-" if r["pair_elo"] is None else
                                   f"{r['pair_elo']:+.0f} [{r['pair_elo_ci95'][0]:+.0f}, "
                                   f"{r['pair_elo_ci95'][1]:+.0f}]")
            + f" | {r['chance']} | {r['seconds_per_move_strong']:.3f} | {r['seconds_per_move_weak']:.3f} "
            f"| `{r['folder']}` |")
    missing = [n for n in DEFAULT_NS if n not in {r["n"] for r in found}]
    if missing:
        lines += ["", "Not run yet: N = " + ", ".join(map(str, missing))
                  + " (the issue asks for N = 250 ... 16000, at least 200 games each)."]
    cost = cost_estimate(found)
    if cost is not None and cost["core_hours"] > 0:
        lines += ["", f"What the rest would cost (every N to {cost['games']} games), "
                  f"extrapolated from the matches above: "
                  f"{cost['seconds_per_iteration'] * 1e3:.3f} ms per iteration of a move's "
                  f"budget (the median over the bots measured of s/move / iterations) and "
                  f"{cost['moves_per_game']:.0f} moves per game: about "
                  f"**{cost['core_hours']:.0f} core-hours** in all, of which N = "
                  + ", ".join(f"{n}: {sec / 3600:.1f} h" for n, sec
                              in cost["core_seconds_by_n"].items() if sec > 0)
                  + ". (Larger trees make an iteration dearer, so the large N are, if "
                  "anything, underestimated.)"]
    md.parent.mkdir(parents=True, exist_ok=True)
    md.write_text("\n".join(lines) + "\n")

    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(6.4, 4.0))
    if found:
        xs = [r["n"] for r in found]
        ys = [r["elo"] for r in found]
        err = [[r["elo"] - r["elo_ci95"][0] for r in found],
               [r["elo_ci95"][1] - r["elo"] for r in found]]
        ax.errorbar(xs, ys, yerr=err, fmt="o-", capsize=4)
        for r in found:
            ax.annotate(f"{r['games']} games", (r["n"], r["elo"]), textcoords="offset points",
                        xytext=(6, 6), fontsize=8)
    ax.axhline(0, color="grey", lw=0.8)
    ax.set_xscale("log", base=2)
    ax.set_xlabel("N (iterations per move of the weaker bot)")
    ax.set_ylabel("Elo of 2N over N (95% interval)")
    ax.set_title("ISMCTS: Elo per doubling of the iterations")
    fig.tight_layout()
    fig.savefig(png, dpi=110)
    plt.close(fig)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ns", default=",".join(map(str, DEFAULT_NS)),
                    help="the N to play, comma-separated (default 250 ... 16000)")
    ap.add_argument("--games", type=int, default=200, help="games per match (even; default 200)")
    ap.add_argument("--jobs", type=int, default=1, help="worker processes (default 1)")
    ap.add_argument("--seed", type=int, default=0, help="tournament seed (default 0)")
    ap.add_argument("--out", default=str(ROOT / "results/tournaments/scaling"),
                    help="folder of the match folders")
    ap.add_argument("--report", default=str(ROOT / "results/scaling.md"))
    ap.add_argument("--png", default=str(ROOT / "results/scaling.png"))
    ap.add_argument("--report-only", action="store_true", help="play nothing, rewrite the report")
    args = ap.parse_args(argv)
    try:
        ns = [int(x) for x in args.ns.split(",") if x.strip()]
    except ValueError:
        print(f"--ns: expected whole numbers separated by commas, got {args.ns!r}", file=sys.stderr)
        return 2
    if not ns or min(ns) < 1:
        print("--ns: expected positive whole numbers", file=sys.stderr)
        return 2
    out = Path(args.out)
    command = "python benchmarks/scaling.py " + " ".join(argv if argv is not None else sys.argv[1:])
    if args.report_only:  # the report names the run that played the matches
        command = last_command(Path(args.report)) or command
    if not args.report_only:
        for n in ns:
            t0 = time.time()
            summary = tournament.run(specs(n), fmt="round-robin", games=args.games,
                                     jobs=args.jobs, seed=args.seed, out=str(folder(out, n)),
                                     echo=lambda msg: None)
            print(f"N={n}: {summary['games']} games in {time.time() - t0:.0f} s", flush=True)
    found = rows(out)
    write_report(found, Path(args.report), Path(args.png), command)
    for r in found:
        print(f"N={r['n']}: 2N scores {r['score']:.3f} over {r['games']} games, "
              f"{r['elo']:+.0f} Elo [{r['elo_ci95'][0]:+.0f}, {r['elo_ci95'][1]:+.0f}]")
    print(f"wrote {args.report} and {args.png}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

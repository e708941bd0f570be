"""The reference tournament and the balance report.

    python benchmarks/reference_tournament.py --jobs 2

plays the reference bots at equal time per move (``--time``, default
0.02 s) in a few two-bot tournaments, each into a subfolder of
``results/tournaments/reference/``, sized for a 95% interval of about +-5%
on the pairings that have a target; then the strongest bot (by the combined
Elo) plays itself (``self-play``, a new deal every game) for the balance of
the sides, and every other bot with a calibration target plays itself too
(``oos-self-play``): a bot's value estimate is its win chance when both
sides play as it does, so its calibration target is measured on its
self-play games.  Against other opponents the same estimates are too low
(a weaker opponent) or too high (a stronger one); the report lists the
calibration against each opponent and over all games as well.  It writes the combined standings (``reference/standings.md``,
``summary.json``, ``ratings.png``, ``calibration.png``) and the balance
report ``results/tournaments/balance.md`` and ``balance.json``: each side's
win rate in self-play with its 95% interval, and every target with its
measured value, interval and pass/fail, all computed from the games.

The run time is estimated and printed before anything is played
(``--dry-run`` stops there).  Repeating the command continues an interrupted
run.  ``--scale`` multiplies every game count (e.g. 0.01 for a quick check
of the pipeline, into another ``--out`` and ``--report-dir``).
"""

from __future__ import annotations

import argparse
import csv
import json
import math
import sys
from pathlib import Path
from typing import Any, Sequence

from apps.tournament import BACKENDS, progress_for, run
from apps.tournament.report import ci_text, pct, standings_md, write_figures
from apps.tournament.stats import Z95, analyse, calibration, head_to_head, side_balance
from apps.tournament.store import read_games, write_atomic
from bots import parse_spec
from solver.errors import ParameterError, WildhornError
from solver.vocabulary import SIDES

ROOT = Path(__file__).resolve().parents[1]
TIME_PER_MOVE = 0.02            # seconds per decision for every searching bot
HALF_WIDTH = 0.05               # +-5% 95% intervals on the target pairings
DECISIONS_PER_GAME = 178        # about 89 per bot (measured on ismcts games)
CONTEXT_GAMES = 40              # pairings without a target: ratings only
OOS_VS_ISMCTS_GAMES = 400       # the online CFR bot against ISMCTS: issue 4 asks for >= 400 games
CALIBRATION_GAMES = 200         # self-play of a calibrated bot that is not the strongest

# role -> spec template (``{t:g}``: the time per move)
BOT_TEMPLATES = {
    "ismcts": "ismcts:time={t:g}",
    "oos": "oos:time={t:g}",
    "heuristic": "heuristic",
    "random": "random",
    "openspiel-ismcts": "openspiel-ismcts:time={t:g}",
}

# the targets, by role; score: the first bot's share of the games between
# the two; ece: the bot's expected calibration error over its self-play games
TARGETS = [
    {"name": "ismcts-beats-openspiel-ismcts", "kind": "score", "first": "ismcts",
     "second": "openspiel-ismcts", "min": 0.80},
    {"name": "ismcts-beats-heuristic", "kind": "score", "first": "ismcts",
     "second": "heuristic", "min": 0.75},
    {"name": "heuristic-beats-random", "kind": "score", "first": "heuristic",
     "second": "random", "min": 0.90},
    {"name": "ismcts-calibrated", "kind": "ece", "bot": "ismcts", "max": 0.05},
    {"name": "oos-calibrated", "kind": "ece", "bot": "oos", "max": 0.05},
]

# (stage folder, first role, second role, games; None: sized by the target)
PAIRINGS = [
    ("ismcts-vs-openspiel-ismcts", "ismcts", "openspiel-ismcts", None),
    ("ismcts-vs-heuristic", "ismcts", "heuristic", None),
    ("heuristic-vs-random", "heuristic", "random", None),
    ("openspiel-ismcts-vs-heuristic", "openspiel-ismcts", "heuristic", CONTEXT_GAMES),
    ("oos-vs-ismcts", "oos", "ismcts", OOS_VS_ISMCTS_GAMES),
    ("oos-vs-heuristic", "oos", "heuristic", CONTEXT_GAMES),
]
SELF_PLAY = "self-play"
CALIBRATED = [t["bot"] for t in TARGETS if t["kind"] == "ece"]   # roles with an ECE target


def calibration_stage(role: str) -> str:
    """The self-play stage of a calibrated bot that is not the strongest."""
    return f"{role}-{SELF_PLAY}"


def is_self_play(stage: str) -> bool:
    return stage == SELF_PLAY or stage.endswith("-" + SELF_PLAY)


def bots_for(t: float = TIME_PER_MOVE) -> dict[str, str]:
    """role -> spec of the reference bots at ``t`` seconds per move."""
    return {role: template.format(t=t) for role, template in BOT_TEMPLATES.items()}


BOTS = bots_for()   # the reference bots at the default time per move


def games_for_half_width(p: float, half_width: float = HALF_WIDTH) -> int:
    """Games for a 95% interval of +-half_width around a rate p (normal
    approximation), rounded up to even (each deal is played twice)."""
    n = math.ceil(Z95 ** 2 * p * (1 - p) / half_width ** 2)
    return n + n % 2


def plan(bots: dict[str, str], scale: float = 1.0) -> list[dict[str, Any]]:
    """The stages: two-bot tournaments (their games) then the self-play."""
    stages = []
    for name, a, b, games in PAIRINGS:
        if a not in bots or b not in bots:
            continue
        # sized for the worst case (a rate of 50%), so the interval is +-5%
        # whatever the outcome, not only if the rate sits at the threshold
        full = games if games is not None else games_for_half_width(0.5)
        n = max(2, math.ceil(full * scale))
        stages.append({"name": name, "bots": [bots[a], bots[b]], "format": "round-robin",
                       "games": n + n % 2, "target": games is None})
    stages.append({"name": SELF_PLAY, "bots": None, "format": "self-play",
                   "games": max(1, math.ceil(games_for_half_width(0.5) * scale)),
                   "target": True})
    # played only by a calibrated bot that is not the strongest (which plays self-play)
    for role in CALIBRATED:
        if role in bots:
            stages.append({"name": calibration_stage(role), "bots": [bots[role]],
                           "format": "self-play", "role": role,
                           "games": max(1, math.ceil(CALIBRATION_GAMES * scale)),
                           "target": True})
    return stages


def seconds_per_decision(spec: str) -> float:
    """A rough cost model: the time budget of a searching bot (plus 5% for
    its last iteration and the engine), next to nothing for the others."""
    name, options = parse_spec(spec)
    if "time" in options:
        return 1.05 * options["time"]
    return {"heuristic": 2e-4, "random": 5e-5}.get(name, 0.05)


def estimate_seconds(stages: Sequence[dict[str, Any]], bots: dict[str, str], jobs: int) -> float:
    """Wall time at ``jobs`` parallel games; self-play is costed with the
    slowest reference bot (the strongest is not known before the games)."""
    slowest = max(seconds_per_decision(s) for s in bots.values())
    total = 0.0
    for st in stages:
        per_bot = ([seconds_per_decision(s) for s in st["bots"]] if st["bots"]
                   else [slowest, slowest])
        if len(per_bot) == 1:          # self-play: the bot takes both seats
            per_bot *= 2
        total += st["games"] * (DECISIONS_PER_GAME / 2 * sum(per_bot) + 0.01)
    return total / jobs


# ---- reading the games back and the report --------------------------------------

def read_stage(folder: Path, index: int) -> tuple[list[dict[str, Any]], list[dict[str, str]]]:
    """A stage's games (its pairing renumbered to ``index`` so that deals of
    different stages stay apart in the bootstrap) and its value rows."""
    rows = read_games(folder)
    for r in rows:
        r["pairing"] = index
    values = []
    if (folder / "values.csv").exists():
        with open(folder / "values.csv", newline="") as f:
            values = list(csv.DictReader(f))
    return rows, values


def strongest(bots: Sequence[str], rows: Sequence[dict[str, Any]], seed: int) -> str:
    summary = analyse(list(bots), rows, seed)
    return max(bots, key=lambda b: (summary["bots"][b]["elo"], b))


def check_targets(bots: dict[str, str], rows: Sequence[dict[str, Any]],
                  values: Sequence[dict[str, str]]) -> list[dict[str, Any]]:
    """Each target measured on the games: value, 95% interval (scores),
    pass (None when a bot is missing or nothing was played) and decided
    (the interval lies wholly on one side of the threshold)."""
    out = []
    for t in TARGETS:
        res: dict[str, Any] = {"name": t["name"], "kind": t["kind"]}
        if t["kind"] == "score":
            res["threshold"] = {"min": t["min"]}
            if t["first"] not in bots or t["second"] not in bots:
                res.update(status="not run", value=None, ci95=None, games=0, passed=None,
                           decided=None)
                out.append(res)
                continue
            h = head_to_head(rows, bots[t["first"]], bots[t["second"]])
            res.update(first=h["first"], second=h["second"], games=h["games"],
                       wins=h["first_wins"], value=h["first_win_rate"], ci95=h["ci95"])
            if h["games"]:
                res["passed"] = h["first_win_rate"] >= t["min"]
                res["decided"] = h["ci95"][0] >= t["min"] or h["ci95"][1] < t["min"]
            else:
                res.update(passed=None, decided=None)
        else:
            res["threshold"] = {"max": t["max"]}
            if t["bot"] not in bots:
                res.update(status="not run", value=None, estimates=0, passed=None)
                out.append(res)
                continue
            spec = bots[t["bot"]]
            mine = [v for v in values if v["bot"] == spec and is_self_play(v.get("stage", ""))]
            cal = calibration([float(v["value"]) for v in mine], [int(v["won"]) for v in mine])
            res.update(bot=spec, value=cal["ece"], brier=cal["brier"],
                       estimates=cal["estimates"],
                       games=len({v["game"] + "/" + v.get("stage", "") for v in mine}),
                       passed=None if cal["ece"] is None else cal["ece"] <= t["max"])
        res["status"] = {True: "pass", False: "fail", None: "no games"}[res["passed"]]
        out.append(res)
    return out


def balance(bots: dict[str, str], stage_rows: dict[str, list[dict[str, Any]]],
            stage_values: dict[str, list[dict[str, str]]], self_play_bot: str | None,
            time_per_move: float) -> dict[str, Any]:
    """The balance report's content from the games of every stage."""
    rows = [r for rs in stage_rows.values() for r in rs]
    values = [dict(v, stage=name) for name, vs in stage_values.items() for v in vs]
    sp = stage_rows.get(SELF_PLAY, [])
    targets = check_targets(bots, rows, values)
    decided = [t["passed"] for t in targets if t["passed"] is not None]
    return {"time_per_move": time_per_move, "bots": bots,
            "games": {name: len(rs) for name, rs in stage_rows.items()},
            "self_play": {"bot": self_play_bot, **side_balance(sp)},
            "calibration": calibration_by_opponent(bots, stage_rows, stage_values),
            "targets": targets,
            "all_passed": bool(decided) and all(decided),
            "targets_not_run": [t["name"] for t in targets if t["passed"] is None]}


def calibration_by_opponent(bots: dict[str, str], stage_rows: dict[str, list[dict[str, Any]]],
                            stage_values: dict[str, list[dict[str, str]]]) -> list[dict[str, Any]]:
    """For each bot with a calibration target: its ECE and Brier score
    against each opponent (``itself`` in self-play) and over all its games."""
    out = []
    for role in CALIBRATED:
        if role not in bots:
            continue
        spec = bots[role]
        pooled: list[dict[str, str]] = []
        for name, vs in stage_values.items():
            mine = [v for v in vs if v["bot"] == spec]
            if not mine:
                continue
            pooled += mine
            if is_self_play(name):
                opponent = "itself"
            else:
                rs = stage_rows.get(name, [])
                others = {r[k] for r in rs for k in SIDES} - {spec}
                opponent = ", ".join(sorted(others)) or "?"
            cal = calibration([float(v["value"]) for v in mine], [int(v["won"]) for v in mine])
            out.append({"bot": spec, "stage": name, "opponent": opponent, "ece": cal["ece"],
                        "brier": cal["brier"], "estimates": cal["estimates"]})
        if pooled:
            cal = calibration([float(v["value"]) for v in pooled],
                                [int(v["won"]) for v in pooled])
            out.append({"bot": spec, "stage": "all", "opponent": "all games", "ece": cal["ece"],
                        "brier": cal["brier"], "estimates": cal["estimates"]})
    return out


def balance_md(report: dict[str, Any]) -> str:
    sp = report["self_play"]
    lines = ["# Balance report", "",
             f"Reference tournament at {report['time_per_move']:g} s per move "
             f"(`python benchmarks/reference_tournament.py`); every number below is computed "
             f"from its games (`results/tournaments/reference/`). Intervals are 95% Wilson "
             f"score intervals.", "",
             f"## The sides (self-play of `{sp['bot']}`, {sp['games']} games)", "",
             "| Side | Wins | Win rate | 95% interval |", "|---|---|---|---|",
             f"| Polish | {sp['polish_wins']} | {pct(sp['polish_win_rate'])} | "
             f"{ci_text(sp['polish_ci95'])} |",
             f"| German | {sp['german_wins']} | {pct(sp['german_win_rate'])} | "
             f"{ci_text(sp['german_ci95'])} |", "",
             "## Targets", "",
             "| Target | Measured | 95% interval | Threshold | Games | Result |",
             "|---|---|---|---|---|---|"]
    for t in report["targets"]:
        if t["kind"] == "score":
            thr = f">= {pct(t['threshold']['min'])}"
            measured, ci = pct(t["value"]), ci_text(t["ci95"])
        else:
            thr = f"ECE <= {t['threshold']['max']:.3f} (self-play)"
            measured = "-" if t["value"] is None else f"ECE {t['value']:.3f}"
            ci = f"{t['estimates']} estimates"
        result = t["status"].upper() if t["status"] in ("pass", "fail") else t["status"]
        if t["kind"] == "score" and t["passed"] is not None and not t["decided"]:
            result += " (interval spans the threshold)"
        lines.append(f"| {t['name']} | {measured} | {ci} | {thr} | {t.get('games', 0)} | "
                     f"{result} |")
    if report.get("calibration"):
        lines += ["", "## Calibration of the value estimates, by opponent", "",
                  "A bot's estimate is its win chance when both sides play as it does: the "
                  "target is measured in its self-play games (`itself`). Against a weaker "
                  "opponent the estimates are too low, against a stronger one too high.", "",
                  "| Bot | Opponent | Estimates | Brier | ECE |", "|---|---|---|---|---|"]
        for c in report["calibration"]:
            lines.append(f"| `{c['bot']}` | {c['opponent']} | {c['estimates']} | "
                         f"{c['brier']:.3f} | {c['ece']:.3f} |")
    verdict = "all measured targets pass" if report["all_passed"] else \
        "some targets fail or were not measured"
    lines += ["", f"Overall: {verdict}."]
    if report["targets_not_run"]:
        lines.append(f"Not measured (bot missing or no games): "
                     f"{', '.join(report['targets_not_run'])}.")
    return "\n".join(lines) + "\n"


def write_report(report_dir: Path, ref_dir: Path, bots: dict[str, str],
                 stages: Sequence[dict[str, Any]], self_play_bot: str | None, seed: int,
                 time_per_move: float) -> dict[str, Any]:
    """Combined standings in ref_dir and balance.md/json in report_dir."""
    stage_rows, stage_values = {}, {}
    for i, st in enumerate(stages):
        folder = ref_dir / st["name"]
        if (folder / "games.csv").exists():
            stage_rows[st["name"]], stage_values[st["name"]] = read_stage(folder, i)
    pair_rows = [r for name, rs in stage_rows.items() if not is_self_play(name) for r in rs]
    pair_values = [v for name, vs in stage_values.items() if not is_self_play(name) for v in vs]
    specs = [s for s in bots.values() if any(s in (r["polish"], r["german"]) for r in pair_rows)]
    if len(specs) >= 2:
        params = {"bots": specs, "format": "reference, combined", "seed": seed,
                  "games": len(pair_rows)}
        summary = {"parameters": params, **analyse(specs, pair_rows, seed, pair_values)}
        write_atomic(ref_dir / "summary.json", json.dumps(summary, indent=2) + "\n")
        figures = write_figures(ref_dir, params, summary)
        write_atomic(ref_dir / "standings.md", standings_md(params, summary, figures))
    report = balance(bots, stage_rows, stage_values, self_play_bot, time_per_move)
    report_dir.mkdir(parents=True, exist_ok=True)
    write_atomic(report_dir / "balance.json", json.dumps(report, indent=2) + "\n")
    write_atomic(report_dir / "balance.md", balance_md(report))
    return report


# ---- the command --------------------------------------------------------------------

def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--time", type=float, default=TIME_PER_MOVE,
                    help=f"seconds per move of every searching bot (default {TIME_PER_MOVE})")
    ap.add_argument("--jobs", type=int, default=2, help="games in parallel (default 2)")
    ap.add_argument("--seed", type=int, default=0, help="tournament seed (default 0)")
    ap.add_argument("--scale", type=float, default=1.0,
                    help="multiply every game count (default 1; 0.01 checks the pipeline)")
    ap.add_argument("--out", default=str(ROOT / "results/tournaments/reference"),
                    help="folder of the stages (default results/tournaments/reference)")
    ap.add_argument("--report-dir", default=str(ROOT / "results/tournaments"),
                    help="folder of balance.md and balance.json (default results/tournaments)")
    ap.add_argument("--backend", choices=BACKENDS, default="local",
                    help="local processes or ray (see wildhorn-solve tournament --help)")
    ap.add_argument("--address", help="Ray address (with --backend ray)")
    ap.add_argument("--dry-run", action="store_true",
                    help="print the plan and the estimated time, play nothing")
    args = ap.parse_args(argv)
    try:
        return _main(args)
    except WildhornError as err:
        print(f"reference_tournament: error: {err}", file=sys.stderr)
        return 2
    except OSError as err:
        print(f"reference_tournament: error: {err.strerror or err} "
              f"({getattr(err, 'filename', '')})", file=sys.stderr)
        return 2


def _main(args: argparse.Namespace) -> int:
    if not args.time > 0:
        raise ParameterError(f"--time: expected a positive number of seconds, got {args.time}")
    if not args.scale > 0:
        raise ParameterError(f"--scale: expected a positive factor, got {args.scale}")
    if args.jobs <= 0:
        raise ParameterError(f"--jobs: expected a positive number, got {args.jobs}")
    bots = bots_for(args.time)
    stages = plan(bots, args.scale)
    est = estimate_seconds(stages, bots, args.jobs)
    print(f"Reference tournament at {args.time:g} s per move; bots: "
          f"{', '.join(bots.values())}")
    for st in stages:
        if st["name"] == SELF_PLAY:
            who = "the strongest bot against itself"
        elif "role" in st:
            who = f"{st['bots'][0]} against itself, unless it is the strongest"
        else:
            who = " vs ".join(st["bots"])
        print(f"  {st['name']}: {st['games']} games, {who}")
    when = f"{est / 60:.0f} minutes" if est >= 120 else f"{est:.0f} seconds"
    print(f"Estimated run time: about {when} at --jobs {args.jobs} "
          f"({DECISIONS_PER_GAME} decisions a game)", flush=True)
    if args.dry_run:
        return 0
    ref = Path(args.out)
    rows: list[dict[str, Any]] = []
    pairings = [st for st in stages if not is_self_play(st["name"])]
    for i, st in enumerate(pairings):
        print(f"\n== {st['name']} ==", flush=True)
        run(st["bots"], fmt="round-robin", games=st["games"], jobs=args.jobs, seed=args.seed,
              out=str(ref / st["name"]), progress=progress_for(sys.stdout),
              backend=args.backend, address=args.address)
        rows += read_stage(ref / st["name"], i)[0]
    played = [s for s in bots.values() if any(s in (r["polish"], r["german"]) for r in rows)]
    best = strongest(played, rows, args.seed)
    sp = next(st for st in stages if st["name"] == SELF_PLAY)
    print(f"\n== {SELF_PLAY}: {best} (the highest Elo) ==", flush=True)
    run([best], fmt="self-play", games=sp["games"], jobs=args.jobs, seed=args.seed,
          out=str(ref / SELF_PLAY), progress=progress_for(sys.stdout), backend=args.backend,
          address=args.address)
    for st in stages:
        if "role" in st and st["bots"][0] != best:
            print(f"\n== {st['name']}: {st['bots'][0]} (its calibration) ==", flush=True)
            run(st["bots"], fmt="self-play", games=st["games"], jobs=args.jobs,
                  seed=args.seed, out=str(ref / st["name"]),
                  progress=progress_for(sys.stdout), backend=args.backend,
                  address=args.address)
    report = write_report(Path(args.report_dir), ref, bots, stages, best, args.seed, args.time)
    print()
    print(balance_md(report), end="")
    print(f"(written to {Path(args.report_dir) / 'balance.md'} and balance.json; "
          f"standings in {ref / 'standings.md'})")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""How much variance does the luck adjustment take out of a match, and does it
stay unbiased?

    python benchmarks/luck_variance.py --jobs 2
    python benchmarks/luck_variance.py --bots "ismcts:iterations=200;ismcts:iterations=100" \
        --games 400 --mirror ismcts:iterations=100 --mirror-games 400 --jobs 2
    python benchmarks/luck_variance.py --match FOLDER --mirror-games 0

Two tournaments played with ``--luck`` (``apps.tournament.luck``: each game's
result minus its luck, measured at every chance event by the tournament's
frozen value function), each in a folder under ``--out`` and resumed by the
same command like any tournament (a folder refuses another value function):

* ``match/``: ``--bots`` on seat-swapped deals (or ``--match``: an existing
  tournament folder played with ``--luck``, read and not played).  Its
  figures: for each head to head, the raw and luck-adjusted scores by deal
  pair with their 95% intervals, and the **variance ratio**, adjusted
  pair-score variance over raw (the share of games the adjusted score needs
  for the raw score's precision), with a bootstrap interval over pairs.
* ``mirror/``: the **self-play check**, ``--mirror`` against itself
  (``--format self-play``: one bot on both sides, a new deal every game).
  Consecutive games ``2k-1, 2k`` make a mirror pair in which "A" plays Polish
  in the first and German in the second: A is the same bot as its opponent,
  so its score is 50% in expectation, raw or adjusted; the check passes when
  the adjusted score's 95% interval holds 50% and the mean luck per game's
  holds 0 (in both folders).  A tournament cannot pair a bot with itself on
  a seat-swapped deal: the two games would be the same game, since a seat's
  bot seed follows the seat, which makes every mirror pair score exactly 1.

Seeded (``--seed``): the same command gives the same games and figures.
Writes ``--json`` (default ``results/luck-variance.json``) with the value
function's identity, the figures and the commands.  The SPRT of a
tournament stays on raw pair scores; see docs/tournaments.md.
"""
from __future__ import annotations

import argparse
import json
import shlex
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from apps import tournament as T  # noqa: E402
from apps.tournament import store  # noqa: E402
from apps.tournament.luck import LUCK_FIELD  # noqa: E402
from apps.tournament.scheduling import derive  # noqa: E402
from apps.tournament.stats import luck_adjusted, luck_check, luck_summary  # noqa: E402
from solver.errors import ParameterError, WildhornError  # noqa: E402

DEFAULT_BOTS = "ismcts:iterations=200;ismcts:iterations=100"
DEFAULT_MIRROR = "ismcts:iterations=100"


def mirror_pairs(rows: list[dict]) -> list[tuple[float, float]]:
    """(raw, adjusted) score of "A" over each mirror pair of a self-play
    tournament's games (games 2k-1 and 2k, in game order; an odd last game is
    left out): A plays Polish in the first game and German in the second."""
    rows = sorted(rows, key=lambda r: r["game"])
    out = []
    for first, second in zip(rows[0::2], rows[1::2]):
        won1 = float(first["winner_side"] == "polish")
        won2 = float(second["winner_side"] == "german")
        luck1, luck2 = float(first[LUCK_FIELD]), float(second[LUCK_FIELD])
        out.append((won1 + won2, (won1 - luck1) + (won2 + luck2)))
    return out


def _inside(ci, x: float) -> bool | None:
    return None if ci is None else ci[0] <= x <= ci[1]


def self_play_check(rows: list[dict], seed: int) -> dict:
    """The self-play check of a self-play tournament played with --luck."""
    pairs = mirror_pairs(rows)
    mirror = luck_adjusted(pairs, derive("luck-mirror", seed) % 2**32) if pairs else None
    check = luck_check(rows)
    out = {"games": len(rows), "luck_polish": check, "mirror": mirror}
    out["passes"] = bool(mirror and _inside(mirror["score_ci95"], 0.5)
                         and check["zero_inside"])
    return out


def read_match(folder: Path) -> tuple[dict, list[dict]]:
    """(parameters, rows) of a tournament folder played with --luck."""
    try:
        params = json.loads((folder / "tournament.json").read_text())
    except (OSError, ValueError):
        params = None
    if not isinstance(params, dict) or not params.get("luck"):
        raise ParameterError(f"--match: {folder} is not a tournament played with --luck "
                             f"(no tournament.json recording a value function)")
    return params, store.read_games(folder, luck=True)


def play(out: Path, bots: list[str], fmt: str, games: int, seed: int,
         jobs: int) -> tuple[dict, list[dict]]:
    """Play (or resume) a tournament with --luck; (parameters, rows)."""
    T.run(bots, fmt=fmt, games=games, jobs=jobs, seed=seed, out=str(out), luck=True,
          progress=T.LineProgress(print))
    params = json.loads((out / "tournament.json").read_text())
    return params, store.read_games(out, luck=True)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bots", default=DEFAULT_BOTS,
                    help=f"the match's bots, separated by ';' (default {DEFAULT_BOTS!r})")
    ap.add_argument("--games", type=int, default=400,
                    help="games per pairing of the match (even; default 400)")
    ap.add_argument("--match", metavar="FOLDER",
                    help="read this tournament folder (played with --luck) instead of "
                         "playing --bots")
    ap.add_argument("--mirror", default=DEFAULT_MIRROR,
                    help=f"the bot of the self-play check (default {DEFAULT_MIRROR!r})")
    ap.add_argument("--mirror-games", type=int, default=400,
                    help="games of the self-play check (0: none; default 400)")
    ap.add_argument("--jobs", type=int, default=1, help="worker processes (default 1)")
    ap.add_argument("--seed", type=int, default=0, help="tournament seed (default 0)")
    ap.add_argument("--out", default=str(ROOT / "results/tournaments/luck-variance"),
                    help="folder of the two tournaments (match/, mirror/); the same "
                         "command continues them")
    ap.add_argument("--json", default=str(ROOT / "results/luck-variance.json"),
                    help="the figures (default results/luck-variance.json)")
    args = ap.parse_args(argv)
    if args.mirror_games < 0 or args.mirror_games == 1:
        print("--mirror-games: expected 0 or at least 2", file=sys.stderr)
        return 2
    out = Path(args.out)
    t0 = time.time()
    result: dict = {"command": "python benchmarks/luck_variance.py " + shlex.join(
        argv if argv is not None else sys.argv[1:])}
    try:
        if args.match:
            params, rows = read_match(Path(args.match))
        else:
            bots = [b.strip() for b in args.bots.split(";") if b.strip()]
            params, rows = play(out / "match", bots, "round-robin", args.games, args.seed,
                                args.jobs)
        block = luck_summary(params["bots"], params["format"], rows, params["seed"],
                             params["luck"])
        result["value"] = params["luck"]
        result["match"] = {"folder": str(args.match or out / "match"), "bots": params["bots"],
                           "format": params["format"], "games": len(rows),
                           "chance": params.get("chance"), **block}
        if args.mirror_games:
            mparams, mrows = play(out / "mirror", [args.mirror], "self-play",
                                  args.mirror_games, args.seed, args.jobs)
            if mparams["luck"] != params["luck"]:
                print(f"note: the match and the mirror used other value functions "
                      f"({params['luck']} and {mparams['luck']})", file=sys.stderr)
            result["self_play_check"] = {"bot": args.mirror, "folder": str(out / "mirror"),
                                         "value": mparams["luck"],
                                         **self_play_check(mrows, args.seed)}
    except WildhornError as err:
        print(f"luck_variance: {err}", file=sys.stderr)
        return 2
    result["match_luck_zero_inside"] = result["match"]["luck_polish"]["zero_inside"]
    result["seconds"] = round(time.time() - t0, 1)
    for h in result["match"].get("head_to_head", []):
        print(f"{h['first']} vs {h['second']}: {h['pairs']} pairs, raw score "
              f"{h['raw_score']:.3f}, adjusted {h['score']:.3f} {h['score_ci95']}, "
              f"variance ratio {h['variance_ratio']} {h['variance_ratio_ci95']}")
    if "self_play_check" in result:
        c = result["self_play_check"]
        m = c["mirror"] or {}
        print(f"self-play check ({c['bot']}, {c['games']} games): mirror adjusted score "
              f"{m.get('score')} {m.get('score_ci95')}, mean luck "
              f"{c['luck_polish']['mean']} {c['luck_polish']['ci95']}: "
              f"{'passes' if c['passes'] else 'FAILS'}")
    path = Path(args.json)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(result, indent=2) + "\n")
    print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Bot-vs-bot tournaments: paired games, ratings, SPRT, resume.

``wildhorn-solve tournament`` (see ``solver.cli``) calls :func:`run`.

* Every deal (one chance seed) is played twice with the sides swapped, on the
  same chance seed, so each pairing plays each side equally on the same luck
  (as cutechess-cli's ``-repeat``).  ``--games`` is the number of games per
  pairing and must be even.
* Pairings: ``round-robin`` (every pair of bots) or ``gauntlet`` (the first
  bot against each other one).
* Game ids run deal by deal over the pairings; a game's seeds derive from the
  tournament seed, the pairing and the deal only, and results are written in
  game-id order, so ``games.csv`` does not depend on ``--jobs``.
* Output folder: ``tournament.json`` (the parameters, written at the start),
  ``games.csv`` (a row per game, appended with one ``os.write`` and an fsync),
  ``values.csv`` (each bot's win-probability estimate at each of its moves,
  when the bot reports one), ``summary.json`` and ``standings.md``.
* Resume: the same command on the same folder skips the finished games.
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
import math
import os
import random
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable, Sequence

import numpy as np

from solver.errors import ParameterError

ELO_PER_NAT = 400 / math.log(10)
SIDES = ("Polish", "German")
GAME_FIELDS = ["game", "pairing", "deal", "deal_seed", "polish", "german", "winner_side",
               "winner", "fragments_polish", "fragments_german", "moves",
               "seconds_per_move_polish", "seconds_per_move_german"]
VALUE_FIELDS = ["game", "bot", "side", "move", "value", "won"]
BOOTSTRAP_SAMPLES = 1000


# ---- schedule ---------------------------------------------------------------

def _derive(*parts: Any) -> int:
    """A 63-bit seed from its parts (stable across runs and platforms)."""
    text = ":".join(str(p) for p in parts).encode()
    return int.from_bytes(hashlib.sha256(text).digest()[:8], "big") >> 1


def pairings(n_bots: int, fmt: str) -> list[tuple[int, int]]:
    """Bot index pairs: all pairs for round-robin, (0, k) for gauntlet."""
    if fmt == "round-robin":
        return [(i, j) for i in range(n_bots) for j in range(i + 1, n_bots)]
    if fmt == "gauntlet":
        return [(0, k) for k in range(1, n_bots)]
    raise ParameterError(f"--format: expected round-robin or gauntlet, got {fmt!r}")


@dataclass(frozen=True)
class GameTask:
    game: int          # 1-based game id
    pairing: int       # index into the pairing list
    deal: int          # deal number within the pairing
    deal_seed: int     # chance seed (shared by the two games of a deal)
    polish: str        # bot spec playing Polish
    german: str        # bot spec playing German
    first: str         # the pairing's first bot (for the score line)
    second: str


def schedule(bots: Sequence[str], fmt: str, games: int, seed: int) -> list[GameTask]:
    """All games in id order: deal by deal, pairing by pairing, the pairing's
    first bot Polish then German on the same deal seed."""
    pairs = pairings(len(bots), fmt)
    tasks = []
    for deal in range(games // 2):
        for k, (i, j) in enumerate(pairs):
            deal_seed = _derive("deal", seed, bots[i], bots[j], deal)
            for swap in (0, 1):
                polish, german = (bots[i], bots[j]) if swap == 0 else (bots[j], bots[i])
                tasks.append(GameTask(len(tasks) + 1, k, deal, deal_seed, polish, german,
                                      bots[i], bots[j]))
    return tasks


# ---- one game (runs in a worker process) --------------------------------------

_GAME = None


def play_game(task: GameTask) -> dict[str, Any]:
    """Play one game; the chance outcomes come from random.Random(deal_seed)."""
    global _GAME
    import pyspiel

    import solver  # noqa: F401  (registers the game)
    from bots import make_bot

    if _GAME is None:
        _GAME = pyspiel.load_game("wildhorn")
    specs = (task.polish, task.german)
    bots = [make_bot(specs[p], p, _derive("bot", task.deal_seed, p)) for p in (0, 1)]
    rng = random.Random(task.deal_seed)
    state = _GAME.new_initial_state()
    seconds, moves, values = [0.0, 0.0], [0, 0], []
    while not state.is_terminal():
        if state.is_chance_node():
            actions, probs = zip(*state.chance_outcomes())
            state.apply_action(rng.choices(actions, probs)[0])
            continue
        player = state.current_player()
        t0 = time.perf_counter()
        result = bots[player].analyse(state)
        seconds[player] += time.perf_counter() - t0
        moves[player] += 1
        if result.get("value") is not None:
            values.append((player, moves[0] + moves[1], float(result["value"][player])))
        state.apply_action(result["action"])
    winner = 0 if state.returns()[0] > 0 else 1
    frags = state.core.scores()
    row = {"game": task.game, "pairing": task.pairing, "deal": task.deal,
           "deal_seed": task.deal_seed, "polish": task.polish, "german": task.german,
           "winner_side": SIDES[winner].lower(), "winner": specs[winner],
           "fragments_polish": frags[0], "fragments_german": frags[1],
           "moves": moves[0] + moves[1],
           "seconds_per_move_polish": round(seconds[0] / max(moves[0], 1), 6),
           "seconds_per_move_german": round(seconds[1] / max(moves[1], 1), 6)}
    value_rows = [{"game": task.game, "bot": specs[p], "side": SIDES[p].lower(), "move": m,
                   "value": round(v, 6), "won": int(p == winner)} for p, m, v in values]
    return {"row": row, "values": value_rows}


# ---- ratings ---------------------------------------------------------------------

def bradley_terry(wins: np.ndarray, iterations: int = 100) -> np.ndarray:
    """Elo ratings (mean 0) maximising the Bradley-Terry likelihood of the
    win matrix ``wins[i, j]`` (games i won against j), by Newton's method.
    The maximum is finite only when every bot has a chain of wins to every
    other it is connected to; otherwise callers add a prior (see ratings)."""
    n = len(wins)
    games = wins + wins.T
    r = np.zeros(n)
    for _ in range(iterations):
        p = 1 / (1 + np.exp(r[None, :] - r[:, None]))          # p[i, j] = P(i beats j)
        grad = (wins - games * p).sum(axis=1)
        w = games * p * (1 - p)
        hess = w - np.diag(w.sum(axis=1))
        step = np.linalg.lstsq(hess[1:, 1:], -grad[1:], rcond=None)[0]
        r[1:] += step
        r -= r.mean()
        if np.max(np.abs(step)) < 1e-12:
            break
    return r * ELO_PER_NAT


def _separated(wins: np.ndarray) -> bool:
    """True when the maximum likelihood is infinite: the directed 'won a game
    against' graph is not strongly connected."""
    n = len(wins)
    reach = (wins > 0) | np.eye(n, dtype=bool)
    for _ in range(n):
        reach = reach | ((reach.astype(int) @ reach.astype(int)) > 0)
    return not reach.all()


def ratings(wins: np.ndarray) -> tuple[np.ndarray, bool]:
    """Elo ratings; when the maximum likelihood is infinite (a bot unbeaten or
    winless), one virtual draw (half a win each way) is added to every pair
    that played.  Returns (elo, prior_added)."""
    wins = np.asarray(wins, dtype=float)
    if _separated(wins):
        played = (wins + wins.T) > 0
        return bradley_terry(wins + 0.5 * played), True
    return bradley_terry(wins), False


def bootstrap_intervals(units: Sequence[np.ndarray], seed: int,
                        samples: int = BOOTSTRAP_SAMPLES) -> np.ndarray:
    """95% percentile intervals (n x 2) of the Elo ratings, resampling the
    units (one win matrix per deal of a pairing: its two games) with
    replacement."""
    stack = np.stack(units)
    rng = np.random.default_rng(seed)
    out = np.empty((samples, stack.shape[1]))
    for b in range(samples):
        counts = np.bincount(rng.integers(0, len(stack), len(stack)), minlength=len(stack))
        out[b] = ratings(np.tensordot(counts, stack, axes=1))[0]
    return np.percentile(out, [2.5, 97.5], axis=0).T


def los(wins: float, losses: float) -> float | None:
    """Likelihood of superiority, Phi((W-L)/sqrt(W+L)) as cutechess-cli."""
    if wins + losses == 0:
        return None
    return 0.5 * (1 + math.erf((wins - losses) / math.sqrt(2 * (wins + losses))))


# ---- SPRT ----------------------------------------------------------------------

def parse_sprt(text: str) -> dict[str, float]:
    """``"elo0=0,elo1=10,alpha=0.05,beta=0.05"`` -> dict (defaults as shown)."""
    out = {"elo0": 0.0, "elo1": 10.0, "alpha": 0.05, "beta": 0.05}
    for item in filter(None, (x.strip() for x in text.split(","))):
        key, sep, value = item.partition("=")
        if not sep or key not in out:
            raise ParameterError(f"--sprt: unknown item {item!r} (keys: elo0, elo1, alpha, beta)")
        try:
            out[key] = float(value)
        except ValueError:
            raise ParameterError(f"--sprt: {key} expects a number, got {value!r}") from None
    if not out["elo1"] > out["elo0"]:
        raise ParameterError("--sprt: elo1 must be greater than elo0")
    for key in ("alpha", "beta"):
        if not 0 < out[key] < 0.5:
            raise ParameterError(f"--sprt: {key} must be between 0 and 0.5")
    return out


def sprt(outcomes: Iterable[int], elo0: float, elo1: float, alpha: float,
         beta: float) -> dict[str, Any]:
    """Sequential probability ratio test on a stream of outcomes (1: the first
    bot won, 0: it lost), stopping at the first crossing of a bound."""
    p0 = 1 / (1 + 10 ** (-elo0 / 400))
    p1 = 1 / (1 + 10 ** (-elo1 / 400))
    win, loss = math.log(p1 / p0), math.log((1 - p1) / (1 - p0))
    lower, upper = math.log(beta / (1 - alpha)), math.log((1 - beta) / alpha)
    llr, games, result = 0.0, 0, None
    for outcome in outcomes:
        llr += win if outcome else loss
        games += 1
        if llr >= upper:
            result = "H1"
            break
        if llr <= lower:
            result = "H0"
            break
    return {"llr": llr, "lower": lower, "upper": upper, "games": games, "result": result,
            "elo0": elo0, "elo1": elo1, "alpha": alpha, "beta": beta}


# ---- calibration ------------------------------------------------------------------

def calibration(values: Sequence[float], won: Sequence[int], bins: int = 10) -> dict[str, Any]:
    """Brier score and expected calibration error (equal-width bins)."""
    v = np.asarray(values, dtype=float)
    y = np.asarray(won, dtype=float)
    if len(v) == 0:
        return {"estimates": 0, "brier": None, "ece": None}
    idx = np.minimum((v * bins).astype(int), bins - 1)
    ece = sum(abs(v[idx == b].mean() - y[idx == b].mean()) * (idx == b).sum()
              for b in range(bins) if (idx == b).any()) / len(v)
    return {"estimates": int(len(v)), "brier": float(np.mean((v - y) ** 2)),
            "ece": float(ece)}


# ---- files ------------------------------------------------------------------------

def _append(path: Path, fields: list[str], rows: list[dict[str, Any]]) -> None:
    """Append rows with one os.write on an O_APPEND descriptor, then fsync."""
    if not rows:
        return
    buf = io.StringIO()
    writer = csv.DictWriter(buf, fields, lineterminator="\n")
    new = not path.exists() or path.stat().st_size == 0
    if new:
        writer.writeheader()
    writer.writerows(rows)
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        os.write(fd, buf.getvalue().encode())
        os.fsync(fd)
    finally:
        os.close(fd)


def _write_atomic(path: Path, text: str) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(text)
    os.replace(tmp, path)


def _read_rows(path: Path) -> list[dict[str, str]]:
    """The complete rows of a CSV file (a torn last line is cut off)."""
    if not path.exists():
        return []
    data = path.read_bytes()
    if data and not data.endswith(b"\n"):
        cut = data.rfind(b"\n") + 1
        with open(path, "r+b") as f:
            f.truncate(cut)
        data = data[:cut]
    return list(csv.DictReader(io.StringIO(data.decode())))


def read_games(out: Path) -> list[dict[str, Any]]:
    rows = _read_rows(out / "games.csv")
    for row in rows:
        for key in ("game", "pairing", "deal", "deal_seed", "fragments_polish",
                    "fragments_german", "moves"):
            row[key] = int(row[key])
    return sorted(rows, key=lambda r: r["game"])


# ---- analysis -----------------------------------------------------------------------

def analyse(bots: Sequence[str], rows: Sequence[dict[str, Any]], seed: int,
            value_rows: Sequence[dict[str, str]] = ()) -> dict[str, Any]:
    """Ratings, intervals, LOS, per-side win rates and calibration of the games."""
    n = len(bots)
    index = {b: i for i, b in enumerate(bots)}
    wins = np.zeros((n, n))
    units: dict[tuple[int, int], np.ndarray] = {}
    per_bot = {b: {"games": 0, "wins": 0, "polish_games": 0, "polish_wins": 0,
                   "german_games": 0, "german_wins": 0, "seconds": 0.0, "moves": 0}
               for b in bots}
    for row in rows:
        w, lo = index[row["winner"]], index[row["german"] if row["winner"] == row["polish"]
                                             else row["polish"]]
        wins[w, lo] += 1
        unit = units.setdefault((row["pairing"], row["deal"]), np.zeros((n, n)))
        unit[w, lo] += 1
        for side in ("polish", "german"):
            stats = per_bot[row[side]]
            stats["games"] += 1
            stats[f"{side}_games"] += 1
            won = row["winner"] == row[side]
            stats["wins"] += won
            stats[f"{side}_wins"] += won
            stats["seconds"] += float(row[f"seconds_per_move_{side}"])
    out: dict[str, Any] = {"games": len(rows), "bots": {}}
    if rows:
        elo, prior = ratings(wins)
        ci = bootstrap_intervals(list(units.values()), _derive("bootstrap", seed) % 2**32)
    else:
        elo, prior, ci = np.zeros(n), False, np.zeros((n, 2))
    out["prior_draws_added"] = prior
    by_bot_values: dict[str, tuple[list[float], list[int]]] = {b: ([], []) for b in bots}
    for v in value_rows:
        if v["bot"] in by_bot_values:
            by_bot_values[v["bot"]][0].append(float(v["value"]))
            by_bot_values[v["bot"]][1].append(int(v["won"]))
    for i, b in enumerate(bots):
        s = per_bot[b]
        out["bots"][b] = {
            "elo": round(float(elo[i]), 1),
            "elo_ci95": [round(float(ci[i, 0]), 1), round(float(ci[i, 1]), 1)],
            "games": s["games"], "wins": s["wins"],
            "win_rate": s["wins"] / s["games"] if s["games"] else None,
            "win_rate_polish": s["polish_wins"] / s["polish_games"] if s["polish_games"] else None,
            "win_rate_german": s["german_wins"] / s["german_games"] if s["german_games"] else None,
            "mean_seconds_per_move": s["seconds"] / s["games"] if s["games"] else None,
            "calibration": calibration(*by_bot_values[b]),
        }
    out["wins"] = {a: {b: int(wins[i, j]) for j, b in enumerate(bots) if i != j}
                   for i, a in enumerate(bots)}
    out["los"] = {a: {b: los(wins[i, j], wins[j, i]) for j, b in enumerate(bots) if i != j}
                  for i, a in enumerate(bots)}
    return out


def _pct(x: float | None) -> str:
    return "-" if x is None else f"{100 * x:.1f}%"


def standings_md(params: dict[str, Any], summary: dict[str, Any]) -> str:
    bots = params["bots"]
    order = sorted(bots, key=lambda b: -summary["bots"][b]["elo"])
    lines = [f"# Tournament standings ({params['format']}, {summary['games']} games, "
             f"seed {params['seed']})", "",
             "Elo by maximum likelihood (Bradley-Terry, mean 0), 95% intervals from "
             f"{BOOTSTRAP_SAMPLES} bootstrap resamples of game pairs (deals).", ""]
    if summary["prior_draws_added"]:
        lines += ["A bot is unbeaten or winless against the others, so one virtual draw per "
                  "pair was added to keep the ratings finite.", ""]
    lines += ["| Rank | Bot | Elo | 95% interval | Games | Win rate | as Polish | as German "
              "| Brier | ECE |", "|---|---|---|---|---|---|---|---|---|---|"]
    for rank, b in enumerate(order, 1):
        s = summary["bots"][b]
        cal = s["calibration"]
        brier = "-" if cal["brier"] is None else f"{cal['brier']:.3f}"
        ece = "-" if cal["ece"] is None else f"{cal['ece']:.3f}"
        lines.append(f"| {rank} | `{b}` | {s['elo']:+.1f} | [{s['elo_ci95'][0]:+.1f}, "
                     f"{s['elo_ci95'][1]:+.1f}] | {s['games']} | {_pct(s['win_rate'])} | "
                     f"{_pct(s['win_rate_polish'])} | {_pct(s['win_rate_german'])} | "
                     f"{brier} | {ece} |")
    lines += ["", "Likelihood of superiority (row bot stronger than column bot):", "",
              "| | " + " | ".join(f"`{b}`" for b in order) + " |",
              "|---" * (len(order) + 1) + "|"]
    for a in order:
        cells = ["" if a == b else _pct(summary["los"][a][b]) for b in order]
        lines.append(f"| `{a}` | " + " | ".join(cells) + " |")
    if "sprt" in summary:
        s = summary["sprt"]
        verdict = {"H1": f"H1 accepted (elo >= {s['elo1']:g})",
                   "H0": f"H0 accepted (elo <= {s['elo0']:g})",
                   None: "no decision yet"}[s["result"]]
        lines += ["", f"SPRT `{bots[0]}` vs `{bots[1]}` (elo0={s['elo0']:g}, elo1={s['elo1']:g}, "
                      f"alpha={s['alpha']:g}, beta={s['beta']:g}): {verdict} after "
                      f"{s['games']} games, LLR {s['llr']:.2f} in "
                      f"[{s['lower']:.2f}, {s['upper']:.2f}]."]
    return "\n".join(lines) + "\n"


# ---- the run ----------------------------------------------------------------------

def _line(row: dict[str, Any], task: GameTask) -> str:
    first_polish = task.first == row["polish"]
    score = "1-0" if row["winner"] == task.first else "0-1"
    frags = ((row["fragments_polish"], row["fragments_german"]) if first_polish
             else (row["fragments_german"], row["fragments_polish"]))
    return (f"Finished game {row['game']} ({task.first} vs {task.second}, {task.first} "
            f"{'Polish' if first_polish else 'German'}): {score}, fragments "
            f"{frags[0]}-{frags[1]}, {row['moves']} moves")


def _validate(bots: list[str], fmt: str, games: int, jobs: int) -> None:
    from bots import parse_spec

    if len(bots) < 2:
        raise ParameterError(f"--bots: a tournament needs at least two bots, got {len(bots)}")
    if len(set(bots)) != len(bots):
        raise ParameterError("--bots: each bot spec may appear only once")
    for spec in bots:
        parse_spec(spec)
    pairings(len(bots), fmt)
    if games <= 0 or games % 2:
        raise ParameterError(f"--games: expected a positive even number of games per pairing "
                             f"(each deal is played twice), got {games}")
    if jobs <= 0:
        raise ParameterError(f"--jobs: expected a positive number, got {jobs}")


def run(bots: list[str], fmt: str = "round-robin", games: int = 10, jobs: int = 1,
        seed: int = 0, out: str = "tournament", sprt_text: str | None = None,
        echo=print) -> dict[str, Any]:
    """Play (or continue) a tournament; returns the summary."""
    _validate(bots, fmt, games, jobs)
    sprt_params = parse_sprt(sprt_text) if sprt_text is not None else None
    if sprt_params and len(bots) != 2:
        raise ParameterError("--sprt: an SPRT compares exactly two bots")
    params = {"bots": bots, "format": fmt, "games": games, "seed": seed, "sprt": sprt_params}
    outdir = Path(out)
    outdir.mkdir(parents=True, exist_ok=True)
    pfile = outdir / "tournament.json"
    if pfile.exists():
        try:
            old = json.loads(pfile.read_text())
        except ValueError:
            raise ParameterError(f"{pfile}: not readable JSON") from None
        diff = [k for k in params if old.get(k) != params[k]]
        if diff:
            raise ParameterError(f"{outdir} holds a tournament with other parameters "
                                 f"({', '.join(diff)} differ): repeat its command or use "
                                 f"another --out")
    else:
        _write_atomic(pfile, json.dumps(params, indent=2) + "\n")

    tasks = schedule(bots, fmt, games, seed)
    rows = read_games(outdir)
    done = {r["game"] for r in rows}
    # values of games whose row was never written are dropped (they are replayed)
    vpath = outdir / "values.csv"
    value_rows = [v for v in _read_rows(vpath) if int(v["game"]) in done]
    buf = io.StringIO()
    writer = csv.DictWriter(buf, VALUE_FIELDS, lineterminator="\n")
    writer.writeheader()
    writer.writerows(value_rows)
    _write_atomic(vpath, buf.getvalue())

    def sprt_state() -> dict[str, Any] | None:
        if not sprt_params:
            return None
        return sprt((int(r["winner"] == bots[0]) for r in rows), **sprt_params)

    state = sprt_state()
    pending = [t for t in tasks if t.game not in done]
    if pending and not (state and state["result"]):
        by_id = {t.game: t for t in pending}
        window = max(2, 2 * jobs)
        with ProcessPoolExecutor(max_workers=jobs) as pool:
            futures: dict[int, Any] = {}
            queue = iter(pending)
            nxt = 0
            order = [t.game for t in pending]
            stopped = False
            while nxt < len(order) and not stopped:
                while len(futures) < window:
                    t = next(queue, None)
                    if t is None:
                        break
                    futures[t.game] = pool.submit(play_game, t)
                gid = order[nxt]
                res = futures.pop(gid).result()
                nxt += 1
                _append(vpath, VALUE_FIELDS, res["values"])
                _append(outdir / "games.csv", GAME_FIELDS, [res["row"]])
                row = res["row"]
                rows.append(row)
                value_rows.extend({k: str(v) for k, v in x.items()} for x in res["values"])
                echo(_line(row, by_id[gid]))
                state = sprt_state()
                if state and state["result"]:
                    stopped = True
            for f in futures.values():
                f.cancel()
    rows.sort(key=lambda r: r["game"])
    summary = {"parameters": params, "scheduled_games": len(tasks), **analyse(
        bots, rows, seed, value_rows)}
    if state:
        summary["sprt"] = state
    _write_atomic(outdir / "summary.json", json.dumps(summary, indent=2) + "\n")
    _write_atomic(outdir / "standings.md", standings_md(params, summary))
    return summary

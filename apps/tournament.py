"""Bot-vs-bot tournaments: paired games, ratings, SPRT, resume.

``wildhorn-solve tournament`` (see ``apps.cli``) calls :func:`run`.

* Every deal (one chance seed) is played twice with the sides swapped, on the
  same chance seed, so each pairing plays each side equally on the same luck
  (as cutechess-cli's ``-repeat``).  ``--games`` is the number of games per
  pairing and must be even.
* Pairings: ``round-robin`` (every pair of bots), ``gauntlet`` (the first
  bot against each other one) or ``self-play`` (one bot on both sides, a new
  deal for every game: the balance of the game between the sides).
* Game ids run deal by deal over the pairings; a game's seeds derive from the
  tournament seed, the pairing and the deal only, and results are written in
  game-id order, so ``games.csv`` does not depend on ``--jobs``.
* Output folder: ``tournament.json`` (the parameters, written at the start),
  ``games.csv`` (a row per game, appended with one ``os.write`` and an fsync),
  ``values.csv`` (each bot's win-probability estimate at each of its moves,
  when the bot reports one), ``summary.json``, ``standings.md`` and the
  figures ``ratings.png`` (Elo with 95% intervals) and ``calibration.png``
  (a reliability diagram per bot that reports values).
* Resume: the same command on the same folder skips the finished games.
  Ctrl-C (SIGINT) stops the games in play, writes ``summary.json`` and
  ``standings.md`` for the finished ones (marked ``interrupted``) and raises
  :class:`TournamentInterrupted`; a kill loses only the games in play.
* Backends: ``local`` (``--jobs`` worker processes) or ``ray`` (the same
  games as Ray tasks, on a local instance or a cluster); the results do not
  depend on the backend either.
* Progress: a line per finished game, and a progress bar with the running
  score on a terminal (rich) or a progress line every 5% otherwise.
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
import math
import os
import random
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable, Sequence

import numpy as np

import pyspiel

import solver  # noqa: F401  (registers the game)
from bots import make_bot, parse_spec
from solver.errors import ParameterError

ELO_PER_NAT = 400 / math.log(10)
SIDES = ("Polish", "German")
GAME_FIELDS = ["game", "pairing", "deal", "deal_seed", "polish", "german", "winner_side",
               "winner", "fragments_polish", "fragments_german", "moves",
               "seconds_per_move_polish", "seconds_per_move_german"]
VALUE_FIELDS = ["game", "bot", "side", "move", "value", "won"]
BOOTSTRAP_SAMPLES = 1000
FORMATS = ("round-robin", "gauntlet", "self-play")
BACKENDS = ("local", "ray")
Z95 = 1.959963984540054


# ---- schedule ---------------------------------------------------------------

def _derive(*parts: Any) -> int:
    """A 63-bit seed from its parts (stable across runs and platforms)."""
    text = ":".join(str(p) for p in parts).encode()
    return int.from_bytes(hashlib.sha256(text).digest()[:8], "big") >> 1


def pairings(n_bots: int, fmt: str) -> list[tuple[int, int]]:
    """Bot index pairs: all pairs for round-robin, (0, k) for gauntlet, the
    one bot against itself for self-play."""
    if fmt == "self-play":
        return [(0, 0)]
    if fmt == "round-robin":
        return [(i, j) for i in range(n_bots) for j in range(i + 1, n_bots)]
    if fmt == "gauntlet":
        return [(0, k) for k in range(1, n_bots)]
    raise ParameterError(f"--format: expected one of {', '.join(FORMATS)}, got {fmt!r}")


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
    first bot Polish then German on the same deal seed.  In self-play every
    game is a deal of its own (swapping a bot with itself changes nothing)."""
    pairs = pairings(len(bots), fmt)
    tasks = []
    if fmt == "self-play":
        bot = bots[0]
        return [GameTask(g + 1, 0, g, _derive("deal", seed, bot, bot, g), bot, bot, bot, bot)
                for g in range(games)]
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


class TournamentInterrupted(KeyboardInterrupt):
    """Ctrl-C during :func:`run`: ``summary`` holds the standings of the
    games finished before it (also written to the output folder)."""

    def __init__(self, summary: dict[str, Any]):
        super().__init__(f"interrupted after {summary['games']} of "
                         f"{summary['scheduled_games']} games")
        self.summary = summary


def play_game(task: GameTask) -> dict[str, Any]:
    """Play one game; the chance outcomes come from random.Random(deal_seed)."""
    global _GAME
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
    """Brier score, expected calibration error (equal-width bins) and the
    reliability diagram's bins (the non-empty ones: their range, count, mean
    estimate and observed win rate)."""
    v = np.asarray(values, dtype=float)
    y = np.asarray(won, dtype=float)
    if len(v) == 0:
        return {"estimates": 0, "brier": None, "ece": None, "bins": []}
    idx = np.minimum((v * bins).astype(int), bins - 1)
    table = [{"lo": b / bins, "hi": (b + 1) / bins, "count": int((idx == b).sum()),
              "mean_value": float(v[idx == b].mean()), "win_rate": float(y[idx == b].mean())}
             for b in range(bins) if (idx == b).any()]
    ece = sum(abs(t["mean_value"] - t["win_rate"]) * t["count"] for t in table) / len(v)
    return {"estimates": int(len(v)), "brier": float(np.mean((v - y) ** 2)),
            "ece": float(ece), "bins": table}


def wilson(k: float, n: float, z: float = Z95) -> list[float] | None:
    """Wilson score interval (95% by default) of a proportion k/n."""
    if n <= 0:
        return None
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return [max(0.0, centre - half), min(1.0, centre + half)]


def side_balance(rows: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """How often each side won, with 95% Wilson intervals."""
    n = len(rows)
    k = sum(r["winner_side"] == "polish" for r in rows)
    ci = wilson(k, n)
    return {"games": n, "polish_wins": k, "german_wins": n - k,
            "polish_win_rate": k / n if n else None,
            "polish_ci95": ci,
            "german_win_rate": (n - k) / n if n else None,
            "german_ci95": None if ci is None else [1 - ci[1], 1 - ci[0]]}


def head_to_head(rows: Sequence[dict[str, Any]], a: str, b: str) -> dict[str, Any]:
    """a's score against b over their games, with a 95% Wilson interval."""
    games = [r for r in rows if {r["polish"], r["german"]} == {a, b} and a != b]
    k = sum(r["winner"] == a for r in games)
    n = len(games)
    return {"first": a, "second": b, "games": n, "first_wins": k,
            "first_win_rate": k / n if n else None, "ci95": wilson(k, n)}


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
                   "german_games": 0, "german_wins": 0, "seconds": 0.0, "sides": 0}
               for b in bots}
    for row in rows:
        w, lo = index[row["winner"]], index[row["german"] if row["winner"] == row["polish"]
                                             else row["polish"]]
        wins[w, lo] += 1
        unit = units.setdefault((row["pairing"], row["deal"]), np.zeros((n, n)))
        unit[w, lo] += 1
        self_play = row["polish"] == row["german"]
        for side in ("polish", "german"):
            stats = per_bot[row[side]]
            won = (row["winner_side"] == side) if self_play else (row["winner"] == row[side])
            if not self_play or side == "polish":
                stats["games"] += 1
                stats["wins"] += row["winner"] == row[side]
            stats[f"{side}_games"] += 1
            stats[f"{side}_wins"] += won
            stats["seconds"] += float(row[f"seconds_per_move_{side}"])
            stats["sides"] += 1
    out: dict[str, Any] = {"games": len(rows), "bots": {}}
    if n == 1:   # self-play: no ratings
        elo, prior, ci = np.zeros(1), False, np.zeros((1, 2))
    elif rows:
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
            "win_rate": s["wins"] / s["games"] if s["games"] and n > 1 else None,
            "win_rate_polish": s["polish_wins"] / s["polish_games"] if s["polish_games"] else None,
            "win_rate_german": s["german_wins"] / s["german_games"] if s["german_games"] else None,
            "mean_seconds_per_move": s["seconds"] / s["sides"] if s["sides"] else None,
            "calibration": calibration(*by_bot_values[b]),
        }
    out["wins"] = {a: {b: int(wins[i, j]) for j, b in enumerate(bots) if i != j}
                   for i, a in enumerate(bots)}
    out["los"] = {a: {b: los(wins[i, j], wins[j, i]) for j, b in enumerate(bots) if i != j}
                  for i, a in enumerate(bots)}
    out["sides"] = side_balance(rows)
    out["head_to_head"] = [head_to_head(rows, bots[i], bots[j])
                           for i in range(n) for j in range(i + 1, n)
                           if any({r["polish"], r["german"]} == {bots[i], bots[j]} for r in rows)]
    return out


def _pct(x: float | None) -> str:
    return "-" if x is None else f"{100 * x:.1f}%"


def _ci(ci: list[float] | None) -> str:
    return "-" if ci is None else f"[{100 * ci[0]:.1f}%, {100 * ci[1]:.1f}%]"


def _sides_lines(sides: dict[str, Any]) -> list[str]:
    if not sides["games"]:
        return []
    return ["| Side | Wins | Win rate | 95% interval (Wilson) |", "|---|---|---|---|",
            f"| Polish | {sides['polish_wins']} | {_pct(sides['polish_win_rate'])} | "
            f"{_ci(sides['polish_ci95'])} |",
            f"| German | {sides['german_wins']} | {_pct(sides['german_win_rate'])} | "
            f"{_ci(sides['german_ci95'])} |"]


def _interrupted_lines(summary: dict[str, Any]) -> list[str]:
    if not summary.get("interrupted"):
        return []
    return [f"**Interrupted** after {summary['games']} of {summary['scheduled_games']} "
            "scheduled games: these are the standings of the finished games; the same "
            "command on the same folder plays the rest.", ""]


def standings_md(params: dict[str, Any], summary: dict[str, Any],
                 figures: Sequence[str] = ()) -> str:
    bots = params["bots"]
    if params["format"] == "self-play":
        b = bots[0]
        cal = summary["bots"][b]["calibration"]
        lines = [f"# Self-play of `{b}` ({summary['games']} games, seed {params['seed']})", ""]
        lines += _interrupted_lines(summary)
        lines += ["The same bot plays both sides, a new deal every game: how often each "
                  "side wins.", ""] + _sides_lines(summary["sides"])
        if cal["estimates"]:
            lines += ["", f"Calibration of `{b}`'s estimates: Brier {cal['brier']:.3f}, "
                          f"ECE {cal['ece']:.3f} over {cal['estimates']} estimates."]
        lines += [""] + [f"![{Path(f).stem}]({f})" for f in figures]
        return "\n".join(lines).rstrip("\n") + "\n"
    order = sorted(bots, key=lambda b: -summary["bots"][b]["elo"])
    lines = [f"# Tournament standings ({params['format']}, {summary['games']} games, "
             f"seed {params['seed']})", ""] + _interrupted_lines(summary) + [
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
    if summary.get("head_to_head"):
        lines += ["", "Head to head (score of the first bot, 95% Wilson interval):", "",
                  "| First | Second | Games | Score | 95% interval |", "|---|---|---|---|---|"]
        for h in summary["head_to_head"]:
            lines.append(f"| `{h['first']}` | `{h['second']}` | {h['games']} | "
                         f"{h['first_wins']} ({_pct(h['first_win_rate'])}) | {_ci(h['ci95'])} |")
    if summary["sides"]["games"]:
        lines += ["", "Wins by side over all games:", ""] + _sides_lines(summary["sides"])
    if "sprt" in summary:
        s = summary["sprt"]
        verdict = {"H1": f"H1 accepted (elo >= {s['elo1']:g})",
                   "H0": f"H0 accepted (elo <= {s['elo0']:g})",
                   None: "no decision yet"}[s["result"]]
        lines += ["", f"SPRT `{bots[0]}` vs `{bots[1]}` (elo0={s['elo0']:g}, elo1={s['elo1']:g}, "
                      f"alpha={s['alpha']:g}, beta={s['beta']:g}): {verdict} after "
                      f"{s['games']} games, LLR {s['llr']:.2f} in "
                      f"[{s['lower']:.2f}, {s['upper']:.2f}]."]
    if figures:
        lines += [""] + [f"![{Path(f).stem}]({f})" for f in figures]
    return "\n".join(lines) + "\n"


# ---- figures ----------------------------------------------------------------------

def _save_png(fig: Any, path: Path) -> None:
    """Render a matplotlib Figure with the Agg canvas (no screen needed) and
    replace ``path`` atomically."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    FigureCanvasAgg(fig)
    tmp = path.with_name(path.name + ".tmp")
    with open(tmp, "wb") as f:
        fig.savefig(f, format="png", dpi=100)
    os.replace(tmp, path)


def plot_ratings(params: dict[str, Any], summary: dict[str, Any], path: Path) -> None:
    """Elo of each bot with its 95% bootstrap interval, strongest on top."""
    from matplotlib.figure import Figure

    bots = sorted(params["bots"], key=lambda b: summary["bots"][b]["elo"])
    elo = np.array([summary["bots"][b]["elo"] for b in bots])
    lo = np.array([summary["bots"][b]["elo_ci95"][0] for b in bots])
    hi = np.array([summary["bots"][b]["elo_ci95"][1] for b in bots])
    fig = Figure(figsize=(7.5, 1.2 + 0.55 * len(bots)))
    ax = fig.add_subplot()
    y = np.arange(len(bots))
    ax.errorbar(elo, y, xerr=[np.maximum(elo - lo, 0), np.maximum(hi - elo, 0)], fmt="o",
                color="tab:blue", ecolor="tab:gray", capsize=4)
    for yi, e, h in zip(y, elo, hi):
        ax.annotate(f"{round(e):+d}", (max(e, h), yi), xytext=(6, 0), textcoords="offset points",
                    va="center", fontsize=8)
    ax.axvline(0, color="0.8", lw=0.8, zorder=0)
    ax.set_yticks(y, bots, fontsize=8)
    ax.set_ylim(-0.6, len(bots) - 0.4)
    ax.set_xlabel("Elo (Bradley-Terry, mean 0) with 95% bootstrap interval")
    ax.set_title(f"Ratings: {params['format']}, {summary['games']} games, seed {params['seed']}",
                 fontsize=10)
    fig.tight_layout()
    _save_png(fig, path)


def plot_calibration(summary: dict[str, Any], bots: Sequence[str], path: Path) -> None:
    """Reliability diagram, one panel per bot: observed win rate against the
    mean estimate in each bin (marker area ~ number of estimates), with the
    diagonal of perfect calibration."""
    from matplotlib.figure import Figure

    cols = min(3, len(bots))
    rows = math.ceil(len(bots) / cols)
    fig = Figure(figsize=(3.6 * cols, 3.6 * rows))
    axes = fig.subplots(rows, cols, squeeze=False)
    for ax in axes.flat[len(bots):]:
        ax.set_visible(False)
    for ax, b in zip(axes.flat, bots):
        cal = summary["bots"][b]["calibration"]
        bins = cal["bins"]
        x = [t["mean_value"] for t in bins]
        y = [t["win_rate"] for t in bins]
        n = np.array([t["count"] for t in bins], dtype=float)
        ax.plot([0, 1], [0, 1], color="0.6", lw=1, ls="--", label="perfect")
        ax.plot(x, y, color="tab:blue", lw=1)
        ax.scatter(x, y, s=20 + 180 * n / n.max(), color="tab:blue", zorder=3,
                   label="bins (area ~ count)")
        ax.set_xlim(0, 1)
        ax.set_ylim(0, 1)
        ax.set_aspect("equal")
        ax.set_xlabel("estimated win probability", fontsize=8)
        ax.set_ylabel("observed win rate", fontsize=8)
        ax.set_title(f"{b}\nECE {cal['ece']:.3f}, Brier {cal['brier']:.3f}, "
                     f"n={cal['estimates']}", fontsize=8)
        ax.tick_params(labelsize=7)
        ax.legend(fontsize=7, loc="upper left")
    fig.tight_layout()
    _save_png(fig, path)


def write_figures(outdir: Path, params: dict[str, Any], summary: dict[str, Any]) -> list[str]:
    """ratings.png (not for self-play) and calibration.png (when some bot
    reports values) in ``outdir``; returns the names written."""
    written = []
    if params["format"] != "self-play" and summary["games"]:
        plot_ratings(params, summary, outdir / "ratings.png")
        written.append("ratings.png")
    valued = [b for b in params["bots"] if summary["bots"][b]["calibration"]["estimates"]]
    if valued:
        plot_calibration(summary, valued, outdir / "calibration.png")
        written.append("calibration.png")
    return written


# ---- progress -----------------------------------------------------------------------

def score_text(bots: Sequence[str], fmt: str, rows: Sequence[dict[str, Any]]) -> str:
    """The running score: sides for self-play, 'a W-L b' for two bots, wins
    out of games for more."""
    if fmt == "self-play":
        s = side_balance(rows)
        return f"Polish {s['polish_wins']}-{s['german_wins']} German"
    wins = {b: 0 for b in bots}
    games = {b: 0 for b in bots}
    for r in rows:
        wins[r["winner"]] += 1
        games[r["polish"]] += 1
        games[r["german"]] += 1
    if len(bots) == 2:
        return f"{bots[0]} {wins[bots[0]]}-{wins[bots[1]]} {bots[1]}"
    return ", ".join(f"{b} {wins[b]}/{games[b]}" for b in bots)


def _clock(seconds: float) -> str:
    seconds = int(round(seconds))
    return f"{seconds // 3600}:{seconds // 60 % 60:02d}:{seconds % 60:02d}"


class LineProgress:
    """Plain progress for logs and pipes: every finished game's line, and a
    'Progress' line with the running score whenever another 5% of the games
    is done (and after the last)."""

    def __init__(self, echo=print, clock=time.monotonic):
        self.echo = echo
        self.clock = clock

    def start(self, bots: Sequence[str], fmt: str, total: int,
              rows: Sequence[dict[str, Any]]) -> None:
        self.bots, self.fmt, self.total = bots, fmt, total
        self.first = len(rows)
        self.t0 = self.clock()
        self.step = 20 * len(rows) // max(total, 1)
        if rows and len(rows) < total:
            self.echo(f"Resuming: {len(rows)} of {total} games already played; "
                      f"score {score_text(bots, fmt, rows)}")

    def game(self, line: str, rows: Sequence[dict[str, Any]]) -> None:
        self.echo(line)
        done = len(rows)
        step = 20 * done // max(self.total, 1)
        if step > self.step or done >= self.total:
            self.step = step
            elapsed = self.clock() - self.t0
            played = done - self.first
            left = (self.total - done) * elapsed / played if played else 0.0
            self.echo(f"Progress: {done}/{self.total} games ({100 * done / self.total:.0f}%), "
                      f"{_clock(elapsed)} elapsed, about {_clock(left)} left; score "
                      f"{score_text(self.bots, self.fmt, rows)}")

    def note(self, text: str) -> None:
        self.echo(text)

    def close(self) -> None:
        pass


class BarProgress:
    """A rich progress bar (games done, elapsed, time left) with the running
    score, the finished-game lines printed above it."""

    def __init__(self, console: Any = None):
        from rich.console import Console

        self.console = console or Console()

    def start(self, bots: Sequence[str], fmt: str, total: int,
              rows: Sequence[dict[str, Any]]) -> None:
        from rich.progress import (BarColumn, MofNCompleteColumn, Progress, TextColumn,
                                   TimeElapsedColumn, TimeRemainingColumn)

        self.bots, self.fmt = bots, fmt
        self.progress = Progress(
            TextColumn("games"), BarColumn(), MofNCompleteColumn(),
            TextColumn("{task.percentage:>3.0f}%"), TimeElapsedColumn(), TextColumn("left"),
            TimeRemainingColumn(), TextColumn("score {task.fields[score]}", markup=False),
            console=self.console)
        self.progress.start()
        self.task = self.progress.add_task("games", total=total, completed=len(rows),
                                           score=score_text(bots, fmt, rows))

    def game(self, line: str, rows: Sequence[dict[str, Any]]) -> None:
        self.progress.console.print(line, markup=False, highlight=False, soft_wrap=True)
        self.progress.update(self.task, completed=len(rows),
                             score=score_text(self.bots, self.fmt, rows), refresh=True)

    def note(self, text: str) -> None:
        self.console.print(text, markup=False, highlight=False, soft_wrap=True)

    def close(self) -> None:
        self.progress.stop()


def progress_for(stream: Any = None) -> LineProgress | BarProgress:
    """A bar on a terminal, plain lines otherwise."""
    stream = stream or sys.stdout
    if stream.isatty():
        from rich.console import Console

        return BarProgress(Console(file=stream))
    return LineProgress(lambda line: print(line, file=stream, flush=True))


# ---- backends ---------------------------------------------------------------------

class _LocalBackend:
    """Games in ``jobs`` worker processes."""

    def __init__(self, jobs: int, address: str | None = None):
        self.pool = ProcessPoolExecutor(max_workers=jobs)

    def submit(self, task: GameTask) -> Any:
        return self.pool.submit(play_game, task)

    def result(self, handle: Any) -> dict[str, Any]:
        return handle.result()

    def cancel(self, handle: Any) -> None:
        handle.cancel()

    def abort(self) -> None:
        """Stops the games in play (after Ctrl-C, which a terminal also sends
        to the workers, but a ``kill -INT`` of the main process does not)."""
        procs = list((getattr(self.pool, "_processes", None) or {}).values())
        for proc in procs:    # (shutdown forgets them, so they are taken first)
            proc.terminate()
        self.pool.shutdown(wait=True, cancel_futures=True)

    def close(self) -> None:
        self.pool.shutdown(wait=True, cancel_futures=True)


RAY_LOCAL_OBJECT_STORE = 128 * 1024 * 1024   # game results are tiny


class _RayBackend:
    """Games as Ray tasks.  ``address`` None or ``"local"`` starts a local
    Ray instance with ``jobs`` CPUs (shut down at the end); any other value
    (``auto``, ``HOST:PORT``, ``ray://HOST:PORT``) connects to that cluster,
    whose nodes need wildhorn-solve installed.  An already initialised Ray
    (e.g. a caller's ``ray.init``) is used as it is."""

    def __init__(self, jobs: int, address: str | None = None):
        try:
            import ray
        except ImportError:
            raise ParameterError("--backend ray: ray is not installed "
                                 "(pip install 'wildhorn-solve[ray]')") from None
        self.ray = ray
        self.owned = not ray.is_initialized()
        if self.owned:
            import logging

            common = {"include_dashboard": False, "log_to_driver": False,
                      "logging_level": logging.WARNING}
            try:
                if address in (None, "local"):
                    ray.init(address="local", num_cpus=jobs,
                             object_store_memory=RAY_LOCAL_OBJECT_STORE, **common)
                else:
                    ray.init(address=address, **common)
            except Exception as err:  # ray raises ConnectionError, ValueError, RuntimeError...
                text = str(err).strip().splitlines()[0] if str(err).strip() else type(err).__name__
                raise ParameterError(f"--backend ray: cannot start or reach Ray at "
                                     f"{address or 'local'}: {text}") from None
        self.remote = ray.remote(num_cpus=1)(play_game)
        cpus = int(ray.cluster_resources().get("CPU", 0))
        where = "a local instance" if self.owned and address in (None, "local") else \
            f"the cluster at {address}" if self.owned else "the running Ray session"
        self.description = f"Ray: {where} with {cpus} CPUs"

    def submit(self, task: GameTask) -> Any:
        return self.remote.remote(task)

    def result(self, handle: Any) -> dict[str, Any]:
        return self.ray.get(handle)

    def cancel(self, handle: Any) -> None:
        try:
            self.ray.cancel(handle)
        except Exception:  # already finished or gone: nothing to cancel
            pass

    def abort(self) -> None:
        """Nothing beyond ``cancel`` of each pending game (done by run)."""

    def close(self) -> None:
        if self.owned:
            self.ray.shutdown()


# ---- the run ----------------------------------------------------------------------

def _line(row: dict[str, Any], task: GameTask) -> str:
    if task.polish == task.german:
        side = "Polish" if row["winner_side"] == "polish" else "German"
        return (f"Finished game {row['game']} ({task.first} self-play): {side} won, fragments "
                f"{row['fragments_polish']}-{row['fragments_german']}, {row['moves']} moves")
    first_polish = task.first == row["polish"]
    score = "1-0" if row["winner"] == task.first else "0-1"
    frags = ((row["fragments_polish"], row["fragments_german"]) if first_polish
             else (row["fragments_german"], row["fragments_polish"]))
    return (f"Finished game {row['game']} ({task.first} vs {task.second}, {task.first} "
            f"{'Polish' if first_polish else 'German'}): {score}, fragments "
            f"{frags[0]}-{frags[1]}, {row['moves']} moves")


def _validate(bots: list[str], fmt: str, games: int, jobs: int, backend: str = "local",
              address: str | None = None) -> None:
    pairings(max(len(bots), 1), fmt)
    if fmt == "self-play":
        if len(bots) != 1:
            raise ParameterError(f"--format self-play: give exactly one bot (it plays both "
                                 f"sides), got {len(bots)}")
    elif len(bots) < 2:
        raise ParameterError(f"--bots: a tournament needs at least two bots, got {len(bots)}")
    if len(set(bots)) != len(bots):
        raise ParameterError("--bots: each bot spec may appear only once")
    for spec in bots:
        parse_spec(spec)
    if fmt == "self-play":
        if games <= 0:
            raise ParameterError(f"--games: expected a positive number of games, got {games}")
    elif games <= 0 or games % 2:
        raise ParameterError(f"--games: expected a positive even number of games per pairing "
                             f"(each deal is played twice), got {games}")
    if jobs <= 0:
        raise ParameterError(f"--jobs: expected a positive number, got {jobs}")
    if backend not in BACKENDS:
        raise ParameterError(f"--backend: expected one of {', '.join(BACKENDS)}, got {backend!r}")
    if address is not None and backend != "ray":
        raise ParameterError("--address: only with --backend ray")


def run(bots: list[str], fmt: str = "round-robin", games: int = 10, jobs: int = 1,
        seed: int = 0, out: str = "tournament", sprt_text: str | None = None,
        echo=print, progress: Any = None, backend: str = "local",
        address: str | None = None) -> dict[str, Any]:
    """Play (or continue) a tournament; returns the summary.  ``progress``
    (default: plain lines through ``echo``) reports each finished game."""
    _validate(bots, fmt, games, jobs, backend, address)
    sprt_params = parse_sprt(sprt_text) if sprt_text is not None else None
    if sprt_params and (len(bots) != 2 or fmt == "self-play"):
        raise ParameterError("--sprt: an SPRT compares exactly two bots")
    progress = progress or LineProgress(echo)
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
    interrupted = False
    pending = [t for t in tasks if t.game not in done]
    if pending and not (state and state["result"]):
        by_id = {t.game: t for t in pending}
        window = max(2, 2 * jobs)
        runner = (_RayBackend if backend == "ray" else _LocalBackend)(jobs, address)
        if backend == "ray":
            progress.note(runner.description)
        progress.start(bots, fmt, len(tasks), rows)
        try:
            futures: dict[int, Any] = {}
            queue = iter(pending)
            nxt = 0
            order = [t.game for t in pending]
            stopped = False
            try:
                while nxt < len(order) and not stopped:
                    while len(futures) < window:
                        t = next(queue, None)
                        if t is None:
                            break
                        futures[t.game] = runner.submit(t)
                    gid = order[nxt]
                    res = runner.result(futures.pop(gid))
                    nxt += 1
                    _append(vpath, VALUE_FIELDS, res["values"])
                    _append(outdir / "games.csv", GAME_FIELDS, [res["row"]])
                    row = res["row"]
                    rows.append(row)
                    value_rows.extend({k: str(v) for k, v in x.items()} for x in res["values"])
                    progress.game(_line(row, by_id[gid]), rows)
                    state = sprt_state()
                    if state and state["result"]:
                        stopped = True
            except KeyboardInterrupt:
                # Ctrl-C: the finished games are kept (every row is on disk
                # already), the games in play are stopped and dropped, and the
                # standings of the finished games are written below
                interrupted = True
                runner.abort()
                # the signal may have come between writing a row and keeping it
                rows = read_games(outdir)
                done = {r["game"] for r in rows}
                value_rows = [v for v in _read_rows(vpath) if int(v["game"]) in done]
            for f in futures.values():
                runner.cancel(f)
        finally:
            progress.close()
            runner.close()
    rows.sort(key=lambda r: r["game"])
    summary = {"parameters": params, "scheduled_games": len(tasks), **analyse(
        bots, rows, seed, value_rows)}
    if state:
        summary["sprt"] = state
    if interrupted:
        summary["interrupted"] = True
    _write_atomic(outdir / "summary.json", json.dumps(summary, indent=2) + "\n")
    figures = write_figures(outdir, params, summary)
    _write_atomic(outdir / "standings.md", standings_md(params, summary, figures))
    if interrupted:
        raise TournamentInterrupted(summary)
    return summary

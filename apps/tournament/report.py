"""Reports of a tournament: ``summary.json``, ``standings.md`` (Markdown
tables of the ratings, likelihood of superiority, head to head, sides,
luck-adjusted scores with ``--luck`` and SPRT) and the figures
``ratings.png`` (Elo with 95% intervals) and ``calibration.png`` (a
reliability diagram per bot that reports values).
"""

from __future__ import annotations

import json
import math
import io
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from apps.tournament.luck import describe
from apps.tournament.stats import BOOTSTRAP_SAMPLES
from apps.tournament.store import write_atomic


def write_results(outdir: Path, params: dict[str, Any], summary: dict[str, Any]) -> None:
    """``summary.json``, the figures, then ``standings.md`` (each replaced atomically)."""
    write_atomic(outdir / "summary.json", json.dumps(summary, indent=2) + "\n")
    figures = write_figures(outdir, params, summary)
    write_atomic(outdir / "standings.md", standings_md(params, summary, figures))


# ---- standings.md -------------------------------------------------------------------

def pct(x: float | None) -> str:
    return "-" if x is None else f"{100 * x:.1f}%"


def ci_text(ci: list[float] | None) -> str:
    return "-" if ci is None else f"[{100 * ci[0]:.1f}%, {100 * ci[1]:.1f}%]"


def _sides_lines(sides: dict[str, Any]) -> list[str]:
    if not sides["games"]:
        return []
    return ["| Side | Wins | Win rate | 95% interval (Wilson) |", "|---|---|---|---|",
            f"| Polish | {sides['polish_wins']} | {pct(sides['polish_win_rate'])} | "
            f"{ci_text(sides['polish_ci95'])} |",
            f"| German | {sides['german_wins']} | {pct(sides['german_win_rate'])} | "
            f"{ci_text(sides['german_ci95'])} |"]


def _interrupted_lines(summary: dict[str, Any]) -> list[str]:
    if not summary.get("interrupted"):
        return []
    return [f"**Interrupted** after {summary['games']} of {summary['scheduled_games']} "
            "scheduled games: these are the standings of the finished games; the same "
            "command on the same folder plays the rest.", ""]


def _elo_text(stats: dict[str, Any]) -> str:
    if stats.get("elo") is None:
        return "-"
    if stats.get("elo_ci95") is None:
        return f"{stats['elo']:+.0f}"
    lo, hi = stats["elo_ci95"]
    return f"{stats['elo']:+.0f} [{lo:+.0f}, {hi:+.0f}]"


def _pair_lines(h2h: Sequence[dict[str, Any]]) -> list[str]:
    """The statistics by deal pair of each head to head (pentanomial model)."""
    rows = [h for h in h2h if h.get("by_pair", {}).get("pairs")]
    if not rows:
        return []
    lines = ["", "By deal pair (pentanomial model: a deal's two games are one observation, "
             "scoring 0, 1/2, 1, 3/2 or 2 for the first bot; the intervals from the variance "
             "over pairs; the per-game interval treats games as independent, for comparison; "
             "correlation: of the first bot's results in a deal's two games):", "",
             "| First | Second | Pairs | 0 / ½ / 1 / 1½ / 2 | Score (95%) | Elo (95%, by pair) "
             "| Elo (95%, by game) | nElo (95%) | Correlation |",
             "|---|---|---|---|---|---|---|---|---|"]
    for h in rows:
        p = h["by_pair"]
        lo, hi = p["score_ci95"]
        corr = h.get("within_deal_correlation")
        nlo, nhi = p["nelo_ci95"]
        lines.append(f"| `{h['first']}` | `{h['second']}` | {p['pairs']} | "
                     f"{' / '.join(map(str, p['pentanomial']))} | {pct(p['score'])} "
                     f"[{pct(lo)}, {pct(hi)}] | {_elo_text(p)} | {_elo_text(h['by_game'])} "
                     f"| {p['nelo']:+.0f} [{nlo:+.0f}, {nhi:+.0f}] "
                     f"| {'-' if corr is None else f'{corr:+.3f}'} |")
    return lines


def _score_ci(mean: float | None, ci: list[float] | None) -> str:
    if mean is None:
        return "-"
    return pct(mean) + ("" if ci is None else f" [{pct(ci[0])}, {pct(ci[1])}]")


def _ratio_text(ratio: float | None, ci: list[float] | None) -> str:
    if ratio is None:
        return "-"
    return f"{ratio:.2f}" + ("" if ci is None else f" [{ci[0]:.2f}, {ci[1]:.2f}]")


def _luck_lines(summary: dict[str, Any]) -> list[str]:
    """The luck-adjusted scores of a tournament played with ``--luck``."""
    block = summary.get("luck_adjusted")
    if not block or not block["games"]:
        return []
    lines = ["", f"Luck-adjusted scores (`--luck`, value function: {describe(block['value'])}): "
             "a game's result minus its luck, the sum over its chance events of the value "
             "after the outcome minus the value's mean over the outcomes; unbiased for any "
             "fixed value function, and the better it is, the smaller the variance ratio "
             "(adjusted over raw: the share of games the adjusted score needs for the raw "
             "one's precision). Normal 95% intervals over the units; the SPRT uses the raw "
             "pair scores.", ""]
    if "self_play_polish" in block:
        f = block["self_play_polish"]
        lines += ["| Games | Polish win rate (95%) | Adjusted (95%) | Variance ratio (95%) |",
                  "|---|---|---|---|",
                  f"| {f['games']} | {_score_ci(f['raw_score'], f['raw_score_ci95'])} | "
                  f"{_score_ci(f['score'], f['score_ci95'])} | "
                  f"{_ratio_text(f['variance_ratio'], f['variance_ratio_ci95'])} |"]
    elif block.get("head_to_head"):
        lines += ["| First | Second | Pairs | Score (95%) | Adjusted score (95%) "
                  "| Adjusted Elo (95%) | Variance ratio (95%) |",
                  "|---|---|---|---|---|---|---|"]
        for h in block["head_to_head"]:
            lines.append(f"| `{h['first']}` | `{h['second']}` | {h['pairs']} | "
                         f"{_score_ci(h['raw_score'], h['raw_score_ci95'])} | "
                         f"{_score_ci(h['score'], h['score_ci95'])} | {_elo_text(h)} | "
                         f"{_ratio_text(h['variance_ratio'], h['variance_ratio_ci95'])} |")
    check = block["luck_polish"]
    if check["mean"] is not None:
        ci = check["ci95"]
        holds = "containing" if check["zero_inside"] else "NOT containing"
        where = "" if ci is None else f" [{ci[0]:+.4f}, {ci[1]:+.4f}], {holds} 0"
        lines += ["", f"Mean luck of the Polish side per game: {check['mean']:+.4f}{where} "
                      f"(each chance event's luck has mean 0, so 0 is expected)."]
    return lines


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
        lines += _luck_lines(summary)
        lines += [""] + [f"![{Path(f).stem}]({f})" for f in figures]
        return "\n".join(lines).rstrip("\n") + "\n"
    order = sorted(bots, key=lambda b: -summary["bots"][b]["elo"])
    lines = [f"# Tournament standings ({params['format']}, {summary['games']} games, "
             f"seed {params['seed']}, chance {params.get('chance', 'sequential')})", ""]
    lines += _interrupted_lines(summary) + [
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
                     f"{s['elo_ci95'][1]:+.1f}] | {s['games']} | {pct(s['win_rate'])} | "
                     f"{pct(s['win_rate_polish'])} | {pct(s['win_rate_german'])} | "
                     f"{brier} | {ece} |")
    lines += ["", "Likelihood of superiority (row bot stronger than column bot):", "",
              "| | " + " | ".join(f"`{b}`" for b in order) + " |",
              "|---" * (len(order) + 1) + "|"]
    for a in order:
        cells = ["" if a == b else pct(summary["los"][a][b]) for b in order]
        lines.append(f"| `{a}` | " + " | ".join(cells) + " |")
    if summary.get("head_to_head"):
        lines += ["", "Head to head (score of the first bot, 95% Wilson interval):", "",
                  "| First | Second | Games | Score | 95% interval |", "|---|---|---|---|---|"]
        for h in summary["head_to_head"]:
            lines.append(f"| `{h['first']}` | `{h['second']}` | {h['games']} | "
                         f"{h['first_wins']} ({pct(h['first_win_rate'])}) | {ci_text(h['ci95'])} |")
    lines += _pair_lines(summary.get("head_to_head", []))
    if summary["sides"]["games"]:
        lines += ["", "Wins by side over all games:", ""] + _sides_lines(summary["sides"])
    lines += _luck_lines(summary)
    if "sprt" in summary:
        s = summary["sprt"]
        verdict = {"H1": f"H1 accepted (elo >= {s['elo1']:g})",
                   "H0": f"H0 accepted (elo <= {s['elo0']:g})",
                   None: "no decision yet"}[s["result"]]
        lines += ["", f"SPRT `{bots[0]}` vs `{bots[1]}` (elo0={s['elo0']:g}, elo1={s['elo1']:g}, "
                      f"alpha={s['alpha']:g}, beta={s['beta']:g}; GSPRT on deal pairs): "
                      f"{verdict} after {s['pairs']} pairs ({s['games']} games), "
                      f"LLR {s['llr']:.2f} in [{s['lower']:.2f}, {s['upper']:.2f}]."]
    if figures:
        lines += [""] + [f"![{Path(f).stem}]({f})" for f in figures]
    return "\n".join(lines) + "\n"


# ---- figures ----------------------------------------------------------------------

def _save_png(fig: Any, path: Path) -> None:
    """Render a matplotlib Figure with the Agg canvas (no screen needed) and
    replace ``path`` atomically."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    FigureCanvasAgg(fig)
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=100)
    write_atomic(path, buf.getvalue())   # a full disk: an error naming the file


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

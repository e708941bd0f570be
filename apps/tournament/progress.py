"""Progress output of a run: a line per finished game (:func:`game_line`),
and a rich progress bar with the running score on a terminal
(:class:`BarProgress`) or a 'Progress' line every 5% otherwise
(:class:`LineProgress`); :func:`progress_for` picks one for a stream.

A progress object has ``start(bots, fmt, total, rows)``, ``game(line,
rows)``, ``note(text)`` and ``close()``.
"""

from __future__ import annotations

import sys
import time
from typing import Any, Sequence

from apps.tournament.scheduling import GameTask
from apps.tournament.stats import side_balance
from solver.vocabulary import SIDE_TITLES, side_index


def game_line(row: dict[str, Any], task: GameTask) -> str:
    """'Finished game N (...)': the winner and the fragments from the
    pairing's first bot's view (or the sides' in self-play)."""
    if task.polish == task.german:
        side = SIDE_TITLES[side_index(row["winner_side"])]
        return (f"Finished game {row['game']} ({task.first} self-play): {side} won, fragments "
                f"{row['fragments_polish']}-{row['fragments_german']}, {row['moves']} moves")
    first_polish = task.first == row["polish"]
    score = "1-0" if row["winner"] == task.first else "0-1"
    frags = ((row["fragments_polish"], row["fragments_german"]) if first_polish
             else (row["fragments_german"], row["fragments_polish"]))
    return (f"Finished game {row['game']} ({task.first} vs {task.second}, {task.first} "
            f"{SIDE_TITLES[0 if first_polish else 1]}): {score}, fragments "
            f"{frags[0]}-{frags[1]}, {row['moves']} moves")



def score_text(bots: Sequence[str], fmt: str, rows: Sequence[dict[str, Any]]) -> str:
    """The running score: sides for self-play, 'a W-L b' for two bots, wins
    out of games for more."""
    if fmt == "self-play":
        s = side_balance(rows)
        return f"{SIDE_TITLES[0]} {s['polish_wins']}-{s['german_wins']} {SIDE_TITLES[1]}"
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

"""What the Cython tree searches (``bots._ismcts``, ``bots._oos``) share at
the Python level: the anytime budget loop and the win probabilities of the
two sides with their intervals."""

from __future__ import annotations

from math import sqrt
from time import perf_counter
from typing import Callable

CHUNK = 64  # iterations between two looks at the clock
clock: Callable[[], float] = perf_counter  # the time source (tests replace it)


def run_budget(run: Callable[[int], int], iterations: int, time_limit: float) -> tuple[int, float]:
    """Calls ``run(n)`` (n iterations in C, without the GIL) in chunks until
    ``iterations`` are done or ``time_limit`` seconds have passed, the first
    budget reached (0: none); returns (iterations done, seconds)."""
    if iterations <= 0 and time_limit <= 0.0:
        raise ValueError("give iterations or time_limit")
    now = clock
    t0 = now()
    deadline = t0 + time_limit if time_limit > 0 else float("inf")
    done = 0
    while True:
        done += run(CHUNK if iterations <= 0 else min(CHUNK, iterations - done))
        t = now()
        if (iterations > 0 and done >= iterations) or t >= deadline:
            return done, t - t0


def win_probabilities(player: int, p: float, n: float) -> tuple[list[float], list[list[float]]]:
    """``player``'s win probability p, estimated from n (effective) samples,
    as [polish, german] probabilities and their 95% normal intervals."""
    half = 1.96 * sqrt(p * (1 - p) / max(n, 1.0))
    value = [0.0, 0.0]
    ci = [[0.0, 0.0], [0.0, 0.0]]
    value[player] = p
    value[1 - player] = 1 - p
    ci[player] = [max(0.0, p - half), min(1.0, p + half)]
    ci[1 - player] = [max(0.0, 1 - p - half), min(1.0, 1 - p + half)]
    return value, ci

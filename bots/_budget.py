"""What the Cython tree searches (``bots._ismcts``, ``bots._oos``) share at
the Python level: the anytime budget loop, its root-parallel form (one
thread per tree: ``run_parallel``, ``run_trees``, each tree's seed
``thread_seed`` and share of an iteration budget ``iteration_shares``), and
the win probabilities of the two sides with their intervals."""

from __future__ import annotations

import threading
from math import sqrt
from time import perf_counter
from typing import Any, Callable, Sequence

CHUNK = 64  # iterations between two looks at the clock
clock: Callable[[], float] = perf_counter  # the time source (tests replace it)
# Called, when set, with the iterations of each chunk as it ends, in the
# thread that ran it (so it must be thread-safe): how an application shows
# a long search's progress (the web server's search processes set it).
# The searches never depend on it.
progress: Callable[[int], None] | None = None


def run_budget(run: Callable[[int], int], iterations: int, time_limit: float,
               stop: Callable[[], bool] | None = None) -> tuple[int, float]:
    """Calls ``run(n)`` (n iterations in C, without the GIL) in chunks until
    ``iterations`` are done or ``time_limit`` seconds have passed, the first
    budget reached (0: none), or ``stop()`` (looked at after each chunk)
    says True; returns (iterations done, seconds)."""
    if iterations <= 0 and time_limit <= 0.0:
        raise ValueError("give iterations or time_limit")
    now = clock
    t0 = now()
    deadline = t0 + time_limit if time_limit > 0 else float("inf")
    done = 0
    while True:
        n = run(CHUNK if iterations <= 0 else min(CHUNK, iterations - done))
        done += n
        if progress is not None:
            progress(n)
        t = now()
        if (iterations > 0 and done >= iterations) or t >= deadline \
                or (stop is not None and stop()):
            return done, t - t0


def run_parallel(runs: Sequence[Callable[[int], int]], shares: Sequence[int],
                 time_limit: float, stop: Callable[[], bool] | None = None
                 ) -> tuple[list[int], float]:
    """Runs each ``runs[i]`` on its own thread (``runs[0]`` on the calling
    one), in chunks as :func:`run_budget` does, until it has done
    ``shares[i]`` iterations or the one deadline ``time_limit`` seconds from
    now has passed, the first reached (a share of 0: the deadline only), or
    ``stop()`` says True (each thread looks after each of its chunks).
    Each ``run`` must release the GIL while it iterates; only the chunk
    loop below holds it, once per ``CHUNK`` iterations.  Returns (iterations
    done per run, seconds until the last thread stopped).  An exception in
    any thread stops the others at their next chunk and is raised here once
    all have stopped."""
    if len(runs) != len(shares):
        raise ValueError("one share per run")
    if time_limit <= 0.0 and any(n <= 0 for n in shares):
        raise ValueError("give iterations or time_limit")
    now = clock
    t0 = now()
    deadline = t0 + time_limit if time_limit > 0 else float("inf")
    done = [0] * len(runs)
    errors: list[BaseException] = []

    def work(i: int) -> None:
        run, share = runs[i], shares[i]
        try:
            while True:
                n = run(CHUNK if share <= 0 else min(CHUNK, share - done[i]))
                done[i] += n
                if progress is not None:
                    progress(n)
                if (share > 0 and done[i] >= share) or now() >= deadline or errors \
                        or (stop is not None and stop()):
                    return
        except BaseException as error:  # re-raised by the caller's thread
            errors.append(error)

    workers = [threading.Thread(target=work, args=(i,), name=f"search-{i}", daemon=True)
               for i in range(1, len(runs))]
    for w in workers:
        w.start()
    try:
        work(0)
        for w in workers:
            w.join()
    except BaseException as error:  # Ctrl-C in the join: the others stop before we go on
        errors.append(error)
        for w in workers:
            w.join()
    if errors:
        raise errors[0]
    return done, now() - t0


MASK64 = 0xFFFFFFFFFFFFFFFF


def thread_seed(seed: int, index: int) -> int:
    """The random seed of tree ``index`` of a search seeded ``seed``: the
    seed itself for tree 0 (so one thread is the one-tree search), else a
    splitmix64 mix of (seed, index), so each tree has its own stream."""
    z = int(seed) & MASK64
    if index == 0:
        return z
    z = (z + index * 0x9E3779B97F4A7C15) & MASK64
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
    return z ^ (z >> 31)


def iteration_shares(iterations: int, threads: int) -> list[int]:
    """``iterations`` split over ``threads`` trees, the first ones taking
    one more when it does not divide (they sum to ``iterations``)."""
    return [iterations // threads + (1 if k < iterations % threads else 0)
            for k in range(threads)]


def run_trees(runs: Sequence[Callable[[int], int]], iterations: int,
              time_limit: float, stop: Callable[[], bool] | None = None
              ) -> tuple[int, list[int], float]:
    """The budget loop of a root-parallel search: one run, :func:`run_budget`
    on the calling thread; several (one per tree), :func:`run_parallel` with
    the iteration budget split by :func:`iteration_shares` (a budget below
    the trees leaves the last ones idle: they get no thread).  Returns
    (iterations in all, iterations per tree that ran, seconds).  ``stop``:
    a condition that ends the search early (looked at after each chunk)."""
    if len(runs) == 1:
        done, seconds = run_budget(runs[0], iterations, time_limit, stop)
        return done, [done], seconds
    shares = iteration_shares(iterations, len(runs)) if iterations > 0 else [0] * len(runs)
    if iterations > 0:
        runs = [r for r, k in zip(runs, shares) if k > 0]
        shares = [k for k in shares if k > 0]
    by_thread, seconds = run_parallel(runs, shares, time_limit, stop)
    return sum(by_thread), by_thread, seconds


# The win probability a search reports is biased (the playouts' heuristic
# play, the network's error, the tree's exploration), and more iterations
# narrow the sampling noise but keep the bias.  The 95% interval adds a
# bias term to the sampling variance, in units of the outcome's own variance
# p (1 - p): half-width 1.96 sqrt(p (1 - p) (1/n + b^2)), b by searcher and
# leaf evaluation (the registry's ``eval``), so a position every sample wins
# or loses stays tight (the bots read decided positions right) and the width
# is largest where the game is open.  In the last turn b is calibrated
# against exact values on the frozen last-turn suite (``wildhorn-solve
# bench endgame``, results/bench-endgame.json: ``values``, the largest
# ``bias_needed`` for 95% coverage over the searcher's budgets with that
# eval); before it, where nothing is exact, against searches 16 times longer
# with the same eval (benchmarks/value_coverage.py,
# results/value-coverage-calibration*.json: ``bias_needed``), which share
# the leaves' bias, so that b is a lower bound there.  The ``mix`` figures
# are the packaged network's (generation 3) at lambda 0.5.  An evaluation not calibrated
# (eval=net or turn, another network or lambda) takes the largest b its
# searcher has: wider, never narrower than a calibrated one.
# docs/advice.md says what the interval means.
VALUE_BIAS_LAST_TURN = {"ismcts": {"playout": 0.6179, "mix": 0.6471},
                        "oos": {"playout": 0.1548}}
VALUE_BIAS = {"ismcts": {"playout": 0.057, "mix": 0.0495},
              "oos": {"playout": 0.1175}}


def value_bias(core: Any, searcher: str, leaf_eval: str = "playout") -> float:
    """The bias scale of ``searcher``'s value (ismcts or oos) at ``core``'s
    position, with the leaf evaluation ``leaf_eval``."""
    table = (VALUE_BIAS_LAST_TURN if core.turn >= core.config.turns else VALUE_BIAS)[searcher]
    return table[leaf_eval] if leaf_eval in table else max(table.values())


def bias_needed(value: float, error: float, stderr: float) -> float:
    """The smallest bias scale b for which the interval of
    :func:`win_probabilities` around ``value`` (sampling standard error
    ``stderr``) reaches ``error`` away; inf where none does (a value of 0
    or 1 that is wrong)."""
    q = value * (1.0 - value)
    if q <= 0.0:
        return 0.0 if error <= 1e-9 else float("inf")
    return sqrt(max(0.0, (error / 1.96) ** 2 / q - stderr ** 2 / q))


def win_probabilities(player: int, p: float, n: float, bias: float | None = None
                      ) -> tuple[list[float], list[list[float]]]:
    """``player``'s win probability p, estimated from n (effective) samples,
    as [polish, german] probabilities and their 95% intervals: the
    sampling variance and the bias term ``bias`` (:func:`value_bias` of the
    position; none if not given) together, 1.96 sqrt(p (1 - p) (1/n + b^2)),
    clipped to [0, 1]."""
    b = 0.0 if bias is None else bias
    half = 1.96 * sqrt(p * (1 - p) * (1.0 / max(n, 1.0) + b * b))
    value = [0.0, 0.0]
    ci = [[0.0, 0.0], [0.0, 0.0]]
    value[player] = p
    value[1 - player] = 1 - p
    ci[player] = [max(0.0, p - half), min(1.0, p + half)]
    ci[1 - player] = [max(0.0, 1 - p - half), min(1.0, 1 - p + half)]
    return value, ci

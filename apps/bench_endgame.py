"""``wildhorn-solve bench endgame``: the exact last-turn solver measured.

The positions are a *frozen suite* (``results/endgame-suite.json``, made
once by ``scripts/make_endgame_suite.py`` with :func:`make_suite`): every
decision point of the last turn after its V-2 step (more than one legal
action) in seeded games between two heuristic bots, each with its exact
values where the solver finished within the suite's node budget.  The
bench reports, in one run on one core:

* ``solved_within``: the share of those decision points solved (every
  action's exact value) within 0.1 s, 1 s and 10 s (each solved once with
  a 10 s limit; ``positions`` of them, evenly spaced through the suite),
  also by distance to the game's end, and ``best_within``: the same for
  the best action only (what a bot needs);
* ``nodes_per_second`` of those solves (median) and the transposition
  table's ``hit_rate`` (hits over lookups, summed);
* ``c_vs_python``: nodes per second of the solver with its cut-offs and
  table turned off (a plain expectimax, in C, visiting the same positions)
  against a plain Python expectimax over pyspiel states, on the same
  small-variant positions, and the same with the table on;
* ``bots``: for each bot spec, on the suite's solved positions where some
  action is proven not optimal, the share of exactly optimal choices and
  the mean and largest loss in win probability per decision, overall and
  by kind (main action, reaction window, other decision);
  ``bots_small_variant``: the same on 150 decision points of the ``small``
  variant (generated from a seed, every action solved exactly, kept where
  the actions differ in value), where the full game's suite has too few.

No figure is typed in: everything is measured by this module.
"""

from __future__ import annotations

import base64
import json
import random
import statistics
from math import ceil, sqrt
import time
from pathlib import Path
from typing import Any, Callable

import pyspiel

import solver  # noqa: F401  (registers the game)
from apps.advise import advise
from bots import bias_needed, make_bot, valuenet
from exact.endgame import Solver, solvable, solve
from solver import Core
from solver.game import make_config
from solver.jsonio import write_atomic
from solver.vocabulary import SIDES, WINDOW_PHASES

SUITE = Path("results/endgame-suite.json")
SUITE_GAMES = 100                # seeded games the suite is made of
SUITE_NODES = 300_000            # node budget of each of the suite's searches (deterministic)
SUITE_BOTS = ("ismcts:iterations=300,endgame=off",) * 2   # sensible, fast: close games
THRESHOLDS = (0.1, 1.0, 10.0)    # seconds
DEFAULT_BOTS = ("heuristic", "ismcts:iterations=1000,endgame=off",
                "ismcts:iterations=4000,endgame=off", "ismcts:iterations=1000,endgame=exact",
                "ismcts:iterations=4000,endgame=exact")
TOLERANCE = 1e-9                 # values this close are equal


def kind_of(phase: str) -> str:
    """"main" (the action step), "window" (a reaction window) or "other"."""
    if phase == "actions":
        return "main"
    return "window" if phase in WINDOW_PHASES else "other"


# ---- the suite ---------------------------------------------------------------


def last_turn_points(seed: int, specs: tuple[str, str] = SUITE_BOTS) -> list[Core]:
    """The solvable decision points with more than one legal action of one
    seeded game between ``specs`` (Polish, German), chance drawn from a
    stream seeded with ``seed``."""
    game = pyspiel.load_game("wildhorn")
    bots = [make_bot(specs[0], 0, seed), make_bot(specs[1], 1, seed + 1)]
    rng = random.Random(seed)
    state = game.new_initial_state()
    points: list[Core] = []
    while not state.is_terminal():
        if state.is_chance_node():
            outcomes = state.chance_outcomes()
            action = rng.choices([a for a, _ in outcomes], [p for _, p in outcomes])[0]
        else:
            if solvable(state.core) and len(state.legal_actions()) > 1:
                points.append(state.core.copy())
            action = bots[state.current_player()].step(state)
        state.apply_action(action)
    return points


def classify(core: Core, max_nodes: int, engine: Solver) -> dict[str, Any]:
    """The suite's record of one position: the best action's exact value
    (a best-action solve within ``max_nodes``), then for every action,
    within ``max_nodes`` each: whether it is optimal (a search of its
    position in a window just around the best value), and its exact value
    where a full-window search finishes (else an upper bound ``hi``);
    ``optimal`` None where the window search did not finish.  Values are
    win probabilities of the player to move."""
    player = core.current_player()
    best = solve(core, max_nodes=max_nodes, every_action=False, solver=engine)
    row: dict[str, Any] = {"solved": best.complete, "nodes": best.nodes}
    if not best.complete:
        return row
    polish_best = best.polish
    actions: dict[str, dict[str, Any]] = {}
    for action in core.legal_actions():
        child = core.applied(action)
        engine.clear()
        if player == 0:
            done, v, _ = engine.probe(child, polish_best - TOLERANCE, polish_best, max_nodes)
            optimal = v >= polish_best - TOLERANCE
            hi = v if not optimal else polish_best
        else:
            done, v, _ = engine.probe(child, polish_best, polish_best + TOLERANCE, max_nodes)
            optimal = v <= polish_best + TOLERANCE
            hi = 1.0 - v if not optimal else 1.0 - polish_best
        if not done:    # undetermined within the budget
            actions[str(action)] = {"optimal": None, "value": None, "hi": None}
            continue
        entry: dict[str, Any] = {"optimal": optimal, "value": best.value if optimal else None,
                                 "hi": round(hi, 12)}
        if not optimal:
            engine.clear()
            done, v, _ = engine.probe(child, -1.0, 2.0, max_nodes)
            if done:
                entry["value"] = round(v if player == 0 else 1.0 - v, 12)
        actions[str(action)] = entry
    row.update(value=round(best.value, 12), actions=actions)
    return row


def suite_game(seed: int, max_nodes: int, specs: tuple[str, str], engine: Solver,
               last: int | None = None) -> list[dict[str, Any]]:
    """The suite's rows of one seeded game: every point of
    :func:`last_turn_points` (only the ``last`` of them if given), each
    classified (:func:`classify`) within ``max_nodes``."""
    points = last_turn_points(seed, specs)
    rows = []
    for k, core in enumerate(points):
        if last is not None and len(points) - k > last:
            continue
        rows.append({"game": seed, "index": k, "from_end": len(points) - k,
                     "phase": core.phase, "player": core.current_player(),
                     "state": base64.b64encode(core.to_bytes()).decode("ascii"),
                     **classify(core, max_nodes, engine)})
    return rows


def make_suite(games: int = SUITE_GAMES, max_nodes: int = SUITE_NODES,
               log: Callable[[str], None] = lambda _: None,
               last: int | None = None, specs: tuple[str, str] = SUITE_BOTS,
               work: Path | None = None, first: int = 1) -> dict[str, Any]:
    """The frozen suite: :func:`suite_game` for seeds 1..``games`` (a node
    budget, so the suite is the same on any machine).  ``work``: a folder
    keeping each finished game's rows (``game-NNN.json``) and the run's
    parameters (``params.json``), so an interrupted run continues where it
    stopped; a folder made with other parameters is refused (ValueError).
    ``first``: the first seed played (so several processes, or machines
    sharing the folder, can each play a range; the suite is made by a run
    from seed 1, which reads the games already in the folder)."""
    params = {"max_nodes": max_nodes, "bots": list(specs), "last": last}
    if work is not None:
        work.mkdir(parents=True, exist_ok=True)
        made = work / "params.json"
        if made.exists():
            old = json.loads(made.read_text())
            if old != params:
                raise ValueError(f"{work}: made with {old}, not {params}: use another folder")
        else:
            write_atomic(made, json.dumps(params) + "\n")
    positions = []
    engine = Solver()
    for seed in range(first, games + 1):
        part = None if work is None else work / f"game-{seed:03d}.json"
        if part is not None and part.exists():
            rows = json.loads(part.read_text())
        else:
            rows = suite_game(seed, max_nodes, specs, engine, last)
            if part is not None:
                write_atomic(part, json.dumps(rows, separators=(",", ":")) + "\n")
        positions.extend(rows)
        log(f"game {seed}: {len(rows)} points, {sum(p['solved'] for p in rows)} solved, "
            f"{sum(_differs(p) for p in rows)} with a non-optimal action")
    return {"description": "Decision points of the last turn (after its V-2 step, more than "
                           "one legal action) of seeded games between two bots (bots); "
                           "where the solver finished within the node budget, the exact "
                           "win probability of the player to move under perfect play "
                           "(value) and, per action, whether it is optimal, its exact "
                           "value where found, else an upper bound (hi).",
            "made_by": "python scripts/make_endgame_suite.py",
            "games": games, "bots": list(specs), "max_nodes": max_nodes,
            "game_params": {}, "positions": positions}


def _differs(row: dict[str, Any]) -> bool:
    """True if the position was solved and some action is not optimal."""
    return row["solved"] and any(a["optimal"] is False for a in row["actions"].values())


def small_positions(count: int = 150, seed: int = 5) -> list[tuple[dict[str, Any], Core]]:
    """A second, generated set: decision points of the ``small`` variant
    (one turn, every hand known after its Rocket card: all solvable, in
    milliseconds) met along seeded random walks, every action solved
    exactly, kept where the actions differ in value; as suite rows."""
    game = pyspiel.load_game("wildhorn", {"variant": "small"})
    rng = random.Random(seed)
    engine = Solver(table_entries=1 << 16)
    out: list[tuple[dict[str, Any], Core]] = []
    seen: set[bytes] = set()
    while len(out) < count:
        state = game.new_initial_state()
        while not state.is_terminal() and len(out) < count:
            if state.is_chance_node():
                outcomes = state.chance_outcomes()
                state.apply_action(rng.choices([a for a, _ in outcomes],
                                               [p for _, p in outcomes])[0])
                continue
            core = state.core
            if len(state.legal_actions()) > 1 and core.to_bytes() not in seen:
                seen.add(core.to_bytes())
                result = solve(core, solver=engine)
                values = {a.action: a.value for a in result.actions}
                if max(values.values()) - min(values.values()) > TOLERANCE:
                    row = {"phase": core.phase, "player": core.current_player(),
                           "solved": True, "value": result.value,
                           "actions": {str(a): {"optimal": v >= result.value - TOLERANCE,
                                                "value": v, "hi": v}
                                       for a, v in values.items()}}
                    out.append((row, core.copy()))
            state.apply_action(rng.choice(state.legal_actions()))
    return out


def suite_cores(suite: dict[str, Any]) -> list[tuple[dict[str, Any], Core]]:
    """(row, position) for every position of the suite."""
    config = make_config(suite.get("game_params") or None)
    return [(row, Core.from_bytes(config, base64.b64decode(row["state"])))
            for row in suite["positions"]]


# ---- the measurements -------------------------------------------------------------


def solve_times(cores: list[tuple[dict[str, Any], Core]], limit: float = THRESHOLDS[-1],
                log: Callable[[str], None] = lambda _: None) -> dict[str, Any]:
    """Each position solved twice with a ``limit``-second budget (every
    action; the best action only), each from an empty table: the shares
    solved within each threshold, nodes per second, the table's hit rate,
    and the share of the solver's nodes at each step of the game."""
    engine = Solver()
    every, best, rates = [], [], []
    probes = hits = 0
    steps: dict[str, int] = {}
    by_distance: dict[str, list[bool]] = {}
    for n, (row, core) in enumerate(cores):
        times = []
        for every_action in (True, False):
            result = solve(core, max_seconds=limit, every_action=every_action, solver=engine)
            times.append(result.seconds if result.complete else float("inf"))
            if every_action:
                probes += result.probes
                hits += result.hits
                for step, count in engine.nodes_by_step().items():
                    steps[step] = steps.get(step, 0) + count
                if result.seconds > 0:
                    rates.append(result.nodes / result.seconds)
        every.append(times[0])
        best.append(times[1])
        band = _distance_band(row["from_end"])
        by_distance.setdefault(band, []).append(times[0] <= 1.0)
        log(f"position {n + 1}/{len(cores)}: {row['phase']}, {row['from_end']} from the end: "
            f"{times[0]:.3f} s (best {times[1]:.3f} s)")

    total_steps = sum(steps.values())

    def shares(ts: list[float]) -> dict[str, float]:
        return {f"{t:g}s": round(sum(x <= t for x in ts) / len(ts), 4) for t in THRESHOLDS}

    return {"positions": len(cores), "limit_seconds": limit,
            "solved_within": shares(every), "best_within": shares(best),
            "solved_within_1s_by_distance_to_end": {
                band: {"positions": len(v), "share": round(sum(v) / len(v), 4)}
                for band, v in sorted(by_distance.items(), key=lambda kv: _band_order(kv[0]))},
            "nodes_per_second_median": round(statistics.median(rates)) if rates else None,
            "table_hit_rate": round(hits / probes, 4) if probes else None,
            "nodes_by_step_share": {step: round(count / total_steps, 4)
                                    for step, count in sorted(steps.items(),
                                                              key=lambda kv: -kv[1])}}


def _distance_band(k: int) -> str:
    return "1-10" if k <= 10 else "11-20" if k <= 20 else "21-30" if k <= 30 else "31+"


def _band_order(band: str) -> int:
    return int(band.split("-")[0].rstrip("+"))


class _TooBig(Exception):
    """The Python expectimax passed its node cap."""


def python_expectimax(state: pyspiel.State, counter: list[int], cap: int = 0) -> float:
    """A plain expectimax over pyspiel states (the reference of the tests);
    raises _TooBig past ``cap`` nodes (0: no cap)."""
    counter[0] += 1
    if cap and counter[0] > cap:
        raise _TooBig
    if state.is_terminal():
        return (state.returns()[0] + 1.0) / 2.0
    if state.is_chance_node():
        return sum(p * python_expectimax(state.child(a), counter, cap)
                   for a, p in state.chance_outcomes())
    values = [python_expectimax(state.child(a), counter, cap) for a in state.legal_actions()]
    return max(values) if state.current_player() == 0 else min(values)


def c_vs_python(count: int = 6, seed: int = 3, log: Callable[[str], None] = lambda _: None
                ) -> dict[str, Any]:
    """Nodes per second of the C solver against a plain Python expectimax
    over pyspiel states, on the same positions of the small variant (a few
    random moves after the Rocket card, at most 200,000 Python nodes), one
    run, medians and their ratios:

    * ``ratio``: the C solver as a plain expectimax (no cut-offs, no merged
      dice, no transposition table), which visits exactly the positions the
      Python one visits (``same_nodes``): the per-node speed, like for like;
    * ``ratio_with_table``: the same with its transposition table and
      canonical keys on (each node also packs its key and probes the
      table, and transpositions are searched once, so fewer nodes);
    * ``time_ratio_with_table``: the Python expectimax's time over that
      solver's, per position: what the table's fewer nodes give in all."""
    game = pyspiel.load_game("wildhorn", {"variant": "small"})
    rng = random.Random(seed)
    c_rates, t_rates, py_rates, speedups, agree, same = [], [], [], [], True, True
    plain = Solver(bounds=False, ordering=False, history=False, merging=False,
                   transpositions=False)
    tabled = Solver(bounds=False, ordering=False, history=False, merging=False)
    tries = 0
    while len(c_rates) < count and tries < 500:
        tries += 1
        state = game.new_initial_state()
        state.apply_action(rng.randrange(2))
        for _ in range(rng.randrange(2, 10)):
            if state.is_terminal():
                break
            if state.is_chance_node():
                outcomes = state.chance_outcomes()
                state.apply_action(rng.choices([a for a, _ in outcomes],
                                               [p for _, p in outcomes])[0])
            else:
                state.apply_action(rng.choice(state.legal_actions()))
        if state.is_terminal() or state.is_chance_node():
            continue
        counter = [0]
        t0 = time.perf_counter()
        try:
            value = python_expectimax(state, counter, cap=200_000)
        except _TooBig:
            continue
        py_seconds = time.perf_counter() - t0
        if counter[0] < 2_000:
            continue
        result = solve(state.core, solver=plain)
        with_table = solve(state.core, solver=tabled)
        agree = agree and abs(result.polish - value) < 1e-9 \
            and abs(with_table.polish - value) < 1e-9
        same = same and result.nodes == counter[0]
        c_rates.append(result.nodes / result.seconds)
        t_rates.append(with_table.nodes / with_table.seconds)
        py_rates.append(counter[0] / py_seconds)
        speedups.append(py_seconds / with_table.seconds)
        log(f"c vs python: {counter[0]} python nodes, {result.nodes} C nodes, "
            f"{with_table.nodes} with the table")
    c, t, py = (statistics.median(c_rates), statistics.median(t_rates),
                statistics.median(py_rates))
    return {"positions": len(c_rates), "c_nodes_per_second": round(c),
            "c_nodes_per_second_with_table": round(t),
            "python_nodes_per_second": round(py), "ratio": round(c / py, 1),
            "ratio_with_table": round(t / py, 1),
            "time_ratio_with_table": round(statistics.median(speedups), 1),
            "same_nodes": same, "values_agree": agree}


def grade_bots(cores: list[tuple[dict[str, Any], Core]], specs: tuple[str, ...],
               seed: int = 0, log: Callable[[str], None] = lambda _: None) -> dict[str, Any]:
    """Each bot's choice at each solved position where some action is not
    optimal: the share of optimal choices (exact), and the loss in win
    probability per decision (the best value minus the chosen action's:
    exact where its value was found, else the lower bound best - hi, so the
    mean is exact when ``bounded`` is 0 and a lower bound otherwise), by kind;
    a choice whose optimality the suite could not determine is left out
    (``undetermined``)."""
    graded = [(row, core) for row, core in cores if _differs(row)]
    out: dict[str, Any] = {"positions": len(graded),
                           "positions_by_kind": _count_kinds(graded)}
    for spec in specs:
        losses: dict[str, list[tuple[float, bool]]] = {}
        solved: list[tuple[float, bool]] = []
        undetermined = 0
        for n, (row, core) in enumerate(graded):
            bot = make_bot(spec, core.current_player(), seed + n)
            answer = bot.analyse(core.copy())
            entry = row["actions"][str(answer["action"])]
            if entry["optimal"] is None:
                undetermined += 1
                continue
            if entry["optimal"]:
                loss, exact = 0.0, True
            elif entry["value"] is not None:
                loss, exact = row["value"] - entry["value"], True
            else:
                loss, exact = row["value"] - entry["hi"], False
            losses.setdefault(kind_of(row["phase"]), []).append((max(loss, 0.0), exact))
            if answer.get("exact"):       # the bot's own solver finished: its answer is exact
                solved.append((max(loss, 0.0), exact))
            bot.close()
        every = [x for v in losses.values() for x in v]
        out[spec] = {"all": _loss_stats(every), "undetermined": undetermined,
                     "solved_by_the_bot": _loss_stats(solved),
                     **{kind: _loss_stats(v) for kind, v in sorted(losses.items())}}
        log(f"{spec}: {out[spec]['all']}")
    return out


def _count_kinds(graded: list) -> dict[str, int]:
    counts: dict[str, int] = {}
    for row, _ in graded:
        counts[kind_of(row["phase"])] = counts.get(kind_of(row["phase"]), 0) + 1
    return counts


def _loss_stats(losses: list[tuple[float, bool]]) -> dict[str, Any]:
    if not losses:
        return {"decisions": 0}
    values = [x for x, _ in losses]
    return {"decisions": len(losses),
            "optimal": round(sum(x <= TOLERANCE for x in values) / len(values), 4),
            "mean_loss": round(statistics.fmean(values), 4),
            "max_loss": round(max(values), 4),
            "bounded": sum(not exact for _, exact in losses)}


VALUE_SEARCHES = (("ismcts", 1000, "playout"), ("ismcts", 4000, "playout"),
                  ("ismcts", 16000, "playout"), ("oos", 4000, "playout"),
                  ("ismcts", 1000, "mix"), ("ismcts", 4000, "mix"),
                  ("ismcts", 16000, "mix"))   # the searches (bot, iterations, eval) whose values are checked
ADVISE_ITERATIONS = 4000                 # advise's answers checked at its defaults


def value_check(cores: list[tuple[dict[str, Any], Core]],
                searches: tuple[tuple[str, int, str], ...] = VALUE_SEARCHES, seed: int = 0,
                log: Callable[[str], None] = lambda _: None) -> dict[str, Any]:
    """How good the searches' win probabilities and intervals are, on the
    solved positions whose actions differ (the suite's non-trivial ones),
    with the exact solver off (so the search's own estimate is judged):
    for each search (bot, iterations, leaf eval), the mean absolute error of the reported win
    probability of the player to move against the exact value, the share
    of reported 95% intervals that contain it (``coverage``), the same for
    the sampling-only interval (``coverage_sampling``), and ``bias_needed``:
    the smallest bias scale b for which the interval
    1.96 sqrt(p (1 - p) (1/n + b^2)) covers 95% of these positions (what
    ``bots._budget.VALUE_BIAS_LAST_TURN`` is calibrated from, by bot and
    eval; None if no b does).  Keys: ``BOT:iterations=N``, with
    ``,eval=E`` unless E is playout."""
    graded = [(row, core) for row, core in cores if _differs(row)]
    out: dict[str, Any] = {"positions": len(graded)}
    for name, n, leaf_eval in searches:
        errors, covered, covered_sampling, needed = [], 0, 0, []
        key = f"{name}:iterations={n}" + ("" if leaf_eval == "playout" else f",eval={leaf_eval}")
        for k, (row, core) in enumerate(graded):
            player = core.current_player()
            bot = make_bot(f"{key},endgame=off", player, seed + k)
            result = bot.analyse(core.copy())
            value = result["value"][player]
            lo, hi = result["value_ci95"][player]
            se = sampling_error(result["stats"], value)
            error = abs(value - row["value"])
            errors.append(error)
            covered += lo - TOLERANCE <= row["value"] <= hi + TOLERANCE
            covered_sampling += error <= 1.96 * se + TOLERANCE
            needed.append(bias_needed(value, error, se))
        m = len(errors) or 1
        out[key] = {"mean_error": round(statistics.fmean(errors), 4) if errors else None,
                    "coverage": round(covered / m, 4),
                    "coverage_sampling": round(covered_sampling / m, 4),
                    "bias_needed": _rounded(quantile(needed, 0.95)) if needed else None}
        log(f"values of {key}: {out[key]}")
    return out


def sampling_error(stats: dict[str, Any], value: float) -> float:
    """The standard error of a search's reported value from its samples
    alone: the recommended action's visits (ISMCTS), the root's effective
    samples (OOS)."""
    if "effective_samples" in stats:
        n = stats["effective_samples"]
    else:
        n = max(stats["actions"], key=lambda a: (a["visits"], a["value"]))["visits"]
    return sqrt(value * (1 - value) / max(n, 1.0))


def _rounded(x: float) -> float | None:
    """``x`` to 4 places; None for inf (no bias scale suffices)."""
    return None if x == float("inf") else round(x, 4)


def quantile(xs: list[float], q: float) -> float:
    """The smallest x with at least a share ``q`` of ``xs`` at or below it."""
    ordered = sorted(xs)
    return ordered[min(len(ordered) - 1, max(0, ceil(q * len(ordered)) - 1))]


def advise_check(cores: list[tuple[dict[str, Any], Core]],
                 iterations: int = ADVISE_ITERATIONS, seed: int = 0,
                 log: Callable[[str], None] = lambda _: None) -> dict[str, Any]:
    """``advise`` with its defaults (the exact solver on, threads of the
    interactive default) at ``iterations`` on the suite's non-trivial
    positions: the share of exactly optimal recommendations, the mean
    loss, the mean value error and the coverage of the reported 95%
    interval, and how many answers were exact."""
    graded = [(row, core) for row, core in cores if _differs(row)]
    losses, errors, covered, exact, undetermined = [], [], 0, 0, 0
    for k, (row, core) in enumerate(graded):
        answer = advise(core.copy(), iterations=iterations, seed=seed + k, responses=False)
        entry = row["actions"][str(answer["recommended_id"])]
        side = SIDES[core.current_player()]
        value = answer["value"][side]
        lo, hi = answer["value_ci95"][side]
        errors.append(abs(value - row["value"]))
        covered += lo - 1e-4 <= row["value"] <= hi + 1e-4    # the answer's values are rounded
        exact += bool(answer.get("exact"))
        if entry["optimal"] is None:
            undetermined += 1
            continue
        losses.append(0.0 if entry["optimal"] else
                      row["value"] - (entry["value"] if entry["value"] is not None
                                      else entry["hi"]))
    m = len(graded) or 1
    out = {"positions": len(graded), "iterations": iterations, "exact_answers": exact,
           "optimal": round(sum(x <= TOLERANCE for x in losses) / len(losses), 4)
           if losses else None,
           "mean_loss": round(statistics.fmean(losses), 4) if losses else None,
           "max_loss": round(max(losses), 4) if losses else None,
           "undetermined": undetermined,
           "mean_value_error": round(statistics.fmean(errors), 4) if errors else None,
           "coverage": round(covered / m, 4)}
    log(f"advise at {iterations} iterations: {out}")
    return out


PARTS = ("solve_times", "c_vs_python", "bots", "values", "advise", "bots_small_variant")


def bench_endgame(suite_path: Path = SUITE, specs: tuple[str, ...] = DEFAULT_BOTS,
                  positions: int = 60, log: Callable[[str], None] = lambda _: None,
                  parts: tuple[str, ...] = PARTS, before: dict[str, Any] | None = None
                  ) -> dict[str, Any]:
    """Every figure of the module's docstring, as one JSON-ready dict;
    with ``parts`` a subset of :data:`PARTS`, only those are measured and
    the others are taken from ``before`` (an earlier result on the same
    suite, which must have them)."""
    suite = json.loads(Path(suite_path).read_text())
    cores = suite_cores(suite)
    step = max(1, len(cores) // positions) if positions else 1
    sample = cores[::step][:positions] if positions else cores
    measure = {"solve_times": lambda: solve_times(sample, log=log),
               "c_vs_python": lambda: c_vs_python(log=log),
               "bots": lambda: grade_bots(cores, specs, log=log),
               "values": lambda: value_check(cores, log=log),
               "advise": lambda: advise_check(cores, log=log),
               "bots_small_variant": lambda: grade_bots(small_positions(), specs, log=log)}
    out = {"suite": str(suite_path), "suite_positions": len(cores),
           "suite_solved": sum(r["solved"] for r, _ in cores),
           "suite_max_nodes": suite["max_nodes"]}
    # the packaged network when each part was measured (a network eval
    # without net= uses it); None for a part measured before this record
    earlier = (before or {}).get("packaged_network") or {}
    now = valuenet.packaged_sha256() if parts else None
    out["packaged_network"] = {}
    for part in PARTS:
        out[part] = measure[part]() if part in parts else (before or {})[part]
        out["packaged_network"][part] = now if part in parts else earlier.get(part)
    return out

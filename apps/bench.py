"""Benchmarks of the core, measured against OpenSpiel references in one run.

``wildhorn-solve bench core --json`` prints one JSON object and writes
``results/bench-core.json``.  Every figure is a median over repeats; the
references (OpenSpiel's C++ hearts with C++ random bots, the Python liars
poker game) are measured in the same run, on the same machine, so that the
ratios are meaningful on a shared, noisy machine.  No figure is typed in.
"""

from __future__ import annotations

import json
import os
import platform
import random
import statistics
import sys
import time
from pathlib import Path
from typing import Any, Callable

import pyspiel

import solver
from bots import ISMCTS, OOS
from bots.registry import available_cores, engine_options
from solver import Core, playout_stats, tree_size
from solver.game import VARIANTS, make_config


def _median_rate(fn: Callable[[], tuple[float, float]], repeats: int) -> tuple[float, float]:
    """Runs fn (returning (count, seconds)) ``repeats`` times; median rate and seconds."""
    rates, secs = [], []
    for _ in range(repeats):
        count, seconds = fn()
        rates.append(count / seconds)
        secs.append(seconds)
    return statistics.median(rates), statistics.median(secs)


def _per_call_us(fn: Callable[[Any], Any], items: list[Any], repeats: int, loops: int = 20) -> float:
    """Median over repeats of the mean cost of fn(item) in microseconds."""
    samples = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        for _ in range(loops):
            for item in items:
                fn(item)
        samples.append((time.perf_counter() - t0) / (loops * len(items)) * 1e6)
    return statistics.median(samples)


def play_random(game: pyspiel.Game, rng: random.Random,
                visit: Callable[[pyspiel.State], None] | None = None) -> pyspiel.State:
    """Plays one game with uniformly random decisions and chance drawn with
    its probabilities; ``visit`` sees every node before its move."""
    state = game.new_initial_state()
    while not state.is_terminal():
        if visit is not None:
            visit(state)
        if state.is_chance_node():
            actions, probs = zip(*state.chance_outcomes())
            state.apply_action(rng.choices(actions, probs)[0])
        else:
            state.apply_action(rng.choice(state.legal_actions()))
    return state


def sample_states(game: pyspiel.Game, count: int, seed: int) -> list[pyspiel.State]:
    """Decision states met along seeded uniformly random games."""
    rng = random.Random(seed)
    states: list[pyspiel.State] = []

    def keep(state: pyspiel.State) -> None:
        if not state.is_chance_node() and rng.random() < 0.1:
            states.append(state.clone())

    while len(states) < count:
        play_random(game, rng, keep)
    return states[:count]


class _BareState(pyspiel.State):
    """A Python-registered state with nothing in its ``__dict__``."""


def bench_core(repeats: int = 5, games: int = 4000, sims: int = 20) -> dict[str, Any]:
    """Measures the core and its pyspiel layer; returns the figures."""
    game = pyspiel.load_game("wildhorn")
    root = Core(make_config())

    def c_run(seed=[0]):
        seed[0] += 1
        r = playout_stats(root, games, seed[0])
        return r, r["seconds"]

    runs = [c_run()[0] for _ in range(repeats)]
    c_tps = statistics.median(r["transitions"] / r["seconds"] for r in runs)
    c_gps = statistics.median(games / r["seconds"] for r in runs)
    c_steps = statistics.median(r["steps"] / r["seconds"] for r in runs)
    per_game = statistics.median(r["transitions"] / games for r in runs)

    states = sample_states(game, 64, seed=7)
    actions = [s.legal_actions()[0] for s in states]
    pairs = list(zip(states, actions))
    clone_us = _per_call_us(lambda s: s.clone(), states, repeats)
    # The floor of OpenSpiel's clone of a Python-registered state: a state of
    # this game whose __dict__ is empty (nothing to deep-copy).
    bare = [_BareState(game) for _ in range(64)]
    bare_clone_us = _per_call_us(lambda s: s.clone(), bare, repeats)
    apply_us = _per_call_us(lambda sa: sa[0].clone().apply_action(sa[1]), pairs, repeats) - clone_us
    legal_us = _per_call_us(lambda s: s.legal_actions(), states, repeats)
    info_us = _per_call_us(lambda s: s.information_state_string(s.current_player()), states, repeats)

    sim_ms = []
    for _ in range(max(1, repeats // 2)):
        t0 = time.perf_counter()
        pyspiel.random_sim_test(game, num_sims=sims, serialize=True, verbose=False)
        sim_ms.append((time.perf_counter() - t0) / sims * 1e3)
    # random_sim_test spends most of its time in OpenSpiel's own checks and
    # in pybind calls into Python; the same harness on OpenSpiel's Python
    # kuhn poker shows that floor per transition.
    from open_spiel.python.games import kuhn_poker  # noqa: F401  (registers it)
    kuhn = pyspiel.load_game("python_kuhn_poker")
    kuhn_us = []
    for _ in range(max(1, repeats // 2)):
        t0 = time.perf_counter()
        pyspiel.random_sim_test(kuhn, num_sims=200, serialize=True, verbose=False)
        kuhn_us.append((time.perf_counter() - t0) / 200 / _mean_length(kuhn, 200) * 1e6)
    ours_per_transition = statistics.median(sim_ms) * 1e3 / _mean_length(game, 50)

    hearts = pyspiel.load_game("hearts")
    hearts_bots = [pyspiel.make_uniform_random_bot(p, 1234 + p) for p in range(4)]

    def hearts_run(seed=[0]):
        n = 0
        t0 = time.perf_counter()
        for _ in range(games // 4):
            seed[0] += 1
            state = hearts.new_initial_state()
            pyspiel.evaluate_bots(state, hearts_bots, seed[0])
            n += len(state.history())
        return n, time.perf_counter() - t0

    hearts_tps, _ = _median_rate(hearts_run, repeats)

    from open_spiel.python.games import liars_poker  # noqa: F401  (registers the game)
    lp = pyspiel.load_game("python_liars_poker")
    lp_states = sample_states(lp, 64, seed=7)
    lp_clone_us = _per_call_us(lambda s: s.clone(), lp_states, repeats)

    out = {
        "c_transitions_per_s": round(c_tps),
        "c_games_per_s": round(c_gps, 1),
        "c_steps_per_s": round(c_steps),
        "c_transitions_per_game": round(per_game, 1),
        "pyspiel_clone_us": round(clone_us, 3),
        "pyspiel_apply_us": round(apply_us, 3),
        "pyspiel_legal_actions_us": round(legal_us, 3),
        "pyspiel_infostate_string_us": round(info_us, 3),
        "random_sim_test_ms_per_game": round(statistics.median(sim_ms), 3),
        "random_sim_test_us_per_transition": round(ours_per_transition, 1),
        "ref_python_kuhn_poker_random_sim_test_us_per_transition": round(statistics.median(kuhn_us), 1),
        "ref_hearts_cpp_transitions_per_s": round(hearts_tps),
        "ref_python_liars_poker_clone_us": round(lp_clone_us, 3),
        "ref_empty_python_state_clone_us": round(bare_clone_us, 3),
    }
    out["ratio_c_vs_hearts"] = round(c_tps / hearts_tps, 3)
    out["ratio_clone_vs_liars_poker"] = round(clone_us / lp_clone_us, 3)
    out["targets"] = {
        "c_transitions_vs_hearts_ge_1": out["ratio_c_vs_hearts"] >= 1.0,
        "pyspiel_clone_le_3us": clone_us <= 3.0,
        "random_sim_test_le_5ms_per_game": out["random_sim_test_ms_per_game"] <= 5.0,
    }
    out["notes"] = {
        "transitions": "decisions and chance events a pyspiel driver would see; "
                       "steps also counts the moves R29/R30 apply automatically",
        "floors": "ref_empty_python_state_clone_us is pyspiel's clone of a state with an "
                  "empty __dict__ (OpenSpiel's own cost per Python-game clone); "
                  "ref_python_kuhn_poker_random_sim_test_us_per_transition is "
                  "random_sim_test's cost per transition on OpenSpiel's Python kuhn poker",
        "method": f"medians of {repeats} repeats; {games} C playouts per repeat; "
                  f"{games // 4} hearts games per repeat; random_sim_test with {sims} sims",
    }
    out["meta"] = _meta()
    return out


def _mean_length(game: pyspiel.Game, games: int) -> float:
    """Mean number of transitions (history length) of seeded random games."""
    rng = random.Random(1)
    return sum(len(play_random(game, rng).history()) for _ in range(games)) / games


def bench_variants(cap: int = 3 * 10**8) -> dict[str, Any]:
    """Walks the whole tree of each small preset: histories and information states."""
    out: dict[str, Any] = {}
    for name in VARIANTS:
        if name == "full":
            continue
        t0 = time.perf_counter()
        r = tree_size(Core(make_config({"variant": name})), cap=cap)
        r["seconds"] = round(time.perf_counter() - t0, 2)
        r["uniform_polish_win"] = round(r["uniform_polish_win"], 6)
        out[name] = r
    # The full game is far too large to walk; its size is estimated from the
    # branching seen along random games (product of options per node).
    out["full_estimate"] = _full_size_estimate(200)
    out["meta"] = _meta()
    return out


def _full_size_estimate(games: int) -> dict[str, Any]:
    import math
    game = pyspiel.load_game("wildhorn")
    rng = random.Random(11)
    logs = []
    for _ in range(games):
        options: list[float] = []
        play_random(game, rng, lambda state: options.append(math.log10(
            len(state.chance_outcomes()) if state.is_chance_node() else len(state.legal_actions()))))
        logs.append(sum(options))
    return {"median_log10_histories_along_a_game": round(statistics.median(logs), 1),
            "method": "median over random games of log10 of the product of the options "
                      "met (a Knuth-style estimate of the number of histories)",
            "games": games}


def _meta() -> dict[str, Any]:
    from importlib.metadata import PackageNotFoundError, version
    try:
        os_version = version("open_spiel")
    except PackageNotFoundError:
        os_version = "unknown"
    return {"wildhorn_solve": solver.__version__,
            "open_spiel": os_version,
            "python": sys.version.split()[0], "machine": platform.machine(),
            "cpus": os.cpu_count(), "date": time.strftime("%Y-%m-%d %H:%M:%S")}


def write_json(data: dict[str, Any], path: str | os.PathLike) -> Path:
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    tmp = p.with_suffix(p.suffix + ".tmp")
    tmp.write_text(json.dumps(data, indent=2, sort_keys=False) + "\n")
    os.replace(tmp, p)
    return p


def _opening(game: pyspiel.Game, seed: int) -> pyspiel.State:
    """The first decision of a seeded game."""
    rng = random.Random(seed)
    state = game.new_initial_state()
    while state.is_chance_node():
        actions, probs = zip(*state.chance_outcomes())
        state.apply_action(rng.choices(actions, probs)[0])
    return state


def _midgame(game: pyspiel.Game, seed: int) -> pyspiel.State:
    """A main-step decision of turn 2 or 3 along a seeded random game."""
    rng = random.Random(seed)
    while True:
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                actions, probs = zip(*state.chance_outcomes())
                state.apply_action(rng.choices(actions, probs)[0])
                continue
            if state.core.turn >= 2 and state.core.phase == "actions" and rng.random() < 0.3:
                return state
            state.apply_action(rng.choice(state.legal_actions()))


def _advise_figures() -> dict[str, Any]:
    """Wall-clock seconds of ``wildhorn-solve advise`` with the default budget
    on each example (a subprocess, as a user runs it), and how many of 5
    seeds recommend the most common action."""
    import subprocess
    from collections import Counter

    examples = sorted((Path(__file__).resolve().parent.parent / "examples").glob("*.json"))
    seconds, agreement = [], {}
    for path in examples:
        picks = []
        for seed in range(5):
            t0 = time.perf_counter()
            r = subprocess.run([sys.executable, "-m", "apps.cli", "advise", str(path),
                                "--json", "--seed", str(seed)],
                               capture_output=True, text=True, check=True)
            seconds.append(time.perf_counter() - t0)
            picks.append(json.loads(r.stdout)["recommended"])
        agreement[path.name] = Counter(picks).most_common(1)[0][1]
    return {"advise_seconds_default_budget_median": round(statistics.median(seconds), 3)
            if seconds else None,
            "advise_seconds_default_budget_max": round(max(seconds), 3) if seconds else None,
            "advise_agreement_5_seeds": agreement}


def thread_counts(cores: int) -> list[int]:
    """1, 2, every power of two up to ``cores``, and ``cores`` itself."""
    counts, n = [1, 2], 4
    while n <= cores:
        counts.append(n)
        n *= 2
    return sorted(set(counts + [cores]))


def _cpu_jiffies() -> tuple[int, int, int] | None:
    """The machine's CPU time from /proc/stat in ticks: (busy, idle, steal),
    or None where there is no /proc/stat."""
    try:
        with open("/proc/stat") as f:
            fields = [int(x) for x in f.readline().split()[1:]]
    except (OSError, ValueError):
        return None
    idle = fields[3] + (fields[4] if len(fields) > 4 else 0)
    steal = fields[7] if len(fields) > 7 else 0
    return sum(fields[:8]) - idle - steal, idle, steal


def _autogroup() -> bool | None:
    """True if Linux's scheduler groups processes by session (autogroup):
    then a process's threads share its session's fair share of the CPUs,
    and while another session keeps the cores busy, two threads get about
    the CPU one would.  None where the kernel does not say."""
    try:
        return Path("/proc/sys/kernel/sched_autogroup_enabled").read_text().strip() == "1"
    except OSError:
        return None


def bench_threads(state: pyspiel.State, repeats: int = 5,
                  per_thread: int = 4000) -> dict[str, Any]:
    """ISMCTS iterations per second with 1, 2, 4... threads (root
    parallelisation) from ``state``, with the bot's default options (the
    registry's: heuristic rollouts and prior); each thread does
    ``per_thread`` iterations, as under a time budget each thread's tree
    grows as one thread's would.  The thread counts are interleaved within
    each repeat, so the machine's other load falls on all of them alike.
    Besides the rates, per thread count: the process's CPU seconds per wall
    second (N if the threads ran all the time), and the share of the
    machine's CPU that other processes and the hypervisor (steal) took
    meanwhile, which says why a rate falls short.  OOS's rates and
    efficiency the same way, in the same repeats (``oos_`` keys)."""
    cores = available_cores()
    counts = thread_counts(cores)
    searchers = {"ismcts": (ISMCTS, engine_options("ismcts", {})),
                 "oos": (OOS, engine_options("oos", {}))}
    rates = {name: {n: [] for n in counts} for name in searchers}
    cpu: dict[int, list[float]] = {n: [] for n in counts}   # ISMCTS's
    others: dict[int, list[float]] = {n: [] for n in counts}
    ticks = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100
    machine = os.cpu_count() or 1
    for r in range(repeats):
        for name, (cls, options) in searchers.items():
            for n in counts:
                engine = cls(seed=r, **{**options, "threads": n})
                before, c0, t0 = _cpu_jiffies(), time.process_time(), time.perf_counter()
                stats = engine.search(state.core, iterations=per_thread * n)
                wall = time.perf_counter() - t0
                used, after = time.process_time() - c0, _cpu_jiffies()
                rates[name][n].append(stats["iterations"] / stats["seconds"])
                if name != "ismcts":
                    continue
                cpu[n].append(used / wall)
                if before is not None and after is not None:
                    busy = (after[0] - before[0] + after[2] - before[2]) / ticks
                    others[n].append(max(0.0, busy - used) / (wall * machine))
    median = {name: {n: statistics.median(v) for n, v in by.items()}
              for name, by in rates.items()}
    ismcts = rates["ismcts"]
    per_cpu = {n: statistics.median(r / c for r, c in zip(ismcts[n], cpu[n]) if c > 0)
               for n in counts}
    return {
        "ismcts_iters_per_s_by_threads": {str(n): round(median["ismcts"][n]) for n in counts},
        "thread_efficiency": round(median["ismcts"][cores] / (cores * median["ismcts"][1]), 3),
        "thread_cores": cores,
        # iterations per CPU second with all cores over with one: 1 if the
        # threads, when they run, iterate as fast as one thread alone (the
        # rest of a shortfall is time the threads did not get a CPU)
        "thread_efficiency_per_cpu_second": round(per_cpu[cores] / per_cpu[1], 3),
        "thread_cpu_per_wall_by_threads": {str(n): round(statistics.median(cpu[n]), 2)
                                           for n in counts},
        "thread_others_cpu_share_by_threads": {
            str(n): round(statistics.median(others[n]), 3) if others[n] else None
            for n in counts},
        "thread_scheduler_autogroup": _autogroup(),
        "oos_iters_per_s_by_threads": {str(n): round(median["oos"][n]) for n in counts},
        "oos_thread_efficiency": round(median["oos"][cores] / (cores * median["oos"][1]), 3),
        "thread_method": f"medians of {repeats} interleaved repeats; {per_thread} iterations "
                         f"per thread from the opening; bot defaults but threads: ismcts "
                         f"{searchers['ismcts'][1]}, oos {searchers['oos'][1]}",
    }


def bench_search(repeats: int = 3, iterations: int = 20000,
                 ref_simulations: int = 300) -> dict[str, Any]:
    """ISMCTS speed from the opening and mid-game, its memory at 100k
    iterations, and OpenSpiel's Python ISMCTS on the same game, same run."""
    import numpy as np
    from open_spiel.python.algorithms import ismcts as os_ismcts
    from open_spiel.python.algorithms import mcts


    game = pyspiel.load_game("wildhorn")
    opening = _opening(game, 1)
    midgame = _midgame(game, 2)
    # first, before the process holds a 100k-iteration tree and OpenSpiel's
    # Python search has run
    threads = bench_threads(opening, repeats=max(repeats, 5))

    def rate(state, rollout):
        out = []
        for r in range(repeats):
            engine = ISMCTS(uct_c=1.4, rollout=rollout, seed=r, prior=0.0)
            st = engine.search(state.core, iterations=iterations)
            out.append(st["iterations"] / st["seconds"])
        return statistics.median(out)

    import resource
    rss_before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    big = ISMCTS(uct_c=1.4, seed=0, prior=0.0).search(opening.core, iterations=100_000)
    rss_after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024

    ref = []
    for r in range(repeats):
        bot = os_ismcts.ISMCTSBot(
            game, mcts.RandomRolloutEvaluator(1, np.random.RandomState(r)), 1.4,
            ref_simulations, random_state=np.random.RandomState(r))
        t0 = time.perf_counter()
        bot.step(opening.clone())
        ref.append(ref_simulations / (time.perf_counter() - t0))
    out = {
        "ismcts_iters_per_s_opening": round(rate(opening, "informed")),
        "ismcts_iters_per_s_midgame": round(rate(midgame, "informed")),
        "ismcts_iters_per_s_opening_random_rollout": round(rate(opening, "random")),
        "ismcts_nodes_at_100k": big["nodes"],
        "ismcts_memory_bytes_at_100k": big["memory_bytes"],
        "process_peak_rss_bytes_before_100k": rss_before,
        "process_peak_rss_bytes_after_100k": rss_after,
        "ref_openspiel_ismcts_iters_per_s_opening": round(statistics.median(ref), 1),
    }
    out.update({k: v for k, v in threads.items() if k != "thread_method"})
    out.update(_advise_figures())
    out["ratio_vs_openspiel_opening"] = round(
        out["ismcts_iters_per_s_opening_random_rollout"] / out["ref_openspiel_ismcts_iters_per_s_opening"], 1)
    out["targets"] = {
        "opening_ge_20000_per_s": out["ismcts_iters_per_s_opening"] >= 20000,
        "ratio_vs_openspiel_ge_20": out["ratio_vs_openspiel_opening"] >= 20,
        "thread_efficiency_ge_0_85": out["thread_efficiency"] >= 0.85,
        "advise_within_2s": (out["advise_seconds_default_budget_max"] or 99) <= 2.0,
        "advise_agrees_4_of_5": bool(out["advise_agreement_5_seeds"]) and all(
            v >= 4 for v in out["advise_agreement_5_seeds"].values()),
    }
    out["notes"] = {"method": f"medians of {repeats} searches of {iterations} iterations "
                              f"(uct_c 1.4, plain UCB: prior 0); OpenSpiel's Python ISMCTSBot with "
                              f"{ref_simulations} simulations and a random rollout; the "
                              "ratio compares both with random rollouts",
                    "threads": threads["thread_method"] + "; thread_efficiency = iterations/s "
                               "with all cores / (cores x with one); cpu_per_wall is the "
                               "process's CPU seconds per wall second, others_cpu_share the "
                               "machine's CPU taken by other processes and steal meanwhile; "
                               "with thread_scheduler_autogroup, the threads share one "
                               "session's fair share of the CPUs, so another busy session "
                               "bounds thread_efficiency by that share (cpu_per_wall then "
                               "stays near 1 for every thread count), whatever the search does"}
    out["meta"] = _meta()
    return out

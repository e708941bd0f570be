"""``wildhorn-solve bench cfr``: exact solving and exploitability figures.

Writes ``results/cfr-tiny.json`` and ``results/cfr-tiny.png`` (NashConv of the
average policy against solver wall-clock seconds on ``wildhorn(variant=tiny)``):

* our CFR+, outcome-sampling and external-sampling MCCFR (exact._cfr, on the
  core's enumerated graph), and, in the same run, OpenSpiel's C++
  ``pyspiel.CFRPlusSolver`` and ``pyspiel.OutcomeSamplingMCCFRSolver`` on the
  same registered game (they call our Python game through pyspiel);
  every policy is evaluated by our exact NashConv (equal to OpenSpiel's
  ``exploitability.nash_conv``, tests/test_cfr.py), evaluation time excluded;
* the seconds each CFR+ takes to reach NashConv 1e-3 (ours: median of
  ``repeats`` runs; OpenSpiel's: median of ``ref_repeats``) and their ratio;
* the equilibrium value (Polish win probability) of ``tiny`` and ``small``
  from CFR+ run to a small NashConv, with that NashConv as its error bound;
* the exploitability of the online bots: at every information set that
  matters, the policy ISMCTS (and the online CFR bot, when installed) would
  play with a budget of N iterations, evaluated by exact NashConv, on
  ``tiny`` and ``small``: the median over ``seeds`` seeded pairs of
  searchers (one search per information set makes a single run noisy).

``bench_exploitability`` (``wildhorn-solve bench cfr --variants small``) is
that last table alone, on the variants named, with each bot that values its
leaves with a value network (``eval=net|mix|turn``) set beside the same bot
with playouts (``results/cfr-small-net.json``): the bots refuse a network
trained on another variant than the game they search (bots.valuenet), and
the bench refuses it before it starts.
"""

from __future__ import annotations

import statistics
import time
from typing import Any, Callable

import numpy as np
import pyspiel

import solver  # noqa: F401  (registers wildhorn)
from bots import BotSpecError, make_bot, parse_spec, valuenet
from exact.cfr import (GameGraph, Point, bot_policy, expected_value, first_below, game_graph,
                      nash_conv, solve, win_probability)
from apps.bench import _meta

LEVEL = 1e-3
DEFAULT_BUDGETS = (30, 100, 300, 1000, 3000, 10000, 30000)
DEFAULT_SEEDS = 3     # seed pairs per exploitability figure (their median is reported)
# the online bots as they play by default (their heuristic prior on), and
# without the prior (the search alone): the prior makes them stronger at
# play and may make them more exploitable, so the table shows both
BOTS = ("ismcts", "oos", "ismcts:prior=0", "oos:prior=0")
VARIANTS = ("tiny", "small")
LEAF_OPTIONS = ("eval", "lambda", "net")   # how a search values its leaves


def _cpp_slots(graph: GameGraph, cpp_policy, game) -> np.ndarray:
    """Slot probabilities of an OpenSpiel C++ policy, asked at a state of
    each information set (the solvers' average policies do not all support
    lookup by key)."""
    return graph.policy_from_callable(lambda i: dict(cpp_policy.action_probabilities(
        game.state_from_core(graph.infoset_core(i)))))


def _openspiel_curve(game, graph: GameGraph, make: Callable[[], Any], step: Callable[[Any], None],
                     seconds: float, level: float | None, every: Callable[[int], int]) -> list[Point]:
    """Runs an OpenSpiel solver for ``seconds`` of its own time (or until
    NashConv <= level), evaluating its average policy with our exact NashConv
    after ``every(iterations)`` more iterations."""
    solver_ = make()
    curve: list[Point] = []
    spent, done = 0.0, 0
    while spent < seconds:
        todo = every(done)
        t0 = time.perf_counter()
        for _ in range(todo):
            step(solver_)
        spent += time.perf_counter() - t0
        done += todo
        policy = _cpp_slots(graph, solver_.average_policy(), game)
        nc = nash_conv(graph, policy)
        curve.append(Point(done, spent, nc, expected_value(graph, policy)))
        if level is not None and nc <= level:
            break
    return curve


def _curve_json(curve: list[Point]) -> list[dict[str, Any]]:
    return [{"iterations": p.iterations, "seconds": round(p.seconds, 6),
             "nash_conv": p.nash_conv, "value": p.value} for p in curve]


def _seconds_to(curve: list[Point], level: float) -> float | None:
    p = first_below(curve, level)
    return None if p is None else p.seconds


def is_search_bot(spec: str) -> bool:
    """Whether the exploitability table can measure ``spec``: a search bot
    that takes an iteration budget (ismcts or oos, with options)."""
    return _policy_function(spec, 1) is not None


def _policy_function(spec: str, budget: int, seed: int = 0
                     ) -> Callable[[Any, int], dict[int, float]] | None:
    """What the bot named ``spec`` would play at a core position with
    ``budget`` iterations (None if the spec is unknown): ISMCTS plays its most visited action (one-hot);
    a bot that samples from a mixed strategy (``samples_policy``) plays that
    strategy.  ``seed`` picks the pair of seeded searchers (player p's is
    seeded ``2 * seed + p``)."""
    sep = "," if ":" in spec else ":"
    full = f"{spec}{sep}iterations={budget},nodes={budget + 16}"   # a node per iteration at most
    try:
        bots = [make_bot(full, p, seed=2 * seed + p) for p in (0, 1)]
    except BotSpecError:
        return None

    def policy_of(core, index: int) -> dict[int, float]:
        # one bot per player, its seeded stream running on from set to set
        # (bot_policy visits the sets in a fixed order: deterministic)
        bot = bots[core.current_player()]
        result = bot.analyse(core)
        if getattr(bot, "samples_policy", False):
            return {int(a): float(p) for a, p in result["policy"].items()}
        return {int(result["action"]): 1.0}
    return policy_of


_WORKER_GRAPHS: dict[str, GameGraph] = {}


def _worker_graph(variant: str) -> GameGraph:
    """The graph of ``wildhorn(variant=...)``, built once per worker process."""
    graph = _WORKER_GRAPHS.get(variant)
    if graph is None:
        graph = _WORKER_GRAPHS[variant] = game_graph(
            pyspiel.load_game(f"wildhorn(variant={variant})"))
    return graph


def _one_run(graph: GameGraph, spec: str, budget: int, seed: int
             ) -> tuple[float, float, int, float] | None:
    """NashConv, Polish win probability, information sets asked and seconds
    of one seeded pair of searchers (None for an unknown spec)."""
    fn = _policy_function(spec, budget, seed)
    if fn is None:
        return None
    t0 = time.perf_counter()
    policy, asked = bot_policy(graph, fn)
    seconds = time.perf_counter() - t0
    return nash_conv(graph, policy), win_probability(graph, policy), asked, seconds


def _one_run_in_worker(variant: str, spec: str, budget: int, seed: int):
    return _one_run(_worker_graph(variant), spec, budget, seed)


def exploitability_table(graphs: dict[str, GameGraph], bots: tuple[str, ...],
                         budgets: tuple[int, ...], log: Callable[[str], None],
                         seeds: int = DEFAULT_SEEDS, jobs: int = 1) -> list[dict]:
    """A row per variant, bot and budget: the median NashConv (and Polish
    win probability) over ``seeds`` independently seeded pairs of searchers,
    with every run's NashConv.  One search per information set makes a
    policy's NashConv noisy (on small at 300 iterations ISMCTS's ranged from
    0.57 to 1.45 over 7 seed pairs), hence the median.  ``jobs`` > 1 runs
    the searches in that many processes (the graphs' keys must then be
    wildhorn variant names); the figures do not depend on it, only the
    seconds do."""
    if seeds < 1:
        raise ValueError(f"seeds must be at least 1, got {seeds}")
    if jobs < 1:
        raise ValueError(f"jobs must be at least 1, got {jobs}")
    cells = [(variant, spec, budget) for variant in graphs for spec in bots for budget in budgets]
    tasks = [(cell, seed) for cell in cells for seed in range(seeds)]
    if jobs == 1:
        results = (_one_run(graphs[v], spec, b, seed) for (v, spec, b), seed in tasks)
        pool = None
    else:
        from concurrent.futures import ProcessPoolExecutor
        pool = ProcessPoolExecutor(max_workers=jobs)
        results = pool.map(_one_run_in_worker, *zip(*[(v, spec, b, seed)
                                                       for (v, spec, b), seed in tasks]))
    rows = []
    try:
        for variant, spec, budget in cells:
            runs = [next(results) for _ in range(seeds)]
            if any(r is None for r in runs):
                continue
            ncs = [r[0] for r in runs]
            asked = sum(r[2] for r in runs)
            seconds = sum(r[3] for r in runs)
            nc = statistics.median(ncs)
            per_search = seconds / max(asked, 1)
            rows.append({"variant": variant, "bot": spec, "iterations": budget,
                         "nash_conv": nc, "nash_conv_runs": ncs,
                         "polish_win": statistics.median(r[1] for r in runs),
                         "infosets_asked": asked // seeds,
                         "seconds_per_search": per_search,
                         "iterations_per_second": budget / per_search if per_search else None})
            log(f"  {variant:5s} {spec:14s} {budget:6d} iterations: NashConv {nc:.4f} "
                f"(median of {seeds}: {min(ncs):.4f}..{max(ncs):.4f}; "
                f"{asked // seeds} information sets, {seconds:.1f} s)")
    finally:
        if pool is not None:
            pool.shutdown(cancel_futures=True)
    return rows


def bench_cfr(repeats: int = 5, ref_repeats: int = 3, ref_seconds: float = 300.0,
              sampling_seconds: float = 10.0, budgets: tuple[int, ...] = DEFAULT_BUDGETS,
              bots: tuple[str, ...] = BOTS, small_level: float = 1e-4,
              plot: str | None = "results/cfr-tiny.png",
              log: Callable[[str], None] = print, seeds: int = DEFAULT_SEEDS,
              jobs: int = 1) -> dict[str, Any]:
    tiny_game = pyspiel.load_game("wildhorn(variant=tiny)")
    small_game = pyspiel.load_game("wildhorn(variant=small)")
    t0 = time.perf_counter()
    tiny = game_graph(tiny_game)
    tiny_build = time.perf_counter() - t0
    t0 = time.perf_counter()
    small = game_graph(small_game)
    small_build = time.perf_counter() - t0
    log(f"tiny: {tiny.nodes} nodes, {tiny.infosets} information sets ({tiny_build:.2f} s); "
        f"small: {small.nodes} nodes, {small.infosets} ({small_build:.2f} s)")

    # ours: CFR+ to 1e-3, repeated for a median; then the curves
    ours_times = []
    for _ in range(repeats):
        _, c = solve(tiny, "cfr+", target=LEVEL, checkpoints=200)
        ours_times.append(_seconds_to(c, LEVEL))
    ours_s = statistics.median(ours_times)
    log(f"our CFR+ to NashConv {LEVEL:g} on tiny: {ours_s * 1e3:.2f} ms (median of {repeats})")
    curves: dict[str, list[Point]] = {}
    _, curves["ours_cfr_plus"] = solve(tiny, "cfr+", target=1e-6, seconds=sampling_seconds)
    _, curves["ours_outcome_sampling"] = solve(tiny, "outcome", seconds=sampling_seconds,
                                               target=1e-6, first=10)
    _, curves["ours_external_sampling"] = solve(tiny, "external", seconds=sampling_seconds,
                                                target=1e-6, first=10)

    # OpenSpiel's, on the registered game, same run
    ref_times = []
    for r in range(ref_repeats):
        c = _openspiel_curve(tiny_game, tiny, lambda: pyspiel.CFRPlusSolver(tiny_game),
                             lambda s: s.evaluate_and_update_policy(), ref_seconds, LEVEL,
                             lambda done: 1)
        ref_times.append(_seconds_to(c, LEVEL))
        if r == 0:
            curves["openspiel_cfr_plus"] = c
        log(f"OpenSpiel CFR+ to NashConv {LEVEL:g}: "
            f"{'not reached' if ref_times[-1] is None else f'{ref_times[-1]:.2f} s'} "
            f"({c[-1].iterations} iterations)")
    reached = [t for t in ref_times if t is not None]
    ref_s = statistics.median(reached) if len(reached) == len(ref_times) else None
    curves["openspiel_outcome_sampling"] = _openspiel_curve(
        tiny_game, tiny, lambda: pyspiel.OutcomeSamplingMCCFRSolver(tiny_game, 0.6, 1),
        lambda s: s.run_iteration(), sampling_seconds * 3, None,
        lambda done: max(10, done // 4))

    # equilibrium values
    _, tiny_curve = solve(tiny, "cfr+", target=1e-6)
    _, small_curve = solve(small, "cfr+", target=small_level, checkpoints=20)
    tiny_value = (tiny_curve[-1].value + 1) / 2
    small_value = (small_curve[-1].value + 1) / 2
    log(f"tiny: Polish win probability {tiny_value:.6f} (NashConv {tiny_curve[-1].nash_conv:.1e})")
    log(f"small: Polish win probability {small_value:.6f} "
        f"(NashConv {small_curve[-1].nash_conv:.1e}, {small_curve[-1].iterations} iterations, "
        f"{small_curve[-1].seconds:.1f} s)")

    log("exploitability of the online bots (exact NashConv of the policy they would play):")
    table = exploitability_table({"tiny": tiny, "small": small}, bots, budgets, log, seeds, jobs)

    ratio = None if ref_s is None else ours_s / ref_s
    out: dict[str, Any] = {
        "cfrplus_s_to_nashconv_1e3": ours_s,
        "ref_openspiel_cfrplus_s_to_nashconv_1e3": ref_s,
        "ratio_ours_vs_openspiel_cfrplus": ratio,
        "tiny_value_polish": tiny_value,
        "tiny_value_nash_conv": tiny_curve[-1].nash_conv,
        "small_value_polish": small_value,
        "small_value_nash_conv": small_curve[-1].nash_conv,
        "small_cfrplus_iterations": small_curve[-1].iterations,
        "small_cfrplus_seconds": small_curve[-1].seconds,
        "graphs": {"tiny": {"nodes": tiny.nodes, "edges": tiny.edges,
                            "infosets": [tiny.infosets_of(0), tiny.infosets_of(1)],
                            "build_seconds": tiny_build},
                   "small": {"nodes": small.nodes, "edges": small.edges,
                             "infosets": [small.infosets_of(0), small.infosets_of(1)],
                             "build_seconds": small_build, "bytes": small.nbytes()}},
        "our_cfrplus_runs_s": ours_times,
        "openspiel_cfrplus_runs_s": ref_times,
        "exploitability": table,
        "curves": {name: _curve_json(c) for name, c in curves.items()},
    }
    out["targets"] = {
        "cfrplus_at_most_1_50_of_openspiel": None if ratio is None else ratio <= 1 / 50,
        "online_cfr_less_exploitable_than_ismcts_on_small": _less_exploitable(table),
        "online_cfr_less_exploitable_than_ismcts_on_small_without_priors":
            _less_exploitable(table, "oos:prior=0", "ismcts:prior=0"),
        # not pass/fail: the smallest measured budget from which on the
        # online CFR bot is the less exploitable at every measured budget
        "online_cfr_less_exploitable_than_ismcts_on_small_from_iterations":
            _less_exploitable_from(table),
        "online_cfr_less_exploitable_than_ismcts_on_small_from_iterations_without_priors":
            _less_exploitable_from(table, "oos:prior=0", "ismcts:prior=0"),
    }
    out["notes"] = {
        "method": f"wall-clock of the solver only (evaluation excluded); ours: median of "
                  f"{repeats} runs, OpenSpiel CFR+: median of {ref_repeats}, cap "
                  f"{ref_seconds:g} s each; NashConv by our exact best response",
        "exploitability": "ISMCTS plays its most visited action; the online CFR bot plays "
                          "its mixed strategy; policies are asked only at the information "
                          "sets NashConv depends on (exact.cfr.bot_policy); equal budget = "
                          f"equal iterations per search; nash_conv is the median over {seeds} "
                          "seed pairs of searchers (nash_conv_runs: each run's)",
    }
    out["meta"] = _meta()
    if plot:
        _plot(curves, plot)
        out["plot"] = plot
    return out


def _small_pairs(table: list[dict], oos: str, ismcts: str) -> list[tuple[int, float, float]]:
    """(budget, online CFR NashConv, ISMCTS NashConv) on small, by budget."""
    small = {(r["bot"], r["iterations"]): r["nash_conv"] for r in table if r["variant"] == "small"}
    budgets = sorted({b for (bot, b) in small if bot == oos} &
                     {b for (bot, b) in small if bot == ismcts})
    return [(b, small[(oos, b)], small[(ismcts, b)]) for b in budgets]


def _less_exploitable(table: list[dict], oos: str = "oos", ismcts: str = "ismcts") -> bool | None:
    """True if, on small, the online CFR bot's NashConv is below ISMCTS's at
    every budget both were measured at."""
    pairs = _small_pairs(table, oos, ismcts)
    if not pairs:
        return None
    return all(x < y for _, x, y in pairs)


def _less_exploitable_from(table: list[dict], oos: str = "oos",
                           ismcts: str = "ismcts") -> int | None:
    """The smallest measured budget from which on (at it and every larger
    measured budget) the online CFR bot's NashConv on small is below
    ISMCTS's; None if not even at the largest."""
    since = None
    for budget, x, y in reversed(_small_pairs(table, oos, ismcts)):
        if not x < y:
            break
        since = budget
    return since


def _plot(curves: dict[str, list[Point]], path: str) -> None:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4.5), dpi=120)
    labels = {"ours_cfr_plus": "ours: CFR+", "ours_outcome_sampling": "ours: outcome sampling",
              "ours_external_sampling": "ours: external sampling",
              "openspiel_cfr_plus": "OpenSpiel CFRPlusSolver",
              "openspiel_outcome_sampling": "OpenSpiel OutcomeSamplingMCCFRSolver"}
    for name, curve in curves.items():
        pts = [(p.seconds, p.nash_conv) for p in curve if p.seconds > 0 and p.nash_conv > 0]
        if pts:
            xs, ys = zip(*pts)
            ax.plot(xs, ys, marker=".", ms=3, lw=1.2, label=labels.get(name, name),
                    ls="-" if name.startswith("ours") else "--")
    ax.axhline(LEVEL, color="grey", lw=0.8, ls=":")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("solver wall-clock seconds")
    ax.set_ylabel("NashConv of the average policy")
    ax.set_title("wildhorn(variant=tiny): NashConv against time")
    ax.legend(fontsize=8)
    ax.grid(True, which="both", alpha=0.3)
    fig.tight_layout()
    from pathlib import Path
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path)
    plt.close(fig)


# ---- the exploitability table alone (bench cfr --variants) ---------------------------

def check_networks(bots: tuple[str, ...], variants: tuple[str, ...]) -> None:
    """Refuses (a one-line ValueNetError naming the file) a bot whose value
    network was trained on another variant than one of ``variants``: the
    search would refuse it at its first information set anyway."""
    for spec in bots:
        sep = "," if ":" in spec else ":"
        bot = make_bot(f"{spec}{sep}iterations=1", 0, seed=0)
        net = getattr(getattr(bot, "search_engine", None), "net", None)
        if net is None:
            continue
        for variant in variants:
            valuenet.check_game(net.source, pyspiel.load_game(
                "wildhorn", {"variant": variant}).core_config)


def _baseline_of(spec: str) -> tuple[str, dict] | None:
    """The same bot with playouts (``spec`` without eval, lambda and net),
    as (name, options); None if ``spec`` already plays out."""
    name, options = parse_spec(spec)
    if options.get("eval", "playout") == "playout":
        return None
    return name, {k: v for k, v in options.items() if k not in LEAF_OPTIONS}


def network_comparisons(table: list[dict]) -> list[dict]:
    """Each row of a bot with a network beside the row of the same bot with
    playouts at the same variant and budget (when both were measured):
    ``not_higher`` is NashConv(network) <= NashConv(playouts), medians both."""
    plays_out = {}
    for r in table:
        name, options = parse_spec(r["bot"])
        if options.get("eval", "playout") == "playout":
            plays_out[(r["variant"], name, tuple(sorted(
                (k, v) for k, v in options.items() if k != "eval")), r["iterations"])] = r
    out = []
    for r in table:
        base = _baseline_of(r["bot"])
        if base is None:
            continue
        name, options = base
        b = plays_out.get((r["variant"], name, tuple(sorted(options.items())), r["iterations"]))
        if b is None:
            continue
        out.append({"variant": r["variant"], "bot": r["bot"], "baseline": b["bot"],
                    "iterations": r["iterations"], "nash_conv": r["nash_conv"],
                    "baseline_nash_conv": b["nash_conv"],
                    "not_higher": r["nash_conv"] <= b["nash_conv"]})
    return out


def _all_not_higher(comparisons: list[dict], bot_name: str, variant: str) -> bool | None:
    rows = [c for c in comparisons if c["variant"] == variant
            and parse_spec(c["bot"])[0] == bot_name]
    return all(c["not_higher"] for c in rows) if rows else None


def bench_exploitability(variants: tuple[str, ...], bots: tuple[str, ...],
                         budgets: tuple[int, ...], seeds: int = DEFAULT_SEEDS, jobs: int = 1,
                         log: Callable[[str], None] = print) -> dict[str, Any]:
    """The online bots' exploitability table on ``variants`` only (see
    exploitability_table), and each bot with a network against the same bot
    with playouts at equal iterations (network_comparisons)."""
    unknown = [v for v in variants if v not in VARIANTS]
    if unknown or not variants:
        raise ValueError(f"variants: expected some of {', '.join(VARIANTS)}, got {variants}")
    check_networks(bots, variants)
    graphs, sizes = {}, {}
    for variant in variants:
        t0 = time.perf_counter()
        g = graphs[variant] = game_graph(pyspiel.load_game("wildhorn", {"variant": variant}))
        sizes[variant] = {"nodes": g.nodes, "edges": g.edges,
                          "infosets": [g.infosets_of(0), g.infosets_of(1)],
                          "build_seconds": time.perf_counter() - t0}
        log(f"{variant}: {g.nodes} nodes, {g.infosets} information sets")
    log("exploitability of the online bots (exact NashConv of the policy they would play):")
    table = exploitability_table(graphs, bots, budgets, log, seeds, jobs)
    comparisons = network_comparisons(table)
    networks = {}
    for spec in bots:
        name, options = parse_spec(spec)
        if options.get("eval", "playout") != "playout":
            net = valuenet.load(options["net"]) if "net" in options else valuenet.default()
            networks[spec] = {**net.identity, "variant": net.variant}
    out: dict[str, Any] = {
        "variants": list(variants), "bots": list(bots), "budgets": list(budgets),
        "seeds": seeds, "graphs": sizes, "networks": networks,
        "exploitability": table, "network_vs_playouts": comparisons,
        "targets": {f"{bot}_with_network_not_more_exploitable_on_{v}":
                    _all_not_higher(comparisons, bot, v)
                    for bot in ("ismcts", "oos") for v in variants},
        "notes": {"exploitability": "ISMCTS plays its most visited action; OOS plays its mixed "
                                    "strategy; equal budget = equal iterations per search; "
                                    f"nash_conv is the median over {seeds} seed pairs of "
                                    "searchers (nash_conv_runs: each run's)",
                  "network_vs_playouts": "not_higher: the bot with a network has a median "
                                         "NashConv no higher than the same bot with playouts "
                                         "at the same variant and iterations; a target is "
                                         "true when it holds at every measured budget"},
        "meta": _meta(),
    }
    return out

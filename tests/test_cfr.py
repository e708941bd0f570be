"""Tabular CFR-style solvers and exact best response (exact.cfr, exact._cfr).

Known values: kuhn_poker (value -1/18 for player 0) and leduc_poker from
OpenSpiel's own documentation; OpenSpiel's ``CFRPlusSolver`` and
``exploitability.nash_conv`` on the same registered games as references.
"""

from __future__ import annotations

import numpy as np
import pyspiel
import pytest
from open_spiel.python.algorithms import best_response as os_best_response
from open_spiel.python.algorithms import exploitability

import solver  # noqa: F401  (registers wildhorn)
from conftest import run_cli
from exact.cfr import (GameGraph, Solver, best_response, bot_policy, expected_value,
                       game_graph, nash_conv, solve, win_probability)


@pytest.fixture(scope="module")
def kuhn():
    game = pyspiel.load_game("kuhn_poker")
    return game, game_graph(game)


@pytest.fixture(scope="module")
def leduc():
    game = pyspiel.load_game("leduc_poker")
    return game, game_graph(game)


@pytest.fixture(scope="module")
def tiny():
    game = pyspiel.load_game("wildhorn(variant=tiny)")
    return game, game_graph(game)


def random_policy(graph: GameGraph, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    policy = np.empty(graph.slots)
    for i in range(graph.infosets):
        first, n = graph.infoset_slots(i)
        x = rng.random(n) ** 3          # uneven, some near zero
        policy[first:first + n] = x / x.sum()
    return policy


def cpp_policy_slots(graph: GameGraph, cpp_policy) -> np.ndarray:
    return graph.policy_from_callable(
        lambda i: dict(cpp_policy.get_state_policy(graph.infoset_key(i))))


# ---- known values -----------------------------------------------------------------

def test_kuhn_cfr_plus_reaches_known_value(kuhn):
    game, graph = kuhn
    _, curve = solve(graph, "cfr+", iterations=10_000)
    end = curve[-1]
    assert end.iterations == 10_000
    assert end.nash_conv < 1e-3
    assert abs(end.value - (-1 / 18)) <= 0.002


def test_leduc_cfr_plus_nash_conv(leduc):
    game, graph = leduc
    _, curve = solve(graph, "cfr+", iterations=2_000)
    assert curve[-1].nash_conv < 0.01


@pytest.mark.parametrize("name,iterations", [("kuhn_poker", 50), ("leduc_poker", 10)])
def test_cfr_plus_iterates_equal_openspiel(name, iterations):
    """Our CFR+ is OpenSpiel's CFRPlusSolver iterate for iterate."""
    game = pyspiel.load_game(name)
    graph = game_graph(game)
    ours = Solver(graph, "cfr+").iterate(iterations)
    theirs = pyspiel.CFRPlusSolver(game)
    for _ in range(iterations):
        theirs.evaluate_and_update_policy()
    np.testing.assert_allclose(ours.average_policy(),
                               cpp_policy_slots(graph, theirs.average_policy()), atol=1e-9)


# ---- wildhorn tiny against OpenSpiel ---------------------------------------------------

def test_tiny_graph_merges_transpositions_and_keeps_infosets(tiny):
    game, graph = tiny
    tree = GameGraph.from_pyspiel(game)
    assert tree.nodes == 30_155                     # histories (results/variant-sizes.json)
    assert graph.nodes < tree.nodes                 # transpositions merged
    assert (graph.infosets_of(0), graph.infosets_of(1)) == (648, 1015)
    assert sorted(graph.infoset_index()) == sorted(tree.infoset_index())
    for seed in range(3):
        policy = random_policy(graph, seed)
        tab = graph.to_tabular_policy(game, policy)
        same = tree.from_openspiel_policy(tab)
        assert nash_conv(graph, policy) == pytest.approx(nash_conv(tree, same), abs=1e-12)
        assert expected_value(graph, policy) == pytest.approx(expected_value(tree, same),
                                                              abs=1e-12)


@pytest.mark.parametrize("which", ["random0", "random1", "cfr+10"])
def test_tiny_nash_conv_equals_openspiel(tiny, which):
    game, graph = tiny
    if which.startswith("random"):
        policy = random_policy(graph, int(which[-1]))
    else:
        policy = Solver(graph, "cfr+").iterate(10).average_policy()
    ours = nash_conv(graph, policy)
    reference = exploitability.nash_conv(game, graph.to_tabular_policy(game, policy))
    assert ours > 1e-4                       # a policy that can be exploited
    assert abs(ours - reference) <= 1e-9


def test_tiny_best_response_values_equal_openspiel(tiny):
    game, graph = tiny
    policy = random_policy(graph, 7)
    tab = graph.to_tabular_policy(game, policy)
    for player in (0, 1):
        value, choices = best_response(graph, policy, player)
        reference = os_best_response.BestResponsePolicy(game, player, tab)
        assert value == pytest.approx(reference.value(game.new_initial_state()), abs=1e-12)
        for i, action in list(choices.items())[:50]:
            assert reference.best_response_action(graph.infoset_key(i)) == action


def test_tiny_cfr_plus_matches_openspiel_solver_and_value(tiny):
    """Same iterates as pyspiel.CFRPlusSolver on the registered game, and the
    same equilibrium value: OpenSpiel's value after 40 iterations is within its
    own NashConv of ours at convergence (an eps-equilibrium's value is within
    eps of the game value)."""
    game, graph = tiny
    theirs = pyspiel.CFRPlusSolver(game)
    for _ in range(40):
        theirs.evaluate_and_update_policy()
    their_policy = cpp_policy_slots(graph, theirs.average_policy())
    ours40 = Solver(graph, "cfr+").iterate(40).average_policy()
    np.testing.assert_allclose(ours40, their_policy, atol=1e-9)
    _, curve = solve(graph, "cfr+", target=1e-5)
    their_nc = nash_conv(graph, their_policy)
    assert curve[-1].nash_conv <= 1e-5
    assert abs(expected_value(graph, their_policy) - curve[-1].value) <= their_nc + 1e-5
    # tiny is a German win at equilibrium (ties go to the German side)
    assert win_probability(graph, Solver(graph, "cfr+").iterate(1000).average_policy()) \
        == pytest.approx(0.0, abs=1e-4)


def test_small_graph_and_cfr_plus():
    game = pyspiel.load_game("wildhorn(variant=small)")
    graph = game_graph(game)
    assert (graph.infosets_of(0), graph.infosets_of(1)) == (48_916, 52_574)
    _, curve = solve(graph, "cfr+", iterations=100)
    assert curve[0].nash_conv > 0.1
    assert curve[-1].nash_conv < 0.01
    assert 0.55 < (curve[-1].value + 1) / 2 < 0.75


# ---- sampling solvers ------------------------------------------------------------------

@pytest.mark.parametrize("algorithm,iterations,bound", [
    ("outcome", 100_000, 0.05), ("external", 20_000, 0.05), ("cfr", 5_000, 0.02)])
def test_sampling_and_vanilla_solvers_converge_on_kuhn(kuhn, algorithm, iterations, bound):
    _, graph = kuhn
    start = nash_conv(graph, graph.uniform_policy())
    _, curve = solve(graph, algorithm, iterations=iterations, seed=3)
    assert curve[-1].nash_conv < bound < start
    assert abs(curve[-1].value + 1 / 18) < 0.02


@pytest.mark.parametrize("algorithm", ["outcome", "external"])
def test_sampling_solvers_are_seeded(leduc, algorithm):
    _, graph = leduc
    a = Solver(graph, algorithm, seed=5).iterate(300).average_policy()
    b = Solver(graph, algorithm, seed=5).iterate(300).average_policy()
    c = Solver(graph, algorithm, seed=6).iterate(300).average_policy()
    assert np.array_equal(a, b)
    assert not np.array_equal(a, c)


def test_outcome_sampling_tracks_openspiel_on_leduc(leduc):
    """Same algorithm, different random streams: NashConv within a factor of
    two of OpenSpiel's OutcomeSamplingMCCFRSolver at the same iterations."""
    game, graph = leduc
    ours = nash_conv(graph, Solver(graph, "outcome", seed=1).iterate(20_000).average_policy())
    theirs = pyspiel.OutcomeSamplingMCCFRSolver(game, 0.6, 1)
    for _ in range(20_000):
        theirs.run_iteration()
    reference = 2 * pyspiel.exploitability(game, theirs.average_policy())
    assert reference / 2 < ours < reference * 2


# ---- bot policies and bad input ------------------------------------------------------------

def test_bot_policy_asks_only_what_matters(tiny):
    game, graph = tiny
    target = Solver(graph, "cfr+").iterate(30).average_policy()

    def policy_of(core, i):
        first, n = graph.infoset_slots(i)
        return dict(zip(graph.infoset_actions(i), target[first:first + n]))

    policy, asked = bot_policy(graph, policy_of)
    assert 0 < asked <= graph.infosets
    assert nash_conv(graph, policy) == pytest.approx(nash_conv(graph, target), abs=1e-12)
    with pytest.raises(ValueError, match="not a distribution"):
        bot_policy(graph, lambda core, i: {999: 1.0})


def test_bad_input_is_refused(kuhn):
    _, graph = kuhn
    with pytest.raises(ValueError, match="algorithm"):
        Solver(graph, "cfr++")
    with pytest.raises(ValueError, match="slot probabilities"):
        nash_conv(graph, np.ones(3))
    with pytest.raises(ValueError, match="two-player"):
        GameGraph.from_pyspiel(pyspiel.load_game("kuhn_poker(players=3)"))
    with pytest.raises(ValueError, match="more than"):
        GameGraph.from_core(pyspiel.load_game("wildhorn(variant=tiny)").new_initial_state().core,
                            max_nodes=100)


def test_bench_cfr_writes_figures_and_plot(tmp_path):
    """The benchmark pipeline at a toy budget (the real run is
    ``wildhorn-solve bench cfr --json``): every promised key, a PNG, and
    OpenSpiel's CFR+ capped at one second (so its time may be missing)."""
    from apps.bench_cfr import bench_cfr

    png = tmp_path / "cfr.png"
    out = bench_cfr(repeats=1, ref_repeats=1, ref_seconds=1.0, sampling_seconds=0.2,
                    budgets=(10,), bots=("ismcts",), small_level=1e-2, plot=str(png),
                    log=lambda msg: None, seeds=3)
    for key in ("cfrplus_s_to_nashconv_1e3", "ref_openspiel_cfrplus_s_to_nashconv_1e3",
                "tiny_value_polish", "small_value_polish"):
        assert key in out
    assert out["cfrplus_s_to_nashconv_1e3"] > 0
    assert 0.55 < out["small_value_polish"] < 0.75
    assert {r["variant"] for r in out["exploitability"]} == {"tiny", "small"}
    for row in out["exploitability"]:     # the median of three seeded runs
        assert len(row["nash_conv_runs"]) == 3
        assert row["nash_conv"] == sorted(row["nash_conv_runs"])[1]
    assert set(out["curves"]) >= {"ours_cfr_plus", "ours_outcome_sampling",
                                  "ours_external_sampling", "openspiel_cfr_plus",
                                  "openspiel_outcome_sampling"}
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_online_bots_policies_for_exploitability(tiny):
    """What each search bot would play, as bench cfr asks it: ISMCTS a pure
    action, OOS (which samples its mixed strategy) that strategy; same
    policy for the same budget (the bots are seeded)."""
    from apps.bench_cfr import _policy_function

    _, graph = tiny
    core = graph.infoset_core(0)
    legal = set(core.legal_actions())
    ismcts = _policy_function("ismcts", 50)(core, 0)
    assert len(ismcts) == 1 and set(ismcts) <= legal
    oos = _policy_function("oos", 50)(core, 0)
    assert set(oos) == legal and abs(sum(oos.values()) - 1) < 1e-9
    assert _policy_function("no-such-bot", 50) is None
    # specs with options (the bench measures the bots without their prior too)
    plain = _policy_function("ismcts:prior=0", 50)(core, 0)
    assert len(plain) == 1 and set(plain) <= legal
    assert set(_policy_function("oos:prior=0", 50)(core, 0)) == legal
    first, _ = bot_policy(graph, _policy_function("oos", 30))
    again, _ = bot_policy(graph, _policy_function("oos", 30))
    assert np.array_equal(first, again)


def test_exploitability_seeds_are_independent_runs(tiny):
    """Seed pairs give different searches (so their median means
    something); the same seed gives the same policy."""
    from apps.bench_cfr import _policy_function, exploitability_table

    _, graph = tiny
    runs = [bot_policy(graph, _policy_function("oos:prior=0", 10, seed))[0] for seed in (0, 1)]
    assert not np.array_equal(runs[0], runs[1])
    assert np.array_equal(runs[1], bot_policy(graph, _policy_function("oos:prior=0", 10, 1))[0])
    rows = exploitability_table({"tiny": graph}, ("oos:prior=0",), (10,), lambda m: None,
                                seeds=2)
    assert rows[0]["nash_conv_runs"] == [nash_conv(graph, r) for r in runs]
    assert rows[0]["nash_conv"] == sum(rows[0]["nash_conv_runs"]) / 2
    with pytest.raises(ValueError, match="seeds"):
        exploitability_table({"tiny": graph}, ("ismcts",), (10,), lambda m: None, seeds=0)
    # in worker processes (which build the graph from the variant's name): the same figures
    parallel = exploitability_table({"tiny": graph}, ("oos:prior=0",), (10,), lambda m: None,
                                    seeds=2, jobs=2)
    assert parallel[0]["nash_conv_runs"] == rows[0]["nash_conv_runs"]
    assert parallel[0]["iterations_per_second"] > 0


def test_less_exploitable_from_the_smallest_budget_of_a_winning_tail():
    from apps.bench_cfr import _less_exploitable_from

    def rows(oos, ismcts):
        return [{"variant": "small", "bot": b, "iterations": n, "nash_conv": x}
                for b, xs in (("oos", oos), ("ismcts", ismcts))
                for n, x in zip((10, 100, 1000, 10000), xs)]
    assert _less_exploitable_from(rows([2, 1, 0.3, 0.1], [2, 0.5, 0.4, 0.3])) == 1000
    assert _less_exploitable_from(rows([1, 1, 0.3, 0.1], [2, 0.5, 0.4, 0.3])) == 1000
    assert _less_exploitable_from(rows([1, 0.4, 0.3, 0.1], [2, 0.5, 0.4, 0.3])) == 10
    assert _less_exploitable_from(rows([1, 0.4, 0.3, 0.4], [2, 0.5, 0.4, 0.3])) is None
    assert _less_exploitable_from(rows([1, 0.4, 0.3, 0.3], [2, 0.5, 0.4, 0.3])) is None  # a tie
    assert _less_exploitable_from([]) is None


def test_less_exploitable_compares_the_named_bots_on_small():
    from apps.bench_cfr import _less_exploitable

    rows = [{"variant": v, "bot": b, "iterations": n, "nash_conv": x}
            for v, b, n, x in [("small", "oos", 10, 0.5), ("small", "ismcts", 10, 0.3),
                               ("small", "oos:prior=0", 10, 0.2),
                               ("small", "ismcts:prior=0", 10, 0.3),
                               ("small", "oos:prior=0", 20, 0.1),
                               ("tiny", "oos", 10, 0.0), ("tiny", "ismcts", 10, 1.0)]]
    assert _less_exploitable(rows) is False
    assert _less_exploitable(rows, "oos:prior=0", "ismcts:prior=0") is True
    assert _less_exploitable(rows, "oos:prior=0", "nobody") is None


@pytest.mark.parametrize("args,name", [(["--budgets", "30,x"], "--budgets"),
                                       (["--seeds", "0"], "--seeds"),
                                       (["--jobs", "0"], "--jobs"),
                                       (["--bots", "oos;ismcts:c=x"], "--bots"),
                                       (["--bots", "heuristic"], "--bots")])
def test_bench_cfr_refuses_bad_budgets_and_seeds(args, name):
    r = run_cli("bench", "cfr", *args, timeout=60)
    assert r.returncode == 2
    assert name in r.stderr and "Traceback" not in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1


def _variant_net(path, variant):
    from bots import valuenet
    from solver import N_FEATURES

    weights, biases = valuenet.random_weights((N_FEATURES, 8, 1), 3)
    valuenet.write(path, weights, biases, output="clip", meta={}, variant=variant)
    return path


def test_the_exploitability_alone_sets_a_network_beside_playouts(tmp_path):
    """bench cfr --variants: the table on the variants named, and each bot
    with a network compared with the same bot with playouts."""
    from apps.bench_cfr import bench_exploitability

    net = _variant_net(tmp_path / "tiny.npz", "tiny")
    bots = ("ismcts", f"ismcts:eval=net,net={net}", f"oos:eval=mix,net={net}")
    out = bench_exploitability(("tiny",), bots, (10, 30), seeds=1, log=lambda m: None)
    assert {(r["variant"], r["bot"], r["iterations"]) for r in out["exploitability"]} == \
        {("tiny", b, n) for b in bots for n in (10, 30)}
    rows = {(r["bot"], r["iterations"]): r["nash_conv"] for r in out["exploitability"]}
    assert [(c["bot"], c["baseline"], c["iterations"]) for c in out["network_vs_playouts"]] == \
        [(bots[1], "ismcts", 10), (bots[1], "ismcts", 30)]        # oos has no playout row
    for c in out["network_vs_playouts"]:
        assert c["nash_conv"] == rows[(c["bot"], c["iterations"])]
        assert c["baseline_nash_conv"] == rows[("ismcts", c["iterations"])]
        assert c["not_higher"] == (c["nash_conv"] <= c["baseline_nash_conv"])
    assert out["targets"]["ismcts_with_network_not_more_exploitable_on_tiny"] == \
        all(c["not_higher"] for c in out["network_vs_playouts"])
    assert out["targets"]["oos_with_network_not_more_exploitable_on_tiny"] is None
    assert out["networks"][bots[1]]["variant"] == "tiny"
    assert "small" not in out["graphs"]


def test_the_exploitability_alone_refuses_a_network_of_another_variant(tmp_path):
    from apps.bench_cfr import bench_exploitability
    from solver.errors import ValueNetError

    net = _variant_net(tmp_path / "small.npz", "small")
    with pytest.raises(ValueNetError, match="small.npz was trained on variant small, not on "
                                            r"the game searched \(variant tiny\)"):
        bench_exploitability(("tiny",), ("ismcts", f"ismcts:eval=net,net={net}"), (10,),
                             seeds=1, log=lambda m: None)


def test_bench_cfr_variants_refusals_are_one_line(tmp_path):
    net = _variant_net(tmp_path / "small.npz", "small")
    out = tmp_path / "out.json"
    for args, says in [(["--variants", "tiny,huge", "--out", str(out)], "--variants: expected"),
                       (["--variants", "tiny"], "--variants: give --out"),
                       (["--variants", "tiny", "--out", str(out), "--bots",
                         f"ismcts;ismcts:eval=net,net={net}"],
                        "small.npz was trained on variant small")]:
        r = run_cli("bench", "cfr", *args, timeout=60)
        assert r.returncode == 2 and says in r.stderr, r.stderr
        assert len(r.stderr.strip().splitlines()) == 1 and "Traceback" not in r.stderr
    assert not out.exists()

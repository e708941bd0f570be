"""Parallel ISMCTS and OOS (threads=N, root parallelisation): reproducible
for a seed, iteration budget and N; one thread is the one-tree search; the
iteration budget and the node cap are split; one deadline stops every
thread (fake clock); the registry's option and its interactive default."""
import pyspiel
import pytest

from apps.server.games import Limits
from bots.spec import BotSpec
from bots import BotSpecError, make_bot, parse_spec
from bots import _budget
from bots._budget import CHUNK, iteration_shares, run_budget, run_parallel, thread_seed
from bots._ismcts import ISMCTS
from bots._oos import OOS
from bots.registry import available_cores


def opening():
    state = pyspiel.load_game("wildhorn").new_initial_state()
    while state.is_chance_node():
        state.apply_action(state.chance_outcomes()[0][0])
    return state.core


def _key(stats):
    return (stats["actions"], stats["value"], stats["iterations"], stats["worlds"],
            stats["nodes"], stats["iterations_by_thread"])


def test_same_seed_same_parallel_search():
    core = opening()
    a = ISMCTS(seed=5, threads=2).search(core, iterations=2000)
    b = ISMCTS(seed=5, threads=2).search(core, iterations=2000)
    assert _key(a) == _key(b)
    assert a["threads"] == 2 and a["iterations_by_thread"] == [1000, 1000]
    c = ISMCTS(seed=5, threads=3).search(core, iterations=2000)
    assert c["actions"] != a["actions"]  # N is part of what the search is


def test_one_thread_is_the_one_tree_search():
    core = opening()
    one = ISMCTS(seed=7, threads=1).search(core, iterations=1500)
    plain = ISMCTS(seed=7).search(core, iterations=1500)
    assert _key(one) == _key(plain)
    via_spec = make_bot("ismcts:iterations=800,threads=1", 0, 3).analyse(core)["stats"]
    default = make_bot("ismcts:iterations=800", 0, 3).analyse(core)["stats"]
    assert _key(via_spec) == _key(default)
    assert thread_seed(7, 0) == 7 and len({thread_seed(7, k) for k in range(8)}) == 8


def test_merged_root_is_the_sum_of_the_trees():
    """threads=3 at 3001 iterations is three one-tree searches seeded
    thread_seed(seed, k), of 1001, 1000 and 1000 iterations, a third of the
    node cap each, their root visits and wins summed."""
    core = opening()
    merged = ISMCTS(seed=11, threads=3, max_nodes=3000).search(core, iterations=3001)
    assert merged["iterations_by_thread"] == iteration_shares(3001, 3) == [1001, 1000, 1000]
    parts = [ISMCTS(seed=thread_seed(11, k), max_nodes=1000).search(core, iterations=n)
             for k, n in enumerate([1001, 1000, 1000])]
    assert merged["iterations"] == merged["worlds"] == 3001
    assert merged["nodes"] == sum(p["nodes"] for p in parts)
    for k, a in enumerate(merged["actions"]):
        rows = [p["actions"][k] for p in parts]
        assert all(r["action"] == a["action"] for r in rows)
        assert a["visits"] == sum(r["visits"] for r in rows)
        wins = sum(r["value"] * r["visits"] for r in rows)
        assert a["value"] == pytest.approx(wins / a["visits"] if a["visits"] else 0.0, abs=1e-12)
    assert sum(a["visits"] for a in merged["actions"]) == 3001
    node = ISMCTS(seed=11, threads=3, max_nodes=3000)
    node.search(core, iterations=3001)
    assert node.node_stats(core)["visits"] == 3001


def _oos_key(stats):
    return (stats["actions"], stats["strategy"], stats["value"], stats["iterations"],
            stats["nodes"], stats["iterations_by_thread"])


def test_oos_same_seed_same_parallel_search_and_one_thread_is_one_tree():
    core = opening()
    a = OOS(seed=5, threads=2).search(core, iterations=2000)
    b = OOS(seed=5, threads=2).search(core, iterations=2000)
    assert _oos_key(a) == _oos_key(b)
    assert a["threads"] == 2 and a["iterations_by_thread"] == [1000, 1000]
    one = OOS(seed=7, threads=1).search(core, iterations=1500)
    plain = OOS(seed=7).search(core, iterations=1500)
    assert _oos_key(one) == _oos_key(plain)
    via_spec = make_bot("oos:iterations=800,threads=1", 0, 3).analyse(core)["stats"]
    default = make_bot("oos:iterations=800", 0, 3).analyse(core)["stats"]
    assert _oos_key(via_spec) == _oos_key(default)


def test_oos_merged_root_is_the_sum_of_the_trees():
    """OOS threads=2 at 2001 iterations is two one-tree searches seeded
    thread_seed(seed, k), of 1001 and 1000 iterations and half the node cap
    each: root visits and nodes summed, the current strategy their mean, the
    value a weighted mean of theirs (the pooled importance-sampling
    estimate), the strategy the threshold applied to the summed average."""
    core = opening()
    merged = OOS(seed=11, threads=2, max_nodes=4000).search(core, iterations=2001)
    parts = [OOS(seed=thread_seed(11, k), max_nodes=2000).search(core, iterations=n)
             for k, n in enumerate([1001, 1000])]
    assert merged["iterations_by_thread"] == [1001, 1000]
    assert merged["nodes"] == sum(p["nodes"] for p in parts)
    for k, a in enumerate(merged["actions"]):
        rows = [p["actions"][k] for p in parts]
        assert all(r["action"] == a["action"] for r in rows)
        assert a["visits"] == sum(r["visits"] for r in rows)
        assert a["current"] == pytest.approx(sum(r["current"] for r in rows) / 2, abs=1e-12)
        lo, hi = sorted(r["average"] for r in rows)
        assert lo - 1e-12 <= a["average"] <= hi + 1e-12
    assert sum(a["visits"] for a in merged["actions"]) == 2001
    assert sum(merged["strategy"].values()) == pytest.approx(1.0)
    lo, hi = sorted(p["value"][0] for p in parts)
    assert lo - 1e-12 <= merged["value"][0] <= hi + 1e-12
    engine = OOS(seed=11, threads=2, max_nodes=4000)
    engine.search(core, iterations=2001)
    assert engine.node_stats(core)["visits"] == 2001
    assert engine.tree_size == merged["nodes"] and engine.max_nodes == 2000


def test_oos_kept_trees_with_threads():
    """reuse=yes keeps each tree: a second search from the same information
    set goes on with both trees' visits."""
    core = opening()
    engine = OOS(seed=3, threads=2)
    first = engine.search(core, iterations=600, keep=True)
    second = engine.search(core, iterations=600, keep=True)
    assert sum(a["visits"] for a in second["actions"]) == 1200
    assert sum(a["visits"] for a in first["actions"]) == 600


def test_oos_one_deadline_stops_every_thread(fake_clock):
    stats = OOS(seed=3, threads=2).search(opening(), time_limit=0.1)
    by_thread = stats["iterations_by_thread"]
    assert len(by_thread) == 2 and all(n >= CHUNK and n % CHUNK == 0 for n in by_thread)
    assert stats["seconds"] >= 0.1


def test_a_budget_below_the_threads_leaves_trees_idle():
    stats = ISMCTS(seed=1, threads=4).search(opening(), iterations=2)
    assert stats["iterations"] == 2 and stats["iterations_by_thread"] == [1, 1]


def test_the_node_cap_is_split_among_the_trees():
    engine = ISMCTS(seed=2, threads=4, max_nodes=10)
    assert engine.max_nodes == 2
    stats = engine.search(opening(), iterations=400)
    assert stats["iterations"] == 400 and stats["nodes"] <= 10
    assert ISMCTS(seed=2, threads=8, max_nodes=3).max_nodes == 1


def test_one_deadline_stops_every_thread(fake_clock):
    """Time budget only: every thread runs chunks until the one deadline;
    with a large iteration budget too, the deadline comes first."""
    for iterations in (0, 10**9):
        fake_clock.reads = 0
        stats = ISMCTS(seed=3, threads=2).search(opening(), iterations=iterations,
                                                 time_limit=0.1)
        by_thread = stats["iterations_by_thread"]
        assert len(by_thread) == 2 and all(n >= CHUNK for n in by_thread)
        assert all(n % CHUNK == 0 for n in by_thread)
        # one read to start, one per chunk of each thread, one to finish
        assert sum(by_thread) // CHUNK == fake_clock.reads - 2
        assert sum(by_thread) < 2 * CHUNK * 0.1 / fake_clock.step + 4 * CHUNK
        assert stats["seconds"] >= 0.1


def test_run_parallel_raises_a_thread_error_and_checks_budgets(fake_clock):
    def fails(n):
        raise MemoryError("ISMCTS: out of memory")
    with pytest.raises(MemoryError):
        run_parallel([lambda n: n, fails], [0, 0], 1.0)
    with pytest.raises(ValueError):
        run_parallel([lambda n: n, lambda n: n], [10, 0], 0.0)
    assert run_parallel([lambda n: n] * 3, [5, 200, 1], 0.0)[0] == [5, 200, 1]


@pytest.mark.parametrize("spec, words", [
    ("ismcts:threads=0", "threads must be in [1, 256], got 0"),
    ("ismcts:threads=257", "threads must be in [1, 256], got 257"),
    ("ismcts:threads=1.5", "threads expects a whole number, got '1.5'"),
    ("ismcts:threads=two", "threads expects a whole number"),
    ("oos:threads=0", "threads must be in [1, 256], got 0"),
])
def test_bad_thread_specs(spec, words):
    with pytest.raises(BotSpecError, match=words.replace("[", r"\[").replace("]", r"\]")
                       .replace(".", r"\.")):
        parse_spec(spec)


@pytest.mark.parametrize("searcher", [ISMCTS, OOS])
def test_constructor_refuses_no_threads(searcher):
    with pytest.raises(ValueError, match="threads must be at least 1"):
        searcher(threads=0)


def test_interactive_default_is_the_cores_and_tournaments_one():
    assert make_bot("ismcts:iterations=10", 0).search_engine.threads == 1
    assert make_bot("ismcts:iterations=10", 0, interactive=True).search_engine.threads \
        == available_cores()
    assert make_bot("ismcts:iterations=10,threads=3", 0, interactive=True) \
        .search_engine.threads == 3
    assert make_bot("oos:iterations=10", 0).search_engine.threads == 1
    assert make_bot("oos:iterations=10", 0, interactive=True).search_engine.threads \
        == available_cores()


def cap_spec(text, limits):
    return str(BotSpec.parse(text).capped(limits))


def test_the_server_caps_the_threads_of_a_search():
    assert "threads=2" in cap_spec("ismcts:time=1,threads=200", Limits(max_threads=2))
    assert "threads=1" in cap_spec("ismcts:time=1,threads=1", Limits(max_threads=2))
    assert Limits().max_threads == available_cores()
    # a spec without threads gets the cap too (the interactive default is every core)
    assert "threads=1" in cap_spec("ismcts:time=1", Limits(max_threads=1))
    assert "threads=1" in cap_spec("oos:time=1", Limits(max_threads=1))
    assert "threads=2" in cap_spec("oos:time=1,threads=9", Limits(max_threads=2))


def test_every_search_of_the_server_names_its_threads(monkeypatch):
    """The hint, the review and the board pass the server's cap to their
    searches instead of the interactive default (every core)."""
    import inspect

    from apps import gamebot as record
    from apps.server import board
    for fn in (record.hint_search, record.review_search, board.board_search):
        assert "threads" in inspect.signature(fn).parameters, fn.__name__
    seen = []
    real = record.advise
    monkeypatch.setattr(record, "advise", lambda *a, **k: (seen.append(k["bot_spec"]),
                                                           real(*a, **k))[1])
    game = pyspiel.load_game("wildhorn")
    state = game.new_initial_state()
    while state.is_chance_node():
        state.apply_action(state.chance_outcomes()[0][0])
    record.hint_search({}, state.core.to_bytes(), state.current_player(), 1, 60, 1)
    assert seen == ["ismcts:threads=1"]


def test_the_tournament_help_says_its_bots_search_with_one_thread(capsys):
    from apps.cli import build_parser
    with pytest.raises(SystemExit):
        build_parser().parse_args(["tournament", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "one thread here unless its spec says threads=N" in text


def test_the_progress_hook_counts_every_chunk(fake_clock, monkeypatch):
    """bots._budget.progress (set by the web server's search processes) sees
    every iteration of the budget loops and of a threaded search."""
    seen = []
    monkeypatch.setattr(_budget, "progress", seen.append)
    assert run_budget(lambda n: n, 200, 0.0)[0] == 200 and sum(seen) == 200
    assert max(seen) == CHUNK
    seen.clear()
    assert run_parallel([lambda n: n] * 2, [100, 50], 0.0)[0] == [100, 50]
    assert sum(seen) == 150
    state = pyspiel.load_game("wildhorn").new_initial_state()
    while state.is_chance_node():
        state.apply_action(state.chance_outcomes()[0][0])
    for threads in (1, 2):
        seen.clear()
        stats = ISMCTS(seed=1, threads=threads).search(state.core, iterations=300)
        assert sum(seen) == stats["iterations"] == 300


def test_bench_threads_reports_both_searchers():
    """bench search's thread figures (apps.bench.bench_threads), on a tiny
    budget: a rate per thread count for ISMCTS and OOS, and each
    efficiency the ratio of the rates it names."""
    from apps.bench import bench_threads, thread_counts
    state = pyspiel.load_game("wildhorn").new_initial_state()
    while state.is_chance_node():
        state.apply_action(state.chance_outcomes()[0][0])
    out = bench_threads(state, repeats=1, per_thread=CHUNK)
    counts = [str(n) for n in thread_counts(available_cores())]
    for name, key in (("ismcts", "thread_efficiency"), ("oos", "oos_thread_efficiency")):
        rates = out[f"{name}_iters_per_s_by_threads"]
        assert list(rates) == counts and all(r > 0 for r in rates.values())
        cores = out["thread_cores"]
        assert out[key] == pytest.approx(rates[str(cores)] / (cores * rates["1"]), abs=0.01)

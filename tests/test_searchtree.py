"""The search-tree core both searchers share (bots._searchtree): its one
hash-collision policy, forced through the test hooks (a planted node under
a state's key, or keys cut to a few bits), the node cap, node statistics."""
import pyspiel
import pytest

from bots._ismcts import ISMCTS
from bots._oos import OOS

ENGINES = [ISMCTS, OOS]


def decisions():
    """Two different decisions of the full game (opening, then the next one)."""
    state = pyspiel.load_game("wildhorn").new_initial_state()
    out = []
    while len(out) < 2:
        if state.is_chance_node():
            state.apply_action(state.chance_outcomes()[0][0])
        else:
            out.append(state.core.copy())
            state.apply_action(state.legal_actions()[0])
    return out


@pytest.mark.parametrize("engine", ENGINES)
def test_a_lookup_adds_a_node_then_finds_it(engine):
    a, b = decisions()
    tree = engine(seed=1)
    assert tree._lookup(a) == "added" and tree._lookup(a) == "found"
    assert tree._lookup(b) == "added" and tree.tree_size == 2 and tree.collisions == 0


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("change", ["reversed", "one less", "one more"])
def test_a_node_with_other_actions_is_a_collision(engine, change):
    """A node under the state's key whose action list is not the state's
    legal actions (other order, fewer, more) is another information set."""
    a, _ = decisions()
    legal = a.legal_actions()
    other = {"reversed": legal[::-1], "one less": legal[:-1],
             "one more": legal + [max(legal) + 1]}[change]
    tree = engine(seed=1)
    tree._plant_node(a, other)
    assert tree._lookup(a) == "collision" and tree.collisions == 1
    assert tree.node_stats(a) is None  # the colliding node is not a's
    assert tree.tree_size == 1         # and no node was added for a


@pytest.mark.parametrize("engine", ENGINES)
def test_the_node_cap_stops_adding(engine):
    a, b = decisions()
    tree = engine(seed=1, max_nodes=1)
    assert tree._lookup(a) == "added" and tree._lookup(b) == "full"
    assert tree.max_nodes == 1 and tree.tree_size == 1


@pytest.mark.parametrize("engine", ENGINES)
def test_searches_with_every_key_colliding(engine):
    """Keys cut to 0 bits: every information set falls on the root's key, so
    the root's node is the only one, every other lookup whose legal actions
    differ is a collision and plays out; the search still completes and its
    root statistics count each iteration once."""
    root, _ = decisions()
    tree = engine(seed=2)
    tree._set_key_bits(0)
    stats = tree.search(root, iterations=300)
    assert stats["iterations"] == 300 and stats["nodes"] == 1
    assert tree.collisions > 0
    assert sorted(a["action"] for a in stats["actions"]) == sorted(root.legal_actions())
    assert tree.node_stats(root)["visits"] == sum(a["visits"] for a in stats["actions"])
    assert sum(a["frequency"] for a in stats["actions"]) == pytest.approx(1.0)
    full = engine(seed=2).search(root, iterations=300)
    assert full["nodes"] > 1


def test_oos_keep_ignores_a_colliding_root():
    """``keep`` goes on with the tree only if it holds the root's own
    information set: with a colliding node under the root's key, the search
    starts afresh, as a new searcher of the same seed does."""
    root, _ = decisions()
    planted = OOS(seed=3)
    planted._plant_node(root, root.legal_actions()[::-1])
    kept = planted.search(root, iterations=200, keep=True)
    fresh = OOS(seed=3).search(root, iterations=200)
    for s in (kept, fresh):
        s.pop("seconds")
    assert kept == fresh

"""The value network: its weights file (bots.valuenet: round trip and every
refusal), the forward pass in C against the NumPy reference, and its use at
the search's leaves (eval=playout|net|mix|turn)."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import numpy as np
import pytest

from bots import valuenet
from solver import FEATURE_VERSION, N_FEATURES, ValueNetError

SIZES = (N_FEATURES, 16, 8, 1)


def _write(path, sizes=SIZES, seed=1, output="sigmoid", meta=None):
    weights, biases = valuenet.random_weights(sizes, seed)
    valuenet.write(path, weights, biases, output=output, meta=meta or {"seed": seed})
    return path


def _arrays(path):
    with np.load(path, allow_pickle=False) as npz:
        return {k: npz[k] for k in npz.files}


def _rewrite(path, **changes):
    arrays = _arrays(path)
    for key, value in changes.items():
        if value is None:
            del arrays[key]
        else:
            arrays[key] = value
    with open(path, "wb") as out:
        np.savez(out, **arrays)
    return path


# ---- the file -------------------------------------------------------------------------

@pytest.mark.parametrize("output", ["sigmoid", "clip"])
def test_a_written_network_loads_back_the_same(tmp_path, output):
    weights, biases = valuenet.random_weights(SIZES, 3)
    path = tmp_path / "net.npz"
    valuenet.write(path, weights, biases, output=output, meta={"command": "x", "seed": 3})
    net = valuenet.load(path)
    assert net.sizes == SIZES and net.output == output
    assert net.meta == {"command": "x", "seed": 3}
    for a, b in zip(net.weights + net.biases, weights + biases):
        assert a.dtype == np.float32 and np.array_equal(a, b)
    assert net.identity == {"file": "net.npz", "sha256": net.sha256} and len(net.sha256) == 64
    assert _arrays(path)["feature_version"] == FEATURE_VERSION
    assert [p.name for p in tmp_path.iterdir()] == ["net.npz"]     # no temporary left
    x = np.random.default_rng(0).random((5, N_FEATURES), dtype=np.float32)
    y = net.evaluate(x)
    assert y.shape == (5,) and ((0 <= y) & (y <= 1)).all()


def test_the_reference_forward_pass_is_the_textbook_one(tmp_path):
    net = valuenet.load(_write(tmp_path / "n.npz", output="clip"))
    x = np.random.default_rng(1).random((4, N_FEATURES))
    h = x
    for i, (w, b) in enumerate(zip(net.weights, net.biases)):
        h = h @ w.astype(np.float64) + b
        h = np.maximum(h, 0) if i < len(net.weights) - 1 else h
    assert net.evaluate(x) == pytest.approx(np.clip(h[:, 0], 0, 1), abs=1e-5)


def test_random_weights_follow_the_seed():
    a, _ = valuenet.random_weights(SIZES, 5)
    b, _ = valuenet.random_weights(SIZES, 5)
    c, _ = valuenet.random_weights(SIZES, 6)
    assert np.array_equal(a[0], b[0]) and not np.array_equal(a[0], c[0])


def test_write_checks_the_layers(tmp_path):
    weights, biases = valuenet.random_weights((N_FEATURES - 1, 4, 1), 0)
    with pytest.raises(ValueNetError, match=r"W0 has shape \(733, 4\)"):
        valuenet.write(tmp_path / "n.npz", weights, biases, output="clip", meta={})
    weights, biases = valuenet.random_weights(SIZES, 0)
    with pytest.raises(ValueNetError, match="output 'tanh'"):
        valuenet.write(tmp_path / "n.npz", weights, biases, output="tanh", meta={})
    assert not list(tmp_path.iterdir())


def _bad_files(tmp_path):
    """(file, what its message must say) for every way a file is refused."""
    good = _write(tmp_path / "good.npz")
    w0 = _arrays(good)["W0"]
    cases = [(tmp_path / "absent.npz", "no such file")]
    text = tmp_path / "text.npz"
    text.write_text("hello")
    cases.append((text, "not a .npz file"))
    pickled = tmp_path / "pickled.npz"
    with open(pickled, "wb") as out:
        np.savez(out, format=np.array([{"a": 1}], dtype=object))
    cases.append((pickled, "not a .npz file"))
    for name, change, says in [
        ("tag", {"format": np.array("other/1")}, "format 'other/1'"),
        ("notag", {"format": None}, "no 'format' entry"),
        ("version", {"feature_version": np.array(FEATURE_VERSION + 1)},
         f"trained on feature version {FEATURE_VERSION + 1}, this build computes version "
         f"{FEATURE_VERSION}; retrain it"),
        ("hidden", {"hidden": np.array("tanh")}, "hidden activation 'tanh'"),
        ("output", {"output": np.array("softmax")}, "output 'softmax'"),
        ("meta", {"meta": np.array("[1]")}, "'meta' is not a JSON object"),
        ("variant", {"variant": np.array("huge")}, "variant 'huge' is not one of"),
        ("shape", {"W0": w0[:-1]}, "W0 has shape (733, 16)"),
        ("dtype", {"W0": w0.astype(np.float64)}, "must be float32"),
        ("nan", {"b1": np.full(8, np.nan, dtype=np.float32)}, "NaN or infinity"),
        ("bias", {"b2": None}, "W2 without b2"),
        ("last", {"W2": None, "b2": None}, "the last layer has 8 outputs"),
    ]:
        path = tmp_path / f"{name}.npz"
        path.write_bytes(good.read_bytes())
        cases.append((_rewrite(path, **change), says))
    cut = tmp_path / "cut.npz"
    cut.write_bytes(good.read_bytes()[:200])
    cases.append((cut, "not a .npz file"))
    return cases


def test_every_bad_file_is_refused_in_one_line_naming_it(tmp_path):
    for path, says in _bad_files(tmp_path):
        with pytest.raises(ValueNetError) as err:
            valuenet.load(path)
        message = str(err.value)
        assert "\n" not in message and path.name in message and says in message, message


def test_a_network_records_its_variant_and_a_file_without_one_is_of_the_full_game(tmp_path):
    weights, biases = valuenet.random_weights(SIZES, 2)
    valuenet.write(tmp_path / "s.npz", weights, biases, output="clip", meta={}, variant="small")
    assert valuenet.load(tmp_path / "s.npz").variant == "small"
    assert str(_arrays(tmp_path / "s.npz")["variant"]) == "small"
    old = _rewrite(_write(tmp_path / "old.npz"), variant=None)     # as before the entry
    assert "variant" not in _arrays(old) and valuenet.load(old).variant == "full"
    with pytest.raises(ValueNetError, match="variant 'huge' is not one of full, tiny, small"):
        valuenet.write(tmp_path / "h.npz", weights, biases, output="clip", meta={},
                       variant="huge")
    assert not (tmp_path / "h.npz").exists()


def _config(**params):
    from solver.game import make_config
    return make_config(params)


def test_a_network_is_refused_on_another_game_than_its_variant(tmp_path):
    weights, biases = valuenet.random_weights(SIZES, 2)
    for variant in ("small", "tiny", "full"):
        valuenet.write(tmp_path / f"{variant}.npz", weights, biases, output="clip", meta={},
                       variant=variant)
    small, tiny, full = (valuenet.load(tmp_path / f"{v}.npz") for v in ("small", "tiny", "full"))
    valuenet.check_game(small, _config(variant="small"))
    valuenet.check_game(tiny, _config(variant="tiny"))
    valuenet.check_game(full, _config())
    valuenet.check_game(full, _config(turns=2))      # no preset: a full-game network, as before
    for net, params, game in [(small, {}, "variant full"), (small, {"variant": "tiny"},
                                                             "variant tiny"),
                              (small, {"variant": "small", "dice": 6}, "another configuration"),
                              (tiny, {"variant": "small"}, "variant small"),
                              (full, {"variant": "small"}, "variant small")]:
        with pytest.raises(ValueNetError) as err:
            valuenet.check_game(net, _config(**params))
        message = str(err.value)
        assert "\n" not in message and Path(net.path).name in message, message
        assert f"trained on variant {net.variant}, not on the game searched ({game})" in message


@pytest.mark.parametrize("bot", ["ismcts", "oos"])
def test_a_search_refuses_a_network_of_another_variant(tmp_path, bot):
    import pyspiel

    from bots import make_bot
    weights, biases = valuenet.random_weights(SIZES, 2)
    valuenet.write(tmp_path / "small.npz", weights, biases, output="clip", meta={},
                   variant="small")
    spec = f"{bot}:iterations=20,eval=mix,net={tmp_path / 'small.npz'}"
    for variant, allowed in (("small", True), ("tiny", False), ("full", False)):
        state = pyspiel.load_game("wildhorn", {"variant": variant}).new_initial_state()
        while state.is_chance_node():
            state.apply_action(state.chance_outcomes()[0][0])
        search = make_bot(spec, state.current_player(), seed=1)
        if allowed:
            assert search.analyse(state)["action"] in state.legal_actions()
        else:
            with pytest.raises(ValueNetError, match=r"small\.npz was trained on variant small, "
                                                     f"not on the game searched \\(variant {variant}"):
                search.analyse(state)
    playout = make_bot(f"{bot}:iterations=20,net={tmp_path / 'small.npz'}", 0, seed=1)
    assert playout.search_engine.net is None       # eval=playout reads no network


@pytest.mark.parametrize("engine", ["ISMCTS", "OOS"])
def test_the_search_engine_itself_refuses_a_network_of_another_variant(tmp_path, engine):
    """Not only the bots: the engines (bots.ISMCTS, bots.OOS) called directly
    refuse, at their search, a network trained on another game."""
    import pyspiel

    import bots
    weights, biases = valuenet.random_weights(SIZES, 2)
    valuenet.write(tmp_path / "small.npz", weights, biases, output="clip", meta={},
                   variant="small")
    for variant, allowed in (("small", True), ("full", False)):
        state = pyspiel.load_game("wildhorn", {"variant": variant}).new_initial_state()
        while state.is_chance_node():
            state.apply_action(state.chance_outcomes()[0][0])
        search = getattr(bots, engine)(seed=1, eval="net", net=tmp_path / "small.npz")
        if allowed:
            assert search.search(state.core, iterations=20)["actions"]
        else:
            with pytest.raises(ValueNetError, match=r"small\.npz was trained on variant small, "
                                                     f"not on the game searched \\(variant {variant}"):
                search.search(state.core, iterations=20)
    assert getattr(bots, engine)(seed=1).search(state.core, iterations=20)["actions"]


def test_the_packaged_network_is_missing_or_loads(monkeypatch, tmp_path):
    assert valuenet.default_path().name == "value_net.npz"
    assert valuenet.default_path().parent.name == "data"
    monkeypatch.setattr(valuenet, "_PACKAGED", tmp_path / "value_net.npz")
    with pytest.raises(ValueNetError, match=r"^the packaged value network is missing "
                                            r"\(bots/data/value_net.npz\): train one"):
        valuenet.default()
    _write(tmp_path / "value_net.npz")
    assert valuenet.default().sizes == SIZES


def test_the_file_is_a_plain_zip_of_npy_arrays(tmp_path):
    path = _write(tmp_path / "n.npz", meta={"losses": [0.5, 0.25]})
    with zipfile.ZipFile(path) as z:
        assert sorted(z.namelist()) == sorted(
            ["format.npy", "feature_version.npy", "hidden.npy", "output.npy", "meta.npy",
             "variant.npy", "W0.npy", "b0.npy", "W1.npy", "b1.npy", "W2.npy", "b2.npy"])
    assert json.loads(str(_arrays(path)["meta"])) == {"losses": [0.5, 0.25]}


# ---- the forward pass in C ----------------------------------------------------------

def _positions(seeds=range(3), every=23):
    """Decisions of seeded random games, and one chance node of each kind met."""
    import random

    import pyspiel

    import solver.game  # noqa: F401  (registers the game)
    game = pyspiel.load_game("wildhorn")
    for seed in seeds:
        rng = random.Random(seed)
        state, k = game.new_initial_state(), 0
        while not state.is_terminal():
            if state.is_chance_node():
                state.apply_action(rng.choice([a for a, _ in state.chance_outcomes()]))
                continue
            if k % every == 0:
                yield state.core.copy()
            k += 1
            state.apply_action(rng.choice(state.legal_actions()))


@pytest.mark.parametrize("sizes, output", [((N_FEATURES, 64, 64, 1), "sigmoid"),
                                           ((N_FEATURES, 32, 1), "clip"),
                                           ((N_FEATURES, 48, 24, 12, 1), "sigmoid")])
def test_the_c_forward_pass_is_the_numpy_one(tmp_path, sizes, output):
    from bots._net import NetC
    from solver import features
    net = valuenet.load(_write(tmp_path / "n.npz", sizes, seed=len(sizes), output=output))
    c = NetC(net)
    rng = np.random.default_rng(2)
    x = rng.random((50, N_FEATURES), dtype=np.float32) * (rng.random((50, N_FEATURES)) < 0.15)
    assert c.evaluate_features(x) == pytest.approx(net.evaluate(x), abs=2e-6)
    cores = list(_positions())
    assert len(cores) > 15
    x = np.stack([features(core) for core in cores])
    expected = net.evaluate(x)
    assert [c.evaluate_core(core) for core in cores] == pytest.approx(expected, abs=2e-6)
    assert expected.std() > 1e-3            # the positions differ, so do the values


def test_the_avx2_and_the_baseline_builds_agree_bit_for_bit(tmp_path):
    from bots import _net
    if not _net.simd():
        pytest.skip("this processor (or compiler) has no AVX2 build: one build only")
    net = _net.NetC(valuenet.load(_write(tmp_path / "n.npz", (N_FEATURES, 96, 40, 1), seed=6)))
    rng = np.random.default_rng(3)
    x = rng.random((200, N_FEATURES), dtype=np.float32) * (rng.random((200, N_FEATURES)) < 0.2)
    wide = net.evaluate_features(x)
    try:
        _net.simd(False)
        assert not _net.simd()
        narrow = net.evaluate_features(x)
    finally:
        _net.simd(True)
    assert wide.tobytes() == narrow.tobytes() and wide.std() > 1e-3


def test_one_copy_of_a_network_per_file_and_process(tmp_path):
    from bots._net import load_net
    a = load_net(_write(tmp_path / "a.npz", seed=11))
    assert load_net(tmp_path / "a.npz") is a
    assert load_net(valuenet.load(tmp_path / "a.npz")) is a
    assert load_net(_write(tmp_path / "b.npz", seed=12)) is not a


def test_a_die_about_to_be_rolled_is_valued_as_the_expectation_over_its_faces(tmp_path):
    import pyspiel
    from bots._net import NetC
    net = NetC(valuenet.load(_write(tmp_path / "n.npz", seed=4)))
    game = pyspiel.load_game("wildhorn")
    checked = 0
    for seed in range(20):
        import random
        rng = random.Random(seed)
        state = game.new_initial_state()
        while not state.is_terminal() and checked < 5:
            if state.is_chance_node():
                outcomes = state.chance_outcomes()
                children = [state.child(a) for a, _ in outcomes]
                if len(outcomes) == 6 and all(not c.is_chance_node() for c in children):
                    expected = sum(p * net.evaluate_core(c.core) for (_, p), c
                                   in zip(outcomes, children))
                    assert net.value(state.core, seed=1) == pytest.approx(expected, abs=1e-6)
                    assert net.value(state.core, seed=2) == net.value(state.core, seed=1)
                    faces = {net.evaluate_core(c.core) for c in children}
                    drawn = {net.value(state.core, seed=k, dice_expectation=False)
                             for k in range(12)}
                    assert drawn <= faces and len(drawn) > 1
                    checked += 1
                state.apply_action(rng.choice([a for a, _ in outcomes]))
            else:
                state.apply_action(rng.choice(state.legal_actions()))
        if checked >= 5:
            break
    assert checked == 5


# ---- in the search ---------------------------------------------------------------

# The search with eval=playout on 24 seeded searches (8 positions; ISMCTS on
# 1 and 2 threads, OOS), as computed on main before the value network existed
# (commit dca7385): eval=playout must stay the same search bit for bit.
PLAYOUT_DIGEST = "3dcdef458e2dcf2d9902893c7e7a806e2018532c6623a27bf5488a8314ed779f"


def _search_digest(**options):
    import hashlib

    from bots import ISMCTS, OOS
    cores = list(_positions(seeds=range(3), every=37))
    rows = []
    for i, core in enumerate(cores[:8]):
        for cls, threads in ((ISMCTS, 1), (ISMCTS, 2), (OOS, 1)):
            st = cls(seed=i, threads=threads, **options).search(core, iterations=200)
            rows.append([[a["action"], a["visits"], repr(a["value"])] for a in st["actions"]]
                        + [repr(st["value"][0]), repr(st.get("root_mean"))])
    return hashlib.sha256(json.dumps(rows).encode()).hexdigest()


def test_eval_playout_is_the_search_of_before_bit_for_bit():
    assert _search_digest() == PLAYOUT_DIGEST
    assert _search_digest(eval="playout") == PLAYOUT_DIGEST


@pytest.mark.parametrize("eval_", ["net", "mix", "turn"])
@pytest.mark.parametrize("bot", ["ismcts", "oos"])
def test_every_eval_searches_legally_and_repeats_for_a_seed(tmp_path, eval_, bot):
    from bots import make_bot
    path = _write(tmp_path / "n.npz", (N_FEATURES, 32, 32, 1), seed=8)
    spec = f"{bot}:iterations=300,eval={eval_},lambda=0.3,net={path},decided=off"
    for core in list(_positions(seeds=[5], every=31))[:4]:
        runs = [make_bot(spec, core.current_player(), seed=3).analyse(core) for _ in range(2)]
        assert runs[0]["action"] == runs[1]["action"] and runs[0]["action"] in core.legal_actions()
        stats = [r["stats"] for r in runs]
        assert stats[0]["actions"] == stats[1]["actions"]
        assert stats[0]["iterations"] == 300
        for a in stats[0]["actions"]:
            assert 0.0 <= a["value"] <= 1.0
        assert sum(stats[0]["value"]) == pytest.approx(1.0)
    other = make_bot(spec, core.current_player(), seed=4).analyse(core)["stats"]["actions"]
    assert other != stats[0]["actions"]      # the seed matters


def test_the_leaf_values_of_each_eval(tmp_path):
    from bots import ISMCTS
    from bots._net import load_net
    net = load_net(_write(tmp_path / "n.npz", seed=9))
    cores = list(_positions(seeds=[2], every=29))[:6]
    for core in cores:
        exact = net.value(core)
        assert ISMCTS(eval="net", net=net)._leaf_value(core, 2) == pytest.approx(exact)
        assert ISMCTS(eval="mix", mix=1.0, net=net)._leaf_value(core, 2) == pytest.approx(exact)
        assert ISMCTS(eval="mix", mix=0.0, net=net)._leaf_value(core, 2) in (0.0, 1.0)
        assert ISMCTS(eval="playout")._leaf_value(core, 2) in (0.0, 1.0)
        mixed = ISMCTS(eval="mix", mix=0.25, net=net)._leaf_value(core, 2)
        assert mixed == pytest.approx(0.25 * exact) or mixed == pytest.approx(0.75 + 0.25 * exact)
        turn = ISMCTS(eval="turn", net=net, seed=1)._leaf_value(core, 2)
        assert 0.0 <= turn <= 1.0
        assert ISMCTS(eval="turn", net=net, seed=1)._leaf_value(core, 2) == turn


@pytest.mark.parametrize("eval_", ["net", "turn"])
def test_the_search_reads_the_networks_value_as_the_polish_sides(tmp_path, eval_):
    """A network worth 0.3 for the Polish side everywhere: every action of
    the Polish player is worth 0.3 to it, every German action 0.7 (no game
    ends within the first turn, so eval=turn meets the network too)."""
    from bots import ISMCTS, OOS
    weights = [np.zeros((N_FEATURES, 4), np.float32), np.zeros((4, 1), np.float32)]
    biases = [np.zeros(4, np.float32), np.full(1, 0.3, np.float32)]
    valuenet.write(tmp_path / "flat.npz", weights, biases, output="clip", meta={})
    seen = set()
    for core in list(_positions(seeds=[4], every=3))[:12]:
        if core.turn > 1:
            break
        player = core.current_player()
        seen.add(player)
        flat = float(np.float32(0.3))
        mine = flat if player == 0 else 1.0 - flat
        stats = ISMCTS(eval=eval_, net=tmp_path / "flat.npz", seed=1).search(core, iterations=200)
        assert [a["value"] for a in stats["actions"]] == pytest.approx(
            [mine] * len(stats["actions"]), abs=1e-9)
        assert stats["root_mean"] == pytest.approx(mine, abs=1e-9)
        stats = OOS(eval=eval_, net=tmp_path / "flat.npz", seed=1).search(core, iterations=200)
        assert [a["value"] for a in stats["actions"]] == pytest.approx(
            [mine] * len(stats["actions"]), abs=1e-9)
    assert seen == {0, 1}


def test_the_search_refuses_bad_leaf_options(tmp_path):
    from bots import ISMCTS, OOS
    with pytest.raises(ValueError, match="eval: expected one of playout, net, mix, turn"):
        ISMCTS(eval="magic")
    with pytest.raises(ValueError, match="dice: expected expect or sample"):
        ISMCTS()._set_dice("roll")
    with pytest.raises(ValueError, match=r"lambda must be in \[0, 1\]"):
        OOS(eval="mix", mix=1.5, net=_write(tmp_path / "n.npz"))
    with pytest.raises(ValueNetError, match="no such file"):
        OOS(eval="net", net=tmp_path / "absent.npz")
    assert ISMCTS(eval="playout", net=tmp_path / "absent.npz").net is None   # not read


@pytest.mark.slow
def test_a_bad_network_is_a_one_line_error_of_the_command(tmp_path):
    from conftest import run_cli
    bad = dict((p.name, (p, says)) for p, says in _bad_files(tmp_path))
    for name in ("absent.npz", "version.npz", "text.npz", "shape.npz"):
        path, says = bad[name]
        result = run_cli("advise", "examples/polish-opening.json",
                         "--bot", f"ismcts:iterations=50,eval=net,net={path}")
        assert result.returncode == 2, result.stderr
        lines = result.stderr.strip().splitlines()
        assert len(lines) == 1 and says in lines[0] and name in lines[0], result.stderr
    result = run_cli("advise", "examples/polish-opening.json", "--bot", "ismcts:eval=nets")
    assert result.returncode == 2 and "eval expects playout or net or mix or turn" \
        in result.stderr


@pytest.mark.slow
def test_advise_runs_with_a_network(tmp_path):
    from conftest import run_cli
    path = _write(tmp_path / "n.npz", (N_FEATURES, 32, 32, 1))
    result = run_cli("advise", "examples/polish-opening.json",
                     "--bot", f"ismcts:iterations=500,eval=turn,net={path}")
    assert result.returncode == 0, result.stderr
    assert "Recommended:" in result.stdout


# ---- the web server takes no network file -------------------------------------------

def test_the_servers_cap_refuses_a_network_file(tmp_path, monkeypatch):
    from apps.server.games import Limits
    from bots.spec import BotSpec
    from solver.errors import BotSpecError
    path = _write(tmp_path / "n.npz")
    with pytest.raises(BotSpecError, match="net: this host takes no file paths"):
        BotSpec.parse(f"ismcts:eval=net,net={path}").capped(Limits())
    monkeypatch.setattr(valuenet, "_PACKAGED", tmp_path / "value_net.npz")
    with pytest.raises(BotSpecError, match=r"eval=mix needs the packaged value network, "
                                           r"which is missing"):
        BotSpec.parse("oos:eval=mix").capped(Limits())
    assert BotSpec.parse("ismcts:eval=playout").capped(Limits()).get("eval") == "playout"
    path.rename(tmp_path / "value_net.npz")
    assert BotSpec.parse("ismcts:eval=net").capped(Limits()).get("eval") == "net"


def test_the_server_answers_a_network_file_with_a_400_and_lists_its_bots(client, tmp_path):
    path = _write(tmp_path / "n.npz")
    res = client.post("/api/games", json={"bot": f"ismcts:eval=net,net={path}"})
    assert res.status_code == 400 and "no file paths" in res.json()["error"]
    assert "\n" not in res.json()["error"]
    res = client.get("/api/bots")
    assert res.status_code == 200 and res.json()["bots"]


@pytest.mark.skipif(not valuenet.default_path().is_file(),
                    reason="the packaged value network (bots/data/value_net.npz) is not "
                           "trained yet (wildhorn-solve train)")
def test_the_packaged_network_loads_and_searches():
    from bots import ISMCTS
    net = valuenet.default()
    assert net.sizes[0] == N_FEATURES and net.meta
    core = next(_positions(seeds=[1]))
    stats = ISMCTS(eval="net", seed=1).search(core, iterations=200)
    assert 0.0 <= stats["value"][0] <= 1.0


# ---- hostile files (issue 46, point 20): read regular files only, bounded; only
# the members the format names; bounded layers; meta bounded; read once ------------

def _zip_with(path, members, compress=zipfile.ZIP_DEFLATED):
    """A .npz written member by member: name -> bytes, or name -> (npy header
    dict, number of zero bytes streamed after it, never held in memory)."""
    with zipfile.ZipFile(path, "w", compression=compress) as z:
        for name, content in members.items():
            if isinstance(content, bytes):
                z.writestr(name, content)
                continue
            header, zeros = content
            with z.open(name, "w", force_zip64=True) as out:
                np.lib.format.write_array_header_1_0(out, header)
                block = bytes(1 << 20)
                while zeros > 0:
                    out.write(block[:min(zeros, len(block))])
                    zeros -= len(block)
    return path


def _npy(array) -> bytes:
    import io
    buf = io.BytesIO()
    np.save(buf, array, allow_pickle=False)
    return buf.getvalue()


def _good_members(tmp_path):
    good = _write(tmp_path / "good-source.npz")
    return {f"{k}.npy": _npy(v) for k, v in _arrays(good).items()}


def _one_line_refusal(path, says):
    with pytest.raises(ValueNetError) as err:
        valuenet.load(path)
    message = str(err.value)
    assert "\n" not in message and len(message) < 400 and Path(path).name in message \
        and says in message, message


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["fifo", "dev-zero"])
def test_a_network_named_by_a_fifo_or_dev_zero_is_refused_unread(tmp_path, kind):
    from conftest import run_cli
    import os
    if kind == "fifo":
        path = tmp_path / "net.fifo"
        os.mkfifo(path)
        says = "a pipe (FIFO), not a regular file"
    else:
        path = Path("/dev/zero")
        says = "a character device, not a regular file"
    # a FIFO with no writer would block an open for reading: the run would hang
    result = run_cli("advise", "examples/polish-opening.json", "--time", "0.5",
                     "--bot", f"ismcts:eval=net,net={path}", timeout=120)
    assert result.returncode == 2, result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and says in lines[0] and path.name in lines[0], result.stderr


def test_members_the_format_does_not_name_are_never_read(tmp_path):
    members = _good_members(tmp_path)
    # an unknown member that is damaged (its checksum does not match): read, it
    # would fail; and a large one of zeros, decompressed it would ask for 256 MB
    members["junk.npy"] = b"x" * 1000
    members["zeros.npy"] = ({"descr": "<f4", "fortran_order": False, "shape": (2 ** 26,)},
                            2 ** 28)
    path = _zip_with(tmp_path / "extra.npz", members)
    raw = bytearray(path.read_bytes())
    at = raw.find(b"x" * 1000)
    raw[at:at + 1000] = b"y" * 1000
    path.write_bytes(bytes(raw))
    net = valuenet.load(path)
    assert net.sizes == SIZES


def test_a_member_declaring_more_than_a_network_may_hold_is_refused_before_decompressing(
        tmp_path):
    members = _good_members(tmp_path)
    # a 16-layer network of width 4096 in a small archive (its zeros compress):
    # W1 alone declares 64 MiB
    members["W0.npy"] = ({"descr": "<f4", "fortran_order": False, "shape": (N_FEATURES, 4096)},
                         N_FEATURES * 4096 * 4)
    for i in range(1, 16):
        members[f"W{i}.npy"] = ({"descr": "<f4", "fortran_order": False,
                                 "shape": (4096, 4096 if i < 15 else 1)},
                                4096 * (4096 if i < 15 else 1) * 4 if i < 2 or i == 15 else 0)
    path = _zip_with(tmp_path / "wide.npz", members)
    assert path.stat().st_size < 2 ** 20
    _one_line_refusal(path, "more than the")


@pytest.mark.slow
def test_advise_refuses_a_16_layer_4096_wide_network_at_once(tmp_path):
    from conftest import run_cli
    members = _good_members(tmp_path)
    members["W0.npy"] = ({"descr": "<f4", "fortran_order": False, "shape": (N_FEATURES, 4096)},
                         N_FEATURES * 4096 * 4)
    path = _zip_with(tmp_path / "wide.npz", members)
    result = run_cli("advise", "examples/polish-opening.json", "--time", "0.5",
                     "--bot", f"ismcts:eval=net,net={path}", timeout=120)
    assert result.returncode == 2, result.stderr
    assert len(result.stderr.strip().splitlines()) == 1 and "wide.npz" in result.stderr


@pytest.mark.parametrize("sizes, says", [
    ((N_FEATURES,) + (4,) * 9 + (1,), "more than 8 layers"),
    ((N_FEATURES, 2, 2000, 1), "W1 has shape (2, 2000), expected (2, n) with 1 <= n <= 1024"),
    ((N_FEATURES, 1024, 300, 1), "1059116 multiply-adds per evaluation, at most 1048576"),
])
def test_layers_too_many_too_wide_or_too_costly_for_a_search_are_refused(tmp_path, sizes,
                                                                          says):
    weights, biases = valuenet.random_weights(sizes, 3)
    members = {k: v for k, v in _good_members(tmp_path).items() if k[0] not in "Wb"}
    for i, (w, b) in enumerate(zip(weights, biases)):
        members[f"W{i}.npy"], members[f"b{i}.npy"] = _npy(w), _npy(b)
    path = _zip_with(tmp_path / "big.npz", members, compress=zipfile.ZIP_STORED)
    _one_line_refusal(path, says)
    with pytest.raises(ValueNetError) as err:
        valuenet.write(tmp_path / "w.npz", weights, biases, output="clip", meta={})
    assert says in str(err.value)


def test_a_header_declaring_734_gib_is_refused_without_allocating(tmp_path):
    members = _good_members(tmp_path)
    header = {"descr": "<f4", "fortran_order": False, "shape": (N_FEATURES, 2 ** 28)}
    import io
    buf = io.BytesIO()
    np.lib.format.write_array_header_1_0(buf, header)
    members["W0.npy"] = buf.getvalue() + bytes(64)
    path = _zip_with(tmp_path / "huge-header.npz", members)
    _one_line_refusal(path, "entry 'W0' declares 788126498816 bytes of data and holds 64")


@pytest.mark.parametrize("depth, says", [(100_000, "'meta' has 200000 characters, at most"),
                                         (30_000, "nested more than 8 levels deep")])
def test_meta_nested_deep_is_refused_in_one_line(tmp_path, depth, says):
    path = _rewrite(_write(tmp_path / f"deep{depth}.npz"),
                    meta=np.array("[" * depth + "]" * depth))
    _one_line_refusal(path, says)


def test_a_file_is_read_and_hashed_once_per_process_while_unchanged(tmp_path, monkeypatch):
    from apps.advise import advise
    from solver import state_io

    reads = []
    real = valuenet.read_bounded

    def counting(path, fail, limit):
        reads.append(str(path))
        return real(path, fail, limit)

    monkeypatch.setattr(valuenet, "read_bounded", counting)
    path = _write(tmp_path / "once.npz", (N_FEATURES, 32, 32, 1))
    state = state_io.load("examples/polish-opening.json")
    out = advise(state, f"ismcts:threads=1,eval=mix,net={path}", iterations=400, seed=1)
    assert out["responses"] and reads.count(str(path)) == 1, reads
    assert valuenet.load(path) is valuenet.load(path) and reads.count(str(path)) == 1
    _write(path, (N_FEATURES, 32, 32, 1), seed=5)     # changed: read again
    assert valuenet.load(path).sha256 != valuenet.load(_write(tmp_path / "x.npz")).sha256
    assert reads.count(str(path)) == 2

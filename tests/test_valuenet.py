"""The value network: its weights file (bots.valuenet: round trip and every
refusal), the forward pass in C against the NumPy reference, and its use at
the search's leaves (eval=playout|net|mix|turn)."""

from __future__ import annotations

import json
import zipfile

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
             "W0.npy", "b0.npy", "W1.npy", "b1.npy", "W2.npy", "b2.npy"])
    assert json.loads(str(_arrays(path)["meta"])) == {"losses": [0.5, 0.25]}

"""The value network's weights file: the one reader and writer of it.

A value network is a multilayer perceptron over the value features of a
complete position (:func:`solver.features`, ``N_FEATURES`` floats) whose
output is the probability that the Polish side (side 0) wins.  Its file is a
NumPy ``.npz`` written by :func:`numpy.savez` (never a pickle) holding:

- ``format``: the string ``"wildhorn-value-net/1"``;
- ``feature_version``: the feature layout it was trained on (refused under
  another: the features would mean something else);
- ``hidden``: the hidden layers' activation, ``"relu"`` (the only one);
- ``output``: ``"sigmoid"``, or ``"clip"`` (identity clipped to [0, 1]);
- ``W0``, ``b0``, ... ``W{L-1}``, ``b{L-1}``: float32, ``W_i`` of shape
  (n_in, n_out) and ``b_i`` of shape (n_out,); ``W0`` takes ``N_FEATURES``
  inputs and the last layer gives one output;
- ``meta``: a JSON object as a string (how it was trained);
- ``variant``: the game it was trained on, a preset of ``wildhorn``
  (``full``, ``small``, ``tiny``: :data:`solver.game.VARIANTS`); a file
  without it (as generation 1's, written before the entry existed) is a
  network of the full game.

:func:`write` writes one (atomically), :func:`load` reads and checks one;
every refusal is a one-line :class:`solver.errors.ValueNetError` naming the
file and what is wrong.  :func:`check_game` refuses a network on a game
other than its variant (the search bots call it before they search).
``ValueNet.evaluate`` is the NumPy reference of the forward pass that the
search runs in C (``bots._net``).
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import tempfile
import zipfile
import zlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import NoReturn

import numpy as np

from solver import FEATURE_VERSION, N_FEATURES
from solver.errors import ValueNetError, describe_value, label, one_line
from solver.jsonio import loads, read_bounded
from solver.game import VARIANTS, make_config

FORMAT = "wildhorn-value-net/1"
DEFAULT_VARIANT = "full"     # the game of a file without a ``variant`` entry
HIDDEN = ("relu",)
OUTPUTS = ("sigmoid", "clip")
# What a file may ask for, so that one evaluation stays within what a search
# can afford (docs/value-network.md, "The weights file"): a playout of the
# search's policy costs about 100 microseconds, and the forward pass in C runs
# its dense layers at about 10 billion multiply-adds a second on the
# reference machine, so MAX_MACS (2**20 multiply-adds, the dense count of
# every layer) keeps one evaluation near one playout's cost (734-512-512-1
# and 734-256-256-256-1 fit; the packaged 734-64-64-1 is 51,136); a die
# valued by its expectation (six evaluations) then costs a few playouts,
# and a chunk of 64 iterations between two looks at the clock well under
# a tenth of a second.
MAX_LAYERS = 8           # weight matrices (hidden layers + 1)
MAX_WIDTH = 1024         # units of one layer
MAX_MACS = 2 ** 20       # multiply-adds of one evaluation, every layer dense
MAX_META_CHARS = 65_536  # the ``meta`` JSON string (a real one is about 1 kB)
MAX_META_DEPTH = 8       # its nesting (a real one nests 3 levels)
# the largest file read: the weights MAX_MACS allows, their biases, meta and
# the archive's headers (a real network is 0.2 MB)
MAX_FILE_BYTES = 4 * MAX_MACS + 4 * MAX_LAYERS * MAX_WIDTH + 4 * MAX_META_CHARS + 65_536

_PACKAGED = Path(__file__).resolve().parent / "data" / "value_net.npz"


def default_path() -> Path:
    """The packaged network, ``bots/data/value_net.npz``."""
    return _PACKAGED


def default() -> "ValueNet":
    """The packaged network, loaded; a one-line error if it is absent."""
    if not _PACKAGED.is_file():
        raise ValueNetError("the packaged value network is missing (bots/data/value_net.npz): "
                            "train one with wildhorn-solve train")
    return load(_PACKAGED)


def packaged_sha256() -> str | None:
    """The packaged network's sha256 (what a network eval without ``net=``
    uses), None if there is none: results record it beside their figures."""
    try:
        return default().sha256
    except ValueNetError:
        return None


@dataclass(frozen=True, eq=False)
class ValueNet:
    """A loaded, checked value network (see the module's doc for the file)."""

    path: str
    sha256: str
    output: str
    weights: tuple = field(repr=False)      # float32 arrays (n_in, n_out), read-only
    biases: tuple = field(repr=False)       # float32 arrays (n_out,), read-only
    meta: dict = field(default_factory=dict, repr=False)
    variant: str = DEFAULT_VARIANT     # the wildhorn preset it was trained on

    @property
    def sizes(self) -> tuple[int, ...]:
        """The layers' widths, inputs first: (N_FEATURES, 128, 128, 1)."""
        return (self.weights[0].shape[0],) + tuple(w.shape[1] for w in self.weights)

    @property
    def identity(self) -> dict:
        """The file's name and digest, for the records of a match or a search."""
        return {"file": Path(self.path).name, "sha256": self.sha256}

    def evaluate(self, x: np.ndarray) -> np.ndarray:
        """The Polish side's win probability of each row of ``x`` (n, N_FEATURES),
        in float32 as the search computes it."""
        h = np.asarray(x, dtype=np.float32)
        if h.ndim == 1:
            h = h[None, :]
        last = len(self.weights) - 1
        for i, (w, b) in enumerate(zip(self.weights, self.biases)):
            h = h @ w + b
            if i < last:
                h = np.maximum(h, np.float32(0.0))
        h = h[:, 0]
        if self.output == "sigmoid":
            return (np.float32(1.0) / (np.float32(1.0) + np.exp(-h))).astype(np.float32)
        return np.clip(h, np.float32(0.0), np.float32(1.0)).astype(np.float32)


def random_weights(sizes, seed: int) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """Seeded random weights for ``sizes`` (N_FEATURES, ..., 1), He-scaled: for
    tests and benchmarks (a network that means nothing, but computes)."""
    sizes = [int(n) for n in sizes]
    rng = np.random.default_rng(seed)
    weights, biases = [], []
    for n_in, n_out in zip(sizes, sizes[1:]):
        weights.append((rng.standard_normal((n_in, n_out)) * np.sqrt(2.0 / n_in) * 0.5)
                       .astype(np.float32))
        biases.append((rng.standard_normal(n_out) * 0.1).astype(np.float32))
    return weights, biases


def sizes_problem(sizes) -> str | None:
    """Why the layer widths ``sizes`` (inputs first, 1 last) are refused
    (None when they fit): more than MAX_LAYERS weight matrices, a layer
    wider than MAX_WIDTH, or more than MAX_MACS multiply-adds in one
    evaluation (what a search can afford, see MAX_MACS)."""
    sizes = [int(n) for n in sizes]
    if len(sizes) - 1 > MAX_LAYERS:
        return f"more than {MAX_LAYERS} layers (at most {MAX_LAYERS} weight matrices)"
    if any(not 1 <= n <= MAX_WIDTH for n in sizes[1:]):
        return f"a layer of {max(sizes[1:])} units, at most {MAX_WIDTH}"
    macs = sum(a * b for a, b in zip(sizes, sizes[1:]))
    if macs > MAX_MACS:
        return (f"{macs} multiply-adds per evaluation, at most {MAX_MACS} "
                "(what a search can afford)")
    return None


def _check_layers(name: str, weights, biases) -> None:
    """Raises ValueNetError unless the layers chain from N_FEATURES to 1."""
    if len(weights) > MAX_LAYERS:
        raise ValueNetError(f"value network {name}: more than {MAX_LAYERS} layers "
                            f"(at most {MAX_LAYERS} weight matrices)")
    if not 1 <= len(weights) <= MAX_LAYERS or len(biases) != len(weights):
        raise ValueNetError(f"value network {name}: {len(weights)} weight matrices and "
                            f"{len(biases)} bias vectors; 1 to {MAX_LAYERS} layers of each")
    n_in = N_FEATURES
    for i, (w, b) in enumerate(zip(weights, biases)):
        if w.dtype != np.float32 or b.dtype != np.float32:
            raise ValueNetError(f"value network {name}: W{i} and b{i} must be float32, "
                                f"not {w.dtype} and {b.dtype}")
        if w.ndim != 2 or w.shape[0] != n_in or not 1 <= w.shape[1] <= MAX_WIDTH:
            raise ValueNetError(f"value network {name}: W{i} has shape {tuple(w.shape)}, "
                                f"expected ({n_in}, n) with 1 <= n <= {MAX_WIDTH}")
        if b.shape != (w.shape[1],):
            raise ValueNetError(f"value network {name}: b{i} has shape {tuple(b.shape)}, "
                                f"expected ({w.shape[1]},)")
        if not (np.isfinite(w).all() and np.isfinite(b).all()):
            raise ValueNetError(f"value network {name}: W{i} or b{i} holds NaN or infinity")
        n_in = w.shape[1]
    if n_in != 1:
        raise ValueNetError(f"value network {name}: the last layer has {n_in} outputs, "
                            "expected 1")
    too_big = sizes_problem([N_FEATURES] + [w.shape[1] for w in weights])
    if too_big is not None:
        raise ValueNetError(f"value network {name}: {too_big}")


def write(path, weights, biases, *, output: str, meta: dict,
          variant: str = DEFAULT_VARIANT) -> None:
    """Writes a network to ``path`` (temporary file, then rename: a reader
    never sees half a file); the layers are checked as :func:`load` does.
    ``variant``: the wildhorn preset it was trained on."""
    path = Path(path)
    if variant not in VARIANTS:
        raise ValueNetError(f"value network {label(path)}: variant {variant!r} is not one of "
                            f"{', '.join(VARIANTS)}")
    weights = [np.ascontiguousarray(w, dtype=np.float32) for w in weights]
    biases = [np.ascontiguousarray(b, dtype=np.float32) for b in biases]
    _check_layers(label(path), weights, biases)
    if output not in OUTPUTS:
        raise ValueNetError(f"value network {label(path)}: output {output!r} is not one of "
                            f"{', '.join(OUTPUTS)}")
    arrays = {"format": np.array(FORMAT), "feature_version": np.array(FEATURE_VERSION),
              "hidden": np.array("relu"), "output": np.array(output),
              "meta": np.array(json.dumps(meta, sort_keys=True)),
              "variant": np.array(variant)}
    for i, (w, b) in enumerate(zip(weights, biases)):
        arrays[f"W{i}"], arrays[f"b{i}"] = w, b
    fd, tmp = tempfile.mkstemp(prefix=path.name + ".", suffix=".tmp", dir=path.parent or ".")
    try:
        with os.fdopen(fd, "wb") as out:
            np.savez(out, **arrays)
            out.flush()
            os.fsync(out.fileno())
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def _short(text: str) -> str:
    """A text of a file in a message: its first 40 characters, on one line."""
    return one_line(repr(text[:40])) + ("..." if len(text) > 40 else "")


def _text(name: str, arrays, key: str) -> str:
    value = arrays[key]
    if value.shape != () or value.dtype.kind != "U":
        raise ValueNetError(f"value network {name}: {key!r} must be a string")
    return str(value[()])


# the entries a file may hold (any other member of the archive is never read)
_NAMED = ("format", "feature_version", "hidden", "output", "meta", "variant")


def _member(name: str, key: str, raw: bytes) -> np.ndarray:
    """One ``.npy`` member's array, its header checked before anything is
    allocated: plain dtype, and a shape whose size is the bytes it holds."""
    stream = io.BytesIO(raw)
    try:
        version = np.lib.format.read_magic(stream)
        if version == (1, 0):
            shape, fortran, dtype = np.lib.format.read_array_header_1_0(stream)
        elif version == (2, 0):
            shape, fortran, dtype = np.lib.format.read_array_header_2_0(stream)
        else:
            raise ValueError("unsupported .npy version")
    except (ValueError, SyntaxError, TypeError, EOFError):
        raise ValueNetError(f"value network {name}: entry {key!r} is not a plain .npy "
                            "array") from None
    if dtype.hasobject:
        raise ValueNetError(f"value network {name}: not a .npz file of plain arrays "
                            f"(entry {key!r} holds Python objects)")
    if dtype.kind not in "fiuU" or len(shape) > 2 or any(int(n) < 0 for n in shape):
        raise ValueNetError(f"value network {name}: entry {key!r} holds {str(dtype)[:20]} "
                            f"of shape {str(shape)[:40]}, not a plain array of numbers or "
                            f"text of at most 2 dimensions")
    count = 1
    for n in shape:
        count *= int(n)
    held = len(raw) - stream.tell()
    if count * dtype.itemsize != held:
        raise ValueNetError(f"value network {name}: entry {key!r} declares "
                            f"{count * dtype.itemsize} bytes of data and holds {held}")
    array = np.frombuffer(raw, dtype=dtype, count=count, offset=stream.tell())
    return array.reshape(shape, order="F" if fortran else "C")


def _members(name: str, data: bytes) -> dict[str, np.ndarray]:
    """The arrays of the entries the format names (``_NAMED``, ``W0``,
    ``b0``, ... up to MAX_LAYERS), each member's declared size checked
    before it is decompressed and at most that much read."""
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
        members = {info.filename: info for info in archive.infolist()}
    except (zipfile.BadZipFile, ValueError, OSError, EOFError, NotImplementedError):
        raise ValueNetError(f"value network {name}: not a .npz file of plain arrays") from None
    keys = list(_NAMED) + [f"{x}{i}" for i in range(MAX_LAYERS + 1) for x in "Wb"]
    arrays: dict[str, np.ndarray] = {}
    left = MAX_FILE_BYTES
    with archive:
        for key in keys:
            info = members.get(key + ".npy")
            if info is None:
                continue
            if info.file_size > left:
                raise ValueNetError(f"value network {name}: entry {key!r} declares "
                                    f"{info.file_size} bytes, more than the "
                                    f"{MAX_FILE_BYTES} a network may hold in all")
            try:
                with archive.open(info) as member:
                    raw = member.read(info.file_size + 1)
            except (zipfile.BadZipFile, ValueError, OSError, EOFError, NotImplementedError,
                    RuntimeError, zlib.error):
                raise ValueNetError(f"value network {name}: entry {key!r} cannot be "
                                    "decompressed (a damaged archive)") from None
            if len(raw) > info.file_size:
                raise ValueNetError(f"value network {name}: entry {key!r} holds more than "
                                    "it declares")
            left -= len(raw)
            arrays[key] = _member(name, key, raw)
    return arrays


def _meta(name: str, text: str) -> dict:
    """The ``meta`` entry: a JSON object, bounded in length and nesting."""
    if len(text) > MAX_META_CHARS:
        raise ValueNetError(f"value network {name}: 'meta' has {len(text)} characters, "
                            f"at most {MAX_META_CHARS}")
    # nesting is counted before parsing (the parser recurses): every bracket
    # outside strings opens a level
    depth = deepest = 0
    in_string = escaped = False
    for ch in text:
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif ch in "]}":
            depth -= 1
    if deepest > MAX_META_DEPTH:
        raise ValueNetError(f"value network {name}: 'meta' is nested more than "
                            f"{MAX_META_DEPTH} levels deep")
    try:
        meta = loads(text)
    except (ValueError, RecursionError):
        meta = None
    if not isinstance(meta, dict):
        raise ValueNetError(f"value network {name}: 'meta' is not a JSON object")
    return meta


# path -> ((device, inode, size, mtime), ValueNet): a file is read, checked
# and hashed once per process while it is unchanged
_LOADED: dict[str, tuple[tuple, "ValueNet"]] = {}


def load(path) -> ValueNet:
    """Reads and checks a network file; every refusal a one-line ValueNetError.
    Only a regular file of at most MAX_FILE_BYTES is read (a FIFO, a device
    or a folder is refused unopened); the same unchanged file is read once
    per process."""
    path = Path(path)
    name = label(path)

    def fail(message: str) -> NoReturn:
        if "No such file" in message:
            message = "no such file"
        raise ValueNetError(f"value network {name}: {message}")

    try:
        info = os.stat(path)
        stamp: tuple | None = (info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns)
    except (OSError, ValueError):
        stamp = None
    key = os.path.abspath(path)
    found = _LOADED.get(key)
    if found is not None and stamp is not None and found[0] == stamp:
        return found[1]
    data = read_bounded(path, fail, MAX_FILE_BYTES)
    net = _parse(name, path, data)
    if stamp is not None:
        _LOADED[key] = (stamp, net)
    return net


def _parse(name: str, path: Path, data: bytes) -> ValueNet:
    arrays = _members(name, data)
    for key in ("format", "feature_version", "hidden", "output", "meta", "W0", "b0"):
        if key not in arrays:
            raise ValueNetError(f"value network {name}: no {key!r} entry "
                                f"(not a {FORMAT} file)")
    fmt = _text(name, arrays, "format")
    if fmt != FORMAT:
        raise ValueNetError(f"value network {name}: format {_short(fmt)}, expected {FORMAT!r}")
    version = arrays["feature_version"]
    if version.shape != () or version.dtype.kind not in "iu":
        raise ValueNetError(f"value network {name}: 'feature_version' must be an integer")
    if int(version) != FEATURE_VERSION:
        raise ValueNetError(f"value network {name} was trained on feature version "
                            f"{describe_value(int(version))}, this build computes version "
                            f"{FEATURE_VERSION}; retrain it (wildhorn-solve train)")
    hidden = _text(name, arrays, "hidden")
    if hidden not in HIDDEN:
        raise ValueNetError(f"value network {name}: hidden activation {_short(hidden)} is not "
                            f"supported (only {', '.join(HIDDEN)})")
    output = _text(name, arrays, "output")
    if output not in OUTPUTS:
        raise ValueNetError(f"value network {name}: output {_short(output)} is not supported "
                            f"(only {', '.join(OUTPUTS)})")
    meta = _meta(name, _text(name, arrays, "meta"))
    variant = DEFAULT_VARIANT
    if "variant" in arrays:
        variant = _text(name, arrays, "variant")
        if variant not in VARIANTS:
            raise ValueNetError(f"value network {name}: variant {_short(variant)} is not one of "
                                f"{', '.join(VARIANTS)}")
    weights, biases = [], []
    while f"W{len(weights)}" in arrays:
        i = len(weights)
        if f"b{i}" not in arrays:
            raise ValueNetError(f"value network {name}: W{i} without b{i}")
        weights.append(np.ascontiguousarray(arrays[f"W{i}"]))
        biases.append(np.ascontiguousarray(arrays[f"b{i}"]))
    _check_layers(name, weights, biases)
    weights = [np.array(w, copy=True) for w in weights]   # own, writable-then-frozen copies
    biases = [np.array(b, copy=True) for b in biases]
    for a in weights + biases:
        a.setflags(write=False)
    return ValueNet(path=str(path), sha256=hashlib.sha256(data).hexdigest(), output=output,
                    weights=tuple(weights), biases=tuple(biases), meta=meta, variant=variant)


def game_variant(config) -> str | None:
    """The wildhorn preset whose configuration ``config`` (a
    ``solver.CoreConfig``) is, or None for any other configuration."""
    for name in VARIANTS:
        if make_config({"variant": name}).key == config.key:
            return name
    return None


_CHECKED: set = set()     # (digest, configuration key) pairs already allowed


def check_game(net: ValueNet, config) -> None:
    """Refuses ``net`` (one-line ValueNetError naming its file) on a game
    whose configuration (``config``, a ``solver.CoreConfig``) is not the
    preset it was trained on: its values would be of another game.  A
    full-game network (the packaged one) still runs on other
    configurations that are no preset (as before variants were recorded);
    a network of ``small`` or ``tiny`` runs on that preset only."""
    key = (net.sha256, config.key)
    if key in _CHECKED:
        return
    game = game_variant(config)
    if game != net.variant and not (game is None and net.variant == DEFAULT_VARIANT):
        what = f"variant {game}" if game is not None else "another configuration"
        raise ValueNetError(f"value network {label(Path(net.path))} was trained on variant "
                            f"{net.variant}, not on the game searched ({what}): use a network "
                            f"trained on it (wildhorn-solve train --variant ...)")
    _CHECKED.add(key)

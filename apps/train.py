"""``wildhorn-solve train``: self-play training of the value network
(docs/training.md).

One run makes one generation in its output folder, in three resumable steps:

1. **Data.**  Self-play games (of ``wildhorn``, or of the preset
   ``--variant``, recorded in the network's file) of one bot (``--bot``: the heuristic bot for
   generation 1, later a search using the previous generation's network:
   expert iteration), in chunks of ``--chunk-games`` games, each chunk a task
   of the tournament runner's backends (``--jobs`` worker processes, or Ray
   with ``--backend ray --address ...``) written atomically to
   ``data/chunk-NNNNN.npz`` and skipped when present.  From each game
   ``--positions`` decision positions are drawn (seeded), each with its
   features (:func:`solver.features`) and its labels: the game's result, the
   search's root value (when the bot searches), the mean of ``--playouts``
   heuristic playouts (:func:`bots.heuristic_playouts`, in C) and the
   exact value where the last-turn solver finishes within ``--exact-nodes``
   positions.  The held-out games (a ``--holdout`` share, drawn by game from
   the seed) also get a fresh 16-playout mean and a single playout, with
   their CPU times, for the calibration.
2. **Fit.**  A multilayer perceptron (scikit-learn's ``MLPRegressor``, relu,
   ``--hidden``, ``--l2``, Adam) on the ``--target`` labels of the training
   games, one epoch at a time, its checkpoint in ``data/fit-checkpoint.npz``
   (arrays and JSON, no pickle) after each; the epoch with the lowest held-out loss is kept.
3. **Output.**  ``value_net.npz`` (through :mod:`bots.valuenet`, the one
   writer of the format), ``train.json`` (the command, sizes, timings,
   losses, calibration), ``loss.png`` and ``README.md``; ``--install``
   copies the network to the packaged ``bots/data/value_net.npz``.

Every random choice derives from ``--seed``: the same command gives the same
data and the same network, whether it ran at once or was killed and
repeated; ``--jobs`` and the backend change nothing but the speed.
scikit-learn is the optional extra ``train`` (``pip install
'wildhorn-solve[train]'``), imported only here, never to play.
"""

from __future__ import annotations

import io
import json
import math
import shlex
import shutil
import sys
import time
import zipfile
import zlib
from dataclasses import asdict, dataclass, fields
from pathlib import Path
from typing import Any, Callable, Sequence

import numpy as np
import pyspiel

import solver  # noqa: F401  (registers the game)
from apps.tournament import BACKENDS, FolderLock, calibration, derive, make_backend, make_stream
from apps.tournament.execution import results_in_order
from bots import LABEL_ROLLOUT, heuristic_playouts, make_bot, parse_spec, valuenet
from exact.endgame import Solver as EndgameSolver, solvable, solve
from solver import FEATURE_VERSION, N_FEATURES, feature_parts, features
from solver.errors import ParameterError, WildhornError, brief, quote
from solver.game import VARIANTS
from solver.jsonio import write_atomic

TARGETS = ("exact-first", "playouts", "result", "root-first")
TARGET_HELP = {
    "exact-first": "the exact value where the last-turn solver finished, else the playouts' mean",
    "playouts": "the mean of the heuristic playouts",
    "result": "the game's result (1 if the Polish side won)",
    "root-first": "the search's root value where the bot searched, else the playouts' mean",
}
CHANCE = "keyed"            # chance outcomes of the self-play games (apps.tournament.chance)
CHECK_PLAYOUTS = 16         # the playout estimator the calibration compares the net with
ECE_BINS = 10
PATIENCE = 5                # epochs without a better held-out loss before the fit stops
BATCH = 256                 # Adam's minibatch
LEARNING_RATE = 1e-3
FIT_THREADS = 1             # BLAS threads of the fit (see fit)
CURVE_ROWS = 20000          # training rows on which the training loss is measured per epoch
TIMING_ROWS = 1000          # held-out positions on which the network's time is measured
LOCK = "train.lock"
SHARD = "chunk-{:05d}.npz"
CHECKPOINT = "fit-checkpoint.npz"
OLD_CHECKPOINT = "fit-checkpoint.pkl"   # a pickle of earlier versions: never read
# the perceptron's state that partial_fit continues from, besides its weights
# and Adam's moments (sklearn's MLPRegressor; its random state is made again
# from the seed at every call)
MODEL_SCALARS = ("n_iter_", "t_", "loss_", "best_loss_", "_no_improvement_count",
                 "n_outputs_", "n_layers_", "out_activation_", "n_features_in_",
                 "best_validation_score_", "validation_scores_")


class TrainError(WildhornError):
    """A training run that cannot go on (a folder made with other data, a
    missing extra, a broken shard)."""


# ---- parameters ----------------------------------------------------------------------

@dataclass(frozen=True)
class DataParams:
    """What the data of a folder is made from (kept in data/params.json; a
    folder's data is continued only with the same)."""

    bot: str
    seed: int
    positions: int
    playouts: int
    exact_nodes: int
    chunk_games: int
    holdout: float
    chance: str = CHANCE
    feature_version: int = FEATURE_VERSION
    playout_policy: str = LABEL_ROLLOUT
    variant: str = "full"       # the wildhorn preset the games are of (solver.game.VARIANTS)


@dataclass(frozen=True)
class FitParams:
    target: str
    hidden: tuple[int, ...]
    l2: float
    epochs: int
    seed: int
    drop: tuple[str, ...] = ()  # feature parts (solver.feature_parts) the network never sees


@dataclass(frozen=True)
class Chunk:
    """A worker's task: games ``first`` .. ``first + count - 1``; ``game``
    is the chunk's index (the key of the backends' window)."""

    game: int
    first: int
    count: int
    data: DataParams


def parse_hidden(text: str) -> tuple[int, ...]:
    try:
        sizes = tuple(int(x) for x in text.split(","))
    except ValueError:
        sizes = ()
    if not sizes or any(not 1 <= n <= valuenet.MAX_WIDTH for n in sizes) or \
            len(sizes) >= valuenet.MAX_LAYERS:
        raise ParameterError(f"--hidden: expected layer widths separated by commas, each 1 to "
                             f"{valuenet.MAX_WIDTH}, at most {valuenet.MAX_LAYERS - 1} "
                             f"(e.g. 64,64), got {quote(text)}")
    too_big = valuenet.sizes_problem((N_FEATURES, *sizes, 1))
    if too_big is not None:
        raise ParameterError(f"--hidden: {quote(text)} gives {too_big}")
    return sizes


def parse_drop(text: str) -> tuple[str, ...]:
    """``--drop-features``: feature parts by name, separated by commas, each
    once, in any order; returned in solver.feature_parts's order (so one set
    of parts is one fit); the empty string drops none."""
    names = tuple(text.split(",")) if text else ()
    check_drop(names)
    return tuple(name for name, _ in feature_parts() if name in names)


def check_drop(names: tuple[str, ...]) -> None:
    """Refuse a drop that is not distinct feature parts by name, or all."""
    known = [name for name, _ in feature_parts()]
    if not isinstance(names, tuple):
        raise ParameterError(f"--drop-features: expected a tuple of part names, got {names!r}")
    for name in names:
        if not isinstance(name, str) or name not in known:
            raise ParameterError(f"--drop-features: {name!r} is not a feature part; the parts "
                                 f"are {', '.join(known)}")
    if len(set(names)) < len(names):
        raise ParameterError("--drop-features: a part named twice")
    if len(names) == len(known):
        raise ParameterError("--drop-features: every part dropped leaves the network nothing")


def dropped_columns(drop: Sequence[str]) -> np.ndarray:
    """The feature columns of the parts in ``drop`` (solver.feature_parts's
    order), ascending."""
    cols, start = [], 0
    for name, size in feature_parts():
        if name in drop:
            cols.extend(range(start, start + size))
        start += size
    return np.array(cols, dtype=np.intp)


def check_arguments(games: int, data: DataParams, fit: FitParams, jobs: int, backend: str,
                    address: str | None) -> None:
    """Refuse bad arguments before anything is written."""
    parse_spec(data.bot)
    if data.variant not in VARIANTS:
        raise ParameterError(f"--variant: expected one of {', '.join(VARIANTS)}, "
                             f"got {data.variant!r}")
    for name, value, low in (("--games", games, 1), ("--positions", data.positions, 1),
                             ("--playouts", data.playouts, 1),
                             ("--exact-nodes", data.exact_nodes, 0),
                             ("--chunk-games", data.chunk_games, 1), ("--epochs", fit.epochs, 1),
                             ("--jobs", jobs, 1)):
        if value < low:
            raise ParameterError(f"{name}: expected an integer >= {low}, got {value}")
    if not 0.0 < data.holdout < 0.5:
        raise ParameterError(f"--holdout: expected a share between 0 and 0.5, got {data.holdout}")
    if fit.l2 < 0 or not math.isfinite(fit.l2):
        raise ParameterError(f"--l2: expected a number >= 0, got {fit.l2}")
    if fit.target not in TARGETS:
        raise ParameterError(f"--target: expected one of {', '.join(TARGETS)}, "
                             f"got {fit.target!r}")
    check_drop(fit.drop)
    if backend not in BACKENDS:
        raise ParameterError(f"--backend: expected one of {', '.join(BACKENDS)}, got {brief(backend)}")
    if address is not None and backend != "ray":
        raise ParameterError("--address: only with --backend ray")


def held_out(seed: int, game: int, share: float) -> bool:
    """Whether ``game`` is a held-out game (a seeded draw per game, so the
    split is by game, not by position, and does not depend on the chunks)."""
    return derive("train-holdout", seed, game) / 2.0 ** 63 < share


# ---- data: one chunk of games (runs in a worker) --------------------------------------

_GAMES: dict[str, Any] = {}     # the game of each variant, loaded once per worker
_SOLVER = None
FIELDS = ("x", "game", "move", "result", "root", "playouts", "exact", "check", "check1",
          "check_seconds", "check1_seconds", "feature_seconds")


def _sample_game(game_id: int, data: DataParams) -> dict[str, list]:
    """Plays one self-play game and labels ``data.positions`` of its decision
    positions (all of them if it has fewer)."""
    global _SOLVER
    game = _GAMES.get(data.variant)
    if game is None:
        game = _GAMES[data.variant] = pyspiel.load_game("wildhorn", {"variant": data.variant})
    chance = make_stream(data.chance, derive("train-deal", data.seed, game_id))
    bots = [make_bot(data.bot, p, derive("train-bot", data.seed, game_id, p)) for p in (0, 1)]
    state = game.new_initial_state()
    seen: list[tuple[Any, float]] = []          # (position, the bot's root value for Polish)
    while not state.is_terminal():
        if state.is_chance_node():
            state.apply_action(chance.sample(state))
            continue
        core = state.core.copy()
        result = bots[state.current_player()].analyse(state)
        value = result.get("value")
        seen.append((core, float(value[0]) if value is not None else math.nan))
        state.apply_action(result["action"])
    won = 1.0 if state.returns()[0] > 0 else 0.0
    rng = np.random.default_rng(derive("train-positions", data.seed, game_id))
    picks = np.sort(rng.choice(len(seen), size=min(data.positions, len(seen)), replace=False))
    check = held_out(data.seed, game_id, data.holdout)
    rows: dict[str, list] = {f: [] for f in FIELDS}
    for k in picks:
        core, root = seen[k]
        t0 = time.perf_counter()
        x = features(core)
        t1 = time.perf_counter()
        exact = math.nan
        if data.exact_nodes and solvable(core):
            if _SOLVER is None:
                _SOLVER = EndgameSolver()
            sol = solve(core, max_nodes=data.exact_nodes, every_action=False, solver=_SOLVER)
            if sol.complete:
                exact = sol.polish
        label_seed = derive("train-playouts", data.seed, game_id, int(k))
        mean = heuristic_playouts(core, data.playouts, label_seed)
        c16 = c1 = s16 = s1 = math.nan
        if check:
            t2 = time.perf_counter()
            c16 = heuristic_playouts(core, CHECK_PLAYOUTS, derive("train-check", label_seed))
            t3 = time.perf_counter()
            c1 = heuristic_playouts(core, 1, derive("train-check1", label_seed))
            s16, s1 = t3 - t2, time.perf_counter() - t3
        for f, v in zip(FIELDS, (x, game_id, int(k), won, root, mean, exact, c16, c1, s16, s1,
                                 t1 - t0)):
            rows[f].append(v)
    return rows


def generate_chunk(chunk: Chunk) -> bytes:
    """The shard of one chunk of games: an .npz (plain arrays) as bytes."""
    rows: dict[str, list] = {f: [] for f in FIELDS}
    for g in range(chunk.first, chunk.first + chunk.count):
        for f, v in _sample_game(g, chunk.data).items():
            rows[f].extend(v)
    arrays = {f: np.asarray(rows[f], dtype=np.float32) for f in FIELDS}
    arrays["x"] = np.asarray(rows["x"], dtype=np.float32).reshape(-1, N_FEATURES)
    arrays["game"] = np.asarray(rows["game"], dtype=np.int64)
    arrays["move"] = np.asarray(rows["move"], dtype=np.int32)
    buf = io.BytesIO()
    np.savez(buf, **arrays)
    return buf.getvalue()


# ---- progress ------------------------------------------------------------------------

class Progress:
    """A rich bar on a terminal, else a line every 10% (and at the end)."""

    def __init__(self, stream: Any = None):
        self.stream = stream or sys.stdout
        self.bar = None

    def start(self, what: str, total: int, done: int) -> None:
        self.what, self.total, self.done, self.t0 = what, total, done, time.monotonic()
        self.first = done
        if self.stream.isatty():
            from rich.console import Console
            from rich.progress import (BarColumn, MofNCompleteColumn, Progress as Bar,
                                       TextColumn, TimeElapsedColumn, TimeRemainingColumn)

            self.bar = Bar(TextColumn(what), BarColumn(), MofNCompleteColumn(),
                           TimeElapsedColumn(), TextColumn("left"), TimeRemainingColumn(),
                           TextColumn("{task.fields[note]}", markup=False),
                           console=Console(file=self.stream))
            self.bar.start()
            self.task = self.bar.add_task(what, total=total, completed=done, note="")
        elif done:
            self.note(f"Resuming: {done} of {total} {what} already done")

    def advance(self, done: int, note: str = "") -> None:
        step_before = 10 * self.done // max(self.total, 1)
        self.done = done
        if self.bar is not None:
            self.bar.update(self.task, completed=done, note=note, refresh=True)
        elif 10 * done // max(self.total, 1) > step_before or done >= self.total:
            elapsed = time.monotonic() - self.t0
            left = (self.total - done) * elapsed / max(done - self.first, 1)
            self.note(f"{self.what}: {done}/{self.total}, {elapsed:.0f} s elapsed, about "
                      f"{left:.0f} s left{'; ' + note if note else ''}")

    def note(self, text: str) -> None:
        if self.bar is not None:
            self.bar.console.print(text, markup=False, highlight=False)
        else:
            print(text, file=self.stream, flush=True)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.stop()
            self.bar = None


# ---- the steps -----------------------------------------------------------------------

PARAM_TYPES = {"int": (int,), "float": (int, float), "str": (str,)}


def read_params(path: Path) -> DataParams:
    """A folder's data/params.json (the one reader; ``write_atomic`` of
    ``asdict`` is the writer), checked field by field: a file that is not
    such an object is refused in one line, never half-read."""
    try:
        theirs = json.loads(path.read_text())
    except (OSError, ValueError) as err:
        raise TrainError(f"{path}: not readable ({type(err).__name__})") from None
    except RecursionError:
        raise TrainError(f"{path}: not readable (nested too deeply)") from None
    if not isinstance(theirs, dict):
        raise TrainError(f"{path}: expected a JSON object, got {type(theirs).__name__}")
    theirs.setdefault("variant", "full")     # written before the option existed
    names = {f.name: f.type for f in fields(DataParams)}
    odd = sorted(set(names) ^ set(theirs))
    if odd:
        what = "no field" if odd[0] in names else "an unknown field"
        raise TrainError(f"{path}: {what} {odd[0]!r}")
    for key, kind in names.items():
        value = theirs[key]
        if isinstance(value, bool) or not isinstance(value, PARAM_TYPES[kind]):
            raise TrainError(f"{path}: {key} must be {kind}, got {brief(value)}")
    if theirs["chunk_games"] < 1:
        raise TrainError(f"{path}: chunk_games must be >= 1, got {theirs['chunk_games']}")
    return DataParams(**theirs)


def check_folder(out: Path, data: DataParams) -> None:
    """data/params.json: written for a new folder, else it must match."""
    path = out / "data" / "params.json"
    mine = asdict(data)
    if path.is_file():
        theirs = asdict(read_params(path))
        diff = [k for k in mine if mine[k] != theirs[k]]
        if diff:
            k = diff[0]
            raise TrainError(f"{out}: its data was made with {k}={theirs[k]!r}, not "
                             f"{mine[k]!r}: repeat its command (see {out}/README.md) or "
                             f"use another --out")
    else:
        path.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(path, json.dumps(mine, indent=1) + "\n")


def generate(out: Path, games: int, data: DataParams, jobs: int, backend: str,
             address: str | None, progress: Progress) -> float:
    """Writes the shards still missing for ``games`` games; returns the seconds."""
    folder = out / "data"
    n_chunks = -(-games // data.chunk_games)
    chunks = [Chunk(i, i * data.chunk_games, min(data.chunk_games, games - i * data.chunk_games),
                    data) for i in range(n_chunks)]
    missing = [c for c in chunks if not (folder / SHARD.format(c.game)).is_file()]
    t0 = time.perf_counter()
    if not missing:
        return 0.0
    progress.start("games", games, games - sum(c.count for c in missing))
    runner = make_backend(backend, jobs, address, fn=generate_chunk)
    if backend == "ray":
        progress.note(runner.description)
    handles: dict[int, Any] = {}
    try:
        done = games - sum(c.count for c in missing)
        for chunk, shard in results_in_order(runner, missing, max(2, 2 * jobs), handles):
            write_atomic(folder / SHARD.format(chunk.game), shard)
            done += chunk.count
            progress.advance(done)
    except BaseException:
        runner.abort()
        raise
    finally:
        progress.close()
        runner.close()
    return time.perf_counter() - t0


def read_shard(path: Path) -> dict[str, np.ndarray]:
    """One data shard's arrays, checked: a file that is not an ``.npz`` of
    plain arrays (truncated, empty, a pickle inside), or whose arrays are not
    rows of N_FEATURES features with one value of every field per row, is a
    one-line TrainError naming it ("a broken data shard ... delete it"),
    never a NumPy error later."""
    def broken(why: str) -> TrainError:
        return TrainError(f"{path}: a broken data shard ({why}): delete it and repeat the "
                          "command")
    try:
        with np.load(path, allow_pickle=False) as npz:
            part = {f: npz[f] for f in FIELDS}
    except KeyError as err:
        raise broken(f"no {str(err.args[0])[:40]!r} array" if err.args else "KeyError") \
            from None
    except (OSError, ValueError, EOFError, zipfile.BadZipFile, zlib.error,
            NotImplementedError) as err:
        raise broken(type(err).__name__) from None
    x = part["x"]
    if x.ndim != 2 or x.shape[1] != N_FEATURES or x.dtype != np.float32:
        raise broken(f"its positions are {x.dtype} of shape {x.shape}, not float32 rows of "
                     f"{N_FEATURES} features")
    for f, v in part.items():
        if f != "x" and (v.ndim != 1 or len(v) != len(x) or v.dtype.kind not in "fiu"):
            raise broken(f"{f!r} holds {v.dtype} of shape {v.shape}, not one number for each "
                         f"of its {len(x)} positions")
    return part


def load_data(out: Path, games: int, data: DataParams) -> dict[str, np.ndarray]:
    """The shards of the first ``games`` games, concatenated (each checked
    by :func:`read_shard`)."""
    parts = [read_shard(out / "data" / SHARD.format(i))
             for i in range(-(-games // data.chunk_games))]
    merged = {}
    for f in FIELDS:
        merged[f] = np.concatenate([p.pop(f) for p in parts])
    keep = merged["game"] < games
    return merged if keep.all() else {f: v[keep] for f, v in merged.items()}


def read_summary(folder: Path) -> dict[str, Any]:
    """The train.json of the finished training run in ``folder``: an object
    whose ``games`` is a count (and whose ``fit``, if any, is an object), the
    one check that ``--add-data`` and the benchmarks share.  A one-line
    TrainError, without the folder's name, otherwise."""
    try:
        summary = json.loads((folder / "train.json").read_text())
        games = summary["games"]
        if not isinstance(summary.get("fit", {}), dict):
            raise TypeError("fit")
    except (OSError, ValueError, KeyError, TypeError, AttributeError, RecursionError):
        raise TrainError("not a finished training folder (no readable train.json)") from None
    if isinstance(games, bool) or not isinstance(games, int) or games < 1:
        raise TrainError(f"train.json's games is {games!r}, not a count")
    return summary


def load_added(folder: str, out: Path, data: DataParams
               ) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
    """``--add-data``: the positions of an earlier generation's finished run
    in ``folder``, every game its train.json counts (its held-out games too:
    they join this run's training rows, and this run's held-out games stay
    the only check), and what they are.  Refused in one line when the folder
    is ``out`` itself, has no finished run, or has other features, another
    game or another playout policy than this run."""
    path = Path(folder)
    if path.resolve() == out.resolve():
        raise TrainError(f"--add-data {folder}: that is --out itself")
    try:
        games = read_summary(path)["games"]
    except TrainError as err:
        raise TrainError(f"--add-data {folder}: {err}; its README.md has the command that "
                         "makes it") from None
    try:
        params = read_params(path / "data" / "params.json")
    except TrainError as err:
        raise TrainError(f"--add-data {folder}: {err}") from None
    for key in ("feature_version", "variant", "playout_policy"):
        if getattr(params, key) != getattr(data, key):
            raise TrainError(f"--add-data {folder}: its data has {key}="
                             f"{getattr(params, key)!r}, this run {getattr(data, key)!r}")
    try:
        rows = load_data(path, games, params)
    except TrainError as err:
        raise TrainError(f"--add-data {folder}: {err} (its README.md's command makes its "
                         "data again)") from None
    return rows, {"folder": folder, "games": games, "positions": int(len(rows["x"])),
                  "bot": params.bot, "seed": params.seed}


def target_of(rows: dict[str, np.ndarray], target: str) -> np.ndarray:
    """The training label of each row under ``target`` (see TARGET_HELP)."""
    if target == "result":
        return rows["result"]
    if target == "playouts":
        return rows["playouts"]
    first = rows["exact"] if target == "exact-first" else rows["root"]
    return np.where(np.isnan(first), rows["playouts"], first).astype(np.float32)


def label_noise(rows: dict[str, np.ndarray], target: str, playouts: int) -> float | None:
    """The part of the loss no network can remove: the mean variance of the
    labels' own sampling noise (a playouts' mean p of n: p(1 - p)/(n - 1),
    unbiased; an exact value: 0; a game's result: p(1 - p) with p the
    playouts' mean, an estimate).  None for root-first (not known)."""
    p = rows["playouts"].astype(np.float64)
    exact = np.isfinite(rows["exact"])
    if target == "result":
        return round(float(np.mean(p * (1 - p))), 6)
    if target == "root-first" or playouts < 2:
        return None
    var = p * (1 - p) / (playouts - 1)
    if target == "exact-first":
        var[exact] = 0.0
    return round(float(np.mean(var)), 6)


def _mse(model: Any, x: np.ndarray, y: np.ndarray) -> float:
    return float(np.mean((np.clip(model.predict(x), 0.0, 1.0) - y) ** 2))


def _new_model(params: FitParams, rows: int) -> Any:
    from sklearn.neural_network import MLPRegressor
    return MLPRegressor(hidden_layer_sizes=params.hidden, activation="relu", solver="adam",
                        alpha=params.l2, batch_size=min(BATCH, rows),
                        learning_rate_init=LEARNING_RATE, random_state=params.seed,
                        shuffle=True)


def checkpoint_bytes(state: dict[str, Any]) -> bytes:
    """The fit's checkpoint as an ``.npz`` of plain arrays (no pickle): the
    perceptron's weights, Adam's moments and the best epoch's weights as
    arrays, everything else as one JSON string (``state``)."""
    model = state["model"]
    opt = model._optimizer
    arrays: dict[str, np.ndarray] = {}
    for name, values in (("coef", model.coefs_), ("intercept", model.intercepts_),
                         ("adam_m", opt.ms), ("adam_v", opt.vs),
                         ("best_w", state["best"][0]), ("best_b", state["best"][1])):
        for i, a in enumerate(values):
            arrays[f"{name}{i}"] = np.asarray(a)
    scalars = {k: getattr(model, k) for k in MODEL_SCALARS if hasattr(model, k)}
    info = {"key": state["key"], "epoch": state["epoch"], "train": state["train"],
            "held_out": state["held_out"], "best_epoch": state["best_epoch"],
            "seconds": state["seconds"], "layers": len(model.coefs_),
            "params": len(opt.ms), "model": {k: (None if v is None else
                                                 v if not isinstance(v, (np.generic,))
                                                 else v.item()) for k, v in scalars.items()},
            "loss_curve": list(model.loss_curve_),
            "adam": {"t": int(opt.t), "learning_rate": float(opt.learning_rate)}}
    arrays["state"] = np.array(json.dumps(info, allow_nan=True))
    buf = io.BytesIO()
    np.savez(buf, **arrays)
    return buf.getvalue()


def load_checkpoint(path: Path, key: dict[str, Any], params: FitParams,
                    rows: int) -> dict[str, Any] | None:
    """The fit's state from its checkpoint (``np.load`` with
    ``allow_pickle=False``: arrays and JSON only), or None (the fit starts
    again) when it is of another fit or cannot be read."""
    from sklearn.neural_network._stochastic_optimizers import AdamOptimizer
    try:
        with np.load(path, allow_pickle=False) as npz:
            info = json.loads(str(npz["state"][()]))
            if not isinstance(info, dict) or info.get("key") != key:
                return None
            n, k = int(info["layers"]), int(info["params"])
            arrays = {f: [np.array(npz[f"{f}{i}"]) for i in range(m)]
                      for f, m in (("coef", n), ("intercept", n), ("adam_m", k),
                                   ("adam_v", k), ("best_w", n), ("best_b", n))}
        model = _new_model(params, rows)
        for name, value in info["model"].items():
            if name in MODEL_SCALARS:
                setattr(model, name, value)
        model.coefs_, model.intercepts_ = arrays["coef"], arrays["intercept"]
        model.loss_curve_ = [float(v) for v in info["loss_curve"]]
        model._best_coefs = [c.copy() for c in model.coefs_]
        model._best_intercepts = [b.copy() for b in model.intercepts_]
        opt = AdamOptimizer(model.coefs_ + model.intercepts_, LEARNING_RATE,
                            model.beta_1, model.beta_2, model.epsilon)
        opt.t = int(info["adam"]["t"])
        opt.learning_rate = float(info["adam"]["learning_rate"])
        opt.ms, opt.vs = arrays["adam_m"], arrays["adam_v"]
        model._optimizer = opt
        return {"key": key, "model": model, "epoch": int(info["epoch"]),
                "train": [float(v) for v in info["train"]],
                "held_out": [float(v) for v in info["held_out"]],
                "best": (arrays["best_w"], arrays["best_b"]),
                "best_epoch": int(info["best_epoch"]), "seconds": float(info["seconds"])}
    except (OSError, ValueError, KeyError, TypeError, AttributeError, EOFError,
            zipfile.BadZipFile, RecursionError):
        return None


def fit(out: Path, x: np.ndarray, y: np.ndarray, hx: np.ndarray, hy: np.ndarray,
        params: FitParams, progress: Progress) -> dict[str, Any]:
    """The perceptron, one epoch at a time from its checkpoint; returns the
    best epoch's weights and the loss curves."""
    try:
        import sklearn.neural_network  # noqa: F401
        from threadpoolctl import threadpool_limits
    except ImportError:
        raise TrainError("training needs scikit-learn: pip install 'wildhorn-solve[train]'") \
            from None
    path = out / "data" / CHECKPOINT
    # the checkpoint continues under the same fit on the same data; --epochs
    # is not part of it, so a larger --epochs continues a finished fit
    key = {**params_record(params), "rows": int(len(y)),
           "held_out": int(len(hy)), "y": float(np.sum(y, dtype=np.float64))}
    del key["epochs"]
    if (out / "data" / OLD_CHECKPOINT).is_file() and not path.is_file():
        progress.note(f"{out / 'data' / OLD_CHECKPOINT}: a checkpoint of an earlier version "
                      "(a pickle, never read): ignored; the fit starts again")
    state = load_checkpoint(path, key, params, len(y)) if path.is_file() else None
    if state is None:
        state = {"key": key, "model": _new_model(params, len(y)), "epoch": 0, "train": [], "held_out": [],
                 "best": None, "best_epoch": 0, "seconds": 0.0}
    curve_rows = np.arange(min(CURVE_ROWS, len(y)))
    if state["epoch"] and state["epoch"] - state["best_epoch"] >= PATIENCE:
        progress.note(f"The fit stopped at epoch {state['epoch']} ({PATIENCE} epochs without a "
                      f"better held-out loss); epoch {state['best_epoch']} is kept")
        return state
    progress.start("epochs", params.epochs, state["epoch"])
    # one BLAS thread: on minibatches of 256 rows, threads cost more than they
    # give (an epoch of 16,000 rows: 0.6 s on one thread, 9.5 s on the
    # default threads of a busy 2-core machine); parallelism is the workers'
    limits = threadpool_limits(limits=FIT_THREADS)
    try:
        while state["epoch"] < params.epochs and \
                state["epoch"] - state["best_epoch"] < PATIENCE:
            t0 = time.perf_counter()
            model = state["model"]
            model.partial_fit(x, y)
            state["epoch"] += 1
            state["train"].append(_mse(model, x[curve_rows], y[curve_rows]))
            state["held_out"].append(_mse(model, hx, hy))
            if state["best"] is None or state["held_out"][-1] < min(state["held_out"][:-1]):
                state["best"] = ([w.copy() for w in model.coefs_],
                                 [b.copy() for b in model.intercepts_])
                state["best_epoch"] = state["epoch"]
            state["seconds"] += time.perf_counter() - t0
            write_atomic(path, checkpoint_bytes(state))
            progress.advance(state["epoch"], f"held-out loss {state['held_out'][-1]:.5f}")
    finally:
        limits.restore_original_limits()
        progress.close()
    return state


def evaluate_net(net: valuenet.ValueNet, rows: dict[str, np.ndarray]) -> dict[str, Any]:
    """Calibration on held-out positions: the network's Brier score and ECE
    against the game's result, beside those of a fresh 16-playout mean and of
    one playout, with each estimator's CPU time per position."""
    t0 = time.perf_counter()
    pred = net.evaluate(rows["x"])
    batch_seconds = (time.perf_counter() - t0) / max(len(pred), 1)
    # times are medians: on a shared machine a mean is mostly the waits of
    # the process between its turns on a core
    times = []
    for row in rows["x"][:TIMING_ROWS]:
        t0 = time.perf_counter()
        net.evaluate(row)
        times.append(time.perf_counter() - t0)
    net_seconds = float(np.median(times))
    feature_seconds = float(np.median(rows["feature_seconds"]))

    def cal(v: np.ndarray) -> dict[str, Any]:
        c = calibration(v.tolist(), rows["result"].tolist(), ECE_BINS)
        return {"brier": round(c["brier"], 5), "ece": round(c["ece"], 5)}

    per_playout = float(np.median(rows["check1_seconds"]))
    return {
        "positions": int(len(pred)),
        "against": "the game's result",
        "net": {**cal(pred), "microseconds": round(1e6 * (net_seconds + feature_seconds), 2),
                "batched_microseconds": round(1e6 * (batch_seconds + feature_seconds), 2),
                "note": "features in C plus the NumPy forward pass, one position at a time "
                        "(batched: all held-out positions in one call)"},
        f"playouts_{CHECK_PLAYOUTS}": {**cal(rows["check"]), "microseconds": round(
            1e6 * float(np.median(rows["check_seconds"])), 2)},
        "playouts_1": {**cal(rows["check1"]), "microseconds": round(1e6 * per_playout, 2)},
        "playouts_at_equal_time": round((net_seconds + feature_seconds) / per_playout, 4)
        if per_playout > 0 else None,
        "mse_to_exact": round(float(np.nanmean((pred - rows["exact"]) ** 2)), 5)
        if np.isfinite(rows["exact"]).any() else None,
    }


def plot_loss(path: Path, state: dict[str, Any], target: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6, 4), dpi=100)
    epochs = range(1, len(state["train"]) + 1)
    ax.plot(epochs, state["train"], label="training games")
    ax.plot(epochs, state["held_out"], label="held-out games")
    ax.axvline(state["best_epoch"], color="grey", linestyle=":", label="kept epoch")
    ax.set_xlabel("epoch")
    ax.set_ylabel(f"mean squared error to the {target} target")
    ax.legend()
    ax.grid(alpha=0.3)
    fig.tight_layout()
    buf = io.BytesIO()
    fig.savefig(buf, format="png", metadata={"Software": None})
    plt.close(fig)
    write_atomic(path, buf.getvalue())


def params_record(params: FitParams) -> dict[str, Any]:
    """The fit's parameters as JSON values, for the checkpoint's key and
    train.json; ``drop`` only when a part is dropped, so a fit made before
    --drop-features existed keeps its key and its file."""
    out = {**asdict(params), "hidden": list(params.hidden), "drop": list(params.drop)}
    if not params.drop:
        del out["drop"]
    return out


def fit_summary(params: FitParams) -> dict[str, Any]:
    """train.json's ``fit``: the parameters of the fit and its constants."""
    return {**params_record(params), "batch": BATCH, "learning_rate": LEARNING_RATE,
            "patience": PATIENCE}


def readme(out: Path, command: str, summary: dict[str, Any]) -> str:
    cal = summary["calibration"]
    p16 = cal[f"playouts_{CHECK_PLAYOUTS}"]
    return "\n".join([
        f"# Value network: {out.name}", "",
        "Made by (run from the repository's root; the same command continues it if it was "
        "stopped, and gives the same files):", "", f"    {command}", "",
        f"- data: {summary['games']} self-play games of `{summary['data']['bot']}` on "
        f"`wildhorn(variant={summary['variant']})`"
        + (" (the network is for that game only: a search refuses it on another)"
           if summary["variant"] != "full" else "") + ", "
        f"{summary['positions']['train']} training and {summary['positions']['held_out']} "
        f"held-out positions (raw data in `data/`, not committed: the command regenerates it)",
        *[f"- also trained on (`--add-data`): {a['positions']} positions of {a['games']} "
          f"games of `{a['bot']}` from `{a['folder']}` (its data is not committed either: "
          f"run its own command, in its README.md, first)"
          for a in summary.get("added_data", [])],
        f"- network: {' x '.join(map(str, summary['sizes']))}, target "
        f"`{summary['fit']['target']}`, l2 {summary['fit']['l2']}, epoch "
        f"{summary['best_epoch']} of {summary['epochs_run']} kept"
        + (f"; feature parts dropped (`--drop-features`, zeros in the fit, zero weights in "
           f"the file): {', '.join(summary['fit']['drop'])}" if summary["fit"].get("drop")
           else ""),
        f"- held-out loss (mean squared error to the target): {summary['held_out_loss']:.5f}",
        f"- calibration on {cal['positions']} held-out positions against the game's result: "
        f"network Brier {cal['net']['brier']} ECE {cal['net']['ece']} "
        f"({cal['net']['microseconds']} us per position), {CHECK_PLAYOUTS}-playout mean Brier "
        f"{p16['brier']} ECE {p16['ece']} ({p16['microseconds']} us)",
        "", "Files: `value_net.npz` (the network), `train.json` (every figure), `loss.png` "
        "(the loss curve).  See docs/training.md.", ""])


def train(out: str, games: int, data: DataParams, fit_params: FitParams, jobs: int = 1,
          backend: str = "local", address: str | None = None, install: bool = False,
          progress: Progress | None = None, command: str | None = None,
          install_path: Path | None = None, add_data: Sequence[str] = ()) -> dict[str, Any]:
    """Makes (or continues) one generation in ``out``; returns train.json's
    content.  ``add_data``: earlier generations' folders whose positions join
    the training rows (:func:`load_added`)."""
    check_arguments(games, data, fit_params, jobs, backend, address)
    progress = progress or Progress()
    command = command or "wildhorn-solve " + " ".join(shlex.quote(a) for a in sys.argv[1:])
    folder = Path(out)
    if len(set(map(str, add_data))) < len(add_data):
        raise ParameterError("--add-data: the same folder twice")
    added = [load_added(str(f), folder, data) for f in add_data]   # refused before anything
    with FolderLock(folder, LOCK, "training run"):
        check_folder(folder, data)
        gen_seconds = generate(folder, games, data, jobs, backend, address, progress)
        rows = load_data(folder, games, data)
        hold = np.isfinite(rows["check"])
        train_rows = {f: np.concatenate([v[~hold], *(a[f] for a, _ in added)])
                      for f, v in rows.items()}
        test_rows = {f: v[hold] for f, v in rows.items()}
        exact_labels = int(np.isfinite(train_rows["exact"]).sum()
                           + np.isfinite(test_rows["exact"]).sum())
        root_labels = int(np.isfinite(train_rows["root"]).sum()
                          + np.isfinite(test_rows["root"]).sum())
        added_info = [info for _, info in added]
        del rows, hold, added
        if not len(test_rows["x"]) or not len(train_rows["x"]):
            raise TrainError(f"--games {games}: too few games for a held-out split of "
                             f"{data.holdout}; play more games")
        y = target_of(train_rows, fit_params.target)
        hy = target_of(test_rows, fit_params.target)
        drop = dropped_columns(fit_params.drop)
        for rows_ in (train_rows, test_rows):       # both are this function's own copies
            rows_["x"][:, drop] = 0.0
        state = fit(folder, train_rows["x"], y, test_rows["x"], hy, fit_params, progress)
        weights, biases = state["best"]
        # the fit saw zeros there, so these weights never changed an output it
        # was scored on; zeroed, the network ignores the parts in play too
        weights = [weights[0].copy(), *weights[1:]]
        weights[0][drop, :] = 0.0
        best = state["best_epoch"]
        meta = {"command": command, "seed": data.seed, "games": games,
                "game": f"wildhorn(variant={data.variant})",
                "positions": int(len(y)), "held_out_positions": int(len(hy)),
                "data": asdict(data), "added_data": added_info, "target": fit_params.target,
                "hidden": list(fit_params.hidden), "l2": fit_params.l2, "epoch": best,
                **({"drop_features": list(fit_params.drop)} if fit_params.drop else {}),
                "train_loss": round(state["train"][best - 1], 6),
                "held_out_loss": round(state["held_out"][best - 1], 6)}
        net_path = folder / "value_net.npz"
        valuenet.write(net_path, weights, biases, output="clip", meta=meta,
                       variant=data.variant)
        net = valuenet.load(net_path)
        summary = {
            "command": command, "variant": data.variant, "games": games, "data": asdict(data),
            "fit": fit_summary(fit_params),
            "added_data": added_info,
            "positions": {"train": int(len(y)), "held_out": int(len(hy)),
                          "added": sum(a["positions"] for a in added_info),
                          "exact_labels": exact_labels, "root_labels": root_labels},
            "sizes": list(net.sizes), "sha256": net.sha256,
            "epochs_run": state["epoch"], "best_epoch": best,
            "train_loss": [round(v, 6) for v in state["train"]],
            "held_out_loss_curve": [round(v, 6) for v in state["held_out"]],
            "held_out_loss": round(state["held_out"][best - 1], 6),
            "held_out_label_noise": label_noise(test_rows, fit_params.target, data.playouts),
            "calibration": evaluate_net(net, test_rows),
            "timings": {"data_seconds_this_run": round(gen_seconds, 1),
                        "fit_seconds": round(state["seconds"], 1)},
        }
        plot_loss(folder / "loss.png", state, fit_params.target)
        write_atomic(folder / "train.json", json.dumps(summary, indent=1) + "\n")
        write_atomic(folder / "README.md", readme(folder, command, summary))
        if install:
            target = install_path or valuenet.default_path()
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(net_path, target)
            progress.note(f"installed as {target}")
    return summary


def report_lines(out: str, summary: dict[str, Any]) -> list[str]:
    """What the command prints at the end."""
    cal = summary["calibration"]
    p16 = cal[f"playouts_{CHECK_PLAYOUTS}"]
    return [f"{summary['games']} games, {summary['positions']['train']} training and "
            f"{summary['positions']['held_out']} held-out positions; held-out loss "
            f"{summary['held_out_loss']:.5f} (epoch {summary['best_epoch']})",
            f"calibration: network Brier {cal['net']['brier']} ECE {cal['net']['ece']} "
            f"({cal['net']['microseconds']} us/position); {CHECK_PLAYOUTS} playouts Brier "
            f"{p16['brier']} ECE {p16['ece']} ({p16['microseconds']} us/position)",
            f"network in {out}/value_net.npz; figures in {out}/train.json"]

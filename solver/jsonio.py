"""Strict, bounded JSON reading shared by the card-set, state-file and save loaders.

Every file the package reads from outside goes through :func:`read_bounded`
(a regular file of at most :data:`MAX_FILE_BYTES`, so ``/dev/zero``, a FIFO or
a huge file is refused before it is read), is parsed with :func:`loads`
(no NaN/Infinity, no number that overflows to infinity, repeated keys
remembered) and is then walked once by :func:`find_problem` (repeated keys,
arrays and objects larger than any file of the game has, nesting deeper than
any file has) before any other work is done on it.

Every file the package writes for a user (a save, an exported view, state
files, a tournament's summaries) goes through :func:`write_atomic`: a
temporary file in the same folder, every byte written (a short write is
an error), fsync'ed, then renamed, so a full disk or a crash leaves the old
file or none, never a partial one.
"""

from __future__ import annotations

import json
import math
import os
import stat
import tempfile
from typing import Any, Callable, NoReturn

from solver.errors import SerializationError

MAX_FILE_BYTES = 1_000_000
"""The largest file read (1 MB; real state files, card sets and saves are a few kB)."""

MAX_ITEMS = 64
"""The longest array in a state file or card set (a side has 23 cards, the game 46)."""

MAX_KEYS = 64
"""The most keys in one object of a state file or card set (the ``types`` of a card
set and the ``setup`` of a game have at most 46)."""

MAX_DEPTH = 16
"""The deepest nesting of arrays and objects (the files nest four levels)."""


class JsonObject(dict):  # type: ignore[type-arg]
    """A parsed JSON object that remembers its first repeated key, if any
    (plain ``json`` would silently keep the last value)."""

    duplicate: str | None = None


def pairs_hook(pairs: list[tuple[str, Any]]) -> JsonObject:
    """``object_pairs_hook`` for ``json.loads``: builds a JsonObject."""
    obj = JsonObject()
    for key, value in pairs:
        if key in obj and obj.duplicate is None:
            obj.duplicate = key
        obj[key] = value
    return obj


def _reject_constant(name: str) -> NoReturn:
    raise ValueError(f"{name} is not a JSON number")


def _finite_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"the number {text[:20]}{'...' * (len(text) > 20)} is out of range")
    return value


def loads(text: str) -> Any:
    """``json.loads`` with JsonObject objects; NaN, Infinity and numbers too
    large for a float raise ValueError (json.JSONDecodeError for bad syntax)."""
    try:
        return json.loads(text, object_pairs_hook=pairs_hook, parse_constant=_reject_constant,
                          parse_float=_finite_float)
    except json.JSONDecodeError:
        raise
    except ValueError as exc:
        if "integer string conversion" in str(exc):  # Python's limit on digits
            raise ValueError("a number has thousands of digits") from None
        raise


def _kind(mode: int) -> str:
    for test, name in ((stat.S_ISDIR, "a folder"), (stat.S_ISFIFO, "a pipe (FIFO)"),
                       (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
                       (stat.S_ISSOCK, "a socket")):
        if test(mode):
            return name
    return "not a regular file"


def size_problem(size: int, limit: int = MAX_FILE_BYTES) -> str | None:
    """Why a file of ``size`` bytes is refused when at most ``limit`` are
    read (None when it fits)."""
    if size > limit:
        return f"the file has {size} bytes, more than the {limit} read at most"
    return None


def read_bounded(path: str | os.PathLike, fail: Callable[[str], NoReturn],
                 limit: int = MAX_FILE_BYTES) -> bytes:
    """The bytes of the regular file ``path``, at most ``limit`` of them.

    Anything else calls ``fail(message)`` (which raises): a file that cannot
    be opened, a folder, FIFO, device or socket (opened without blocking and
    never read), or a file larger than ``limit`` (at most ``limit + 1`` bytes
    are read, so a file growing while it is read is caught too).
    """
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0)
    try:
        fd = os.open(path, flags)
    except OSError as exc:
        fail(f"cannot read the file: {exc.strerror or exc}")
    except ValueError:  # a NUL character in the path
        fail("cannot read the file: its name holds a NUL character")
    try:
        try:
            info = os.fstat(fd)
        except OSError as exc:
            fail(f"cannot read the file: {exc.strerror or exc}")
        if not stat.S_ISREG(info.st_mode):
            fail(f"cannot read the file: it is {_kind(info.st_mode)}, not a regular file")
        too_large = size_problem(info.st_size, limit)
        if too_large is not None:
            fail(too_large)
        chunks = []
        size = 0
        try:
            while size <= limit:
                chunk = os.read(fd, limit + 1 - size)
                if not chunk:
                    break
                chunks.append(chunk)
                size += len(chunk)
        except OSError as exc:
            fail(f"cannot read the file: {exc.strerror or exc}")
        if size > limit:
            fail(f"the file has more than the {limit} bytes read at most")
        return b"".join(chunks)
    finally:
        os.close(fd)


def read_text_bounded(source: Any, fail: Callable[[str], NoReturn],
                      limit: int = MAX_FILE_BYTES) -> str | bytes:
    """``source.read()`` of an open file, at most ``limit`` characters."""
    text = source.read(limit + 1)
    if isinstance(text, (str, bytes, bytearray)) and len(text) > limit:
        fail(f"the file has more than the {limit} characters read at most")
    return text


def find_problem(data: Any, max_items: int = MAX_ITEMS, max_keys: int = MAX_KEYS,
                 max_depth: int = MAX_DEPTH, duplicates: bool = True) -> tuple[list, str] | None:
    """The first (path parts, message) of a repeated key, an array longer than
    ``max_items``, an object with more than ``max_keys`` keys or nesting
    deeper than ``max_depth``, in document order; None if there is none.
    With ``duplicates`` False repeated keys are left to the caller.
    Iterative, so it costs one pass and never recurses."""
    stack: list[tuple[Any, list, int]] = [(data, [], 0)]
    while stack:
        node, parts, depth = stack.pop()
        if isinstance(node, dict):
            if duplicates and isinstance(node, JsonObject) and node.duplicate is not None:
                return parts + [node.duplicate], "duplicate key in the same object"
            if len(node) > max_keys:
                return parts, f"expected at most {max_keys} keys, got {len(node)}"
            children = list(node.items())
        elif isinstance(node, list):
            if len(node) > max_items:
                return parts, (f"expected at most {max_items} items (more than the game has "
                               f"cards), got {len(node)}")
            children = list(enumerate(node))
        else:
            continue
        if depth >= max_depth and children:
            return parts, f"nested more than {max_depth} levels deep"
        for key, child in reversed(children):
            stack.append((child, parts + [key], depth + 1))
    return None


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


_FILE_MODE = 0o666 & ~_umask()  # what open() would give a new file


def write_all(fd: int, data: bytes, path: str | os.PathLike) -> None:
    """Writes every byte of ``data`` to ``fd``; OSError (ENOSPC) naming
    ``path`` if the system takes none of what is left (a full disk)."""
    view = memoryview(data)
    while view:
        n = os.write(fd, view)
        if n <= 0:
            raise OSError(28, os.strerror(28), str(path))  # ENOSPC
        view = view[n:]


def write_atomic(path: str | os.PathLike, data: str | bytes, verb: str = "cannot write",
                 mode: int | None = None) -> None:
    """Writes ``data`` (text as UTF-8) to ``path`` atomically: a temporary
    file in the same folder, every byte written, fsync'ed, then renamed over
    ``path``.  If anything fails the temporary file is removed and ``path``
    is as it was; SerializationError ``<path>: <verb>: <why>`` (one line).
    ``mode``: the file's permissions (default: what ``open`` would give)."""
    raw = data.encode("utf-8") if isinstance(data, str) else bytes(data)
    where = os.fspath(path)
    folder = os.path.dirname(os.path.abspath(where))
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{os.path.basename(where)[:40]}.", suffix=".tmp",
                                   dir=folder)
    except OSError as err:
        raise SerializationError(f"{where}: {verb}: {err.strerror or err}") from None
    try:
        try:
            write_all(fd, raw, where)
            os.fchmod(fd, _FILE_MODE if mode is None else mode)
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(tmp, where)
    except BaseException as err:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        if isinstance(err, OSError):
            raise SerializationError(f"{where}: {verb}: {err.strerror or err}") from None
        raise

"""The engine protocol: a bot in another process (another build, an older
commit in its own venv, another program) plays through JSON lines on its
standard input and output, as chess engines speak UCI to cutechess-cli.
The contract is ``docs/engine-protocol.md``; both ends are here:

* the server, :func:`serve` (``wildhorn-solve engine --bot SPEC``): reads
  one JSON object per line, runs the bot, answers one JSON object per line;
* the client, :class:`EngineBot`: the tournament's bot for a spec
  ``cmd:COMMAND ARGS`` (:func:`is_external`), one engine process per game
  and seat, with a time limit on every answer.

What a player is sent is what that player may know (R25, R26): the game's
parameters, each event as the player sees it (:func:`event_for`: the
opponent's draws and secret redraw decision are masked, and the opponent's
declines in private reaction windows are not sent at all, R29), and, with each
request to act, the player's view of the position (``solver.state_io``
format ``wildhorn-state/1``, which never holds the opponent's hand or a
deck order) and the legal actions.

Messages (``type``), client to engine: ``hello``, ``new_game``,
``observe``, ``act``, ``end``, ``quit``; engine to client: ``hello``,
``ready``, ``action``, ``error``.
"""

from __future__ import annotations

import json
import math
import os
import selectors
import shlex
import subprocess
import tempfile
import time
from typing import IO, Any

import pyspiel

import solver  # noqa: F401  (registers the game)
from apps.gamebot import GameBot
from apps.record import DECLINE_TEXTS
from bots import BotSpec, check_for_players, parse_spec
from solver import Core, state_io
from solver.errors import ParameterError, WildhornError, describe_value, one_line
from solver.game import check_params
from solver.jsonio import loads
from solver.vocabulary import PRIVATE_WINDOWS, SIDES

PROTOCOL = 1
EXTERNAL_PREFIX = "cmd:"
START_TIMEOUT = 60.0     # seconds for an engine to answer hello and new_game
MOVE_TIMEOUT = 600.0     # seconds for an engine to answer a request to act
LINE_LIMIT = 1 << 20     # bytes of one message


class EngineError(WildhornError):
    """An external engine died, timed out or answered out of protocol."""


# ---- what a player sees ------------------------------------------------------------

def event_for(state: Any, action: int, player: int) -> dict[str, Any] | None:
    """The event ``action`` applied at ``state`` as ``player`` sees it: who
    acted (a side or ``chance``), the kind of chance event, and the action
    id and its text, or ``"action": null`` when it is hidden from
    ``player`` (the opponent's draws, the opponent's secret redraw choice).
    None when ``player`` observes nothing at all: the opponent's decline in
    a private reaction window (Escort, Ambush!, Witnesses, Nurses,
    Motorcycle; R29), where even a hidden event would tell that the window
    opened, which it does only for a side holding such a card."""
    core = state.core
    if state.is_chance_node():
        event = {"by": "chance", "kind": core.phase}
        if core.phase == "draw":
            side = core.draw_info()["side"]
            event["side"] = SIDES[side]
            if side != player:
                return {**event, "action": None}
        return {**event, "action": action, "text": core.action_string(-1, action)}
    actor = state.current_player()
    event = {"by": SIDES[actor], "kind": core.phase}
    if core.phase == "redraw" and actor != player:
        return {**event, "action": None}
    text = core.action_string(actor, action)
    if actor != player and core.phase in PRIVATE_WINDOWS and text in DECLINE_TEXTS:
        return None
    return {**event, "action": action, "text": text}


def with_moves(core: Core, moves: Any) -> Core:
    """``core`` (a position read from a state file, which does not say how
    far the game has gone) with ``moves``, the count of decisions and
    chance events the rules have applied so far (``Core.moves``, the
    automatic ones of R29/R30 included, so it tells nothing hidden), as the
    ``act`` message gives it; unchanged when the message gives none (an
    older client).  The value network reads it."""
    if moves is None:
        return core
    most = core.config.max_moves
    if isinstance(moves, bool) or not isinstance(moves, int) or not 0 <= moves <= most:
        raise ParameterError(f"act.moves: expected the count of moves so far (0 to {most}), got "
                             f"{describe_value(moves)}")
    fields = core.fields()
    fields["moves"] = moves
    return Core.from_fields(core.config, fields)


# ---- the server -------------------------------------------------------------------

def _send(out: IO[str], message: dict[str, Any]) -> None:
    out.write(json.dumps(message, separators=(",", ":")) + "\n")
    out.flush()


class _Server:
    """One engine: the bot spec and the game in progress."""

    def __init__(self, spec: str):
        name, _ = parse_spec(spec)             # a bad spec fails before any message
        check_for_players(name)                # the protocol's player sees no hidden card
        self.spec = spec
        self.bot: Any = None
        self.player = 0
        self.seed = 0
        self.moves = 0

    def handle(self, msg: dict[str, Any]) -> dict[str, Any] | None:
        kind = msg.get("type")
        if kind == "hello":
            return {"type": "hello", "protocol": PROTOCOL,
                    "engine": f"wildhorn-solve {solver.__version__}", "bot": self.spec}
        if kind == "new_game":
            return self.new_game(msg)
        if kind == "act":
            return self.act(msg)
        if kind in ("observe", "end"):
            if kind == "end":
                self.end_game()
            return None
        raise ParameterError(f"type: expected hello, new_game, observe, act, end or quit, "
                             f"got {describe_value(kind)}")

    def new_game(self, msg: dict[str, Any]) -> dict[str, Any]:
        params = msg.get("game", {})
        if not isinstance(params, dict):
            raise ParameterError(f"new_game.game: expected an object, got {describe_value(params)}")
        player = msg.get("player")
        if isinstance(player, bool) or player not in (0, 1):   # true is not German
            raise ParameterError(f"new_game.player: expected 0 (polish) or 1 (german), got "
                                 f"{describe_value(player)}")
        seed = msg.get("seed", 0)
        if isinstance(seed, bool) or not isinstance(seed, int):
            raise ParameterError(f"new_game.seed: expected an integer, got {describe_value(seed)}")
        check_params(params)
        self.game = pyspiel.load_game("wildhorn", params)
        self.player, self.seed, self.moves = player, seed, 0
        self.end_game()
        self.bot = GameBot(params, BotSpec.parse(self.spec), player, seed, interactive=False)
        return {"type": "ready"}

    def end_game(self) -> None:
        """The game's bot gives back what it holds (the game ended or a new one began)."""
        if self.bot is not None:
            self.bot.close()
            self.bot = None

    def act(self, msg: dict[str, Any]) -> dict[str, Any]:
        if self.bot is None:
            raise ParameterError("act: no game in progress (send new_game first)")
        legal = msg.get("legal")
        if not isinstance(legal, list) or not legal or \
                any(isinstance(a, bool) or not isinstance(a, int) for a in legal):
            raise ParameterError(f"act.legal: expected a list of action ids, got "
                                 f"{describe_value(legal)}")
        # the hidden cards of the position are a seeded draw consistent with the view
        state = state_io.from_json(msg.get("state"), seed=self.seed + self.moves)
        self.moves += 1
        if state.current_player() != self.player:
            raise ParameterError(f"act.state: {SIDES[self.player]} is not to move")
        if sorted(state.legal_actions()) != sorted(legal):
            raise ParameterError("act.legal: not the legal actions of act.state")
        result = self.bot.decide(with_moves(state.core, msg.get("moves")))
        return {"type": "action", "action": result["action"], "value": result["value"]}


def _message(line: str, number: int) -> dict[str, Any]:
    """Input line ``number`` as a JSON object (strict numbers: no NaN or
    Infinity); a line that is not JSON, or nested thousands deep, is
    refused in one line naming the line, never recursed into until the
    stack runs out."""
    try:
        msg = loads(line)
    except json.JSONDecodeError as err:
        raise ParameterError(f"input line {number}: not JSON ({err.msg.lower()} at "
                             f"character {err.pos + 1}); send one JSON object a line") from None
    except RecursionError:
        raise ParameterError(f"input line {number}: not a message (nested too "
                             f"deeply)") from None
    except ValueError as err:
        raise ParameterError(f"input line {number}: {one_line(str(err))[:80]}") from None
    if not isinstance(msg, dict):
        raise ParameterError(f"input line {number}: expected a JSON object, got "
                             f"{describe_value(msg)}")
    return msg


def serve(spec: str, inp: IO[str], out: IO[str]) -> int:
    """Run the engine protocol on ``inp``/``out`` until ``quit`` or the end
    of input.  A message the engine cannot use gets ``{"type": "error",
    "message": ...}`` (one line) and the engine waits for the next."""
    server = _Server(spec)
    for number, line in enumerate(inp, 1):
        if not line.strip():
            continue
        try:
            msg = _message(line, number)
            if msg.get("type") == "quit":
                return 0
            reply = server.handle(msg)
        except ValueError as err:                # WildhornError and JSON errors
            reply = {"type": "error", "message": one_line(str(err))}
        except RecursionError:                   # a structure nested past Python's stack
            reply = {"type": "error", "message": "a value nested too deeply to read"}
        if reply is not None:
            _send(out, reply)
    return 0


# ---- the client -------------------------------------------------------------------

def is_external(spec: str) -> bool:
    return spec.startswith(EXTERNAL_PREFIX)


def external_command(spec: str) -> list[str]:
    """The command line of a ``cmd:COMMAND ARGS`` spec (split as a shell would)."""
    try:
        words = shlex.split(spec[len(EXTERNAL_PREFIX):])
    except ValueError as err:
        raise ParameterError(f"bot {spec!r}: cannot split the command: {err}") from None
    if not words:
        raise ParameterError(f"bot {spec!r}: expected a command after {EXTERNAL_PREFIX}")
    return words


def _probabilities(value: Any) -> bool:
    """``value`` is [p_polish, p_german], two finite numbers in [0, 1]."""
    return (isinstance(value, list) and len(value) == 2
            and all(isinstance(v, (int, float)) and not isinstance(v, bool)
                    and math.isfinite(v) and 0.0 <= v <= 1.0 for v in value))


class EngineBot:
    """A seat played by an engine process (``cmd:COMMAND ARGS``).  The engine
    is started at once and told the game; :meth:`analyse` sends the events
    since the last request, as this seat sees them, then the request to act;
    :meth:`close` sends the rest, the end of the game and ``quit``."""

    def __init__(self, spec: str, player: int, seed: int, game: Any,
                 move_timeout: float = MOVE_TIMEOUT, start_timeout: float = START_TIMEOUT):
        self.spec, self.player, self.move_timeout = spec, player, move_timeout
        self.command = external_command(spec)
        self.name = one_line(self.command[0])[:80]
        self.stderr = tempfile.TemporaryFile()
        try:
            self.proc = subprocess.Popen(self.command, stdin=subprocess.PIPE,
                                         stdout=subprocess.PIPE, stderr=self.stderr)
        except OSError as err:
            self.stderr.close()
            raise EngineError(f"engine {self.name}: cannot start: {err.strerror or err}") from None
        self.buffer = b""
        self.shadow = game.new_initial_state()     # the game as far as it was told
        self.told = 0
        self.request({"type": "hello", "protocol": PROTOCOL}, "hello", start_timeout)
        self.request({"type": "new_game", "game": dict(game.get_parameters()),
                      "player": player, "seed": int(seed)}, "ready", start_timeout)

    # ---- the wire ------------------------------------------------------------------

    def send(self, message: dict[str, Any]) -> None:
        try:
            self.proc.stdin.write((json.dumps(message, separators=(",", ":")) + "\n").encode())
            self.proc.stdin.flush()
        except (BrokenPipeError, OSError):
            raise self.died("stopped reading its input") from None

    def died(self, what: str) -> EngineError:
        code = self.proc.poll()
        self.stderr.seek(0)
        lines = [ln for ln in self.stderr.read().decode(errors="replace").splitlines()
                 if ln.strip()]
        last = f"; its last error line: {one_line(lines[-1])[:200]}" if lines else ""
        status = f" (exit status {code})" if code is not None else ""
        return EngineError(f"engine {self.name}{status}: {what}{last}")

    def readline(self, timeout: float) -> bytes:
        deadline = time.monotonic() + timeout
        fd = self.proc.stdout.fileno()
        with selectors.DefaultSelector() as sel:
            sel.register(fd, selectors.EVENT_READ)
            while b"\n" not in self.buffer:
                left = deadline - time.monotonic()
                if left <= 0 or not sel.select(left):
                    raise self.died(f"no answer within {timeout:g} s")
                chunk = os.read(fd, 65536)
                if not chunk:
                    raise self.died("exited" if self.proc.wait(1) is not None else
                                    "closed its output")
                self.buffer += chunk
                if len(self.buffer) > LINE_LIMIT:
                    raise self.died(f"sent a line of more than {LINE_LIMIT} bytes")
        line, _, self.buffer = self.buffer.partition(b"\n")
        return line

    def request(self, message: dict[str, Any], expect: str, timeout: float) -> dict[str, Any]:
        self.send(message)
        raw = self.readline(timeout)
        try:
            reply = json.loads(raw)
        except RecursionError:
            raise self.died(f"answered {message['type']} with a line nested too deeply to "
                            f"read") from None
        except ValueError:
            raise self.died(f"answered {message['type']} with a line that is not JSON: "
                            f"{one_line(raw.decode(errors='replace'))[:80]!r}") from None
        if not isinstance(reply, dict) or reply.get("type") != expect:
            if isinstance(reply, dict) and reply.get("type") == "error":
                raise self.died(f"refused {message['type']}: "
                                f"{one_line(str(reply.get('message')))[:200]}")
            raise self.died(f"answered {message['type']} with {one_line(raw.decode())[:80]!r}, "
                            f"expected a {expect!r} message")
        return reply

    # ---- the game ------------------------------------------------------------------

    def catch_up(self, state: Any) -> None:
        """Send the events of ``state``'s history not yet told, as this seat sees them."""
        history = state.history()
        for action in history[self.told:]:
            event = event_for(self.shadow, action, self.player)
            if event is not None:       # None: nothing this seat observes (R29)
                self.send({"type": "observe", "event": event})
            self.shadow.apply_action(action)
        self.told = len(history)

    def analyse(self, state: Any) -> dict[str, Any]:
        self.catch_up(state)
        legal = state.legal_actions()
        reply = self.request({"type": "act", "state": state_io.to_json(state, self.player),
                              "legal": legal, "moves": state.core.moves}, "action",
                             self.move_timeout)
        action = reply.get("action")
        if isinstance(action, bool) or not isinstance(action, int) or action not in legal:
            raise self.died(f"chose {describe_value(action)}, not a legal action "
                            f"(legal: {legal[:12]}{'...' if len(legal) > 12 else ''})")
        value = reply.get("value")
        if value is not None and not _probabilities(value):
            # refused here, when received: a NaN or 1e308 kept in values.csv
            # would break the calibration of every later report of the folder
            raise self.died(f"answered act with value {one_line(json.dumps(value))[:80]}: "
                            f"expected null or [p_polish, p_german], each a probability in "
                            f"[0, 1]")
        return {"action": action, "policy": None,
                "value": None if value is None else [float(v) for v in value]}

    def step(self, state: Any) -> int:
        return self.analyse(state)["action"]

    def close(self, state: Any = None) -> None:
        """Tell the end of the game (when ``state`` is its last position) and
        stop the engine (killed if it does not quit within a few seconds)."""
        try:
            if state is not None and self.proc.poll() is None:
                self.catch_up(state)
                self.send({"type": "end", "returns": list(state.returns())})
            if self.proc.poll() is None:
                self.send({"type": "quit"})
        except EngineError:
            pass
        finally:
            try:
                self.proc.stdin.close()
            except OSError:
                pass
            try:
                self.proc.wait(5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
            self.proc.stdout.close()
            self.stderr.close()

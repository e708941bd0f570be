"""The engine protocol's engine side for a build that predates it.

``wildhorn-solve engine`` (apps/engine.py) exists from the build that added
the protocol on; an older build, installed in its own virtual environment,
plays a tournament through this script run by that environment's Python:

    python -m venv /old/venv && /old/venv/bin/pip install /path/to/old/checkout
    wildhorn-solve tournament --out runs/old-vs-new \
        --bot "cmd:/old/venv/bin/python scripts/legacy_engine.py --bot ismcts:time=1" \
        --bot "ismcts:time=1" --games 200

It uses only what every build with state files has (``solver.state_io.
from_json``, ``bots.make_bot``, the bots' ``analyse``), imports nothing of
this checkout (the old build's packages come from its venv), and answers as
``apps/engine.py``'s server does (docs/engine-protocol.md): a seeded
position consistent with the view at each request, the bot's action and
value.  ``--interactive`` gives the bot the interactive defaults of that
build (``make_bot(..., interactive=True)``, e.g. its threads), when the
build has them.  ``tests/test_engine.py`` plays it against the built-in
bots of this build.
"""

from __future__ import annotations

import argparse
import inspect
import json
import sys

PROTOCOL = 1


def _bot_maker(interactive: bool):
    from bots import make_bot
    if interactive and "interactive" in inspect.signature(make_bot).parameters:
        return lambda spec, player, seed: make_bot(spec, player, seed, interactive=True)
    return make_bot


class LegacyEngine:
    """One engine: the bot spec and the game in progress."""

    def __init__(self, spec: str, interactive: bool):
        import solver  # noqa: F401  (registers the game)
        from bots import parse_spec
        parse_spec(spec)
        self.spec, self.make = spec, _bot_maker(interactive)
        self.bot, self.player, self.seed, self.moves = None, 0, 0, 0

    def handle(self, msg: dict) -> dict | None:
        kind = msg.get("type")
        if kind == "hello":
            import solver
            return {"type": "hello", "protocol": PROTOCOL,
                    "engine": f"wildhorn-solve {getattr(solver, '__version__', '?')} (legacy)",
                    "bot": self.spec}
        if kind == "new_game":
            player, seed = msg.get("player"), msg.get("seed", 0)
            if player not in (0, 1) or isinstance(seed, bool) or not isinstance(seed, int):
                raise ValueError("new_game: expected player 0 or 1 and an integer seed")
            if msg.get("game", {}) != {}:
                import pyspiel
                pyspiel.load_game("wildhorn", msg["game"])     # refuses what the build lacks
            self.player, self.seed, self.moves = player, seed, 0
            self.bot = self.make(self.spec, player, seed)
            return {"type": "ready"}
        if kind == "act":
            from solver import state_io
            if self.bot is None:
                raise ValueError("act: no game in progress (send new_game first)")
            state = state_io.from_json(msg.get("state"), seed=self.seed + self.moves)
            self.moves += 1
            if sorted(state.legal_actions()) != sorted(msg.get("legal") or []):
                raise ValueError("act.legal: not the legal actions of act.state")
            result = self.bot.analyse(state)
            value = result.get("value")
            return {"type": "action", "action": int(result["action"]),
                    "value": None if value is None else [float(v) for v in value]}
        if kind in ("observe", "end"):
            return None
        raise ValueError(f"type: expected hello, new_game, observe, act, end or quit, got {kind!r}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--bot", required=True, help="the bot spec, in that build's registry")
    parser.add_argument("--interactive", action="store_true",
                        help="the interactive defaults of that build (play, advise, serve)")
    args = parser.parse_args(argv)
    try:
        engine = LegacyEngine(args.bot, args.interactive)
    except ValueError as err:
        print(f"error: --bot: {' '.join(str(err).split())}", file=sys.stderr)
        return 2
    for line in sys.stdin:
        if not line.strip():
            continue
        try:
            msg = json.loads(line)
            if not isinstance(msg, dict):
                raise ValueError("expected a JSON object")
            if msg.get("type") == "quit":
                return 0
            reply = engine.handle(msg)
        except ValueError as err:
            reply = {"type": "error", "message": " ".join(str(err).split())}
        if reply is not None:
            sys.stdout.write(json.dumps(reply, separators=(",", ":")) + "\n")
            sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())

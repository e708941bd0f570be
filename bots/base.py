"""The bot interface, spec strings, and the random and ISMCTS bots."""

from __future__ import annotations

import random
from typing import Any

import pyspiel

from solver._core import Core
from solver.errors import ParameterError


class BotSpecError(ParameterError):
    """A bot spec string names an unknown bot or a bad option."""


def _core_of(state: Any) -> Core:
    return state.core if hasattr(state, "core") else state


class Bot(pyspiel.Bot):
    """A bot for one seat.  ``step(state)`` returns an action for a pyspiel
    WildhornState (or a core position); ``analyse(state)`` returns the
    recommended action with whatever statistics the bot has (``None`` values
    where it has none): ``{"action", "policy": {action: probability},
    "value": [polish, german] win probabilities or None, ...}``."""

    name = "bot"

    def __init__(self, player: int, seed: int = 0):
        pyspiel.Bot.__init__(self)
        self.player = player
        self.seed = seed

    def analyse(self, state: Any) -> dict[str, Any]:
        raise NotImplementedError

    def step(self, state: Any) -> int:
        return self.analyse(state)["action"]

    def restart_at(self, state: Any) -> None:
        pass

    def inform_action(self, state: Any, player_id: int, action: int) -> None:
        pass

    def provides_policy(self) -> bool:
        return True

    def step_with_policy(self, state: Any):
        result = self.analyse(state)
        return list(result["policy"].items()), result["action"]


class RandomBot(Bot):
    """Uniform over the legal actions."""

    name = "random"

    def __init__(self, player: int, seed: int = 0):
        super().__init__(player, seed)
        self._rng = random.Random(seed)

    def analyse(self, state: Any) -> dict[str, Any]:
        legal = _core_of(state).legal_actions()
        action = self._rng.choice(legal)
        return {"action": action, "policy": {a: 1 / len(legal) for a in legal}, "value": None}


class ISMCTSBot(Bot):
    """Information-set MCTS (see bots._ismcts) with a time or iteration budget."""

    name = "ismcts"

    def __init__(self, player: int, seed: int = 0, time: float | None = None,
                 iterations: int | None = None, c: float = 1.4, rollout: str = "informed",
                 nodes: int = 1_000_000):
        super().__init__(player, seed)
        from bots._ismcts import ISMCTS
        if iterations is None and time is None:
            time = 1.0
        self.time = time or 0.0
        self.iterations = iterations or 0
        self.search_engine = ISMCTS(uct_c=c, max_nodes=nodes, rollout=rollout, seed=seed)
        self.last_stats: dict[str, Any] | None = None

    def analyse(self, state: Any) -> dict[str, Any]:
        core = _core_of(state)
        legal = core.legal_actions()
        if len(legal) == 1:
            return {"action": legal[0], "policy": {legal[0]: 1.0}, "value": None}
        stats = self.search_engine.search(core, iterations=self.iterations,
                                          time_limit=self.time)
        self.last_stats = stats
        best = max(stats["actions"], key=lambda a: (a["visits"], a["value"]))
        return {"action": best["action"],
                "policy": {a["action"]: a["frequency"] for a in stats["actions"]},
                "value": stats["value"], "value_ci95": stats["value_ci95"], "stats": stats}


_OPTIONS = {
    "ismcts": {"time": float, "iterations": int, "c": float, "rollout": str, "nodes": int},
    "random": {},
    "heuristic": {},
}


def parse_spec(spec: str) -> tuple[str, dict[str, Any]]:
    """``"ismcts:time=1.0,c=1.4"`` -> ``("ismcts", {"time": 1.0, "c": 1.4})``."""
    name, _, rest = spec.strip().partition(":")
    if name not in _OPTIONS:
        raise BotSpecError(f"bot spec {spec!r}: unknown bot {name!r} "
                           f"(known: {', '.join(sorted(_OPTIONS))})")
    options: dict[str, Any] = {}
    for item in filter(None, (x.strip() for x in rest.split(","))):
        key, sep, value = item.partition("=")
        if not sep or key not in _OPTIONS[name]:
            known = ", ".join(_OPTIONS[name]) or "none"
            raise BotSpecError(f"bot spec {spec!r}: unknown option {item!r} (options: {known})")
        try:
            options[key] = _OPTIONS[name][key](value)
        except ValueError:
            raise BotSpecError(f"bot spec {spec!r}: {key} expects "
                               f"{_OPTIONS[name][key].__name__}, got {value!r}") from None
    if name == "ismcts":
        if options.get("rollout", "informed") not in ("informed", "random"):
            raise BotSpecError(f"bot spec {spec!r}: rollout is informed or random")
        for key in ("time", "iterations", "c", "nodes"):
            if key in options and options[key] <= 0:
                raise BotSpecError(f"bot spec {spec!r}: {key} must be positive")
    return name, options


def make_bot(spec: str, player: int, seed: int = 0) -> Bot:
    """The bot a spec string names, for ``player``, with ``seed``."""
    name, options = parse_spec(spec)
    if name == "random":
        return RandomBot(player, seed)
    if name == "heuristic":
        from bots.heuristic import HeuristicBot
        return HeuristicBot(player, seed)
    return ISMCTSBot(player, seed, **options)

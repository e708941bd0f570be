"""Bot spec strings: the options of every bot, parsed and checked, and the
bot a spec names (:func:`parse_spec`, :func:`make_bot`)."""

from __future__ import annotations

from typing import Any

from bots.base import BotSpecError, ISMCTSBot, OOSBot, OpenSpielISMCTSBot, RandomBot, Bot
from bots.heuristic import HeuristicBot


def _flag(value: str) -> bool:
    """A yes/no option value: 1, yes, true / 0, no, false."""
    lowered = value.strip().lower()
    if lowered in ("1", "yes", "true"):
        return True
    if lowered in ("0", "no", "false"):
        return False
    raise ValueError(value)


_flag.__name__ = "yes or no"

ISMCTS_ROLLOUTS = ("informed", "random", "heuristic", "heuristic-pure")

_OPTIONS = {
    "ismcts": {"time": float, "iterations": int, "c": float, "rollout": str, "nodes": int,
               "prior": float},
    "oos": {"time": float, "iterations": int, "epsilon": float, "nodes": int, "rollout": str,
            "threshold": float, "weighting": str, "regret": str, "baseline": str,
            "prior": float, "reuse": _flag},
    "openspiel-ismcts": {"sims": int, "time": float, "c": float},
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
    if name == "openspiel-ismcts":
        for key in ("time", "c"):
            if key in options and options[key] <= 0:
                raise BotSpecError(f"bot spec {spec!r}: {key} must be positive")
        if "sims" in options and options["sims"] < 2:
            raise BotSpecError(f"bot spec {spec!r}: sims must be at least 2 (the first "
                               f"simulation only expands the root)")
        if "sims" in options and "time" in options:
            raise BotSpecError(f"bot spec {spec!r}: give sims or time, not both")
    if not options.get("prior", 0.0) >= 0:     # ismcts and oos
        raise BotSpecError(f"bot spec {spec!r}: prior must be at least 0")
    if name == "ismcts":
        if options.get("rollout", "heuristic") not in ISMCTS_ROLLOUTS:
            raise BotSpecError(f"bot spec {spec!r}: rollout is {', '.join(ISMCTS_ROLLOUTS)}")
        for key in ("time", "iterations", "c", "nodes"):
            if key in options and options[key] <= 0:
                raise BotSpecError(f"bot spec {spec!r}: {key} must be positive")
    if name == "oos":
        for key, allowed in (("rollout", ISMCTS_ROLLOUTS),
                             ("weighting", ("uniform", "linear")), ("regret", ("rm", "rm+")),
                             ("baseline", ("mean", "none"))):
            if key in options and options[key] not in allowed:
                raise BotSpecError(f"bot spec {spec!r}: {key} is {' or '.join(allowed)}")
        for key in ("time", "iterations", "nodes"):
            if key in options and not options[key] > 0:
                raise BotSpecError(f"bot spec {spec!r}: {key} must be positive")
        if not 0 < options.get("epsilon", 0.3) <= 1:
            raise BotSpecError(f"bot spec {spec!r}: epsilon must be in (0, 1]")
        if not 0 <= options.get("threshold", 0.2) < 1:
            raise BotSpecError(f"bot spec {spec!r}: threshold must be in [0, 1)")
    return name, options


def make_bot(spec: str, player: int, seed: int = 0) -> Bot:
    """The bot a spec string names, for ``player``, with ``seed``."""
    name, options = parse_spec(spec)
    if name == "random":
        return RandomBot(player, seed)
    if name == "heuristic":
        return HeuristicBot(player, seed)
    if name == "openspiel-ismcts":
        return OpenSpielISMCTSBot(player, seed, **options)
    return SEARCH_BOTS[name](player, seed, **options)


SEARCH_BOTS = {"ismcts": ISMCTSBot, "oos": OOSBot}  # bots with a time or iteration budget

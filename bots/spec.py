"""A bot spec as a value: parsed once where it enters (a command line, an
HTTP request, a save file), then passed on frozen and typed.

    spec = BotSpec.parse("ismcts:time=1.0")     # BotSpecError if bad
    spec.name, spec.get("time")                 # "ismcts", 1.0
    spec.capped(caps).with_threads(2)           # new values; spec is unchanged
    str(spec)                                   # "ismcts:time=1.0" (canonical text)
    spec.make(player, seed, interactive=True)   # the bot

The text of a spec is what a person chose: a machine-dependent setting (the
search threads a server gives every search) is added with
:meth:`with_threads` where the bot is built, and never written into a save.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from bots import valuenet
from bots.base import Bot
from bots.registry import (BOTS, SEARCH_BOTS, bot_from_options, check_for_players, default_of,
                           engine_options, parse_spec)
from solver.errors import BotSpecError

__all__ = ["BotSpec", "Caps", "SEARCHING", "DEFAULT_SEARCH_TIME"]

SEARCHING = (*SEARCH_BOTS, "openspiel-ismcts")
"""Bots that search, with a budget of time or iterations (or simulations)."""
DEFAULT_SEARCH_TIME = 1.0
"""Seconds per move of a search bot whose spec names no budget (as its help says)."""
DEFAULT_SIMULATIONS = 300
"""OpenSpiel's ISMCTS's simulations when its spec names neither sims nor time."""


class Caps(Protocol):
    """What a host allows one search (the web server's ``Limits``)."""

    max_time: float
    max_iterations: int
    max_nodes: int
    max_threads: int


@dataclass(frozen=True)
class BotSpec:
    """A checked bot spec: the bot's name and the options the spec gives
    (not the defaults), in the registry's order."""

    name: str
    options: tuple[tuple[str, Any], ...] = ()

    @classmethod
    def parse(cls, text: Any) -> "BotSpec":
        """The spec ``text`` names (BotSpecError with a one-line message if bad)."""
        if not isinstance(text, str):
            raise BotSpecError(f"expected a bot spec (text such as \"ismcts:time=1.0\"), got "
                               f"{type(text).__name__}")
        name, options = parse_spec(text)
        return cls._of(name, options)

    @classmethod
    def _of(cls, name: str, options: dict[str, Any]) -> "BotSpec":
        order = [o.name for o in BOTS[name].options]
        return cls(name, tuple(sorted(options.items(), key=lambda kv: order.index(kv[0]))))

    def __str__(self) -> str:
        return self.name + (":" + ",".join(f"{k}={_text(v)}" for k, v in self.options)
                            if self.options else "")

    @property
    def text(self) -> str:
        return str(self)

    def as_dict(self) -> dict[str, Any]:
        """The options the spec gives, as a new dict."""
        return dict(self.options)

    def get(self, option: str, default: Any = None) -> Any:
        return self.as_dict().get(option, default)

    @property
    def searches(self) -> bool:
        """True for a bot that searches with a budget (run it off the event loop)."""
        return self.name in SEARCHING

    def replace(self, **changes: Any) -> "BotSpec":
        """This spec with options set (a value of None removes the option),
        checked again as a spec (BotSpecError if the result is not valid)."""
        options = self.as_dict()
        for key, value in changes.items():
            if value is None:
                options.pop(key, None)
            else:
                options[key] = value
        text = str(BotSpec._of(self.name, {}) if not options else
                   BotSpec(self.name, tuple(options.items())))
        return BotSpec.parse(text)

    def network(self) -> Path | None:
        """The value-network file this bot values its leaves with outside
        the interactive applications (a tournament's, a bench's): its ``net``
        file, else the packaged one, when its ``eval`` (given, or the
        default) uses a network; None for a bot that uses none."""
        option = BOTS[self.name].option("eval")
        if option is None or self.get("eval", default_of(option)) == "playout":
            return None
        net = self.get("net")
        return Path(net) if net is not None else valuenet.default_path()

    def with_threads(self, threads: int) -> "BotSpec":
        """This spec searching on ``threads`` threads (a search bot of this
        project; other bots are returned as they are)."""
        if self.name not in SEARCH_BOTS:
            return self
        return self.replace(threads=threads)

    def without_threads(self) -> "BotSpec":
        """This spec without a thread count (what a save keeps)."""
        return self.replace(threads=None) if self.get("threads") is not None else self

    def with_time(self, seconds: float) -> "BotSpec":
        """This search bot with ``seconds`` per move instead of its budget."""
        if not self.searches:
            raise BotSpecError(f"the bot {self.name!r} does not search, it has no time per move")
        return self.replace(iterations=None, sims=None, time=seconds)

    def capped(self, caps: Caps) -> "BotSpec":
        """This spec within what ``caps`` allows, bounded before it runs: a
        search in time and in iterations (or simulations) both, whichever
        ends first (a budget of iterations alone gets the time cap too, a
        budget of time alone keeps its time), its node cap and its threads; a
        search bot without a budget gets its default time.  A value network
        comes only from the package: a ``net`` file is refused, and so is a
        network ``eval`` when the packaged network is missing."""
        check_for_players(self.name)
        options = self.as_dict()
        if "net" in options:
            raise BotSpecError(f"bot spec {str(self)[:60]!r}: net: this host takes no file "
                               "paths; leave net out to use the packaged value network")
        if options.get("eval", "playout") != "playout" and not valuenet.default_path().is_file():
            raise BotSpecError(f"bot spec {str(self)[:60]!r}: eval={options['eval']} needs the "
                               "packaged value network, which is missing "
                               "(bots/data/value_net.npz)")
        if self.name in SEARCH_BOTS:
            if "time" not in options and "iterations" not in options:
                options["time"] = DEFAULT_SEARCH_TIME
            options["nodes"] = min(int(options.get("nodes", _default(self.name, "nodes"))),
                                   caps.max_nodes)
            options["threads"] = min(int(options.get("threads", caps.max_threads)),
                                     caps.max_threads)
            if "iterations" in options:
                options["iterations"] = min(int(options["iterations"]), caps.max_iterations)
                options.setdefault("time", caps.max_time)
        elif self.name == "openspiel-ismcts":
            if "sims" in options or "time" not in options:
                options["sims"] = min(int(options.get("sims", DEFAULT_SIMULATIONS)),
                                      caps.max_iterations)
                options.setdefault("time", caps.max_time)
        if "time" in options:
            options["time"] = min(float(options["time"]), caps.max_time)
        return BotSpec.parse(str(BotSpec._of(self.name, options)))

    def engine_options(self, interactive: bool = False) -> dict[str, Any]:
        """The keyword arguments of its Cython searcher (a search bot)."""
        return engine_options(self.name, self.as_dict(), interactive)

    def make(self, player: int, seed: int = 0, interactive: bool = False) -> Bot:
        """The bot, for ``player`` with ``seed`` (``interactive``: the defaults
        of play, advise and serve)."""
        return bot_from_options(self.name, self.as_dict(), player, seed, interactive)


def _default(name: str, option: str) -> Any:
    entry = BOTS[name].option(option)
    assert entry is not None, f"{name} has no option {option}"
    return entry.default


def _text(value: Any) -> str:
    if isinstance(value, bool):
        return "yes" if value else "no"
    return str(value)

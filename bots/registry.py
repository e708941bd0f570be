"""The bots and their options: one table, from which everything else is driven.

Each bot is declared once, as a :class:`BotEntry` in :data:`BOTS`: its
class, a line of help, and its options, each an :class:`Option` (name, kind,
default, allowed range, one-line help, and for a search bot the keyword of
its Cython searcher).  From that table come

* :func:`parse_spec`: ``"ismcts:time=1.0,c=1.4"`` -> ``("ismcts", {"time":
  1.0, "c": 1.4})``, every value checked, with a one-line
  :class:`~solver.errors.BotSpecError` naming the spec, the option and the
  allowed range;
* :func:`make_bot`: the bot a spec names, its options completed with the
  defaults (a bot built from a spec gets every value from here; the Cython
  searchers' own keyword defaults serve only code that builds a searcher
  directly, the tests and benchmarks);
* :func:`spec_help`: the text that documents the spec strings, printed by
  ``wildhorn-solve bots`` and copied into docs/bots.md (a test checks the copy).

A default that depends on where the bot plays is declared once too, in
:data:`INTERACTIVE_DEFAULTS`: the interactive applications (play, advise,
the browser server) build their bots with ``interactive=True`` and get it;
tournaments, benches and scripts get the table's default.

Adding an option is one entry in the table (plus the code that uses it).
"""

from __future__ import annotations

import math
import os
import textwrap
from dataclasses import dataclass, field, replace
from typing import Any, Callable

from bots.base import (CLOCK_MODES, DECIDED_RULES, ENDGAME_MODES, Bot, ISMCTSBot, OOSBot, OpenSpielISMCTSBot,
                       OracleISMCTSBot, RandomBot)
from bots._inference import INFERENCE as INFERENCE_SETTINGS
from bots.heuristic import HeuristicBot
from solver.errors import BotSpecError

__all__ = ["BOTS", "BotEntry", "DEFAULT_SPEC", "Option", "SEARCH_BOTS", "bot_from_options", "check_for_players",
           "make_bot", "parse_spec",
           "search_defaults", "spec_help"]

# Bytes one search-tree node costs at most, with its edges and its share of
# the key table (measured: about 300 on full-game searches), for the node cap.
NODE_BYTES = 512
# The searchers index nodes and edges with 32-bit integers.
INDEX_LIMIT = 2**31 - 1
# The longest search a spec may ask for, in seconds (a day).
TIME_LIMIT = 86_400.0
# The most iterations a spec may ask for.
ITERATION_LIMIT = 10**12
# The most search threads a spec may ask for.
THREAD_LIMIT = 256


def _memory_bytes() -> int:
    """The machine's physical memory (2^34 if the OS does not say)."""
    try:
        return os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError, AttributeError):
        return 2**34


def max_nodes() -> int:
    """The largest node cap this machine's memory allows (and 32-bit indices:
    a node has up to a few dozen edges)."""
    return max(1, min(_memory_bytes() // NODE_BYTES, INDEX_LIMIT // 64))


def available_cores() -> int:
    """The cores this process may run on (its CPU affinity; the CPU count
    where the OS has no affinity), at least 1."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


# Defaults of the interactive applications (play, advise, the browser
# server), over the table's: option name -> (the value, as a function of the
# machine, and its description for the help).  Tournaments keep the table's
# default (one thread: their --jobs already fills the cores).  The exact
# last-turn solver is on where a person asks (exact values, the exact best
# action); in bot-vs-bot play it is off by default, since a paired match at
# 0.1 s a move did not show it stronger (docs/endgame.md).  The leaf is
# valued by the packaged value network mixed with a playout (eval=mix),
# which beat playouts alone on paired deals (docs/value-network.md,
# results/tournaments/eval-mix-vs-playout-0.1s/); tournaments keep playouts
# so that a spec means the same bot it meant before.
INTERACTIVE_DEFAULTS: dict[str, tuple[Callable[[], Any], str]] = {
    "threads": (available_cores, "the cores available to the process"),
    "endgame": (lambda: "exact", "exact"),
    "eval": (lambda: "mix", "mix"),
}


# ---- option kinds: a parser and a description of what it accepts -----------


@dataclass(frozen=True)
class Kind:
    """How an option's text becomes a value: ``parse`` raises ValueError on
    text it does not accept; ``describe`` names what it accepts."""

    parse: Callable[[str], Any]
    describe: str


def _number(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(text)
    return value


def _whole(text: str) -> int:
    return int(text.strip())


def _flag(text: str) -> bool:
    lowered = text.strip().lower()
    if lowered in ("1", "yes", "true"):
        return True
    if lowered in ("0", "no", "false"):
        return False
    raise ValueError(text)


def _file(text: str) -> str:
    if not text.strip():
        raise ValueError(text)
    return text.strip()


NUMBER = Kind(_number, "a finite number")
FILE = Kind(_file, "a file's path")
WHOLE = Kind(_whole, "a whole number")
FLAG = Kind(_flag, "yes or no")


def _choice(*names: str) -> Kind:
    def parse(text: str) -> str:
        if text not in names:
            raise ValueError(text)
        return text
    return Kind(parse, " or ".join(names))


# ---- options -------------------------------------------------------------------


@dataclass(frozen=True)
class Option:
    """One option of a bot spec.

    ``low``/``high`` bound numeric values (``open_low``/``open_high``: the
    bound itself is excluded); ``high`` may be a callable, evaluated when a
    spec is parsed (the node cap depends on the machine).  ``engine`` is
    the keyword under which a search bot passes the value to its Cython
    searcher (None: the bot itself uses it, as the budgets)."""

    name: str
    kind: Kind
    default: Any
    help: str
    low: float | None = None
    high: float | Callable[[], float] | None = None
    open_low: bool = False
    open_high: bool = False
    engine: str | None = None
    default_text: str = ""      # the help's words for a default that is a function

    def upper(self) -> float | None:
        return self.high() if callable(self.high) else self.high

    def allowed(self) -> str:
        """The allowed values in words: "in (0, 1]", "at least 0", "ismcts or oos"."""
        high = self.upper()
        if self.low is None and high is None:
            return self.kind.describe
        if high is None:
            return f"{'above' if self.open_low else 'at least'} {_num(self.low)}"
        if self.low is None:
            return f"{'below' if self.open_high else 'at most'} {_num(high)}"
        return (f"in {'(' if self.open_low else '['}{_num(self.low)},\u00a0{_num(high)}"
                f"{')' if self.open_high else ']'}")

    def check(self, value: Any) -> bool:
        """True if ``value`` (already parsed) lies in the allowed range."""
        high = self.upper()
        if self.low is not None and (value < self.low or (self.open_low and value == self.low)):
            return False
        if high is not None and (value > high or (self.open_high and value == high)):
            return False
        return True

    def allowed_text(self) -> str:
        return self.allowed().replace("\u00a0", " ")

    def parse(self, spec: str, text: str) -> Any:
        try:
            value = self.kind.parse(text)
        except (ValueError, OverflowError):
            raise BotSpecError(f"bot spec {_short(spec)!r}: {self.name} expects "
                               f"{self.kind.describe}, got {_short(text)!r}") from None
        if not self.check(value):
            raise BotSpecError(f"bot spec {_short(spec)!r}: {self.name} must be "
                               f"{self.allowed_text()}, got {_num(value)}"
                               + (" (the most this machine's memory and the searchers' "
                                  "32-bit indices allow)"
                                  if callable(self.high) else ""))
        return value


def _num(x: float) -> str:
    """A bound or value for messages: whole numbers in full up to 10^12."""
    if float(x).is_integer() and abs(x) <= 10**12:
        return str(int(x))
    return f"{x:.6g}"


def _short(text: str, limit: int = 60) -> str:
    return text if len(text) <= limit else text[:limit] + "..."


TIME = Option("time", NUMBER, None, "seconds per decision (default 1.0 when no iterations)",
              low=0.0, open_low=True, high=TIME_LIMIT)
ITERATIONS = Option("iterations", WHOLE, None,
                    "iterations per decision (deterministic for a seed)",
                    low=1, high=ITERATION_LIMIT)
ROLLOUT = _choice("heuristic", "heuristic-pure", "informed", "random")


def _nodes(default: int) -> Option:
    return Option("nodes", WHOLE, default, "node cap bounding memory", low=1, high=max_nodes,
                  engine="max_nodes")


def _rollout(help: str) -> Option:
    return Option("rollout", ROLLOUT, "heuristic", help, engine="rollout")


THREADS = Option("threads", WHOLE, 1, "native threads searching in parallel, one "
                 "independent tree each, their root statistics summed (root "
                 "parallelisation); the iteration budget and the node cap are split among "
                 "them, so the same seed and iterations give the same search for a given N",
                 low=1, high=THREAD_LIMIT, engine="threads")
INFERENCE = Option("inference", _choice(*INFERENCE_SETTINGS), INFERENCE_SETTINGS[0],
                   "off: worlds uniform among the opponent hands consistent with what the "
                   "bot saw; heuristic: worlds weighted by the likelihood of the opponent's "
                   "decisions this turn under the heuristic bot made soft (bots._inference): "
                   "in play, serve and tournaments its plays, passes and declines from the "
                   "game's record, in advise the plays a state file lists (opponent_plays); "
                   "without them worlds stay uniform", engine="inference")


EVAL = Option("eval", _choice("playout", "net", "mix", "turn"), "playout",
              "how the search values the leaf of an iteration: playout (one playout to the "
              "end, its result), net (the value network's win probability, bots._net; a die "
              "about to be rolled averaged over its faces), mix (lambda times the network's "
              "value plus 1 - lambda times a playout's result) or turn (the playout policy to "
              "the end of the turn, then the network); see docs/value-network.md",
              engine="eval")
LAMBDA = Option("lambda", NUMBER, 0.5, "eval=mix: the network's weight", low=0.0, high=1.0,
                engine="mix")
NET = Option("net", FILE, None, "the value network's weights file (bots.valuenet; default "
             "the packaged bots/data/value_net.npz), used unless eval=playout; the web "
             "server takes no file: there only the packaged network", engine="net")


ENDGAME = Option("endgame", _choice(*ENDGAME_MODES), "off",
                 "exact: at a position of the last turn where nothing is hidden any more "
                 "(both decks empty, past the V-2 step; exact.endgame), solve it exactly on "
                 "a thread of its own beside the search, within half the move's budget (a "
                 "bot kept for a whole game halves it after each attempt that does not "
                 "finish, down to 1/16, until one finishes), while the search runs for the "
                 "whole budget; if the solve finishes, play an exact best action and report "
                 "exact values (with a time budget alone, the search then stops at once); "
                 "before: the same solve first, then the search with the time it left (the "
                 "solver's place until this version, kept for matches); off: always search")

DECIDED = Option("decided", _choice(*DECIDED_RULES), "heuristic",
                 "heuristic: when the search's win estimate for the side to move is above "
                 "99% or below 1% and every action's value is the same within noise (1.96 "
                 "standard errors of the difference), play the heuristic bot's choice, which "
                 "passes when nothing useful is left, instead of one of the equal actions; "
                 "pass: then pass at the main step wherever passing is legal (elsewhere the "
                 "heuristic's choice); off: always the search's choice")


CLOCK = Option("clock", _choice(*CLOCK_MODES), "move",
               "move: every searched decision gets time= (or its iterations); game: time= is "
               "the average, the bot banks what it saves on an obvious root (searched half "
               "its time, the best action ahead beyond doubt) and spends it on a close root "
               "(up to one more move's time) and on the last turn's first solvable decision "
               "(up to two), never more than three moves' time on one decision and never "
               "more than the bank holds (with a time budget alone)")

ISMCTS_OPTIONS: tuple[Option, ...] = (
    TIME, ITERATIONS,
    Option("c", NUMBER, 1.4, "UCB exploration constant", low=0.0, open_low=True,
           high=1e6, engine="uct_c"),
    _rollout("playout policy: heuristic (the heuristic bot's rules in C, bots._policy, at "
             "90% of the decisions, informed at the rest), heuristic-pure (the rules "
             "only), informed (weighted random) or random"),
    _nodes(1_000_000),
    Option("prior", NUMBER, 3.0, "progressive bias toward the heuristic bot's choice at "
           "each node, X / (visits + 1) on its UCB score (0: plain UCB)",
           low=0.0, high=1e9, engine="prior"),
    INFERENCE,
    EVAL, LAMBDA, NET,
    THREADS,
    ENDGAME,
    DECIDED,
    CLOCK,
)


@dataclass(frozen=True)
class BotEntry:
    """A bot: its class (built as ``cls(player, seed, **options)``), a line
    of help, its options, and whether it searches with a time or iteration
    budget (``SearchBot``)."""

    cls: type[Bot]
    help: str
    options: tuple[Option, ...] = field(default_factory=tuple)
    note: str = ""
    benchmark_only: bool = False   # sees what no player may (tournaments only: refused by
                                   # play, advise, serve and engine, see check_for_players)
    players: bool = False          # the players' bot: its defaults are the same everywhere

    def option(self, name: str) -> Option | None:
        return next((o for o in self.options if o.name == name), None)


# The players' bot: what ``play`` and ``serve`` run (and ``advise``'s
# default searcher is the same search), declared once so that a tournament,
# an engine and the docs can name exactly that bot.  Its defaults do not
# depend on where it plays.
DEFAULT_SPEC = "default"
PLAYERS_DEFAULTS: dict[str, tuple[Any, str]] = {
    "threads": (available_cores, "the cores available to the process"),
    "endgame": ("exact", "exact"),
    "eval": ("mix", "mix"),
}


def _players(option: Option) -> Option:
    """``option`` with the players' bot's default."""
    if option.name not in PLAYERS_DEFAULTS:
        return option
    value, text = PLAYERS_DEFAULTS[option.name]
    return replace(option, default=value, default_text=text)


BOTS: dict[str, BotEntry] = {
    DEFAULT_SPEC: BotEntry(
        ISMCTSBot, "the players' bot: what play and serve run, one bot kept for the whole "
        "game; ISMCTS on every core, the exact last-turn solver on a thread beside the "
        "search, the packaged value network mixed with a playout at the leaves "
        "(docs/bots.md says which match decided each part)",
        tuple(_players(o) for o in ISMCTS_OPTIONS), players=True),
    "random": BotEntry(RandomBot, "uniform over the legal actions"),
    "heuristic": BotEntry(HeuristicBot, "plays as a sensible human would (bots.heuristic)"),
    "ismcts": BotEntry(ISMCTSBot, "information-set MCTS (bots._ismcts)", ISMCTS_OPTIONS),
    "ismcts-oracle": BotEntry(
        OracleISMCTSBot, "benchmark only: ISMCTS that sees the opponent's hand (every world "
        "is the true position), for tournaments against ismcts at equal iterations, an upper "
        "bound on what opponent-hand inference could give; play, advise, serve and engine "
        "refuse it", tuple(o for o in ISMCTS_OPTIONS if o is not INFERENCE),
        benchmark_only=True),
    "oos": BotEntry(OOSBot, "online outcome-sampling MCCFR (bots._oos): a mixed strategy, "
                    "played by sampling it", (
        TIME, ITERATIONS,
        Option("epsilon", NUMBER, 0.3, "exploration at the updated player's nodes",
               low=0.0, open_low=True, high=1.0, engine="epsilon"),
        _nodes(1_000_000),
        _rollout("playouts past the tree, as for ismcts"),
        Option("threshold", NUMBER, 0.2, "drop root actions below this average probability "
               "(0 plays the average strategy as it is)", low=0.0, high=1.0, open_high=True,
               engine="threshold"),
        Option("weighting", _choice("linear", "uniform"), "linear",
               "linear (iteration t weighs t) or uniform averaging", engine="weighting"),
        Option("regret", _choice("rm", "rm+"), "rm",
               "rm (regret matching) or rm+ (regret matching+)", engine="regret"),
        Option("baseline", _choice("mean", "none"), "mean",
               "mean (VR-MCCFR baselines) or none", engine="baseline"),
        Option("prior", NUMBER, 300.0, "warm start: a new node's regret of the heuristic "
               "bot's choice starts at X (0: regret matching starts uniform)",
               low=0.0, high=1e9, engine="prior"),
        Option("reuse", FLAG, False, "go on with the previous move's tree when it holds the "
               "new decision's information set (measured weaker, results/oos-variants.md); "
               "it acts where one bot plays a whole game (tournaments, "
               "pyspiel.evaluate_bots), not in play or advise, which search every decision "
               "afresh"),
        INFERENCE,
        EVAL, LAMBDA, NET,
        THREADS,
        ENDGAME,
        DECIDED,
    )),
    "openspiel-ismcts": BotEntry(OpenSpielISMCTSBot, "OpenSpiel's own Python ISMCTS with a "
                                 "random rollout, the external baseline", (
        Option("sims", WHOLE, None, "simulations per decision (default 300; at least 2: the "
               "first one only expands the root)", low=2, high=10**9),
        Option("time", NUMBER, None, "run simulations until S seconds are spent (with sims "
               "too: until either budget is spent)", low=0.0, open_low=True, high=TIME_LIMIT),
        Option("c", NUMBER, 1.4, "UCB exploration constant", low=0.0, open_low=True, high=1e6),
    )),
}

# bots with a time or iteration budget and a Cython searcher
SEARCH_BOTS = {"ismcts": ISMCTSBot, "ismcts-oracle": OracleISMCTSBot, "oos": OOSBot,
               DEFAULT_SPEC: ISMCTSBot}


def parse_spec(spec: str) -> tuple[str, dict[str, Any]]:
    """``"ismcts:time=1.0,c=1.4"`` -> ``("ismcts", {"time": 1.0, "c": 1.4})``:
    the options the spec gives, parsed and checked (defaults not filled in)."""
    name, _, rest = spec.strip().partition(":")
    entry = BOTS.get(name)
    if entry is None:
        raise BotSpecError(f"bot spec {_short(spec)!r}: unknown bot {_short(name)!r} "
                           f"(known: {', '.join(BOTS)})")
    options: dict[str, Any] = {}
    for item in filter(None, (x.strip() for x in rest.split(","))):
        key, sep, value = item.partition("=")
        option = entry.option(key.strip())
        if not sep or option is None:
            known = ", ".join(o.name for o in entry.options) or "none"
            raise BotSpecError(f"bot spec {_short(spec)!r}: unknown option {_short(item)!r} "
                               f"(options: {known})")
        if option.name in options:
            raise BotSpecError(f"bot spec {_short(spec)!r}: {option.name} is given twice")
        options[option.name] = option.parse(spec, value.strip())
    return name, options


def default_of(option: Option, interactive: bool = False) -> Any:
    """``option``'s default: the table's, or with ``interactive`` (play,
    advise, the browser server) the one :data:`INTERACTIVE_DEFAULTS` gives."""
    if interactive and option.name in INTERACTIVE_DEFAULTS:
        return INTERACTIVE_DEFAULTS[option.name][0]()
    return option.default() if callable(option.default) else option.default


def search_defaults(name: str, interactive: bool = False) -> dict[str, Any]:
    """Every option of bot ``name`` with its default (None: unset)."""
    return {o.name: default_of(o, interactive) for o in BOTS[name].options}


def engine_options(name: str, options: dict[str, Any], interactive: bool = False) -> dict[str, Any]:
    """The keyword arguments of bot ``name``'s Cython searcher: every option
    with an ``engine`` keyword, from ``options`` or its default."""
    return {o.engine: options[o.name] if o.name in options else default_of(o, interactive)
            for o in BOTS[name].options if o.engine}


def make_bot(spec: str, player: int, seed: int = 0, interactive: bool = False) -> Bot:
    """The bot a spec string names, for ``player``, with ``seed``;
    ``interactive``: the defaults of play, advise and the browser server."""
    name, options = parse_spec(spec)
    return bot_from_options(name, options, player, seed, interactive)


def bot_from_options(name: str, options: dict[str, Any], player: int, seed: int = 0,
                     interactive: bool = False) -> Bot:
    """Bot ``name`` built from parsed ``options`` (as :func:`parse_spec`
    gives them, possibly changed by the caller), the rest from the defaults
    (``interactive``: those of play, advise and the browser server)."""
    entry = BOTS[name]
    if interactive:
        check_for_players(name)
    if name in SEARCH_BOTS:
        budget = {k: options.get(k) for k in ("time", "iterations")}
        rest = {o.name: options[o.name] if o.name in options else default_of(o, interactive)
                for o in entry.options if o.engine is None and o.name not in budget}
        return entry.cls(player, seed, engine_options=engine_options(name, options, interactive),
                         **budget, **rest)
    full = {o.name: options[o.name] if o.name in options else default_of(o, interactive)
            for o in entry.options}
    return entry.cls(player, seed, **full)


def check_for_players(name: str) -> None:
    """BotSpecError if bot ``name`` is benchmark-only (it sees what no player
    may): play, advise, the browser server and the engine protocol call it."""
    if BOTS[name].benchmark_only:
        raise BotSpecError(f"bot {name!r} sees the opponent's hand: it is for benchmark "
                           f"tournaments only, not for play, advise, serve or engine")


def spec_help(width: int = 79) -> str:
    """The documentation of the spec strings, made from :data:`BOTS`."""
    lines = []
    for name, entry in BOTS.items():
        head = f"{name}[:key=value,...]" if entry.options else name
        lines += textwrap.wrap(f"{head}  {entry.help}", width, subsequent_indent="    ")
        for o in entry.options:
            default = "" if o.default is None else \
                f"; default {o.default_text or _show(o.default)}"
            if o.name in INTERACTIVE_DEFAULTS and not entry.players:
                default += f" ({INTERACTIVE_DEFAULTS[o.name][1]} in play, advise and serve)"
            rng = "" if o.kind is FLAG or (o.low is None and o.upper() is None) \
                else f"; {o.allowed()}"
            lines += textwrap.wrap(f"{o.name}={_placeholder(o)}: {o.help}{rng}{default}",
                                   width, initial_indent="    ", subsequent_indent="        ")
        if entry.note:
            lines.append(f"    ({entry.note})")
    lines += textwrap.wrap("Every bot takes a seed: the same seed gives the same decisions "
                           "(for the search bots, with an iteration budget).", width)
    return "\n".join(lines).replace("\u00a0", " ")


def _placeholder(option: Option) -> str:
    if option.kind is NUMBER:
        return "X"
    if option.kind is WHOLE:
        return "N"
    if option.kind is FILE:
        return "FILE"
    return option.kind.describe.replace(" or ", "|")


def _show(value: Any) -> str:
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return f"{value:g}"
    return str(value)

"""The bot of one game, and the other searches a game asks for.

Every interface drives the same :class:`GameBot` (the terminal's ``play``,
the web server's search process of a game, the engine protocol's
``wildhorn-solve engine``; a tournament keeps its bots for a whole game
the same way): the bot is built once, from the game's spec, when the game
starts or is loaded, and kept until the game ends, so that what it learns
from one decision serves the next:

* the exact solver's table (taken once per process from ``bots.base``'s
  pool; its bounds carry from move to move in the last turn);
* the solver's back-off (an attempt that does not finish halves the next
  one's share of the budget, down to 1/16);
* the search's random stream, which runs on from decision to decision, so
  that one seeded game at an iteration budget gives the same decisions in
  every interface that plays it.

After a restart (of the server, or ``play`` loading a save) the bot starts
afresh from the game's seed: what it kept was a cache, not part of the game.

The hint and the rating of the review are searches of their own, for the
human's side, each from a position resampled from the human's information
(:func:`hint_search`, :func:`review_search`); they are module-level
functions of picklable arguments so that the web server can run them in a
child process.
"""

from __future__ import annotations

import json
from typing import Any, Callable

import pyspiel

import solver  # noqa: F401  (registers the game)
from apps.advise import advise
from apps.record import GameRecord
from bots import BotSpec, Observations, SearchBot
from exact.endgame import solvable, solve as solve_endgame
from solver import Core

__all__ = ["GameBot", "HINT_ITERATIONS", "REVIEW_EXACT_NODES", "hint_search", "hint_seed",
           "mask_hidden", "public_action_text", "review_search",
           "review_seed"]

HINT_ITERATIONS = 3000             # the hint's search (ISMCTS iterations) in ``play``
REVIEW_EXACT_NODES = 2_000_000     # the exact solver's node budget per rated last-turn decision
ALTERNATIVES = 5                   # the bot's top actions shown beside its move
PONDER_MOVES = 10.0                # pondering stops after this many of the bot's moves' time
PONDER_CAP = 30.0                  # ... and after this many seconds, whatever the bot's time


# ---- what the human may see of a position's text -------------------------------

def public_action_text(core: Core, player: int, action: int) -> str:
    """The text of ``player``'s action with the numbers of the cards the
    other side cannot see (in ``player``'s hand) left out."""
    return mask_hidden(core.action_string(player, action), core, 1 - player)


def mask_hidden(text: str, core: Core, viewer: int) -> str:
    """``text`` with every card the ``viewer`` cannot see (the other side's
    hand and deck) named by its type only: "DE18 Bad Luck" -> "Bad Luck"."""
    config = core.config
    for g, card in enumerate(config.card_set.cards):
        if card.side_id != viewer and core.location(g)[0] in ("hand", "deck"):
            text = text.replace(config.card_name(g), card.type.name)
    return text


def _top_actions(core: Core, player: int, stats: dict[str, Any] | None) -> list[dict[str, Any]]:
    """The search's top actions (visits, value), named as the human may see them."""
    if not stats or not stats.get("actions"):
        return []
    rows = sorted(stats["actions"], key=lambda r: -(r.get("visits") or 0))[:ALTERNATIVES]
    return [{"action": public_action_text(core, player, r["action"]),
             "visits": r.get("visits"),
             "value": None if r.get("value") is None else round(r["value"], 3)}
            for r in rows]


# ---- the game's bot -------------------------------------------------------------

def decision_seed(seed: int, moves: int) -> int:
    """The random stream of the game's bot at the decision after ``moves``
    moves (``Core.moves``, which every interface knows, the engine through
    its ``act`` message): keyed by the decision, so that the bot's searches
    do not depend on what it searched before, and a game loaded from a save
    goes on as the unbroken one (the exact solver's kept table and back-off
    aside, in the last turn)."""
    return (seed * 1_000_003 + (moves + 1) * 7919) & 0x7FFFFFFFFFFFFFFF


class GameBot:
    """The bot of one game: ``spec`` (as the host runs it: capped, its
    threads) for ``player``, seeded once with ``seed``, kept until
    :meth:`close`.  :meth:`decide` answers each of its decisions in turn.
    ``interactive``: the defaults of play and serve for a spec that leaves
    an option out (``bots.registry.INTERACTIVE_DEFAULTS``); the engine
    protocol, a tournament's player, takes the table's defaults, so that a
    spec names the same bot there as in a tournament.  The players' bot
    (``default``) is the same bot either way."""

    def __init__(self, params: dict[str, Any], spec: BotSpec, player: int, seed: int,
                 interactive: bool = True):
        self.params = dict(params)
        self.game = pyspiel.load_game("wildhorn", self.params)
        self.config = self.game.core_config
        self.spec = spec
        self.player = player
        self.seed = seed
        self.bot = spec.make(player, seed, interactive=interactive)
        options = spec.engine_options(interactive) if isinstance(self.bot, SearchBot) else {}
        self.infers = options.get("inference", "off") != "off"
        self.decisions = 0

    @classmethod
    def for_record(cls, record: GameRecord, spec: BotSpec | None = None) -> "GameBot":
        """The bot of ``record``'s game (``spec``: the record's bot as the
        host runs it; by default the record's own spec)."""
        return cls(record.setup.params, spec if spec is not None else record.bot,
                   record.bot_side, record.bot_seed())

    def decide(self, state: Any, seen: list[tuple[Core, int]] | None = None,
               alternatives: bool = True) -> dict[str, Any]:
        """The bot's move at ``state`` (a core position, or a pyspiel state
        whose history a search bot's inference may read): ``{"action",
        "value" (Polish, German win estimates or None), "alternatives" (its
        top actions, named as the human may see them; empty unless
        ``alternatives``), "stats" (what the move cost: seconds, iterations,
        the exact solver's share and whether it finished)}``.  ``seen``:
        the game's transitions (position before, action), for a bot whose
        inference reads them."""
        core = state.core if hasattr(state, "core") else state
        if core.current_player() != self.player:
            raise ValueError(f"the game's bot plays player {self.player}, not "
                             f"{core.current_player()}")
        self.bot.reseed(decision_seed(self.seed, core.moves))
        observations = None
        if seen and self.infers:
            observations = Observations(self.config, self.player)
            for before, action in seen:
                observations.record(before, action)
        if isinstance(self.bot, SearchBot):
            result = self.bot.analyse(state, observations=observations)
        else:
            result = self.bot.analyse(state)
        self.decisions += 1
        value = result.get("value")
        stats = result.get("stats") or {}
        return {"action": int(result["action"]),
                "value": None if value is None else [float(value[0]), float(value[1])],
                "alternatives": _top_actions(core, self.player, stats) if alternatives else [],
                "stats": {k: stats[k] for k in _SUMMARY if k in stats}}

    def analyse(self, state: Any) -> dict[str, Any]:
        """:meth:`decide` without the alternatives: what a tournament asks of
        a seat (``action`` and ``value``)."""
        return self.decide(state, alternatives=False)

    def step(self, state: Any) -> int:
        """The bot's action at ``state`` (as ``pyspiel.Bot.step``)."""
        return self.analyse(state)["action"]

    def ponder_cap(self) -> float:
        """The longest the bot thinks on the opponent's time (0: it does not:
        not a search bot with a time budget)."""
        bot = self.bot
        if not isinstance(bot, SearchBot) or bot.iterations or not bot.time:
            return 0.0
        return min(PONDER_CAP, PONDER_MOVES * bot.time)

    def ponder(self, core: Core, stop: Callable[[], bool]) -> int:
        """Thinks on the opponent's time at ``core`` (the opponent's
        decision) until ``stop()`` says True or :meth:`ponder_cap` has
        passed; what it searched serves the bot's next decision.  Returns
        the iterations (0: the bot does not ponder)."""
        cap = self.ponder_cap()
        if cap <= 0.0 or core.is_terminal() or core.is_chance() \
                or core.current_player() == self.player:
            return 0
        self.bot.reseed(decision_seed(self.seed, core.moves))
        return self.bot.ponder(core, stop, cap)

    def decide_record(self, record: GameRecord) -> dict[str, Any]:
        """:meth:`decide` at ``record``'s position, with its transitions."""
        seen = record.observations() if self.infers else None
        return self.decide(record.core, seen)

    def close(self) -> None:
        """The game is over (or closed): what the bot holds goes back."""
        self.bot.close()


_SUMMARY = ("seconds", "iterations", "threads", "exact", "endgame_share", "endgame_seconds",
            "endgame_complete", "search_iterations", "pondered_visits", "pondered_iterations", "clock")


# ---- the human's searches: the hint and the review's ratings ---------------------

def hint_search(params: dict[str, Any], core_bytes: bytes, human: int, seed: int,
                iterations: int, threads: int) -> dict[str, Any]:
    """``advise()`` for the human, on a position resampled from the human's
    information (nothing hidden is searched from), named as the human may see it."""
    game = pyspiel.load_game("wildhorn", params)
    core = Core.from_bytes(game.core_config, core_bytes)
    sampled = core.resample(human, seed)
    result = advise(sampled, bot_spec=str(BotSpec.parse("ismcts").with_threads(threads)),
                    iterations=iterations, seed=seed)
    return json.loads(mask_hidden(json.dumps(result), core, human))


def hint_seed(record: GameRecord) -> int:
    """The hint's seed for the decision now."""
    return (record.seed + len(record.events)) & 0x7FFFFFFF


def review_search(params: dict[str, Any], core_bytes: bytes, human: int, seed: int,
                  iterations: int, chosen: int, threads: int) -> dict[str, Any]:
    """Rates one of the human's decisions; the loss is the best action's
    value minus the chosen one's, in the human's win probability.

    In the last turn's solvable region (both hands known, R26) the
    position is solved exactly within :data:`REVIEW_EXACT_NODES` and the
    rating is exact (``exact`` True); elsewhere, or when the solve does
    not finish, an ISMCTS search of ``iterations`` on the position
    resampled from the human's information."""
    game = pyspiel.load_game("wildhorn", params)
    core = Core.from_bytes(game.core_config, core_bytes)
    if solvable(core):
        solved = solve_endgame(core, max_nodes=REVIEW_EXACT_NODES, every_action=True)
        mine = solved.value_of(chosen)
        if solved.complete and solved.best is not None and mine is not None:
            return {"best": core.action_string(human, solved.best),
                    "best_value": round(solved.value, 4), "chosen_value": round(mine, 4),
                    "loss": round(max(0.0, solved.value - mine), 4), "exact": True}
    sampled = core.resample(human, seed)
    spec = BotSpec.parse("ismcts").replace(iterations=iterations).with_threads(threads)
    stats = spec.make(human, seed).analyse(sampled)["stats"]
    rows = {r["action"]: r for r in stats["actions"]}
    best = max(stats["actions"], key=lambda r: (r["visits"], r["value"] or 0.0))
    mine_row = rows.get(chosen)
    chosen_value = None if mine_row is None or mine_row["value"] is None else mine_row["value"]
    loss = None if chosen_value is None or best["value"] is None else \
        max(0.0, best["value"] - chosen_value)
    return {"best": core.action_string(human, best["action"]),
            "best_value": None if best["value"] is None else round(best["value"], 4),
            "chosen_value": None if chosen_value is None else round(chosen_value, 4),
            "loss": None if loss is None else round(loss, 4), "exact": False}


def review_seed(record: GameRecord, k: int) -> int:
    """The seed of the rating of the human's decision ``k``."""
    return (record.seed + 7919 * k) & 0x7FFFFFFF


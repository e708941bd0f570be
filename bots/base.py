"""The bot interface and the random, ISMCTS, OOS and OpenSpiel-ISMCTS bots
(spec strings and the option registry: :mod:`bots.registry`)."""

from __future__ import annotations

import random
from typing import Any

import pyspiel

from bots import _budget
from bots._inference import Observations
from bots._ismcts import ISMCTS
from bots._oos import OOS
from bots._policy import heuristic_best
from exact.endgame import Solution, Solver as EndgameSolver, solvable, solve as solve_endgame
from solver import Core, encode_action
from solver.game import game_for_config
from solver.errors import BotSpecError, WildhornError


def _core_of(state: Any) -> Core:
    return state.core if hasattr(state, "core") else state


class Bot(pyspiel.Bot):
    """A bot for one seat.  ``step(state)`` returns an action for a pyspiel
    WildhornState (or a core position); ``analyse(state)`` returns the
    recommended action with whatever statistics the bot has (``None`` values
    where it has none): ``{"action", "policy": {action: probability},
    "value": [polish, german] win probabilities or None, ...}``."""

    name = "bot"
    samples_policy = False     # True: the bot plays by sampling ``policy`` (a mixed strategy)

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
    samples_policy = True

    def __init__(self, player: int, seed: int = 0):
        super().__init__(player, seed)
        self._rng = random.Random(seed)

    def analyse(self, state: Any) -> dict[str, Any]:
        legal = _core_of(state).legal_actions()
        action = self._rng.choice(legal)
        return {"action": action, "policy": {a: 1 / len(legal) for a in legal}, "value": None}


# The exact last-turn solver at the root (``endgame=exact``): the share of
# the move's budget it may take, and the nodes it may visit per iteration of
# an iteration budget (a chosen rate, not a measured one: a solver node is a
# single step of the core, an ISMCTS iteration a descent and a playout of
# many), so that an iteration budget stays deterministic.
ENDGAME_SHARE = 0.5
ENDGAME_NODES_PER_ITERATION = 50
# Back-off from one analyse to the next (a bot kept for a whole game): after
# an attempt that does not finish, the next decision's attempt gets this
# factor of the share, down to ENDGAME_SHARE_MIN; a finished solve, or a
# decision outside the solvable region (a new game), gives back
# ENDGAME_SHARE.  The solver's table is kept between attempts, so the
# smaller attempts still build on the larger ones; a position far from the
# end no longer costs half of every move.
ENDGAME_BACKOFF = 0.5
ENDGAME_SHARE_MIN = 1 / 16

# A decided game (``decided=heuristic``): the search's win estimate for the
# side to move beyond these bounds, and every action's value within this
# many standard errors of the best one's (the 95% two-sided normal quantile).
DECIDED_LOW = 0.01
DECIDED_HIGH = 0.99
DECIDED_Z = 1.96
# What a bot plays in a decided game: the heuristic's choice, a pass at the
# main step (else the heuristic's choice), or the search's own choice.
DECIDED_RULES = ("heuristic", "pass", "off")
PASS_ACTION = encode_action("PASS", 0)


def decided_action(core: Core, rule: str) -> int:
    """The action of a decided game under ``rule`` ("heuristic" or "pass"):
    the heuristic bot's choice (the first of its tied-best actions); with
    "pass", passing wherever it is legal at the main step, ending the bot's
    actions (and the turn once both have passed)."""
    if rule == "pass" and core.phase == "actions" and PASS_ACTION in core.legal_actions():
        return PASS_ACTION
    return heuristic_best(core)[0]


def is_decided(stats: dict[str, Any]) -> bool:
    """True when a search's statistics say the game is decided: the win
    estimate of the side to move (``stats["value"][stats["player"]]``) is
    above :data:`DECIDED_HIGH` or below :data:`DECIDED_LOW`, and every root
    action's value is the same as the best one's within noise (their
    difference at most :data:`DECIDED_Z` standard errors of the difference,
    ``sqrt(se_a^2 + se_best^2)``).  An action the search never visited has
    no value and is not counted."""
    value = stats.get("value")
    if value is None:
        return False
    own = value[stats["player"]]
    if DECIDED_LOW <= own <= DECIDED_HIGH:
        return False
    rows = [a for a in stats["actions"] if a.get("visits", 0) > 0]
    if not rows:
        return False
    best = max(rows, key=lambda a: a["value"])
    return all(best["value"] - a["value"]
               <= DECIDED_Z * (a["stderr"] ** 2 + best["stderr"] ** 2) ** 0.5
               for a in rows)


def next_endgame_share(share: float, attempt: Solution | None) -> float:
    """The share of the next decision's exact attempt after one with
    ``share`` gave ``attempt`` (None: no attempt, the position outside the
    solvable region or ``endgame=off``): back to :data:`ENDGAME_SHARE`
    after a finished solve or outside the region, else backed off by
    :data:`ENDGAME_BACKOFF`, not below :data:`ENDGAME_SHARE_MIN`."""
    if attempt is None or attempt.complete:
        return ENDGAME_SHARE
    return max(ENDGAME_SHARE_MIN, share * ENDGAME_BACKOFF)


class SearchBot(Bot):
    """A bot around a Cython searcher (``engine()(seed=..., **engine_options)``)
    with a time or iteration budget (1 s when neither is given).  The
    options and their defaults come from :mod:`bots.registry`; without
    ``engine_options`` the searcher's own defaults apply.

    ``endgame``: "exact" or "off".  With "exact", a decision in the solvable
    region (:func:`exact.endgame.solvable`: the last turn past its V-2
    step, both decks empty, so nothing is hidden) is first solved exactly
    within :data:`ENDGAME_SHARE` of the budget (time on ``bots._budget``'s
    clock, iterations as ``ENDGAME_NODES_PER_ITERATION`` solver nodes
    each); if the solve finishes, the bot plays its best action (the first
    optimal one in the legal order) and its statistics are exact
    (``stats["exact"]``); otherwise the search runs with the rest of the
    budget, as without it.  From one :meth:`analyse` to the next (a bot
    kept for a whole game) the share backs off after an attempt that does
    not finish (:data:`ENDGAME_BACKOFF`, down to :data:`ENDGAME_SHARE_MIN`)
    and returns to :data:`ENDGAME_SHARE` after one that does or at a
    decision outside the solvable region; ``endgame_share`` holds the next
    attempt's share (:func:`next_endgame_share`).

    ``decided``: "heuristic", "pass" or "off".  With "heuristic", when the search
    finds the game decided (:func:`is_decided`: the side to move's win
    estimate above 99% or below 1% and every action worth the same within
    noise), the bot plays the heuristic bot's choice (the first of its
    tied-best actions, ``bots._policy.heuristic_best``), which passes when
    nothing useful is left, instead of one of the equal actions the search
    happens to favour; its analysis says so (``"decided": True``, and
    ``"search_action"``: what the search would have played).  With
    "pass" it passes at the main step instead (:func:`decided_action`); with
    "off" it always plays the search's choice."""

    def __init__(self, player: int, seed: int = 0, time: float | None = None,
                 iterations: int | None = None, engine_options: dict[str, Any] | None = None,
                 endgame: str = "off", decided: str = "off"):
        super().__init__(player, seed)
        if endgame not in ("exact", "off"):
            raise BotSpecError(f"endgame: expected exact or off, got {endgame!r}")
        if decided not in DECIDED_RULES:
            raise BotSpecError(f"decided: expected {' or '.join(DECIDED_RULES)}, "
                               f"got {decided!r}")
        self.endgame = endgame
        self.decided = decided
        self.endgame_every_action = False   # advise sets it: every action's exact value
        # solver nodes per iteration of an iteration budget (advise gives more)
        self.endgame_nodes_per_iteration = ENDGAME_NODES_PER_ITERATION
        self._endgame_solver: EndgameSolver | None = None
        self.endgame_share = ENDGAME_SHARE   # the next attempt's share in play (backs off)
        if iterations is None and time is None:
            time = 1.0
        self.time = time or 0.0
        self.iterations = iterations or 0
        self.options = dict(engine_options or {})
        self.search_engine = self.new_engine(seed)
        self.last_stats: dict[str, Any] | None = None
        self._seen: tuple[Any, list[int], Observations, Core] | None = None

    @staticmethod
    def engine():
        raise NotImplementedError

    def new_engine(self, seed: int):
        """A fresh searcher with this bot's options (also for advise's responses)."""
        return self.engine()(seed=seed, **self.options)

    def observations(self, state: Any) -> Observations | None:
        """What this bot's player saw of the game so far, for inference
        (bots._inference): built from a pyspiel state's history, replayed
        through ``Observations.record``, which keeps only what the player
        observes.  None when inference is off or the state has no history
        (a bare core position: sampling stays uniform)."""
        if self.options.get("inference", "off") == "off" or not hasattr(state, "history"):
            return None
        history = state.history()
        game = state.get_game()
        seen = self._seen
        if seen is None or seen[0] != game.core_config.key or history[:len(seen[1])] != seen[1]:
            seen = (game.core_config.key, [], Observations(game.core_config, self.player),
                    game.new_initial_state().core.copy())
        _, done, obs, core = seen
        try:
            for a in history[len(done):]:
                obs.record(core, a)
                core.apply(a)
        except WildhornError:
            core = None
        if core is None or core != state.core:
            # a state built from a position (state_from_core): its history
            # does not start at the game's start, so it tells nothing
            self._seen = None
            return None
        self._seen = (game.core_config.key, list(history), obs, core)
        return obs

    def analyse(self, state: Any, observations: Observations | None = None) -> dict[str, Any]:
        """``observations``: what the player saw (for inference); by default
        taken from a pyspiel state's history (``observations()``)."""
        core = _core_of(state)
        check_net = getattr(self.search_engine, "check_net", None)
        if check_net is not None:    # a network of another game is refused, before any solve
            check_net(core)
        legal = core.legal_actions()
        if len(legal) == 1:
            return {"action": legal[0], "policy": {legal[0]: 1.0}, "value": None}
        exact, spent = self.solve_exactly(core, self.endgame_every_action,
                                          share=self.endgame_share)
        self.endgame_share = next_endgame_share(self.endgame_share, exact)
        if exact is not None and exact.complete:
            return self._exact_answer(core, exact)
        if observations is None:
            observations = self.observations(state)
        time_left = max(self.time - spent, 1e-3) if self.time else 0.0
        stats = self.search_engine.search(core, iterations=self.iterations,
                                          time_limit=time_left, observations=observations,
                                          **self.search_options())
        self.last_stats = stats
        chosen = self.choose(stats)
        if self.decided != "off" and is_decided(stats):
            action = decided_action(core, self.decided)
            chosen = {**chosen, "action": action, "best": action, "decided": True,
                      "search_action": chosen["action"]}
        return {**chosen, "value": stats["value"],
                "value_ci95": stats["value_ci95"], "stats": stats}

    def search_options(self) -> dict[str, Any]:
        """Extra keyword arguments of this bot's searches during play."""
        return {}

    def solve_exactly(self, core: Core, every_action: bool = False,
                      share: float = ENDGAME_SHARE) -> tuple[Solution | None, float]:
        """With ``endgame=exact`` and ``core`` in the solvable region, the
        exact solve within ``share`` of this bot's budget, and the seconds
        it took (on ``bots._budget``'s clock); (None, 0.0) otherwise."""
        if self.endgame != "exact" or not solvable(core):
            return None, 0.0
        if self._endgame_solver is None:
            self._endgame_solver = EndgameSolver(clock=lambda: _budget.clock())
        start = _budget.clock()
        result = solve_endgame(
            core, max_nodes=int(share * self.endgame_nodes_per_iteration * self.iterations),
            max_seconds=share * self.time, every_action=every_action,
            solver=self._endgame_solver, keep_table=True)
        return result, _budget.clock() - start

    def _exact_answer(self, core: Core, exact: Solution) -> dict[str, Any]:
        """The analysis of a finished exact solve, in the search's format:
        every action's value (exact, or the bound that proves it no better:
        ``exact`` False), the best action played with certainty."""
        player = exact.player
        value = [exact.polish, 1.0 - exact.polish]
        ci = [[value[0], value[0]], [value[1], value[1]]]
        rows = [{"action": a.action, "visits": 0, "value": a.value, "stderr": 0.0,
                 "frequency": 1.0 if a.action == exact.best else 0.0, "exact": a.exact}
                for a in exact.actions]
        table = self._endgame_solver
        stats = {"player": player, "actions": rows, "value": value, "value_ci95": ci,
                 "exact": True, "iterations": 0, "worlds": 0, "seconds": exact.seconds,
                 "nodes": exact.nodes, "threads": 1,
                 "memory_bytes": table.table_slots * table.entry_bytes,
                 "table_hit_rate": exact.hit_rate}
        return {"action": exact.best, "best": exact.best, "policy": {exact.best: 1.0},
                "value": value, "value_ci95": ci, "stats": stats, "exact": True}

    def choose(self, stats: dict[str, Any]) -> dict[str, Any]:
        """The action and the policy the search's statistics give."""
        raise NotImplementedError


class ISMCTSBot(SearchBot):
    """Information-set MCTS (see bots._ismcts) with a time or iteration budget."""

    name = "ismcts"

    @staticmethod
    def engine():
        return ISMCTS

    def choose(self, stats: dict[str, Any]) -> dict[str, Any]:
        best = max(stats["actions"], key=lambda a: (a["visits"], a["value"]))
        return {"action": best["action"],
                "policy": {a["action"]: a["frequency"] for a in stats["actions"]}}


class OracleISMCTSBot(ISMCTSBot):
    """ISMCTS whose every world is the true position: it sees the opponent's
    hand (and a secret redraw decision), which no player can.  A
    benchmark-only bot (``ismcts-oracle``, refused by play, advise, serve
    and engine): against ISMCTS at equal iterations it bounds what any
    opponent-hand inference could give (issue 31's cheating bound)."""

    name = "ismcts-oracle"

    def new_engine(self, seed: int):
        return self.engine()(seed=seed, oracle=True, **self.options)


class OOSBot(SearchBot):
    """Online outcome-sampling MCCFR (see bots._oos) with a time or iteration
    budget: a mixed-strategy bot.  It plays an action drawn from the
    search's recommended mixed strategy with its own seeded stream, so the
    same seed and iteration budget give the same decisions; ``best`` in its
    analysis is the most likely action.  With ``reuse`` its searcher keeps
    the tree from one decision to the next (``OOS.search(keep=True)``; a new
    game or an information set the tree never reached starts afresh)."""

    name = "oos"
    samples_policy = True

    def __init__(self, player: int, seed: int = 0, time: float | None = None,
                 iterations: int | None = None, engine_options: dict[str, Any] | None = None,
                 reuse: bool = False, endgame: str = "off", decided: str = "off"):
        self.reuse = reuse
        super().__init__(player, seed, time, iterations, engine_options, endgame, decided)
        self._rng = random.Random(seed)

    @staticmethod
    def engine():
        return OOS

    def search_options(self) -> dict[str, Any]:
        return {"keep": self.reuse}

    def choose(self, stats: dict[str, Any]) -> dict[str, Any]:
        policy = stats["strategy"]
        actions = [a for a in policy if policy[a] > 0]
        action = self._rng.choices(actions, [policy[a] for a in actions])[0]
        best = max(stats["actions"], key=lambda a: (a["frequency"], a["value"]))["action"]
        return {"action": action, "best": best, "policy": policy}


class OpenSpielISMCTSBot(Bot):
    """OpenSpiel's own Python ISMCTS (``open_spiel.python.algorithms.ismcts``)
    on the pyspiel game, with a random rollout: the peer implementation our
    bots are measured against.  Its budget is ``sims`` simulations per
    decision (OpenSpiel's own budget; at least 2, since the first one only
    expands the root) or ``time`` seconds per decision, for matches at equal
    time per move: simulations run until the time is spent (at least 2); with
    both, until either budget is spent (the web server caps both).
    Worlds are sampled through the game's ``resample_from_infostate`` with
    this bot's seeded stream, so the same seed gives the same decisions
    (with ``sims``)."""

    name = "openspiel-ismcts"
    _timed = None      # the ISMCTSBot subclass, built on first use

    def __init__(self, player: int, seed: int = 0, sims: int | None = None,
                 c: float = 1.4, time: float | None = None):
        super().__init__(player, seed)
        import numpy as np

        self._rng = random.Random(seed)
        self._np_rng = np.random.RandomState(seed % 2**32)
        self._sims = 300 if sims is None and time is None else sims
        self._time = time
        self._c = c
        self._bot = None
        self._game = None
        self.last_simulations = 0

    def _engine(self, game: pyspiel.Game):
        if self._bot is None or self._game is not game:
            from open_spiel.python.algorithms import mcts

            evaluator = mcts.RandomRolloutEvaluator(1, self._np_rng)
            self._bot = self._engine_class()(game, evaluator, self._c, self._sims or 0,
                                              random_state=self._np_rng,
                                              time_limit=self._time)
            self._bot.set_resampler(
                lambda state, player: state.resample_from_infostate(player, self._rng.random))
            self._game = game
        return self._bot

    def analyse(self, state: Any) -> dict[str, Any]:
        if not hasattr(state, "core"):
            state = game_for_config(state.config).state_from_core(state)
        legal = state.legal_actions()
        if len(legal) == 1:
            return {"action": legal[0], "policy": {legal[0]: 1.0}, "value": None}
        engine = self._engine(state.get_game())
        action = int(engine.step(state))
        self.last_simulations = engine.simulations
        return {"action": action, "policy": {action: 1.0}, "value": None}

    @classmethod
    def _engine_class(cls):
        """OpenSpiel's ISMCTSBot with an optional time budget: ``run_search``
        repeats OpenSpiel's own simulation step (sample a world, run one
        simulation) until ``time_limit`` seconds have passed, at least twice;
        without a time limit it is OpenSpiel's search unchanged.  ``clock`` is
        the time source (replaceable in tests).  Built on first use so that
        importing bots does not import OpenSpiel's Python algorithms."""
        if cls._timed is None:
            import time as _time

            from open_spiel.python.algorithms import ismcts

            class TimedISMCTSBot(ismcts.ISMCTSBot):
                def __init__(self, *args, time_limit: float | None = None, **kwargs):
                    super().__init__(*args, **kwargs)
                    self.time_limit = time_limit
                    self.clock = _time.perf_counter
                    self.simulations = 0

                def run_search(self, state):
                    """OpenSpiel's search, with the time limit (and the count of
                    simulations, if given: whichever ends first)."""
                    if self.time_limit is None:
                        self.simulations = self._max_simulations
                        return super().run_search(state)
                    # OpenSpiel's run_search with the loop bounded by time instead
                    # of by count (same reset, root, sampling and final policy).
                    deadline = self.clock() + self.time_limit
                    self.reset()
                    legal_actions = state.legal_actions()
                    if len(legal_actions) == 1:
                        self.simulations = 0
                        return [(legal_actions[0], 1.0)]
                    self._root_node = self.create_new_node(state)
                    root_key = self.get_state_key(state)
                    count = 0
                    cap = self._max_simulations or None  # sims given with time
                    while count < 2 or (self.clock() < deadline
                                        and (cap is None or count < cap)):
                        sampled = self.sample_root_state(state)
                        assert root_key == self.get_state_key(sampled)
                        self.run_simulation(sampled)
                        count += 1
                    self.simulations = count
                    if self._allow_inconsistent_action_sets:
                        node = self.filter_illegals(self._root_node, legal_actions)
                        return self.get_final_policy(state, node)
                    return self.get_final_policy(state, self._root_node)

            cls._timed = TimedISMCTSBot
        return cls._timed

"""The bot interface and the random, ISMCTS, OOS and OpenSpiel-ISMCTS bots
(spec strings and the option registry: :mod:`bots.registry`)."""

from __future__ import annotations

import random
import threading
from typing import Any, Callable

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

    def close(self) -> None:
        """The game is over: give back what the bot holds (nothing here)."""

    def reseed(self, seed: int) -> None:
        """Seeds a search bot's random streams again (a search bot kept for
        a game keys each decision's search by the decision); the other
        bots keep their one stream for the game, as they always did."""

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

# The game clock (``clock=game``): ``time=`` stays the average time of a
# searched decision, and the bot moves time between decisions through a
# bank of the seconds it saved.  A decision is first searched for
# CLOCK_PROBE of its time; a root whose best action is then ahead beyond
# doubt (OBVIOUS_SHARE of the visits and a lead in value beyond
# DECIDED_Z standard errors of the difference) is played at once, the rest
# of its time banked; a close root (the second action within CLOSE_VISITS
# of the best's visits) may draw CLOCK_CLOSE moves' times from the bank.
# The first solvable decision of the last turn (the exact solver's first
# attempt, the game's last real choices) may draw CLOCK_CRITICAL.  No
# decision takes more than CLOCK_CAP times ``time``, and the bank is never
# overdrawn, so a game never takes longer than its decisions times ``time``.
CLOCK_MODES = ("move", "game")
CLOCK_PROBE = 0.5
CLOCK_CLOSE = 1.0
CLOCK_CRITICAL = 2.0
CLOCK_CAP = 3.0
OBVIOUS_SHARE = 0.8
CLOSE_VISITS = 0.7

# Pondering in the solvable region: the exact solver's slices between two
# looks at the stop condition, in seconds.
PONDER_SLICE = 0.05

# Where the exact last-turn solver runs (``endgame=``): beside the search on
# a thread of its own (exact), before it on the calling thread (before: the
# place it had until the players' bot of issue 47, kept to measure the
# change), or nowhere (off).
ENDGAME_MODES = ("exact", "before", "off")

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


# The exact solvers of this process not in use: a bot takes one at its
# first solvable decision and gives it back, cleared, when its game ends
# (Bot.close), so that a process playing game after game (a tournament's
# worker, the web server's search process of a game) allocates the table once.
_SOLVER_POOL: list[EndgameSolver] = []
_SOLVER_POOL_LOCK = threading.Lock()


def take_endgame_solver() -> EndgameSolver:
    """An exact solver with an empty table: one given back earlier in this
    process, else a new one (its deadline on ``bots._budget``'s clock)."""
    with _SOLVER_POOL_LOCK:
        if _SOLVER_POOL:
            return _SOLVER_POOL.pop()
    return EndgameSolver(clock=lambda: _budget.clock())


def give_back_endgame_solver(solver: EndgameSolver) -> None:
    """Clears ``solver``'s table and keeps it for the next bot of this process."""
    solver.clear()
    with _SOLVER_POOL_LOCK:
        _SOLVER_POOL.append(solver)


def _top_two(stats: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any] | None]:
    rows = sorted(stats["actions"], key=lambda a: (a["visits"], a["value"]), reverse=True)
    return rows[0], (rows[1] if len(rows) > 1 else None)


def is_obvious(stats: dict[str, Any]) -> bool:
    """True when a search's best action (the most visited) is ahead beyond
    doubt: at least :data:`OBVIOUS_SHARE` of the root's visits, and its
    value above the second's by more than :data:`DECIDED_Z` standard errors
    of the difference."""
    best, second = _top_two(stats)
    total = sum(a["visits"] for a in stats["actions"])
    if second is None or total == 0 or best["visits"] < OBVIOUS_SHARE * total:
        return False
    if second["visits"] == 0:
        return True
    return best["value"] - second["value"] > \
        DECIDED_Z * (best["stderr"] ** 2 + second["stderr"] ** 2) ** 0.5


def is_close(stats: dict[str, Any]) -> bool:
    """True when a search's second action has at least :data:`CLOSE_VISITS`
    of the best one's visits: the choice is still open."""
    best, second = _top_two(stats)
    return second is not None and second["visits"] >= CLOSE_VISITS * best["visits"] > 0


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

    ``endgame``: "exact", "before" or "off" (:data:`ENDGAME_MODES`).  With
    "exact", a decision in the solvable region (:func:`exact.endgame.solvable`:
    the last turn past its V-2 step, both decks empty, so nothing is hidden)
    is solved exactly on a thread of its own while the search runs beside
    it for the whole budget (:meth:`_search_beside_solver`); the solve gets
    :data:`ENDGAME_SHARE` of the budget (time on ``bots._budget``'s clock,
    iterations as ``ENDGAME_NODES_PER_ITERATION`` solver nodes each); if it
    finishes, the bot plays its best action (the first optimal one in the
    legal order) and its statistics are exact (``stats["exact"]``);
    otherwise the search's answer stands.  With "before", the solve comes
    first and the search gets the time it left (the solver's place until
    issue 47).  From one :meth:`analyse` to the next (a bot kept for a
    whole game) the share backs off after an attempt that does not finish
    (:data:`ENDGAME_BACKOFF`, down to :data:`ENDGAME_SHARE_MIN`) and
    returns to :data:`ENDGAME_SHARE` after one that does or at a decision
    outside the solvable region; ``endgame_share`` holds the next attempt's
    share (:func:`next_endgame_share`).  The solver's table is taken from
    the process's pool at the first solvable decision and given back by
    :meth:`close`.

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
                 endgame: str = "off", decided: str = "off", clock: str = "move"):
        super().__init__(player, seed)
        if clock not in CLOCK_MODES:
            raise BotSpecError(f"clock: expected {' or '.join(CLOCK_MODES)}, got {clock!r}")
        self.clock = clock
        self.bank = 0.0                 # clock=game: the seconds saved so far this game
        self._critical_done = False     # clock=game: the last turn's first solvable decision seen
        self._extra = 0.0               # clock=game: what this decision may draw from the bank
        self._probe = False             # clock=game: this decision is searched in two phases
        self._pondered = False          # the searcher's trees hold a ponder on the opponent's time
        self.ponder_figures: dict[str, Any] | None = None   # what the last ponder did
        if endgame not in ENDGAME_MODES:
            raise BotSpecError(f"endgame: expected {' or '.join(ENDGAME_MODES)}, got {endgame!r}")
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
        taken from a pyspiel state's history (``observations()``).

        The move's clock starts here: whatever this call does (the exact
        solver's table allocated at the first solvable decision, the solve,
        the search) fits in the budget.  In the solvable region with
        ``endgame=exact`` the solver runs on its own thread beside the
        search (:meth:`_search_beside_solver`)."""
        start = _budget.clock()
        core = _core_of(state)
        check_net = getattr(self.search_engine, "check_net", None)
        if check_net is not None:    # a network of another game is refused, before any solve
            check_net(core)
        legal = core.legal_actions()
        if len(legal) == 1:
            return {"action": legal[0], "policy": {legal[0]: 1.0}, "value": None}
        if observations is None:
            observations = self.observations(state)
        self._plan_clock(core)
        try:
            if self.endgame == "exact" and solvable(core):
                return self._search_beside_solver(core, observations, start)
            if self.endgame == "before" and solvable(core):
                return self._search_after_solver(core, observations, start)
            self.endgame_share = next_endgame_share(self.endgame_share, None)
            stats = self._search(core, observations, self._time_left(start))
            return self._searched_answer(core, stats)
        finally:
            if self.clock == "game" and self.time and not self.iterations:
                self.bank = max(0.0, self.bank + self.time - (_budget.clock() - start))

    def _plan_clock(self, core: Core) -> None:
        """``clock=game``: what this decision may draw from the bank (none
        with ``clock=move`` or an iteration budget), and whether it is
        probed first (every decision but the critical one)."""
        self._extra, self._probe = 0.0, False
        if self.clock != "game" or not self.time or self.iterations:
            return
        if core.turn < core.config.turns:
            self._critical_done = False     # a new game, or not yet the last turn
        room = min(self.bank, (CLOCK_CAP - 1.0) * self.time)
        if solvable(core) and not self._critical_done:
            self._critical_done = True
            self._extra = min(room, CLOCK_CRITICAL * self.time)
        else:
            self._extra = min(room, CLOCK_CLOSE * self.time)
            self._probe = True

    def _time_left(self, start: float) -> float:
        """The seconds of this move's time budget left since ``start`` (on
        ``bots._budget``'s clock; 0.0 for an iteration budget alone)."""
        if not self.time:
            return 0.0
        return max(self.time - (_budget.clock() - start), 1e-3)

    def _search(self, core: Core, observations: Observations | None, time_limit: float,
                stop: Callable[[], bool] | None = None) -> dict[str, Any]:
        """The search of this decision within ``time_limit`` (and the
        iteration budget); with the game clock, in two phases (see
        :data:`CLOCK_PROBE`), or with the critical decision's extra time."""
        keep, pondered = self._pondered_root(core)
        before = self.search_engine.searched if keep else 0
        if self._probe:
            stats = self._search_in_phases(core, observations, time_limit, stop, keep)
        else:
            options = {**self.search_options(), **({"keep": True} if keep else {})}
            stats = self.search_engine.search(
                core, iterations=self.iterations, time_limit=time_limit + self._extra,
                observations=observations, stop=stop, **options)
        stats["pondered_visits"] = pondered
        stats["pondered_iterations"] = before
        self.last_stats = stats
        return stats

    def _pondered_root(self, core: Core) -> tuple[bool, int]:
        """Whether this decision's search goes on with the tree pondered on
        the opponent's time (it does when that tree reached this decision's
        information set), and the visits it had given it: 0 otherwise."""
        if not self._pondered:
            return False, 0
        self._pondered = False
        found = self.search_engine.node_stats(core)
        if found is None or not found["visits"]:
            return False, 0
        return True, int(found["visits"])

    def ponder(self, core: Core, stop: Callable[[], bool], cap: float) -> int:
        """Thinks on the opponent's time: searches ``core``, the opponent's
        decision, with worlds drawn from this bot's own information, until
        ``stop()`` says True or ``cap`` seconds have passed.  The trees are
        kept: they are keyed by information sets, so the part under the
        opponent's actual move holds the nodes of this bot's next decisions,
        and that decision's search goes on with them (:meth:`_search`).
        Only ISMCTS with a time budget ponders (an iteration budget stays
        deterministic); returns the iterations searched (0: none)."""
        if not isinstance(self.search_engine, ISMCTS) or self.iterations or not self.time \
                or core.is_terminal() or core.is_chance() or core.current_player() == self.player:
            return 0
        if self.endgame != "off" and solvable(core):
            return self._ponder_exactly(core, stop, cap)
        stats = self.search_engine.search(core, time_limit=cap, stop=stop,
                                          searcher=self.player)
        self._pondered = True
        self.ponder_figures = {"kind": "search", "iterations": int(stats["iterations"])}
        return int(stats["iterations"])

    def _ponder_exactly(self, core: Core, stop: Callable[[], bool], cap: float) -> int:
        """Pondering in the solvable region (nothing hidden): the exact
        solver works on the opponent's decision in slices of
        :data:`PONDER_SLICE` seconds until it finishes, ``stop()`` or the
        cap; its table keeps the bounds of every position it reached, the
        positions after the opponent's move among them, so the bot's own
        solve starts from them.  Returns the positions visited."""
        start = _budget.clock()
        nodes = 0
        solver = self.endgame_solver()
        complete = False
        while not stop():
            left = cap - (_budget.clock() - start)
            if left <= 0:
                break
            result = solve_endgame(core, max_seconds=min(PONDER_SLICE, left), every_action=False,
                                   solver=solver, keep_table=True)
            nodes += result.nodes
            if result.complete:
                complete = True
                break
        self.ponder_figures = {"kind": "exact", "nodes": nodes, "complete": complete}
        return nodes

    def _search_in_phases(self, core: Core, observations: Observations | None,
                          time_limit: float, stop: Callable[[], bool] | None,
                          keep: bool = False) -> dict[str, Any]:
        """``clock=game``: CLOCK_PROBE of the time, then, unless the root is
        obvious (:func:`is_obvious`) or the search was stopped, the rest of
        it on the same trees, with the bank's extra when the root is close
        (:func:`is_close`)."""
        start = _budget.clock()
        stats = self.search_engine.search(core, time_limit=CLOCK_PROBE * time_limit,
                                          observations=observations, stop=stop, keep=keep)
        if (stop is not None and stop()) or is_obvious(stats):
            stats["clock"] = "obvious" if is_obvious(stats) else "stopped"
            return stats
        extra = self._extra if is_close(stats) else 0.0
        left = max(time_limit + extra - (_budget.clock() - start), 1e-3)
        seconds = stats["seconds"]
        stats = self.search_engine.search(core, time_limit=left, observations=observations,
                                          stop=stop, keep=True)
        stats["seconds"] += seconds
        stats["clock"] = "close" if extra else "searched"
        return stats

    def _searched_answer(self, core: Core, stats: dict[str, Any]) -> dict[str, Any]:
        """The analysis of a search: its choice (or, in a decided game, the
        rule's), its values and statistics."""
        chosen = self.choose(stats)
        if self.decided != "off" and is_decided(stats):
            action = decided_action(core, self.decided)
            chosen = {**chosen, "action": action, "best": action, "decided": True,
                      "search_action": chosen["action"]}
        return {**chosen, "value": stats["value"],
                "value_ci95": stats["value_ci95"], "stats": stats}

    def _search_beside_solver(self, core: Core, observations: Observations | None,
                              start: float) -> dict[str, Any]:
        """A decision of the solvable region with ``endgame=exact``: the
        exact solver on a thread of its own, within ``endgame_share`` of
        the budget (seconds, or nodes for an iteration budget), and the
        search beside it on its threads for the whole budget.  A finished
        solve decides the move (its exact answer); with a time budget alone
        it also ends the search at once, so the move takes only what the
        solve took.  With an iteration budget the search always runs all
        its iterations, so that the same seed gives the same decisions
        from one move to the next.  The back-off of the share follows the
        attempt (:func:`next_endgame_share`)."""
        share = self.endgame_share
        box: dict[str, Any] = {}
        solver = self.endgame_solver()

        def solve() -> None:
            try:
                box["solution"] = solve_endgame(
                    core, max_nodes=int(share * self.endgame_nodes_per_iteration
                                        * self.iterations),
                    max_seconds=share * self._time_left(start) if self.time else 0.0,
                    every_action=self.endgame_every_action, solver=solver, keep_table=True)
            except BaseException as error:  # re-raised by the calling thread
                box["error"] = error
            finally:
                box["seconds"] = _budget.clock() - start

        def solved() -> bool:
            solution = box.get("solution")
            return solution is not None and solution.complete

        thread = threading.Thread(target=solve, name="endgame", daemon=True)
        thread.start()
        try:
            stats = self._search(core, observations, self._time_left(start),
                                 stop=solved if not self.iterations else None)
        finally:
            thread.join()
        if "error" in box:
            raise box["error"]
        exact = box["solution"]
        self.endgame_share = next_endgame_share(share, exact)
        timing = {"endgame_share": share, "endgame_seconds": box["seconds"],
                  "endgame_complete": bool(exact.complete),
                  "search_iterations": stats["iterations"]}
        if exact.complete:
            answer = self._exact_answer(core, exact)
            answer["stats"].update(timing)
            return answer
        stats.update(timing)
        return self._searched_answer(core, stats)

    def _search_after_solver(self, core: Core, observations: Observations | None,
                             start: float) -> dict[str, Any]:
        """``endgame=before``, the solver's place until issue 47 (kept as
        the ruler of the match that moved it beside the search): the exact
        solve first, on the calling thread, within ``endgame_share`` of the
        budget, then the search with the rest of it."""
        exact, spent = self.solve_exactly(core, self.endgame_every_action,
                                          share=self.endgame_share)
        self.endgame_share = next_endgame_share(self.endgame_share, exact)
        if exact is not None and exact.complete:
            return self._exact_answer(core, exact)
        return self._searched_answer(core, self._search(core, observations,
                                                        self._time_left(start)))

    def reseed(self, seed: int) -> None:
        """Seeds the searcher's trees (and a mixed strategy's draw) again."""
        self.search_engine.reseed(seed)
        if hasattr(self, "_rng"):
            self._rng = random.Random(seed)

    def endgame_solver(self) -> EndgameSolver:
        """The exact solver this bot keeps (its table of bounds kept from move
        to move), taken from the process's pool at the first need."""
        if self._endgame_solver is None:
            self._endgame_solver = take_endgame_solver()
        return self._endgame_solver

    def close(self) -> None:
        """The game is over: the solver's table goes back to the process's
        pool, cleared, for the next bot (its 56 MiB allocated once per
        process, not once per game)."""
        if self._endgame_solver is not None:
            give_back_endgame_solver(self._endgame_solver)
            self._endgame_solver = None

    def search_options(self) -> dict[str, Any]:
        """Extra keyword arguments of this bot's searches during play."""
        return {}

    def solve_exactly(self, core: Core, every_action: bool = False,
                      share: float = ENDGAME_SHARE) -> tuple[Solution | None, float]:
        """With ``endgame=exact`` and ``core`` in the solvable region, the
        exact solve within ``share`` of this bot's budget, and the seconds
        it took (on ``bots._budget``'s clock); (None, 0.0) otherwise."""
        if self.endgame == "off" or not solvable(core):
            return None, 0.0
        start = _budget.clock()
        result = solve_endgame(
            core, max_nodes=int(share * self.endgame_nodes_per_iteration * self.iterations),
            max_seconds=share * self.time, every_action=every_action,
            solver=self.endgame_solver(), keep_table=True)
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

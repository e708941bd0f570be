"""Bots for Operation Wildhorn III, named by spec strings.

Every bot implements :class:`bots.base.Bot` (which is a ``pyspiel.Bot``, so
OpenSpiel's tools can drive it) and runs on the Cython core directly.

Spec strings (the one place they are documented)::

    random                      uniform over the legal actions
    heuristic                   plays as a sensible human would (bots.heuristic)
    ismcts[:key=value,...]      information-set MCTS (bots._ismcts)
        time=S        seconds per decision (default 1.0 when no iterations)
        iterations=N  iterations per decision (deterministic for a seed)
        c=X           UCB exploration constant (default 1.4)
        rollout=R     playout policy: heuristic (default: the heuristic bot's
                      rules in C, bots._policy, at 90% of the decisions,
                      informed at the rest), heuristic-pure (the rules
                      only), informed (weighted random) or random
        nodes=N       node cap bounding memory (default 1000000)
        prior=X       progressive bias toward the heuristic bot's choice at
                      each node, X / (visits + 1) on its UCB score (default 3;
                      0: plain UCB)
    oos[:key=value,...]         online outcome-sampling MCCFR (bots._oos): a
                                mixed strategy, played by sampling it
        time=S        seconds per decision (default 1.0 when no iterations)
        iterations=N  iterations per decision (deterministic for a seed)
        epsilon=X     exploration at the updated player's nodes, in (0, 1] (default 0.3)
        nodes=N       node cap bounding memory (default 1000000)
        rollout=R     playouts past the tree, as for ismcts (default heuristic)
        threshold=X   drop root actions below this average probability, in [0, 1)
                      (default 0.2; 0 plays the average strategy as it is)
        weighting=W   linear (default: iteration t weighs t) or uniform averaging
        regret=R      rm (default, regret matching) or rm+ (regret matching+)
        baseline=B    mean (default, VR-MCCFR baselines) or none
        prior=X       warm start: a new node's regret of the heuristic bot's
                      choice starts at X (default 300; 0: regret matching
                      starts uniform)
        reuse=yes|no  go on with the previous move's tree when it holds the
                      new decision's information set (default no: measured
                      weaker, results/oos-variants.md); it acts where one
                      bot plays a whole game (tournaments,
                      pyspiel.evaluate_bots), not in play or advise, which
                      search every decision afresh
    openspiel-ismcts[:sims=N,time=S,c=X]
                    OpenSpiel's own Python ISMCTS with a random rollout, the
                    external baseline (default 300 simulations, c 1.4);
                    time=S runs its simulations until S seconds are spent
                    (instead of sims)

Every bot takes a seed: the same seed gives the same decisions (for ISMCTS
and OOS, with an iteration budget).
"""

from bots.base import Bot, BotSpecError
from bots.registry import SEARCH_BOTS, make_bot, parse_spec

__all__ = ["Bot", "BotSpecError", "SEARCH_BOTS", "make_bot", "parse_spec"]

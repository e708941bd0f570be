"""The exact solvers: tabular CFR+ and MCCFR over an enumerated game graph,
exact best response and NashConv (:mod:`exact.cfr`), and the exact
last-turn solver (:mod:`exact.endgame`), which the bots call at the root
when nothing is hidden any more.

Imports only the engine (:mod:`solver`)."""

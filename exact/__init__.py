"""The exact solvers: tabular CFR+ and MCCFR over an enumerated game graph,
exact best response and NashConv (tools beside the bots, not players).

Imports only the engine (:mod:`solver`)."""

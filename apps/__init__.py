"""The applications: the ``wildhorn-solve`` command line, terminal play,
advice, tournaments and benchmarks.  They import the layers below them
(:mod:`solver`, :mod:`bots`, :mod:`exact`); nothing imports them."""

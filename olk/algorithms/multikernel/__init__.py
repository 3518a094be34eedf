"""Online multiple kernel classification (OMKC, Hoi et al. 2013; the SPA paper's Table 5): the shared core in core.py,
the bounded variants' core in bounded.py.

A learner module registers itself when imported (:mod:`olk.algorithms.registry` imports it on demand, or
every module with :func:`~olk.algorithms.registry.load_all`), so a new learner here is one new module."""

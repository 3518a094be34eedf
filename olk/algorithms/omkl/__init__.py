"""Online multiple kernel learning with mistake bounds (Jin, Hoi & Yang, ALT 2010), Algorithms 1-6: the shared core
in core.py, the theorems' bounds in bounds.py.

A learner module registers itself when imported (:mod:`olk.algorithms.registry` imports it on demand, or
every module with :func:`~olk.algorithms.registry.load_all`), so a new learner here is one new module."""

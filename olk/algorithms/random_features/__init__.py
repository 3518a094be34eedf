"""Random-feature online multi-kernel regression (Raker, OMKL-AKS, AMKL, AMKL-AKS): feature maps and the Raker core
in core.py.

A learner module registers itself when imported (:mod:`olk.algorithms.registry` imports it on demand, or
every module with :func:`~olk.algorithms.registry.load_all`), so a new learner here is one new module."""

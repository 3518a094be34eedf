"""Sparse online kernel logistic regression (Zhang et al., AAAI 2012) and its batch baselines: online core in core.py,
batch core in batch.py.

A learner module registers itself when imported (:mod:`olk.algorithms.registry` imports it on demand, or
every module with :func:`~olk.algorithms.registry.load_all`), so a new learner here is one new module."""

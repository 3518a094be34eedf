"""Batch kernel SVM baselines: LIBSVM (scikit-learn's SVC) and kernel Pegasos.

A learner module registers itself when imported (:mod:`olk.algorithms.registry` imports it on demand, or
every module with :func:`~olk.algorithms.registry.load_all`), so a new learner here is one new module."""

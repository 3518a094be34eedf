"""Multi-class online kernel classifiers (K score functions on one SV pool, the ``multiclass`` task): the
Perceptron, PA-I and SPA with the max-score update, and the budget learners RBP, Forgetron, BPA-S and BOGD that
remove whole SVs from all K classes; what they share is in core.py.

A learner module registers itself when imported (:mod:`olk.algorithms.registry` imports it on demand, or
every module with :func:`~olk.algorithms.registry.load_all`), so a new learner here is one new module."""

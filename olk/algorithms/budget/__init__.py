"""Budget online kernel classifiers (the SPA paper's bounded baselines): RBP, Forgetron, BPA-S, BOGD, Projectron,
Projectron++, and BSGD (JMLR 2012); budget maintenance steps in core.py.

A learner module registers itself when imported (:mod:`olk.algorithms.registry` imports it on demand, or
every module with :func:`~olk.algorithms.registry.load_all`), so a new learner here is one new module."""

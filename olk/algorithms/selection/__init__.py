"""Online kernel selection (Yang et al., AAAI 2012) and its baselines: the shared protocol in core.py, the OKS
algorithm's core in oks_core.py.

A learner module registers itself when imported (:mod:`olk.algorithms.registry` imports it on demand, or
every module with :func:`~olk.algorithms.registry.load_all`), so a new learner here is one new module."""

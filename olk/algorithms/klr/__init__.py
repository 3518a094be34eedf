"""Sparse online kernel logistic regression (Zhang et al., AAAI 2012) and its batch baselines: online core in core.py,
batch core in batch.py.

Every module of this package is imported when the package is (:func:`olk.algorithms.registry.import_modules`):
a learner module registers itself, so a new learner here is one new module."""
from ..registry import import_modules

import_modules(__name__, __path__)

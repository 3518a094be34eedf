"""Multi-class online kernel classifiers (K score functions on one SV pool, the ``multiclass`` task): the
Perceptron, PA-I and SPA with the max-score update, and the budget learners RBP, Forgetron, BPA-S and BOGD that
remove whole SVs from all K classes; what they share is in core.py.

Every module of this package is imported when the package is (:func:`olk.algorithms.registry.import_modules`):
a learner module registers itself, so a new learner here is one new module."""
from ..registry import import_modules

import_modules(__name__, __path__)

"""Random-feature online multi-kernel regression (Raker, OMKL-AKS, AMKL, AMKL-AKS): feature maps and the Raker core
in core.py.

Every module of this package is imported when the package is (:func:`olk.algorithms.registry.import_modules`):
a learner module registers itself, so a new learner here is one new module."""
from ..registry import import_modules

import_modules(__name__, __path__)

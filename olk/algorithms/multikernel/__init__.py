"""Online multiple kernel classification (OMKC, Hoi et al. 2013; the SPA paper's Table 5): the shared core in core.py,
the bounded variants' core in bounded.py.

Every module of this package is imported when the package is (:func:`olk.algorithms.registry.import_modules`):
a learner module registers itself, so a new learner here is one new module."""
from ..registry import import_modules

import_modules(__name__, __path__)

"""Online multiple kernel learning with mistake bounds (Jin, Hoi & Yang, ALT 2010), Algorithms 1-6: the shared core
in core.py, the theorems' bounds in bounds.py.

Every module of this package is imported when the package is (:func:`olk.algorithms.registry.import_modules`):
a learner module registers itself, so a new learner here is one new module."""
from ..registry import import_modules

import_modules(__name__, __path__)

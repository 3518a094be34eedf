"""Online kernel selection (Yang et al., AAAI 2012) and its baselines: the shared protocol in core.py, the OKS
algorithm's core in oks_core.py.

Every module of this package is imported when the package is (:func:`olk.algorithms.registry.import_modules`):
a learner module registers itself, so a new learner here is one new module."""
from ..registry import import_modules

import_modules(__name__, __path__)

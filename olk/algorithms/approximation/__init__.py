"""Online kernel learning by functional approximation (Lu, Hoi, Wang, Zhao & Liu, JMLR 2016): FOGD (random Fourier
features) and NOGD (the Nystrom map of B support vectors), each linear OGD on its map; what they share in core.py.

Every module of this package is imported when the package is (:func:`olk.algorithms.registry.import_modules`):
each learner module registers itself."""
from ..registry import import_modules

import_modules(__name__, __path__)

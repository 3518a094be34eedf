"""Online kernel learning by functional approximation (Lu, Hoi, Wang, Zhao & Liu, JMLR 2016): FOGD (random Fourier
features) and NOGD (the Nystrom map of B support vectors), each linear OGD on its map; what they share in core.py."""
from . import fogd, nogd  # noqa: F401  (each module registers its learner)

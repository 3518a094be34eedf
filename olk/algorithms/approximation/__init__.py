"""Online kernel learning by functional approximation (Lu, Hoi, Wang, Zhao & Liu, JMLR 2016): FOGD (random Fourier
features) and NOGD (the Nystrom map of B support vectors), each linear OGD on its map; what they share in core.py.

A learner module registers itself when imported (:mod:`olk.algorithms.registry` imports it on demand, or
every module with :func:`~olk.algorithms.registry.load_all`)."""

"""olk: online kernel learning, reproduced.

Algorithms from five online kernel learning papers (SPA, sparse online KLR, OKS, OMKL, AMKL/Raker)
behind one shared Cython support-vector core, with an experiment engine that reruns the papers' tables.
"""
__version__ = "0.1.0"


def load(path):
    """Read a model saved with ``model.save(path)`` / ``olk.persist.save`` (no pickle); see :mod:`olk.persist`."""
    from .persist import load as _load
    return _load(path)

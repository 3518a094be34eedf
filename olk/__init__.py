"""olk: online kernel learning, reproduced.

Algorithms from five online kernel learning papers (SPA, sparse online KLR, OKS, OMKL, AMKL/Raker)
behind one shared Cython support-vector core, with an experiment engine that reruns the papers' tables.
Every algorithm is also a scikit-learn estimator: ``olk.estimator("spa", beta=20)`` or the classes of
:mod:`olk.estimators` (``SPAClassifier``, ``RakerRegressor``, ...).
"""
from ._version import __version__  # noqa: F401


def load(path):
    """Read a model saved with ``model.save(path)`` / ``olk.persist.save`` (no pickle): a learner, or the
    scikit-learn estimator that was saved; see :mod:`olk.persist`."""
    from .persist import load as _load
    return _load(path)


def estimator(name: str, **params):
    """The scikit-learn estimator of the learner registered as `name`, e.g. ``olk.estimator("spa", beta=20)``
    (:func:`olk.estimators.estimator`)."""
    from .estimators import estimator as _estimator
    return _estimator(name, **params)

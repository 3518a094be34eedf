"""olk: online kernel learning, reproduced.

Algorithms from five online kernel learning papers (SPA, sparse online KLR, OKS, OMKL, AMKL/Raker)
behind one shared Cython support-vector core, with an experiment engine that reruns the papers' tables.
Every algorithm is also a scikit-learn estimator: ``olk.estimator("spa", beta=20)`` or the classes of
:mod:`olk.estimators` (``SPAClassifier``, ``RakerRegressor``, ...).
"""
from ._version import __version__  # noqa: F401


def save(model, path) -> None:
    """Write `model` (a learner, trained or not, or a fitted scikit-learn estimator of :mod:`olk.estimators`) to
    one file (an ``.npz`` archive + JSON, no pickle); :func:`load` reads it back.  See :mod:`olk.persist`."""
    from .persist import save as _save
    _save(model, path)


def load(path):
    """Read a model written by :func:`save` (no pickle; only olk's registered learners, its value types and a short
    allow-list are ever built): a learner, or the scikit-learn estimator that was saved; see :mod:`olk.persist`."""
    from .persist import load as _load
    return _load(path)


def estimator(name: str, **params):
    """The scikit-learn estimator of the learner registered as `name`, e.g. ``olk.estimator("spa", beta=20)``
    (:func:`olk.estimators.estimator`)."""
    from .estimators import estimator as _estimator
    return _estimator(name, **params)

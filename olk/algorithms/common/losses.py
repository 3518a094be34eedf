"""The losses and small checks the single-kernel online classifiers share.

``hinge(y, f) = max(0, 1 - y f)`` (OGD, PA-I, BPA-S, BOGD) and ``check_shrinkage``, the cross-parameter check of a
learner whose step shrinks every coefficient by (1 - eta lam) (it must stay in [0, 1)).

>>> hinge(1.0, 0.25), hinge(-1.0, -2.0)
(0.75, 0.0)
"""
from __future__ import annotations

from ...errors import ConfigError


def check_shrinkage(cls, p: dict, where: str) -> None:
    """eta*lam < 1, so that the per-step shrinkage factor 1 - eta*lam stays positive (OGD, BOGD)."""
    if p["eta"] * p["lam"] >= 1:
        raise ConfigError(f"{where}: {cls.display} needs eta*lam < 1 (got eta*lam={p['eta'] * p['lam']:g})")


def hinge(y: float, f: float) -> float:
    """Hinge loss [1 - y f]_+."""
    m = 1.0 - y * f
    return m if m > 0.0 else 0.0

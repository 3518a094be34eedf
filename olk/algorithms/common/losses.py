"""The losses, step rules and small checks the online classifiers share, each written once.

* ``hinge(y, f) = max(0, 1 - y f)`` (OGD, PA-I, BPA-S, BOGD);
* :func:`pa_step`: PA-I's step tau = min(C, l / ||z||^2) (Crammer et al., JMLR 2006), used by PA-I, OMKC's PA rows,
  BPA-S's new SV, the multi-class PA-I (||z||^2 = 2 k(x, x) for a Kesler vector) and, with C = eta / rho, SPA;
* the SPA paper's sampled PA update (Lu et al., ACM TIST 2018, Algorithm 1 and Proposition 1): the sampling
  probability :func:`sampling_probability` rho = min(alpha, l) / beta, the step :func:`spa_step`
  tau = min(eta / rho, l / ||z||^2), and its parameters :data:`SPA_PARAMS` with their check
  :func:`check_spa_params` (beta >= alpha): binary SPA, multi-class SPA and BOMKC(SPA) take them from here;
* ``check_shrinkage``, the cross-parameter check of a learner whose step shrinks every coefficient by
  (1 - eta lam) (it must stay in [0, 1)).

>>> hinge(1.0, 0.25), hinge(-1.0, -2.0)
(0.75, 0.0)
>>> pa_step(1.0, 0.5, 2.0), pa_step(0.1, 0.5, 2.0), pa_step(0.1, 0.5, 0.0)
(0.25, 0.1, 0.1)
>>> rho = sampling_probability(1.0, 20.0, 0.5); rho, spa_step(1.0, rho, 0.5, 1.0)
(0.025, 0.5)
"""
from __future__ import annotations

import numpy as np

from ...errors import ConfigError
from ..registry import POSITIVE, Param

#: SPA's parameters (Algorithm 1): the loss cap alpha, the sampling scale beta and the aggressiveness eta, with
#: the binary paper's defaults; BOMKC(SPA) takes them with its own defaults (``dataclasses.replace``)
SPA_PARAMS = (
    Param("alpha", 1.0, "cap on the loss used for the sampling probability", **POSITIVE),
    Param("beta", 20.0, "sampling scale: Pr(Z_t=1) = min(alpha, l_t)/beta; needs beta >= alpha", **POSITIVE),
    Param("eta", 1.0, "aggressiveness (PA-I's C)", **POSITIVE),
)


def check_spa_params(cls, p: dict, where: str) -> None:
    """beta >= alpha, so that the sampling probability rho = min(alpha, l)/beta stays <= 1."""
    if p["beta"] < p["alpha"]:
        raise ConfigError(f"{where}: {cls.display} needs beta >= alpha so that rho_t <= 1 (got beta={p['beta']:g} < "
                          f"alpha={p['alpha']:g})")


def sampling_probability(alpha: float, beta: float, loss):
    """rho = min(alpha, l) / beta: the probability that SPA learns from an example of loss l (Algorithm 1); l
    may be an array (one loss per kernel classifier)."""
    return (min(alpha, loss) if isinstance(loss, float) else np.minimum(alpha, loss)) / beta


def pa_step(cap: float, loss: float, sqnorm: float) -> float:
    """PA-I's step size tau = min(cap, l / ||z||^2); the cap alone when ||z||^2 = 0 (a zero row under a
    polynomial kernel: any step leaves the loss unchanged)."""
    return min(cap, loss / sqnorm) if sqnorm > 0 else cap


def spa_step(eta: float, rho: float, loss: float, sqnorm: float) -> float:
    """SPA's step on a sampled example (Z = 1), Proposition 1: tau = min(eta Z / rho, l / ||z||^2)."""
    return pa_step(eta / rho, loss, sqnorm)


def check_shrinkage(cls, p: dict, where: str) -> None:
    """eta*lam < 1, so that the per-step shrinkage factor 1 - eta*lam stays positive (OGD, BOGD)."""
    if p["eta"] * p["lam"] >= 1:
        raise ConfigError(f"{where}: {cls.display} needs eta*lam < 1 (got eta*lam={p['eta'] * p['lam']:g})")


def hinge(y: float, f: float) -> float:
    """Hinge loss [1 - y f]_+."""
    m = 1.0 - y * f
    return m if m > 0.0 else 0.0

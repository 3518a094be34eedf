"""OMKC(DD) with PA-I kernel classifiers: the "DDPA" row of the SPA paper's Table 5 (Lu et al., TIST 2018,
Section 6.2.3; OMKC of Hoi, Jin, Zhao & Yang, Machine Learning 2013, SPA ref [20], with each classifier learned
by PA-I, Crammer et al. 2006).  Deterministic update and combination as OMKC(DD); classifier i takes the step
f_i <- f_i + tau_i y_t k_i(x_t, .), tau_i = min(eta, l_i / k_i(x_t, x_t)), on every margin error
l_i = [1 - y_t f_i(x_t)]_+ > 0, and is discounted (theta_i <- 0.99 theta_i) on a mistake.  eta = 0.1 is the
paper's "learning rate" of Section 6.2.4, read as PA-I's aggressiveness C.

>>> from olk.algorithms import make
>>> from olk.data import load_dataset
>>> d = load_dataset("a9a-small")                         # bundled sample: 2,000 rows, 123 features
>>> X, y, X_test, y_test = d.X[:1000], d.y[:1000], d.X[1000:], d.y[1000:]
>>> m = make("omkc_ddpa", kernel="spa16").partial_fit(X, y)
>>> m.n_sv_output, float((m.predict(X_test) == y_test).mean())
(12277, 0.821)
"""
from __future__ import annotations

from ..registry import register
from .core import COMBINE, DISCOUNT, ETA, OMKCCore


@register
class OMKCDDPA(OMKCCore):
    """OMKC(DD)-PA (SPA Table 5 row "DDPA"): OMKC(DD) whose kernel classifiers take PA-I steps (eta = C = 0.1)."""

    name = "omkc_ddpa"
    display = "OMKC(DDPA)"
    style = ("green", "s", "-.")
    params = (DISCOUNT, ETA, COMBINE)
    fixed = {"component": "pa"}     # PA-I steps (eta = C)

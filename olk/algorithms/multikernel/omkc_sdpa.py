"""OMKC(SD) with PA-I kernel classifiers: the "SDPA" row of the SPA paper's Table 5 (Lu et al., TIST 2018,
Section 6.2.3; OMKC of Hoi, Jin, Zhao & Yang, Machine Learning 2013, SPA ref [20]).  Stochastic update as
OMKC(SD): classifier i is sampled with probability (1 - delta) theta_i / max theta + delta (delta = 0.001); a
sampled classifier takes the PA-I step tau_i = min(eta, l_i / k_i(x_t, x_t)) on a margin error and is discounted
on a mistake (``hedge: mistake``, y f_i <= 0, the default) or, as the SPA paper's Algorithms print the indicator
and as its Table 5 SDPA row behaves, only when y f_i < 0 (``hedge: strict``; configs/spa_table5.yaml).

>>> from olk.algorithms import make
>>> from olk.data import load_dataset
>>> d = load_dataset("a9a-small")                         # bundled sample: 2,000 rows, 123 features
>>> X, y, X_test, y_test = d.X[:1000], d.y[:1000], d.X[1000:], d.y[1000:]
>>> m = make("omkc_sdpa", kernel="spa16", random_state=0).partial_fit(X, y)
>>> m.n_sv_output, float((m.predict(X_test) == y_test).mean())
(9642, 0.814)
>>> s = make("omkc_sdpa", kernel="spa16", random_state=0, hedge="strict").partial_fit(X, y)
>>> s.n_sv_output <= m.n_sv_output                        # a classifier scoring exactly 0 is never discounted
True
"""
from __future__ import annotations

from ..registry import register
from .core import COMBINE, DELTA, DISCOUNT, ETA, HEDGE, OMKCCore


@register
class OMKCSDPA(OMKCCore):
    """OMKC(SD)-PA (SPA Table 5 row "SDPA"): OMKC(SD) whose sampled kernel classifiers take PA-I steps."""

    name = "omkc_sdpa"
    display = "OMKC(SDPA)"
    style = ("purple", "8", ":")
    stochastic = True
    params = (DISCOUNT, DELTA, ETA, COMBINE, HEDGE)
    fixed = {"component": "pa"}     # PA-I steps (eta = C)

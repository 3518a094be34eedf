"""OMKC(U): online multiple kernel classification with a Uniform combination (Hoi, Jin, Zhao & Yang, "Online
multiple kernel classification", Machine Learning 90(2), 2013; SPA paper ref [20]).  The "U" row of the SPA
paper's Table 5 (Lu et al., TIST 2018, Section 6.2.3): one kernel Perceptron per kernel, as in OMKC(DD), voting
with the fixed weights theta_i = 1/m (no Hedge update).  Reading: the vote is of the classifiers' signs, as
DD's is (see ``results/notes/spa_tist2018_table5.md`` for why the paper's U may combine real-valued scores).

>>> from olk.algorithms import make
>>> from olk.data import load_dataset
>>> d = load_dataset("a9a-small")                         # bundled sample: 2,000 rows, 123 features
>>> X, y, X_test, y_test = d.X[:1000], d.y[:1000], d.X[1000:], d.y[1000:]
>>> u = make("omkc_u", kernel="spa16").partial_fit(X, y)  # the SPA paper's 16 kernels
>>> u.n_sv_output, [float(w) for w in set(u.weights_)]    # the same SVs as omkc_dd; weights stay 1/16
(5705, [0.0625])
"""
from __future__ import annotations

from ..registry import register
from .core import COMBINE, ETA, OMKCCore


@register
class OMKCU(OMKCCore):
    """OMKC(U) (Hoi et al. 2013; SPA Table 5 row "U"): OMKC(DD)'s kernel Perceptrons, uniform vote theta_i = 1/m."""

    name = "omkc_u"
    display = "OMKC(U)"
    style = ("skyblue", "8", "-")
    params = (COMBINE,)
    #: OMKC(DD) with theta_i <- theta_i * 1 (the weights stay 1/m) and kernel Perceptrons (eta unused)
    fixed = {"discount": 1.0, "component": "perceptron", "eta": ETA.default}

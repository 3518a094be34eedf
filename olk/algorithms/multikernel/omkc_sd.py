"""OMKC(SD): online multiple kernel classification with Stochastic update and Deterministic combination,
Hoi, Jin, Zhao & Yang, "Online multiple kernel classification", Machine Learning 90(2), 2013 (SPA ref [20];
cf. Algorithm 4 "MUA for OMKL-P" of Jin, Hoi & Yang, ALT 2010).  The unbounded "SD" baseline of the SPA
paper's Table 5 (Lu et al., TIST 2018, Section 6.2.3; Algorithm 4 without the budget step; delta = 0.001 and
discount 0.99 from Section 6.2.4).

Each step every kernel classifier i is sampled with probability p_i = (1 - delta) theta_i / max_j theta_j +
delta; only sampled classifiers that err are updated (Perceptron) and discounted (Hedge), so poor kernels
(low theta) rarely add SVs.  All classifiers share one SV pool (one stored row per example).
``component='pa'`` gives the paper's "SDPA" row: a sampled classifier takes a PA-I step
tau_i = min(eta, l_i / k_i(x_t, x_t)) on a margin error l_i > 0 (eta = 0.1) and is discounted on a mistake.

>>> from olk.algorithms import make
>>> from olk.data import load_dataset
>>> from olk.kernels import KernelSet
>>> d = load_dataset("a9a-small")                         # bundled sample: 2,000 rows, 123 features
>>> X, y, X_test, y_test = d.X[:1000], d.y[:1000], d.X[1000:], d.y[1000:]
>>> model = make("omkc_sd", kernel=KernelSet.preset("spa16"), random_state=0)
>>> model.partial_fit(X, y).n_sv_output < 5705           # fewer SVs than omkc_dd's 5,705 on these rows
True
>>> model.n_sv_output, model.n_sv                         # SVs summed over the 16 classifiers; stored once
(3868, 853)
>>> float((model.predict(X_test) == y_test).mean())        # accuracy on the other 1,000 rows
0.807
>>> sdpa = make("omkc_sd", kernel=KernelSet.preset("spa16"), component="pa", random_state=0).partial_fit(X, y)
>>> sdpa.n_sv_output, float((sdpa.predict(X_test) == y_test).mean())      # the paper's "SDPA"
(9642, 0.814)
"""
from __future__ import annotations

from ..registry import register
from .core import COMBINE, COMPONENT, DELTA, DISCOUNT, ETA, OMKCCore


@register
class OMKCSD(OMKCCore):
    """OMKC(SD) (Hoi et al., Machine Learning 2013; SPA ref [20]; SPA Table 5 row "SD").

    For t = 1..T, with theta_1 = 1/m:  predict sign(sum_i theta_i sign(f_i(x_t)));
    p_i = (1 - delta) theta_i / max_j theta_j + delta;  m_i ~ Bernoulli(p_i);  z_i = I(y_t f_i(x_t) <= 0);
    f_i <- f_i + m_i z_i y_t k_i(x_t, .);  theta_i <- theta_i discount^{m_i z_i};  theta /= sum theta.
    Readings: p_i uses theta_t (before this step's discounts), as SPA Algorithm 4 computes it at the top of
    each i; the m Bernoulli draws are ``self.rng.random(m) < p`` (one uniform per kernel, in kernel order,
    every step); an unsampled classifier is neither updated nor discounted (Algorithm 4, Hoi et al.).
    ``component='pa'`` (SPA Table 5 "SDPA"): if m_i and l_i = [1 - y_t f_i(x_t)]_+ > 0:
    f_i <- f_i + tau_i y_t k_i(x_t, .), tau_i = min(eta, l_i / k_i(x_t, x_t)); theta discounted on m_i z_i.
    Other readings: see ``omkc_dd.OMKCCore``.
    """

    name = "omkc_sd"
    display = "OMKC(SD)"
    style = ("orange", "8", "--")
    stochastic = True
    params = (DISCOUNT, DELTA, COMPONENT, ETA, COMBINE)

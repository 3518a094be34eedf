"""Sparse online kernel logistic regression, the classification-margin conservative learner: Zhang, Jin,
Chen, Bu & He, "Efficient Online Learning for Large-Scale Sparse Kernel Logistic Regression", AAAI 2012,
Algorithm 2 with the sampling probability of Eq. (5).

An example updates the classifier with probability p_t = (2 - eta) / (2 - eta + eta p(y_t|f_t(x_t))), smaller
the more confidently it is already classified; the update is NC's (:mod:`~olk.algorithms.klr.klr_nc`).

>>> from olk.algorithms import make
>>> from olk.data import load_dataset
>>> d = load_dataset("a9a-small")                         # bundled sample: 2,000 rows, 123 features
>>> X, y, X_test, y_test = d.X[:1000], d.y[:1000], d.X[1000:], d.y[1000:]
>>> model = make("klr_margin", kernel={"type": "gaussian", "gamma": 0.4}, R=100, eta=1.0, random_state=0)
>>> model.partial_fit(X, y).n_sv                          # fewer SVs than NC's 1,000
607
>>> float((model.predict(X_test) == y_test).mean())
0.814
"""
from __future__ import annotations

from ...errors import ConfigError
from ..registry import register
from .core import ETA_RULE, KLR_PARAMS, OnlineKLR, expit_neg


@register
class Margin(OnlineKLR):
    """Margin — conservative online KLR by classification margin (Zhang et al., AAAI 2012, Algorithm 2).

        for t = 1..T:  p_t = (2 - eta) / (2 - eta + eta p(y_t | f_t(x_t)))          (Eq. 5)
                       Z_t ~ Bernoulli(p_t)
                       if Z_t:  f'_{t+1} = f_t - eta y_t l'(y_t f_t(x_t)) k(x_t, .) ;  f_{t+1} = pi_Omega(f'_{t+1})
                       else:    f_{t+1} = f_t
        Output:  f̂ = (1/T) sum_t f_t

    with p(y|f(x)) = 1 / (1 + e^{-y f(x)}).  Eq. (5) is a probability only for eta < 2 (the paper: "valid
    only when eta < 2"), so a larger eta, given or produced by the rule R/sqrt(T), is a one-line error.
    Theorem 3: the bound of Theorem 2, E[l̄(f̂)] <= 2/(2-eta) l̄(f*) + R^2/(eta (2-eta) T), holds unchanged.
    """

    name = "klr_margin"
    display = "Margin"
    style = ("orange", "v", "-")
    params = KLR_PARAMS

    @classmethod
    def check_params(cls, p, where):
        if p["eta"] != ETA_RULE and p["eta"] >= 2.0:
            raise ConfigError(f"{where}: Margin's sampling probability (Eq. 5) needs eta < 2 (got eta={p['eta']:g})")

    def resolve_eta(self, T):
        eta = super().resolve_eta(T)
        if eta >= 2.0:
            raise ConfigError(f"{self.name}: eta = {ETA_RULE} = {self.R:g}/sqrt({self.horizon or T}) = {eta:.4g}, but "
                              f"Margin's sampling probability (Eq. 5) needs eta < 2; use a smaller R or a number")
        return eta

    def sample_prob(self, z):
        eta = self.eta_
        p_correct = 1.0 - expit_neg(z)                # p(y_t | f_t(x_t))
        return (2.0 - eta) / (2.0 - eta + eta * p_correct)

    def neg_grad(self, z):
        return expit_neg(z)                           # -l'(z) = 1 - p(y_t | f_t(x_t))

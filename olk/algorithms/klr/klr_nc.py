"""Sparse online kernel logistic regression, the non-conservative learner NC: Zhang, Jin, Chen, Bu & He,
"Efficient Online Learning for Large-Scale Sparse Kernel Logistic Regression", AAAI 2012, Algorithm 1.

Stochastic gradient descent on the logit loss l(z) = ln(1 + e^-z) over the ball ||f||_H <= R (Eq. 2);
every example becomes a support vector.  The score is a log-odds, so the learner gives class
probabilities (``predict_proba``).  What the paper's three online learners share
(``OnlineKLR``: the step size, the projection and the output classifier) is in :mod:`olk.algorithms.klr.core`; Margin
(:mod:`~olk.algorithms.klr.klr_margin`) and Auxiliary (:mod:`~olk.algorithms.klr.klr_aux`) only say when to update
and with which gradient.

>>> from olk.algorithms import make
>>> from olk.data import load_dataset
>>> d = load_dataset("a9a-small")                         # bundled sample: 2,000 rows, 123 features
>>> X, y, X_test, y_test = d.X[:1000], d.y[:1000], d.X[1000:], d.y[1000:]
>>> model = make("klr_nc", kernel={"type": "gaussian", "gamma": 0.4}, R=100, eta="R/sqrt(T)")
>>> model.partial_fit(X, y).n_sv, round(model.eta_, 3)    # dense: every example is an SV; eta = R/sqrt(1000)
(1000, 3.162)
>>> float((model.predict(X_test) == y_test).mean())       # the averaged classifier f̂ = (1/T) sum_t f_t
0.833
>>> model.predict_proba(X_test[:2]).round(3)              # [P(-1), P(+1)] per row
array([[0.78 , 0.22 ],
       [0.624, 0.376]])
"""
from __future__ import annotations

from ..registry import register
from .core import KLR_PARAMS, OnlineKLR, expit_neg


@register
class NC(OnlineKLR):
    """NC — non-conservative online KLR (Zhang et al., AAAI 2012, Algorithm 1, Eqs. 3-4).

        for t = 1..T:  l'(y_t f_t(x_t)) = p(y_t | f_t(x_t)) - 1
                       f'_{t+1} = f_t - eta y_t l'(y_t f_t(x_t)) k(x_t, .) ;  f_{t+1} = pi_Omega(f'_{t+1})
        Output:  f̂ = (1/T) sum_t f_t

    p_t = 1 and -l'(z) = 1 / (1 + e^z) > 0: every example is an SV (a dense classifier, the drawback the
    conservative learners address).  Theorem 1: E[l̄(f̂)] <= l̄(f*) + R^2/(2 eta T) + eta/2.
    """

    name = "klr_nc"
    display = "NC"
    stochastic = False
    style = ("green", "o", "-")
    params = KLR_PARAMS

    def sample_prob(self, z):
        return 1.0

    def neg_grad(self, z):
        return expit_neg(z)

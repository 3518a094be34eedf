"""Sparse Passive-Aggressive learning (SPA): Lu, Sahoo, Zhao & Hoi, "Sparse passive-aggressive learning
for bounded online kernel methods", ACM TIST 9(4), 2018, Algorithm 1 with the closed-form update of
Proposition 1.

An example with hinge loss l_t > 0 becomes an SV with probability rho_t = min(alpha, l_t)/beta and then
takes a PA-I step; E[#SV] <= alpha T / beta (Theorem 5.2).  Online prediction uses the averaged
classifier (``output='avg'``, :mod:`olk.algorithms.common.averaged`) or the last one (``output='last'``).

>>> from olk.algorithms import make
>>> from olk.data import load_dataset
>>> d = load_dataset("a9a-small")                         # bundled sample: 2,000 rows, 123 features
>>> X, y, X_test, y_test = d.X[:1000], d.y[:1000], d.X[1000:], d.y[1000:]
>>> model = make("spa", kernel={"type": "gaussian", "gamma": 0.4}, beta=20, random_state=0)
>>> model.partial_fit(X, y).n_sv                          # sampled: far fewer SVs than PA-I's 824
44
>>> model.outputs                                         # output classifiers; the 'output' parameter picks one
('avg', 'last')
>>> [float((model.predict(X_test, output=o) == y_test).mean()) for o in model.outputs]
[0.809, 0.807]
"""
from __future__ import annotations

from ..common.averaged import OUTPUT, AveragedOutput
from ..common.learner import OnlineKernelLearner
from ..common.losses import SPA_PARAMS, check_spa_params, hinge, sampling_probability, spa_step
from ..registry import register


@register
class SPA(AveragedOutput, OnlineKernelLearner):
    """SPA — Algorithm 1 with the closed-form update of Proposition 1.

    For t = 1..T:  l_t = [1 - y_t f_t(x_t)]_+ ;  rho_t = min(alpha, l_t) / beta ;
    Z_t ~ Bernoulli(rho_t) ;  if Z_t: f_{t+1} = f_t + tau_t y_t k(x_t, .),
    tau_t = min(eta Z_t / rho_t, l_t / k(x_t, x_t))  (Proposition 1).
    Output: the averaged classifier  f̄_T = (1/T) sum_{t=1..T} f_t.

    Exact averaged classifier in O(#SV): SPA never changes a coefficient after adding its SV, so an SV
    a_s k(x_s, .) added at step s belongs to f_{s+1}..f_t and

        (1/t) sum_{tau=1..t} f_tau(x) = f_t(x) - (1/t) sum_s a_s s k(x_s, x).

    The pool keeps two columns per SV, a_s and a_s * s, so one pass gives f_t and f̄_t together.
    ``output='avg'`` (default, the paper's Table 2 protocol, Section 6.1.2) predicts online with
    f̄_t; ``output='last'`` with f_t.  E[#SV] <= alpha T / beta (Theorem 5.2).
    """

    name = "spa"
    display = "SPA"
    stochastic = True
    style = ("vermillion", "*", "-")
    params = SPA_PARAMS + (OUTPUT,)
    check_params = classmethod(check_spa_params)            # beta >= alpha

    def step(self, i, y):
        self.t += 1
        t = self.t
        buf = self._buf
        self.pool.decision(self.src, i, buf)
        f = buf[0]                                   # f_t(x_t)
        f_avg = f - buf[1] / t                       # (1/t) sum_{tau<=t} f_tau(x_t)
        loss = hinge(y, f)
        if loss > 0.0:
            rho = sampling_probability(self.alpha, self.beta, loss)
            if self.rng.random() < rho:              # Z_t = 1
                a = spa_step(self.eta, rho, loss, self.pool.self_kernel(self.src, i)) * y
                self.pool.add(self.src, i, (a, a * t), t)
                self.n_updates += 1
        return f_avg if self.output == "avg" else f

    def _avg_scores(self, D):
        return D[:, 0] - D[:, 1] / self.t            # f̄_T = f_{T+1} - (1/T) sum_s a_s s k(x_s, .)

    def _last_scores(self, D):
        return D[:, 0]

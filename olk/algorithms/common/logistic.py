"""Class probabilities for the kernel logistic regression learners (the ``probabilistic`` task).

A learner whose score is a log-odds, f(x) = log P(y=+1|x) / P(y=-1|x) (KLR: p(y|f(x)) = 1/(1 + e^{-y f(x)}),
Zhang et al., AAAI 2012, the paper's first equation), lists :class:`LogisticOutput` first among its bases.
It declares ``task = "probabilistic"`` (the engine then records the online log-loss next to the accuracy,
:mod:`olk.tasks`) and adds scikit-learn's ``predict_proba`` and River's ``predict_proba_one``: column j is
the probability of ``classes_[j]``, so column 1 is P(y = +1) = sigmoid(f(x)) and ``predict`` (sign(f),
sign(0) = +1) is the class of largest probability (ties at p = 0.5 go to +1, as sign(0) does).
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from ...tasks import log_odds_to_proba


class LogisticOutput:
    """Mixin: probabilities from the log-odds ``decision_function`` of a KLR learner."""

    if TYPE_CHECKING:       # the hyper-parameters (one attribute per Param) and the learner's state, set at run time
        def __getattr__(self, name: str) -> Any: ...

    task = "probabilistic"

    def predict_proba(self, X, output: str | None = None) -> np.ndarray:
        """(n, 2) array [P(classes_[0] | x), P(classes_[1] | x)] = [1 - sigmoid(f(x)), sigmoid(f(x))]."""
        p1 = log_odds_to_proba(self.decision_function(X, output=output))
        return np.column_stack([1.0 - p1, p1])

    def predict_log_proba(self, X, output: str | None = None) -> np.ndarray:
        """log of :meth:`predict_proba`, computed without underflow: [-log(1 + e^f), -log(1 + e^-f)]."""
        f = np.asarray(self.decision_function(X, output=output), dtype=np.float64)
        return np.column_stack([-np.logaddexp(0.0, f), -np.logaddexp(0.0, -f)])

    def predict_proba_one(self, x) -> dict:
        """{label: probability} for one example (River's convention; see ``learn_one`` for ``x``)."""
        p1 = float(log_odds_to_proba(self.decision_one(x)))
        neg, pos = (-1.0, 1.0) if self.classes_ is None else (self.classes_[0], self.classes_[1])
        return {_plain(neg): 1.0 - p1, _plain(pos): p1}


def _plain(v):
    return v.item() if isinstance(v, np.generic) else v

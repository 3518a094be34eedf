"""The averaged output classifier that SPA and OSKL share: f̄_t = (1/t) sum_{tau=1..t} f_tau next to f_t.

Both learners keep two coefficient columns per SV from which one pool pass gives f_t(x) and f̄_t(x)
exactly, in O(#SV) (each learner's docstring derives its own closed form).  The ``output`` parameter
(:data:`OUTPUT`) picks the classifier used for online prediction and by ``predict``; ``outputs`` lists
the choices, and ``decision_function(X, output=...)`` scores either.  The SPA paper's Table 2 protocol
(Section 6.1.2) predicts online with the averaged classifier, hence the default ``avg``.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from ..registry import Param

#: the parameter choosing the default output classifier (the engine reads it; ``outputs`` = its choices)
OUTPUT = Param("output", "avg", "classifier used online and by predict(): avg (the averaged f̄_t) or last (f_t)",
               type=str, choices=("avg", "last"))


class AveragedOutput:
    """Mixin for an :class:`~olk.algorithms.base.OnlineKernelLearner` (list it first among the bases) with
    outputs 'avg' (f̄_t) and 'last' (f_t) from two coefficient columns.  The learner adds :data:`OUTPUT` to
    its ``params`` and implements ``_avg_scores(D)`` and ``_last_scores(D)``: the two classifiers' scores
    from ``D``, the pool's (n_rows, 2) decision matrix."""

    if TYPE_CHECKING:       # the hyper-parameters (one attribute per Param) and the learner's state, set at run time
        def __getattr__(self, name: str) -> Any: ...

    n_cols = 2
    outputs = OUTPUT.choices
    renamed = {"predict": ("output", "after olk 0.1.0")}   # 'predict' shadowed the predict() method

    def _avg_scores(self, D: np.ndarray) -> np.ndarray:  # pragma: no cover - abstract
        raise NotImplementedError

    def _last_scores(self, D: np.ndarray) -> np.ndarray:  # pragma: no cover - abstract
        raise NotImplementedError

    def _expansion_coefs(self) -> np.ndarray:
        """(n_sv, 2): column j holds the coefficients of output ``outputs[j]`` (f̄_T for 'avg', f_{T+1} for 'last'),
        so that its score is sum_s coef[s, j] k(sv_s, x).  Both outputs are linear in the pool's two columns, so
        the per-SV coefficients are the output formulas applied to the coefficient matrix itself."""
        C = self.pool.coefs
        if self.t == 0:
            return np.zeros_like(C)
        by_name = {"avg": self._avg_scores, "last": self._last_scores}
        return np.column_stack([by_name[o](C) for o in self.outputs])

    def decision_function(self, X, output: str | None = None) -> np.ndarray:
        """Scores of f̄_T = (1/T) sum_{t<=T} f_t (output='avg', the algorithm's output) or of the last
        f_{T+1} (output='last'); None: the ``output`` parameter's choice."""
        output = output or self.output
        if self.pool is None or self.t == 0:
            return super().decision_function(X)  # type: ignore[misc]  # the pool's column 0 (the next base)
        D = self.pool.decision_matrix(self._source_for(X))
        if output == "last":
            return self._last_scores(D)
        return self._avg_scores(D)

"""Evaluation protocols: what one run does with one learner on one permutation of one dataset.

``online_pass`` is the papers' online protocol (SPA Section 6.1.2): for t = 1..T predict
sign(f(x_t)) (sign(0) = +1), count a mistake when it differs from y_t, then learn from (x_t, y_t).
The learning-loop wall time covers predict + update + mistake counting, nothing else.
"""
from __future__ import annotations

import time

import numpy as np

from .seeds import checkpoints as make_checkpoints


def online_pass(model, X, y, order, n_checkpoints: int = 50) -> dict:
    """Run one online pass of `model` over rows `order` of (X, y); return metrics and a learning curve."""
    src = model.bind(X)
    ylist = np.asarray(y, dtype=np.float64).tolist()
    olist = np.asarray(order, dtype=np.int64).tolist()
    n = len(olist)
    cps = make_checkpoints(n, n_checkpoints).tolist()
    cp_iter = iter(cps)
    next_cp = next(cp_iter, -1)
    curve_t, curve_m = [], []
    step = model.step
    mistakes = 0
    t = 0
    t0 = time.perf_counter()
    for i in olist:
        yi = ylist[i]
        s = step(i, yi)
        if (s >= 0.0) != (yi > 0.0):
            mistakes += 1
        t += 1
        if t == next_cp:
            curve_t.append(t)
            curve_m.append(mistakes)
            next_cp = next(cp_iter, -1)
    elapsed = time.perf_counter() - t0
    del src
    return {
        "n_examples": n,
        "mistakes": mistakes,
        "accuracy": 100.0 * (1.0 - mistakes / n) if n else float("nan"),
        "n_sv": model.n_sv_output,
        "n_sv_last": model.n_sv,
        "n_updates": model.n_updates,
        "time_s": elapsed,
        "kernel_evals": model.kernel_evals,
        "curve": {"t": curve_t, "mistake_rate": [100.0 * m / c for m, c in zip(curve_m, curve_t)]},
    }

"""Random-feature online multi-kernel regression benchmark: the learners of Hong & Chae, "Active Learning with
Multiple Kernels" (AMKL paper; equations from ../shared/spec/amkl_raker.md), on Energy (18,604 rows, 25
features, the authors' .mat file, file order), the 17-kernel dictionary ``amkl17``, D = 50 features per kernel.

Printed per learner: one pass's learning-loop time, time per example, MSE (x 1e-3) and labelling efficiency.
Raker and AMKL-AKS alternate (Raker, AMKL-AKS, Raker, ...) for ``--pairs`` pairs so that machine load hits both
alike, and the median of the paired time ratios AMKL-AKS / Raker is reported (the cost of the subset sampling
and the confidence test).  The exact-kernel OMKR (Sahoo et al. 2014, 17 Gaussian kernel regressors on the shared
SV pool, O(T^2) kernel evaluations) runs on the first ``--exact-rows`` rows next to Raker on the same rows, for
the per-example cost ratio of exact kernels vs random features at that T.

Same process, same machine, one run: the ratios are what we quote, not the absolute seconds.

    olk bench amkl                   # ~1 min
    olk bench amkl --pairs 5 --exact-rows 8000

Speed claims live here, never in unit tests.
"""
from __future__ import annotations

import statistics
import time

import numpy as np

from olk.algorithms import make
from olk.data import load_dataset
from olk.tasks import TASKS

from . import parser


def one_pass(name, X, y, **params):
    m = make(name, kernel="amkl17", random_state=0, **params)
    t0 = time.perf_counter()
    res = TASKS["regression"].online_pass(m, X, y, np.arange(len(y)))
    return time.perf_counter() - t0, res


def main(argv=None):
    ap = parser("amkl", __doc__)
    ap.add_argument("--dataset", default="energy")
    ap.add_argument("--pairs", type=int, default=3)
    ap.add_argument("--exact-rows", type=int, default=4000)
    args = ap.parse_args(argv)
    d = load_dataset(args.dataset)
    X, y = np.ascontiguousarray(d.X, dtype=np.float64), d.y
    T = len(y)
    print(f"{args.dataset}: {T} rows x {X.shape[1]} features, 17 Gaussian kernels, D = 50, one pass, file order")
    ratios, rows = [], {}
    for _ in range(args.pairs):
        tr, rr = one_pass("raker", X, y)
        ta, ra = one_pass("amkl_aks", X, y)
        ratios.append(ta / tr)
        rows.setdefault("raker", []).append((tr, rr))
        rows.setdefault("amkl_aks", []).append((ta, ra))
    for name in ("omkl_aks", "amkl"):
        rows[name] = [one_pass(name, X, y)]
    print(f"{'learner':10s} {'time (s)':>9s} {'us/example':>11s} {'MSE x1e-3':>10s} {'rho':>6s}")
    for name, runs in rows.items():
        t = statistics.median(r[0] for r in runs)
        res = runs[0][1]
        print(f"{name:10s} {t:9.2f} {1e6 * t / T:11.1f} {1e3 * res['mse']:10.3f} {res['label_efficiency']:6.3f}")
    print(f"AMKL-AKS / Raker time, median of {args.pairs} alternated pairs: {statistics.median(ratios):.2f} "
          f"(pairs: {', '.join(f'{r:.2f}' for r in ratios)})")
    n = min(args.exact_rows, T)
    te, re_ = one_pass("omkr", X[:n], y[:n])
    tr, rr = one_pass("raker", X[:n], y[:n])
    print(f"first {n} rows: OMKR (exact, 17 kernels) {te:.2f} s, MSE {1e3 * re_['mse']:.3f}e-3; Raker {tr:.2f} s, "
          f"MSE {1e3 * rr['mse']:.3f}e-3; OMKR / Raker time {te / tr:.1f} (grows with T: exact kernels are O(T) "
          f"per example)")


if __name__ == "__main__":
    main()

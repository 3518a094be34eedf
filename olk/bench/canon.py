"""The canon beyond the papers at one memory: FOGD, NOGD (JMLR 2016) and BSGD (JMLR 2012) against SPA on a9a.

One online pass per learner over permutation 0 of a9a (train + test, 48,842 rows; the experiments' seed 2018),
Gaussian kernel gamma = 0.4, at SPA's memory: SPA runs first and its final #SV is the budget B of NOGD and BSGD;
FOGD gets D = 4 B random Fourier components (the authors' FouGD.m; ``configs/canon.yaml``).  Step sizes are the
ones ``configs/canon.yaml``'s tuning chose on a9a (SPA eta 0.1, FOGD eta 0.1, NOGD eta 1, BSGD lambda 1e-4).

Printed per learner: the learning loop's time (median of ``--repeats`` passes, the learners taking turns so that
machine load hits them alike), microseconds per example, its ratio to SPA's time measured in the same run, online
accuracy, #SV (D for FOGD), the numbers the model keeps to predict (the SVs' stored non-zeros and their
coefficients; FOGD's D x d frequencies and 2D weights; NOGD's B x k map and k weights too) and the peak memory the
pass allocates (``tracemalloc``, a separate untimed pass; the data set itself is allocated before and not
counted).

    olk bench canon                  # about 3 min
    olk bench canon --scale 0.2 --repeats 1

Speed claims live here, never in unit tests: the ratios to SPA are what we quote, not the absolute seconds.
"""
from __future__ import annotations

import statistics
import time
import tracemalloc

from olk.algorithms import make
from olk.tasks import online_pass

from . import parser
from .learners import bench_data

GAMMA = 0.4
# (label, registry name, parameters); "B" stands for SPA's #SV on the same pass, "4B" for four times it
LEARNERS = [
    ("SPA", "spa", {"alpha": 1.0, "beta": 20.0, "eta": 0.1}),
    ("FOGD", "fogd", {"n_rf": "4B", "eta": 0.1, "loss": "hinge"}),
    ("NOGD", "nogd", {"budget": "B", "rank": "auto", "eta": 1.0, "loss": "hinge"}),
    ("BSGD-remove", "bsgd", {"budget": "B", "maintenance": "removal", "lam": 1e-4}),
    ("BSGD-project", "bsgd", {"budget": "B", "maintenance": "projection", "lam": 1e-4}),
    ("BSGD-merge", "bsgd", {"budget": "B", "maintenance": "merging", "lam": 1e-4}),
]


def _params(params: dict, budget: int) -> dict:
    sub = {"B": budget, "4B": 4 * budget}
    return {k: sub.get(v, v) if isinstance(v, str) else v for k, v in params.items()}


def one_pass(name: str, params: dict, X, y, order):
    model = make(name, kernel={"type": "gaussian", "gamma": GAMMA}, random_state=0, **params)
    t0 = time.perf_counter()
    res = online_pass(model, X, y, order)
    return time.perf_counter() - t0, res, model


def peak_mb(name: str, params: dict, X, y, order) -> float:
    tracemalloc.start()
    try:
        one_pass(name, params, X, y, order)
        return tracemalloc.get_traced_memory()[1] / 2**20
    finally:
        tracemalloc.stop()


def main(argv=None):
    ap = parser("canon", __doc__)
    ap.add_argument("--scale", type=float, default=1.0, help="fraction of a9a's rows (reproducible)")
    ap.add_argument("--repeats", type=int, default=3, help="timed passes per learner (median)")
    ap.add_argument("--seed", type=int, default=2018)
    args = ap.parse_args(argv)
    if not 0 < args.scale <= 1 or args.repeats < 1:
        ap.error("--scale must be in (0, 1] and --repeats at least 1")
    X, y, order = bench_data("a9a", args.scale, args.seed)
    T, d = X.shape
    _, res, _ = one_pass("spa", LEARNERS[0][2], X, y, order)
    budget = max(int(res["n_sv"]), 1)
    print(f"a9a: {T:,} rows x {d} features, permutation 0 (seed {args.seed}), Gaussian gamma = {GAMMA}; "
          f"B = SPA's #SV = {budget:,}, FOGD D = 4B = {4 * budget:,}; {args.repeats} timed pass(es) each, in turns")
    times: dict[str, list[float]] = {label: [] for label, _, _ in LEARNERS}
    last = {}
    for _ in range(args.repeats):
        for label, name, params in LEARNERS:
            t, res, model = one_pass(name, _params(params, budget), X, y, order)
            times[label].append(t)
            last[label] = (res, model)
    spa_t = statistics.median(times["SPA"])
    print(f"{'learner':13s} {'time s':>8s} {'us/ex':>7s} {'/ SPA':>6s} {'acc %':>6s} {'#SV or D':>9s} "
          f"{'model values':>13s} {'peak MB':>8s}")
    for label, name, params in LEARNERS:
        res, model = last[label]
        t = statistics.median(times[label])
        size = model.model_size                       # #SV, or FOGD's D
        mb = peak_mb(name, _params(params, budget), X, y, order)
        print(f"{label:13s} {t:8.2f} {1e6 * t / T:7.1f} {t / spa_t:6.1f} {res['accuracy']:6.2f} {size:9,d} "
              f"{model.model_values():13,d} {mb:8.1f}")


if __name__ == "__main__":
    main()

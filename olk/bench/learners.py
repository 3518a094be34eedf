"""Learning-loop benchmark: one online pass per algorithm on a fixed permutation of real data.

Prints, per (dataset, algorithm): learning-loop wall time, kernel evaluations, kernel evaluations
per second, #SV and online accuracy, next to the SPA paper's C++ time (Table 2, 3.2 GHz PC).

    olk bench learners                                  # a9a and codrna, every registered classifier
    olk bench learners --datasets a9a --algorithms perceptron,pa1,spa
    olk bench learners --scale 0.2                      # quicker
    olk bench batch                          # Table 3: training time on the train part (LIBSVM, Pegasos, ...)
    olk bench multi                            # Table 5: the 16-kernel learners (DD, DDPA, BOMKC(SPA)), pooled vs
                                               # independent pools

Speed claims live here, never in unit tests.
"""
from __future__ import annotations

import time

import numpy as np

from olk.algorithms import REGISTRY, available, make
from olk.data import load_dataset
from olk.experiment import seeds
from olk.tasks import online_pass

from . import parser

# SPA TIST 2018 Table 2 (published C++ times in seconds, and the budget B = SPA's #SV) — reference only.
PAPER_TIME = {
    "a9a": {"perceptron": 19.93, "ogd": 54.20, "pa1": 57.91, "rbp": 5.34, "forgetron": 6.45, "projectron": 32.47,
            "projectronpp": 150.63, "bpas": 7.75, "bogd": 6.17, "oskl": 4.08, "spa": 3.84},
    "codrna": {"perceptron": 6.21, "ogd": 10.41, "pa1": 15.82, "rbp": 1.68, "forgetron": 1.91, "projectron": 19.38,
               "projectronpp": 32.99, "bpas": 2.21, "bogd": 1.92, "oskl": 1.37, "spa": 1.31},
    "w7a": {"perceptron": 2.50, "ogd": 38.16, "pa1": 63.47, "spa": 0.56},
}
BUDGET = {"a9a": 1350, "codrna": 822, "w7a": 175}
BETA = {"a9a": 20, "codrna": 20, "w7a": 200}
# parameters for the benchmark (eta/C near what tuning picks; they change the #SV, so the work, a little)
PARAMS = {"ogd": {"eta": 0.1}, "pa1": {"C": 1.0}, "spa": {"alpha": 1.0, "eta": 1.0},
          "bogd": {"eta": 0.1, "lam": 0.01}, "bpas": {"C": 1.0}, "projectron": {"eta": 0.0},
          "projectronpp": {"eta": 0.0}, "oskl": {"eta": 0.1, "G": 17.0}, "libsvm": {"C": 1.0}, "pegasos": {"lam": 1e-4}}
# SPA TIST 2018 Table 3 (published training times in seconds; budget = SPA's #SV with beta = 5) — reference only.
PAPER_TRAIN_TIME = {
    "a9a": {"libsvm": 97.8, "pegasos": 15.8, "bogd": 5.85, "bpas": 7.59, "oskl": 3.19, "spa": 3.16},
    "w7a": {"libsvm": 92.61, "pegasos": 29.21, "bogd": 8.33, "bpas": 13.95, "oskl": 5.08, "spa": 5.04},
}
BATCH_BUDGET = {"a9a": 2079, "w7a": 3710}
BATCH_NAMES = ["libsvm", "pegasos", "spa", "bogd", "bpas", "oskl"]


def bench_data(ds: str, scale: float, seed: int):
    """(X, y, order) of a benchmark pass: dataset `ds` as the experiments load it, a reproducible fraction
    `scale` of its rows when < 1, and permutation 0 of the experiment seed `seed`."""
    d = load_dataset(ds)
    X, y = d.X, d.y
    if scale < 1:
        idx = seeds.subsample(X.shape[0], scale, seed, ds)
        X, y = X[idx], y[idx]
    return X, y, seeds.permutation(X.shape[0], seed, ds, 0)


def main(argv=None):
    ap = parser("learners", __doc__)
    ap.add_argument("--datasets", default="a9a,codrna")
    ap.add_argument("--algorithms", default=None, help="comma-separated (default: every online binary classifier)")
    ap.add_argument("--scale", type=float, default=1.0)
    ap.add_argument("--gamma", type=float, default=0.4)
    ap.add_argument("--seed", type=int, default=2018)
    ap.add_argument("--batch", action="store_true", help="Table 3 learners: training time on the train part")
    args = ap.parse_args(argv)
    if args.batch:
        return bench_batch(args)
    names = args.algorithms.split(",") if args.algorithms else [
        n for n in available() if REGISTRY[n].task == "binary" and not REGISTRY[n].batch]
    print(f"{'dataset':<8} {'algorithm':<13} {'time s':>8} {'paper C++ s':>11} {'speed-up':>8} {'kernel evals':>13} "
          f"{'M evals/s':>9} {'#SV':>7} {'acc %':>6}")
    for ds in args.datasets.split(","):
        X, y, order = bench_data(ds, args.scale, args.seed)
        for name in names:
            params = dict(PARAMS.get(name, {}))
            specs = {p.name for p in REGISTRY[name].params}
            if "budget" in specs:
                params["budget"] = BUDGET.get(ds, 1000)
            if "beta" in specs:
                params["beta"] = BETA.get(ds, 20)
            params = {k: v for k, v in params.items() if k in specs}
            model = make(name, kernel={"type": "gaussian", "gamma": args.gamma}, random_state=1, **params)
            res = online_pass(model, X, y, order)
            paper = PAPER_TIME.get(ds, {}).get(name) if args.scale >= 1 else None
            speed = f"{paper / res['time_s']:.1f}x" if paper else "-"
            print(f"{ds:<8} {name:<13} {res['time_s']:>8.2f} {paper if paper else '-':>11} {speed:>8} "
                  f"{res['kernel_evals']:>13,} {res['kernel_evals'] / max(res['time_s'], 1e-9) / 1e6:>9.1f} "
                  f"{res['n_sv']:>7,} {res['accuracy']:>6.2f}", flush=True)


def bench_batch(args):
    """Training time of Table 3's learners on the official train part (gamma, C, lam fixed, not tuned)."""
    names = args.algorithms.split(",") if args.algorithms else BATCH_NAMES
    datasets = args.datasets if args.datasets != "a9a,codrna" else "a9a,w7a"
    print(f"{'dataset':<8} {'algorithm':<10} {'train s':>8} {'paper s':>8} {'#SV':>7} {'test acc %':>10}")
    for ds in datasets.split(","):
        d = load_dataset(ds)
        tr, te = d.part("train"), d.part("test")
        order = seeds.permutation(tr.X.shape[0], args.seed, ds, 0)
        for name in names:
            specs = {p.name for p in REGISTRY[name].params}
            params = {k: v for k, v in PARAMS.get(name, {}).items() if k in specs}
            if "budget" in specs:
                params["budget"] = BATCH_BUDGET.get(ds, 1000)
            if "beta" in specs:
                params["beta"] = 5.0
            model = make(name, kernel={"type": "gaussian", "gamma": args.gamma}, random_state=1, **params)
            t0 = time.perf_counter()
            if REGISTRY[name].batch:
                model.fit(tr.X, tr.y, order)
            else:
                model.bind(tr.X)
                for i in order.tolist():
                    model.step(i, tr.y[i])
            elapsed = time.perf_counter() - t0
            acc = 100 * np.mean(np.where(model.decision_function(te.X) >= 0, 1, -1) == te.y)
            paper = PAPER_TRAIN_TIME.get(ds, {}).get(name, "-")
            print(f"{ds:<8} {name:<10} {elapsed:>8.2f} {paper:>8} {model.n_sv_output:>7,} {acc:>10.2f}", flush=True)


if __name__ == "__main__":
    main()

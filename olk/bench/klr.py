"""Sparse online kernel logistic regression benchmark: the learners of Zhang, Jin, Chen, Bu & He, "Efficient
Online Learning for Large-Scale Sparse Kernel Logistic Regression", AAAI 2012.

Gaussian kernel, gamma = 1/(2 sigma^2) with sigma = the 5th percentile of the pairwise distances of a seeded
2,000-row sample of the data the learners train on (the paper's choice, as ``configs/klr_*.yaml``); R = 1000.

Part 1, online learners, one pass over permutation 0 of ijcnn1 (train+test, 141,691 rows, as ``load_dataset``
gives it: LIBSVM's ijcnn1 is already scaled): NC (``klr_nc``, eta = R/sqrt(T)), Auxiliary (``klr_aux``, h(z) =
ln(gamma + e^-z), gamma = 2, eta = R/sqrt(T)) and Margin (``klr_margin``, eta = 1: the rule R/sqrt(T) gives
eta >= 2 on large T, which Eq. 5 forbids).  Printed per learner: learning-loop time, #SV, sparsity
1 - #SV/T, kernel evaluations, kernel evaluations per second and online accuracy.  NC and Auxiliary alternate
(NC, Aux, NC, Aux, ...) for ``--pairs`` pairs so that machine load hits both alike; the median of the paired
time ratios NC / Auxiliary is reported: the paper's point is that Auxiliary's sparsity makes it faster.

Part 2, batch vs online, time to the same test accuracy, on a seeded stratified 80/20 split of mushrooms
(``--batch-dataset``): PCD (``klr_pcd``) and DCD (``klr_dcd``), lam = 1e-4, tol = 1e-6, at most 50 sweeps,
probed after every sweep (training time so far, the probe's own time left out, and test accuracy); NC and
Auxiliary make one pass over the training part.  For each batch solver and online learner: the training time
at which the batch solver first reaches the online learner's final test accuracy ("not reached" otherwise),
and its ratio to the online pass time (the paper, Fig. 5: "Auxiliary is about 10 times faster than PCD on
ijcnn1").  The batch training time includes computing the n x n kernel matrix.

Same process, same machine, one run: the ratios are what we quote, not the absolute seconds.  The default
run takes about 10 minutes on a loaded 2-core machine: Part 1 ~8 min (NC alone is T^2/2 = 1e10 kernel
evaluations, ~300 s; Margin ~150 s; Auxiliary ~40 s; each extra ``--pairs`` adds NC + Auxiliary again),
Part 2 ~1.5 min (mostly PCD's 50 sweeps).

    olk bench klr                               # ijcnn1 full scale, mushrooms 80/20
    olk bench klr --scale 0.1                   # quick check (both parts on 10% of the rows)
    olk bench klr --pairs 3 --parts online      # Part 1 only, 3 NC/Aux pairs
    olk bench klr --parts batch --batch-dataset a9a --scale 0.2

Speed claims live here, never in unit tests.
"""
from __future__ import annotations

import statistics
import sys
import time

import numpy as np

from olk.algorithms import make
from olk.data import load_dataset
from olk.experiment import seeds
from olk.experiment.config import WidthRef
from olk.experiment.data import kernel_width
from olk.tasks import online_pass

from . import parser
from .learners import bench_data

R = 1000.0
#: label -> (registered learner, its parameters); R is added
ONLINE: dict[str, tuple[str, dict]] = {
    "NC": ("klr_nc", {"eta": "R/sqrt(T)"}),
    "Auxiliary": ("klr_aux", {"aux": "shift", "gamma": 2.0, "eta": "R/sqrt(T)"}),
    "Margin": ("klr_margin", {"eta": 1.0}),
}
BATCH = {"PCD": "klr_pcd", "DCD": "klr_dcd"}
WIDTH = WidthRef(5, 2000)


def build(label: str, gamma: float, R_: float):
    name, params = ONLINE[label]
    return make(name, kernel={"type": "gaussian", "gamma": gamma}, random_state=0, R=R_, **params)


def correct(model, X, y) -> int:
    """Test examples the model's output classifier gets right (sign(0) = +1)."""
    return int(np.sum(np.where(model.decision_function(X) >= 0.0, 1.0, -1.0) == y))


def part_online(args):
    ds = args.dataset
    X, y, order = bench_data(ds, args.scale, args.seed)
    T = len(order)
    w = kernel_width(X, WIDTH, args.seed, ds)
    print(f"Part 1: online KLR, one pass over {ds} ({T:,} rows, permutation 0, seed {args.seed}); Gaussian sigma = "
          f"{w['sigma']:.4g} (5th pct of pairwise distances, {w['sample']} rows), gamma = {w['gamma']:.4g}, "
          f"R = {args.R:g}")
    print(f"{'learner':<10} {'eta':>7} {'time s':>8} {'#SV':>9} {'sparsity':>8} {'kernel evals':>15} "
          f"{'M evals/s':>9} {'online acc %':>12}", flush=True)
    times = {"NC": [], "Auxiliary": []}
    first = {}

    def run(label):
        model = build(label, w["gamma"], args.R)
        res = online_pass(model, X, y, order)
        r = {"time": res["time_s"], "n_sv": res["n_sv"], "evals": res["kernel_evals"], "acc": res["accuracy"],
             "eta": model.eta_}
        if label not in first:
            first[label] = r
            print(f"{label:<10} {r['eta']:>7.3g} {r['time']:>8.2f} {r['n_sv']:>9,} {1 - r['n_sv'] / T:>8.3f} "
                  f"{r['evals']:>15,} {r['evals'] / max(r['time'], 1e-9) / 1e6:>9.1f} {r['acc']:>12.2f}", flush=True)
        else:
            assert (r["n_sv"], r["evals"]) == (first[label]["n_sv"], first[label]["evals"]), \
                f"{label}: a repeated run changed its result"
        return r

    for _ in range(max(args.pairs, 1)):
        for label in ("NC", "Auxiliary"):
            times[label].append(run(label)["time"])
    if not args.no_margin:
        run("Margin")
    ratios = [a / b for a, b in zip(times["NC"], times["Auxiliary"])]
    nc, aux = first["NC"], first["Auxiliary"]
    print(f"\nNC time / Auxiliary time, same run, alternated ({len(ratios)} pair{'s' if len(ratios) > 1 else ''}): "
          f"median {statistics.median(ratios):.2f} (range {min(ratios):.2f}-{max(ratios):.2f}; NC median "
          f"{statistics.median(times['NC']):.2f} s, Auxiliary median {statistics.median(times['Auxiliary']):.2f} s); "
          f"kernel evals NC / Auxiliary = {nc['evals'] / max(aux['evals'], 1):.2f}, #SV NC / Auxiliary = "
          f"{nc['n_sv'] / max(aux['n_sv'], 1):.2f}", flush=True)
    return statistics.median(ratios)


def part_batch(args):
    ds = args.batch_dataset
    d = load_dataset(ds)
    X, y = d.X, d.y
    if args.scale < 1:
        idx = seeds.subsample(X.shape[0], args.scale, args.seed, ds)
        X, y = X[idx], y[idx]
    tr, te = seeds.holdout_split(y, 0.2, args.seed, ds)
    Xtr, ytr, Xte, yte = X[tr], y[tr], X[te], y[te]
    n_te = len(te)
    w = kernel_width(Xtr, WIDTH, args.seed, ds)
    gamma = w["gamma"]
    print(f"\nPart 2: batch vs online KLR on {ds}, seeded stratified 80/20 split ({len(tr):,} train, {n_te:,} test "
          f"rows); gamma = {gamma:.4g} (sigma = {w['sigma']:.4g}), R = {args.R:g}, lam = {args.lam:g}, "
          f"tol = {args.tol:g}, max_iter = {args.max_iter}")
    print(f"{'learner':<10} {'train s':>8} {'sweeps':>6} {'#SV':>7} {'test acc %':>10}", flush=True)
    online = {}
    order = seeds.permutation(len(tr), args.seed, ds, 0)
    for label in ("NC", "Auxiliary"):
        model = build(label, gamma, args.R)
        res = online_pass(model, Xtr, ytr, order)
        online[label] = {"time": res["time_s"], "correct": correct(model, Xte, yte)}
        print(f"{label:<10} {res['time_s']:>8.3f} {1:>6} {res['n_sv']:>7,} "
              f"{100 * online[label]['correct'] / n_te:>10.2f}", flush=True)
    curves = {}
    for label, name in BATCH.items():
        model = make(name, kernel={"type": "gaussian", "gamma": gamma}, random_state=0, lam=args.lam, tol=args.tol,
                     max_iter=args.max_iter)
        curve = []
        clock = {"t0": 0.0, "paused": 0.0}

        def probe(curve=curve, model=model, clock=clock):      # bound to this iteration's (fit calls it)
            tp = time.perf_counter()
            curve.append((model.n_iter_, tp - clock["t0"] - clock["paused"], correct(model, Xte, yte)))
            clock["paused"] += time.perf_counter() - tp

        clock["t0"] = time.perf_counter()
        model.fit(Xtr, ytr, probe=probe)
        elapsed = time.perf_counter() - clock["t0"] - clock["paused"]
        curves[label] = curve
        best = max(c for _, _, c in curve)
        print(f"{label:<10} {elapsed:>8.2f} {model.n_iter_:>6} {model.n_sv:>7,} {100 * curve[-1][2] / n_te:>10.2f}"
              f"   (best {100 * best / n_te:.2f} %; kernel matrix cached: {model.kernel_cached_})", flush=True)
    print("\nTime for the batch solver to first reach the online learner's final test accuracy (probe after each "
          "sweep, probe time excluded), / the online pass time")
    print(f"{'batch':<6} {'online':<10} {'target %':>8} {'online s':>8} {'batch s':>8} {'sweep':>5} {'ratio':>8}")
    out = {}
    for b, curve in curves.items():
        for o, r in online.items():
            hit = next(((k, t) for k, t, c in curve if c >= r["correct"]), None)
            if hit is None:
                print(f"{b:<6} {o:<10} {100 * r['correct'] / n_te:>8.2f} {r['time']:>8.3f} {'not reached':>14} "
                      f"{'-':>8}")
                out[(b, o)] = None
            else:
                ratio = hit[1] / max(r["time"], 1e-9)
                print(f"{b:<6} {o:<10} {100 * r['correct'] / n_te:>8.2f} {r['time']:>8.3f} {hit[1]:>8.2f} "
                      f"{hit[0]:>5} {ratio:>7.1f}x")
                out[(b, o)] = ratio
    sys.stdout.flush()
    return out


def main(argv=None):
    ap = parser("klr", __doc__)
    ap.add_argument("--dataset", default="ijcnn1", help="Part 1 dataset (default ijcnn1, 141,691 rows)")
    ap.add_argument("--batch-dataset", default="mushrooms", help="Part 2 dataset, split 80/20 (default mushrooms)")
    ap.add_argument("--scale", type=float, default=1.0, help="fraction of each dataset's rows (quick check: 0.1)")
    ap.add_argument("--seed", type=int, default=2012, help="experiment seed (the klr_*.yaml configs' seed)")
    ap.add_argument("--pairs", type=int, default=1, help="NC/Auxiliary pairs in Part 1 (median ratio reported)")
    ap.add_argument("--R", type=float, default=R, help="radius R of the online learners")
    ap.add_argument("--lam", type=float, default=1e-4, help="lambda of PCD and DCD")
    ap.add_argument("--tol", type=float, default=1e-6, help="stopping tolerance of PCD and DCD")
    ap.add_argument("--max-iter", type=int, default=50, help="most sweeps of PCD and DCD")
    ap.add_argument("--no-margin", action="store_true", help="leave Margin out of Part 1")
    ap.add_argument("--parts", default="online,batch", help="comma-separated: online (Part 1), batch (Part 2)")
    ap.add_argument("--baseline", default=None, metavar="DIR", help="another olk checkout (extensions built): "
                    "Part 2's PCD/DCD fits there and here in alternating fresh processes, instead of Parts 1-2")
    ap.add_argument("--rounds", type=int, default=3, help="--baseline: pairs (old, new), alternating (default 3)")
    ap.add_argument("--out", default=None, help="--baseline: directory of its CSV (default results/bench; '-': none)")
    args = ap.parse_args(argv)
    parts = args.parts.split(",")
    for p in parts:
        if p not in ("online", "batch"):
            ap.error(f"unknown part {p!r}; choose from online, batch")
    if args.baseline:
        from .core import _check_tree
        if args.rounds < 1:
            ap.error("--rounds must be >= 1")
        before_after(_check_tree(args.baseline, ap), args)
        return
    t_start = time.perf_counter()
    if "online" in parts:
        part_online(args)
    if "batch" in parts:
        part_batch(args)
    print(f"\nolk bench klr: total wall time: {time.perf_counter() - t_start:.0f} s", flush=True)


def before_after(tree, args):
    """PCD and DCD fits (Part 2's split, no probe) in another checkout and in this one, alternating fresh
    processes: fit-time ratios old / new within each pair; sweeps, #SV and test accuracy of both printed."""
    import json

    from .core import _results_dir, _write_csv, child_env, run_spec
    spec = {"mode": "klr_batch", "dataset": args.batch_dataset, "scale": args.scale, "seed": args.seed,
            "lam": args.lam, "tol": args.tol, "max_iter": args.max_iter}
    envs = {"old": child_env(tree), "new": child_env()}
    log, got = [], {"old": [], "new": []}
    print(f"before ({tree.name}) / after (this checkout): PCD and DCD on {args.batch_dataset} (scale {args.scale:g}), "
          f"{args.rounds} alternating pair(s)", flush=True)
    for r in range(args.rounds):
        for name in (("old", "new") if r % 2 == 0 else ("new", "old")):
            p = run_spec(spec, envs[name])
            if p.code != 0:
                raise SystemExit(f"olk bench klr: the {name} checkout failed:\n{p.stderr[-2000:]}")
            res = json.loads(p.stdout.strip().splitlines()[-1])
            got[name].append(res)
            for label, v in res.items():
                log.append({"round": r, "tree": name, "learner": label, **v})
    print("| learner | old fit s | new fit s | old / new (wall) | (CPU) | sweeps old / new | test acc % old / new |")
    print("|---|---|---|---|---|---|---|")
    for label in got["new"][0]:
        w = [o[label]["time_s"] / n[label]["time_s"] for o, n in zip(got["old"], got["new"])]
        c = [o[label]["cpu_s"] / n[label]["cpu_s"] for o, n in zip(got["old"], got["new"])]
        o0, n0 = got["old"][0][label], got["new"][0][label]
        cell = lambda xs: f"{statistics.median(xs):.2f}" + (f" ({min(xs):.2f}-{max(xs):.2f})" if len(xs) > 1 else "")  # noqa: E731
        print(f"| {label} | {statistics.median(o[label]['time_s'] for o in got['old']):.2f} | "
              f"{statistics.median(n[label]['time_s'] for n in got['new']):.2f} | {cell(w)} | {cell(c)} | "
              f"{o0['n_iter']} / {n0['n_iter']} | {100 * o0['accuracy']:.2f} / {100 * n0['accuracy']:.2f} |")
    if args.out != "-":
        from pathlib import Path
        d = Path(args.out) if args.out else _results_dir()
        d.mkdir(parents=True, exist_ok=True)
        path = _write_csv(d / "before_after_klr.csv", log, {"baseline": tree.name, "dataset": args.batch_dataset,
                                                            "scale": args.scale,
                                                            "date": time.strftime("%Y-%m-%dT%H:%M:%S")})
        print(f"olk bench klr: wrote {path}")


if __name__ == "__main__":
    main()

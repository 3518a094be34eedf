"""Multi-kernel learning-loop benchmark: SPA TIST 2018 Table 5's learners with the 16 ``spa16`` kernels.

One online pass per learner on a fixed permutation of real data (min-max scaled by ``load_dataset``, as the
experiments do): DD (``omkc_dd``), DDPA (``omkc_ddpa``, eta 0.1), SD (``omkc_sd``), SDPA (``omkc_sdpa``, eta
0.1) and BOMKC(SPA) (``bomkc_spa_dd``, alpha 1, beta 3, eta 0.1).  Part 1 prints the learning-loop time next to
the paper's published C++ time (Table 5), #SV summed over the 16 classifiers (``n_sv_output``), the distinct rows
stored (``n_sv``), kernel evaluations and the online mistake rate.

Part 2 compares SV layouts in the same process: the POOLED core (the 16 classifiers share one SV pool, one
coefficient column per kernel, one inner product per pooled SV, a kernel value only for the columns that own
the SV) against INDEPENDENT pools (the same learner, but every kernel classifier keeps its own single-kernel
pool, as 16 separate single-kernel learners would).  The two layouts are asserted to give identical mistakes,
#SV per classifier, kernel evaluations and final kernel weights; for DD every classifier is also checked
against the plain ``perceptron`` on its kernel (same SVs and coefficients; by default on datasets of <= 10,000
rows, ``--perceptron-check all`` for a9a too).  The layouts alternate (pooled, independent, pooled, ...) so that
machine load hits both alike; the median of the paired time ratios independent / pooled is reported.

    olk bench multi                      # a9a (48,842 rows) and german, full scale
    olk bench multi --scale 0.1          # quick check
    olk bench multi --datasets german --pairs 7
    olk bench multi --datasets a9a --learners SPA --pairs-large 3
    olk bench multi --baseline ../olk-old --rounds 3 --scale 0.25   # before/after: old pooled, old independent, new

Part 3 (``--baseline DIR``, another olk checkout with its extensions built) runs each learner in fresh processes,
``--rounds`` rounds of three in rotating order: that checkout's pooled layout, its independent layout and this
checkout's pooled layout (the same data, permutation and seeds; identical mistakes and kernel evaluations
asserted), and reports the loop-time ratios old / new within each round (wall and CPU time), every process in
``results/bench/before_after_multi.csv``.

Speed claims live here, never in unit tests.
"""
from __future__ import annotations

import statistics
import time
from typing import Any

import numpy as np

from olk._core.svpool import SVPool
from olk.algorithms import make
from olk.kernels import KernelSet
from olk.tasks import online_pass

from . import parser
from .learners import bench_data

#: Table 5 rows: label -> (registered learner, its parameters)
LEARNERS: dict[str, tuple[str, dict[str, Any]]] = {
    "DD": ("omkc_dd", {}),
    "DDPA": ("omkc_ddpa", {"eta": 0.1}),
    "SD": ("omkc_sd", {}),
    "SDPA": ("omkc_sdpa", {"eta": 0.1}),
    "SPA": ("bomkc_spa_dd", {"alpha": 1.0, "beta": 3.0, "eta": 0.1}),
}
# SPA TIST 2018 Table 5: published C++ times in seconds (Lu et al.'s machine) — reference numbers only.
PAPER_TIME = {
    "a9a": {"DD": 1178.6, "DDPA": 3061.3, "SD": 778.9, "SDPA": 1051.6, "SPA": 58.0},
    "german": {"DD": 0.38, "DDPA": 0.70, "SD": 0.34, "SDPA": 0.45, "SPA": 0.16},
}


class IndependentPools:
    """Stand-in for a multi-kernel learner's shared SVPool: one single-kernel, single-column SVPool per
    kernel (what m separate single-kernel learners hold).  It offers the calls ``OMKCCore`` and its
    subclasses make (decision, add, self_kernel), so the SAME learner code runs on either layout.

    An example several classifiers update is copied into each of their pools; every pool computes its own
    inner product with the query (m scatters of a sparse query instead of one)."""

    def __init__(self, n_features: int, sparse: bool, kernels: KernelSet):
        self.n_features, self.sparse = n_features, sparse
        self.pools = [SVPool(n_features, sparse, col_kernel=[0], **k.pool_args()) for k in kernels]

    def decision(self, src, i, out):
        out[:] = [p.decision1(src, i) for p in self.pools]

    def add(self, src, i, coefs, tag=0):
        for k in np.flatnonzero(coefs).tolist():          # only the classifiers that update store x_t
            self.pools[k].add(src, i, float(coefs[k]), tag)

    def self_kernel(self, src, i, k=0):
        return self.pools[k].self_kernel(src, i, 0)

    @property
    def n_sv(self) -> int:                                  # rows stored, counting every copy
        return sum(p.n_sv for p in self.pools)

    @property
    def n_kernel_evals(self) -> int:
        return sum(p.n_kernel_evals for p in self.pools)

    @property
    def tags(self):
        return np.concatenate([p.tags for p in self.pools])

    def decision_matrix(self, src):
        return np.column_stack([p.decision_matrix(src)[:, 0] for p in self.pools])


def build(label: str, layout: str):
    name, params = LEARNERS[label]
    model = make(name, kernel=KernelSet.preset("spa16"), random_state=1, **params)
    if layout == "independent":
        model._make_pool = lambda n_features, sparse: IndependentPools(n_features, sparse, model.kernels)
    return model


def inner_products(model, T: int) -> int:
    """Inner products <x_t, sv> computed in the pass: an SV added at step tag is visited at steps tag+1..T
    (these learners never remove an SV; the pool computes one inner product per stored row per step)."""
    return int((T - model.pool.tags).sum())


def run(label, layout, X, y, order):
    model = build(label, layout)
    res = online_pass(model, X, y, order)
    T = len(order)
    return {"time": res["time_s"], "mistakes": res["mistakes"], "rate": 100.0 - res["accuracy"],
            "sv_sum": model.n_sv_output, "rows": model.n_sv, "evals": res["kernel_evals"],
            "dots": inner_products(model, T), "T": T,
            "sv_per_kernel": model.sv_per_kernel_.tolist(), "mistakes_per_kernel": model.mistakes_per_kernel_.tolist(),
            "weights": model.weights_.copy(), "model": model}


def check_same(a, b, where):
    """The two layouts must learn the same classifiers: same mistakes, #SV per kernel, final weights (bitwise)."""
    for key in ("mistakes", "sv_sum", "sv_per_kernel", "mistakes_per_kernel", "evals"):
        assert a[key] == b[key], f"{where}: pooled and independent layouts differ in {key}: {a[key]} != {b[key]}"
    assert np.array_equal(a["weights"], b["weights"]), f"{where}: final kernel weights differ"


def check_dd_is_perceptron(res, X, y, order, where):
    """Each DD classifier f_i is exactly the kernel Perceptron on kernel i: the same SVs (the steps that
    stored them) with the same coefficients, so the same updates y f(x) <= 0 and #SV.  (The Perceptron's
    online mistake count itself differs where f(x) = 0: the protocol predicts sign(0) = +1 there, while
    DD's z_i = I(y f_i(x) <= 0) counts it as a mistake.)"""
    pool = res["model"].pool
    tags, coefs = pool.tags, pool.coefs
    for k, kern in enumerate(KernelSet.preset("spa16")):
        p = make("perceptron", kernel=kern)
        online_pass(p, X, y, order)
        own = coefs[:, k] != 0.0
        same = (p.n_sv == res["sv_per_kernel"][k] == res["mistakes_per_kernel"][k]
                and np.array_equal(p.pool.tags, tags[own]) and np.array_equal(p.pool.coefs[:, 0], coefs[own, k]))
        assert same, (f"{where}: DD classifier {k} ({kern.label()}) is not the Perceptron on its kernel: "
                      f"#SV {res['sv_per_kernel'][k]} vs {p.n_sv}")


def main(argv=None):
    ap = parser("multi", __doc__)
    ap.add_argument("--datasets", default="a9a,german")
    ap.add_argument("--learners", default="DD,DDPA,SD,SDPA,SPA", help=f"comma-separated, from {', '.join(LEARNERS)}")
    ap.add_argument("--scale", type=float, default=1.0, help="fraction of each dataset's rows (quick check: 0.1)")
    ap.add_argument("--seed", type=int, default=2018)
    ap.add_argument("--pairs", type=int, default=5, help="pooled/independent pairs on datasets of <= 10,000 rows")
    ap.add_argument("--pairs-large", type=int, default=1, help="pooled/independent pairs on larger datasets")
    ap.add_argument("--perceptron-check", choices=("small", "all", "none"), default="small",
                    help="check each DD classifier against the Perceptron on its kernel: on datasets of <= 10,000 "
                         "rows (default), on all (adds ~100 s on full a9a) or none")
    ap.add_argument("--baseline", default=None, metavar="DIR",
                    help="another olk checkout (extensions built): before/after rounds instead of parts 1-2")
    ap.add_argument("--rounds", type=int, default=3, help="--baseline: rounds of (old pooled, old independent, new)")
    ap.add_argument("--out", default=None, help="--baseline: directory of its CSV (default results/bench; '-': none)")
    args = ap.parse_args(argv)
    labels = args.learners.split(",")
    for lab in labels:
        if lab not in LEARNERS:
            ap.error(f"unknown learner {lab!r}; choose from {', '.join(LEARNERS)}")
    if args.baseline:
        from .core import _check_tree
        if args.rounds < 1:
            ap.error("--rounds must be >= 1")
        before_after(_check_tree(args.baseline, ap), args.datasets.split(","), labels, args.scale, args.seed,
                     args.rounds, args.out)
        return
    t_start = time.perf_counter()
    rows = []
    print("SPA TIST 2018 Table 5 learners, 16 kernels (spa16), one online pass.  'paper C++ s' = the paper's "
          "published time (reference only, other hardware).")
    print(f"{'dataset':<8} {'learner':<5} {'layout':<11} {'time s':>8} {'paper C++ s':>11} {'speed-up':>8} "
          f"{'#SV (sum)':>10} {'rows':>8} {'kernel evals':>14} {'evals/step':>10} {'dots/step':>9} {'mistake %':>9}",
          flush=True)
    for ds in args.datasets.split(","):
        X, y, order = bench_data(ds, args.scale, args.seed)
        n_pairs = args.pairs if X.shape[0] <= 10_000 else args.pairs_large
        for lab in labels:
            times = {"pooled": [], "independent": []}
            first = {}
            for _ in range(max(n_pairs, 1)):
                for layout in ("pooled", "independent"):
                    r = run(lab, layout, X, y, order)
                    times[layout].append(r["time"])
                    if layout not in first:
                        first[layout] = r
                        paper = PAPER_TIME.get(ds, {}).get(lab) if args.scale >= 1 else None
                        speed = f"{paper / r['time']:.1f}x" if paper and layout == "pooled" else "-"
                        print(f"{ds:<8} {lab:<5} {layout:<11} {r['time']:>8.2f} "
                              f"{(paper if paper and layout == 'pooled' else '-'):>11} {speed:>8} "
                              f"{r['sv_sum']:>10,} {r['rows']:>8,} {r['evals']:>14,} {r['evals'] / r['T']:>10.0f} "
                              f"{r['dots'] / r['T']:>9.0f} {r['rate']:>9.2f}", flush=True)
                    else:
                        assert r["mistakes"] == first[layout]["mistakes"], "a repeated run changed its result"
            check_same(first["pooled"], first["independent"], f"{ds}/{lab}")
            if lab == "DD" and (args.perceptron_check == "all" or
                                (args.perceptron_check == "small" and X.shape[0] <= 10_000)):
                t0 = time.perf_counter()
                check_dd_is_perceptron(first["pooled"], X, y, order, f"{ds}/{lab}")
                print(f"{ds:<8} {lab:<5} = 16 Perceptrons, one per kernel (same SVs and coefficients; "
                      f"check took {time.perf_counter() - t0:.0f} s)", flush=True)
            for r in first.values():
                del r["model"]                              # free the SVs before the next learner
            ratios = [ti / tp for tp, ti in zip(times["pooled"], times["independent"])]
            rows.append((ds, lab, times, ratios, first))
    print("\nLayout: time of 16 independent single-kernel pools / time of the pooled core (same run, alternated; "
          "identical mistakes, #SV and weights asserted)")
    print(f"{'dataset':<8} {'learner':<5} {'pairs':>5} {'pooled s (median)':>17} {'indep. s (median)':>17} "
          f"{'ratio median':>12} {'ratio range':>13} {'dots/step pooled':>16} {'dots/step indep.':>16} "
          f"{'rows pooled':>11} {'rows indep.':>11} {'evals/step':>10} {'all-kernel evals/step':>21}")
    for ds, lab, times, ratios, first in rows:
        p, i = first["pooled"], first["independent"]
        print(f"{ds:<8} {lab:<5} {len(ratios):>5} {statistics.median(times['pooled']):>17.2f} "
              f"{statistics.median(times['independent']):>17.2f} {statistics.median(ratios):>12.2f} "
              f"{min(ratios):>6.2f}-{max(ratios):<6.2f} {p['dots'] / p['T']:>16.0f} {i['dots'] / i['T']:>16.0f} "
              f"{p['rows']:>11,} {i['rows']:>11,} {p['evals'] / p['T']:>10.0f} {16 * p['dots'] / p['T']:>21.0f}")
    print(f"(evals/step: measured, equal in both layouts, since the pool evaluates a kernel only for the classifiers "
          f"that own an SV; all-kernel evals/step = 16 x pooled dots/step, computed: what a pool evaluating every "
          f"kernel for every pooled SV would pay)\nolk bench multi: total wall time: "
          f"{time.perf_counter() - t_start:.0f} s", flush=True)


def before_after(tree, datasets, labels, scale, seed, rounds, out):
    """Part 3: rounds of (old pooled, old independent, new pooled) in fresh processes, rotating the order."""
    import json

    from .core import child_env, run_spec
    env_old, env_new = child_env(tree), child_env()
    runs = (("old", "pooled", env_old), ("old", "independent", env_old), ("new", "pooled", env_new))
    log, table = [], []
    print(f"before ({tree.name}) / after (this checkout): {rounds} round(s) of 3 processes per learner, "
          f"scale {scale:g}", flush=True)
    for ds in datasets:
        for lab in labels:
            name, params = LEARNERS[lab]
            spec = {"dataset": ds, "scale": scale, "seed": seed, "algorithm": name, "params": params,
                    "kernels": "spa16"}
            got = {}
            for r in range(rounds):
                for j in range(3):
                    tree_name, layout, env = runs[(j + r) % 3]
                    p = run_spec({**spec, "layout": layout}, env)
                    if p.code != 0:
                        raise SystemExit(f"olk bench multi: {ds}/{lab} ({tree_name}, {layout}) failed:\n"
                                         f"{p.stderr[-2000:]}")
                    o = json.loads(p.stdout.strip().splitlines()[-1])["olk"]
                    log.append({"dataset": ds, "learner": lab, "round": r, "tree": tree_name, "layout": layout,
                                "position": j + 1, "loop_s": o["time_s"], "loop_cpu_s": o["cpu_s"],
                                "kernel_evals": o["kernel_evals"], "mistakes": o["mistakes"], "n_sv": o["n_sv"]})
                    got.setdefault((tree_name, layout), []).append(o)
            keys = {(o["mistakes"], o["kernel_evals"], o["n_sv"]) for v in got.values() for o in v}
            assert len(keys) == 1, \
                f"{ds}/{lab}: the layouts or checkouts differ in mistakes / evaluations / #SV: {keys}"
            new = got[("new", "pooled")]
            row = [ds, lab]
            for k in (("old", "pooled"), ("old", "independent")):
                row.append(statistics.median(o["time_s"] for o in got[k]))
            row.append(statistics.median(o["time_s"] for o in new))
            for k in (("old", "pooled"), ("old", "independent")):
                w = [a["time_s"] / b["time_s"] for a, b in zip(got[k], new)]
                c = [a["cpu_s"] / b["cpu_s"] for a, b in zip(got[k], new)]
                row += [w, c]
            table.append(row)
            print(f"{ds:<8} {lab:<5} old pooled {row[2]:8.2f} s, old independent {row[3]:8.2f} s, new pooled "
                  f"{row[4]:8.2f} s", flush=True)

    def cell(xs):
        return f"{statistics.median(xs):.2f}" + (f" ({min(xs):.2f}-{max(xs):.2f})" if len(xs) > 1 else "")
    print("\n| dataset | learner | old pooled s | old indep. s | new pooled s | old pooled / new (wall) | (CPU) | "
          "old indep. / new (wall) | (CPU) |\n|---|---|---|---|---|---|---|---|---|")
    for ds, lab, op, oi, npd, wp, cp, wi, ci in table:
        print(f"| {ds} | {lab} | {op:.2f} | {oi:.2f} | {npd:.2f} | {cell(wp)} | {cell(cp)} | {cell(wi)} | {cell(ci)} |")
    if out != "-":
        from pathlib import Path

        from .core import _results_dir, _write_csv
        d = Path(out) if out else _results_dir()
        d.mkdir(parents=True, exist_ok=True)
        path = _write_csv(d / "before_after_multi.csv", log, {"baseline": tree.name, "scale": scale,
                                                             "date": time.strftime("%Y-%m-%dT%H:%M:%S")})
        print(f"olk bench multi: wrote {path}")


if __name__ == "__main__":
    main()

"""Core speed benchmark (issue 13): olk's learning loop against the limit of one core, measured in the same run.

    olk bench core                      # the four cases, 3 repeats each (medians), ~1-2 min on an idle machine
    olk bench core --repeats 5 --cases perceptron_a9a,perceptron_codrna
    olk bench core --quick              # 10% of each dataset, 1 repeat: a smoke test (times not comparable)

Each repeat of a case runs in a fresh process (``python -m olk.bench.core --run CASE``), so its peak memory
(ru_maxrss) is its own; inside it, olk's learning loop runs first, then the reference loops
(:mod:`olk._core.refloop`: the same kernel Perceptron written as plain C loops, scalar exp / vectorised exp /
our best), on the same data in the same order.  For a Perceptron case the reference loops must reproduce olk's
SVs and mistakes exactly (checked).  Reported per case, medians over the repeats (min-max in the CSV):

* ``olk loop s``: olk's learning loop (predict + update for every example; no loading, no scoring);
* ``M evals/s``: kernel evaluations per second of that loop; ``limit``: the best reference loop's rate on the
  same case (for budget learners, the Perceptron reference on the same data stands in: the limit of the
  kernel-sum loop they spend their time in); ``fraction``: olk's rate / limit — ratios within one process;
* ``whole s``: a separate fresh process that imports olk, loads the data (olk's cache) and runs the loop,
  timed from spawn to exit: what a user waits for; ``load s`` the data loading inside it;
* ``peak MB``: the repeat process's peak resident memory;
* ``C++ s``: the SPA authors' group's C++ library on the same case, as measured by the author of issue 13 on a
  machine like this one (their table; it cannot be rebuilt here: reference data, not rerun), and
  ``C++/olk`` = that time / olk's loop time.  The issue gives the C++ *whole-process* time only as a ratio to
  olk's old one, so ``C++ loop / olk whole`` is reported as a conservative stand-in: the C++ process takes at
  least its loop time, so a value > 1 means olk's whole process beats the C++ whole process;
* ``paper s``: the SPA paper's C++ time (Table 2, a 3.2 GHz PC) where the case is the paper's (a9a, 48,842
  rows), and ``paper/olk``.

Wall-clock times on a shared machine are upper bounds; the CSV also records CPU times.  Ratios (fraction,
C++/olk) are what the README quotes.  Results go to ``results/bench/core.csv`` (one row per case, this run).
"""
from __future__ import annotations

import argparse
import csv
import json
import os
import platform
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from . import parser


@dataclass(frozen=True)
class Case:
    name: str
    algorithm: str
    dataset: str
    split: str | None                   # None: every part in file order (a9a: train + test, 48,842 rows)
    order: str                          # "file" or "shuffled" (permutation 0 of seed 2018, as the engine draws it)
    params: dict = field(default_factory=dict)
    gamma: float = 0.4
    cpp_s: float | None = None          # issue 13's C++ library loop time (reference, not rerun)
    cpp_whole_ratio: float | None = None  # issue 13's "whole process: C++ / olk" (old olk; reference)
    paper_s: float | None = None        # SPA paper Table 2 (C++, 3.2 GHz)


#: issue 13's table (measured by the issue's author with the authors' group's C++ library, same machine class)
CASES = (
    Case("perceptron_a9a", "perceptron", "a9a", None, "file", {}, cpp_s=14.50, cpp_whole_ratio=2.2, paper_s=19.93),
    Case("rbp_a9a_train", "rbp", "a9a", "train", "file", {"budget": 1350}, cpp_s=2.67, cpp_whole_ratio=1.4),
    Case("bpas_a9a_train", "bpas", "a9a", "train", "file", {"budget": 1350, "C": 1.0}, cpp_s=4.23,
         cpp_whole_ratio=1.6),
    Case("perceptron_codrna", "perceptron", "codrna", "train", "shuffled", {}, cpp_s=0.74, cpp_whole_ratio=0.54),
)
BY_NAME = {c.name: c for c in CASES}


# ------------------------------------------------------------------------------------------ one repeat
def _data(case: Case, scale: float):
    from olk.data import load_dataset
    from olk.experiment import seeds
    t0 = time.perf_counter()
    d = load_dataset(case.dataset, split=case.split)
    X, y = d.X, d.y
    if scale < 1:
        idx = seeds.subsample(X.shape[0], scale, 2018, case.dataset)
        X, y = X[idx], y[idx]
    load_s = time.perf_counter() - t0
    n = X.shape[0]
    import numpy as np
    order = np.arange(n) if case.order == "file" else seeds.permutation(n, 2018, case.dataset, 0)
    return X, y, order, load_s


def _olk_loop(case: Case, X, y, order) -> dict:
    from olk.algorithms import make
    from olk.tasks import online_pass
    model = make(case.algorithm, kernel={"type": "gaussian", "gamma": case.gamma}, random_state=1, **case.params)
    c0 = time.process_time()
    res = online_pass(model, X, y, order, n_checkpoints=2)
    return {"time_s": res["time_s"], "cpu_s": time.process_time() - c0, "kernel_evals": res["kernel_evals"],
            "n_sv": res["n_sv"], "mistakes": res["mistakes"]}


def run_one(case: Case, scale: float, refs: bool) -> dict:
    """One repeat of `case` in this process: olk's loop, then (refs) the reference loops."""
    import resource
    from olk._core.svpool import exp_simd_now
    X, y, order, load_s = _data(case, scale)
    out = {"case": case.name, "rows": int(X.shape[0]), "load_s": load_s, "exp_simd": exp_simd_now(),
           "olk": _olk_loop(case, X, y, order)}
    if refs:
        from olk._core.refloop import VARIANTS, perceptron_pass
        out["ref"] = {}
        for v in VARIANTS:
            c0 = time.process_time()
            r = perceptron_pass(X, y, order, case.gamma, v)
            r["cpu_s"] = time.process_time() - c0
            out["ref"][v] = r
    out["peak_rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0
    return out


def _spawn(case: Case, scale: float, refs: bool) -> tuple[dict, float]:
    """Run one repeat in a fresh interpreter; (its result, its wall time from spawn to exit)."""
    cmd = [sys.executable, "-m", "olk.bench.core", "--run", case.name, "--scale", str(scale)]
    if not refs:
        cmd.append("--no-refs")
    t0 = time.perf_counter()
    p = subprocess.run(cmd, capture_output=True, text=True)
    wall = time.perf_counter() - t0
    if p.returncode != 0:
        raise SystemExit(f"olk bench core: case {case.name} failed:\n{p.stderr[-2000:]}")
    return json.loads(p.stdout.strip().splitlines()[-1]), wall


# ------------------------------------------------------------------------------------------ the suite
def _median(xs):
    xs = sorted(xs)
    n = len(xs)
    return xs[n // 2] if n % 2 else 0.5 * (xs[n // 2 - 1] + xs[n // 2])


def _fmt(v, spec=".2f", none="-"):
    return none if v is None else format(v, spec)


def summarise(case: Case, reps: list[dict], wholes: list[float], scale: float = 1.0) -> dict:
    """One CSV row: medians (and min/max of the loop time) over the repeats of `case`.  The C++ and paper times
    are for the full case, so they are left out at scale < 1."""
    loop = [r["olk"]["time_s"] for r in reps]
    evals = reps[0]["olk"]["kernel_evals"]
    rate = evals / _median(loop) / 1e6 if _median(loop) > 0 else float("nan")
    row = {"case": case.name, "algorithm": case.algorithm, "dataset": case.dataset, "split": case.split or "all",
           "order": case.order, "params": json.dumps(case.params, sort_keys=True), "gamma": case.gamma,
           "rows": reps[0]["rows"], "repeats": len(reps), "exp_simd": reps[0]["exp_simd"],
           "olk_loop_s": _median(loop), "olk_loop_s_min": min(loop), "olk_loop_s_max": max(loop),
           "olk_cpu_s": _median([r["olk"]["cpu_s"] for r in reps]), "kernel_evals": evals, "m_evals_per_s": rate,
           "n_sv": reps[0]["olk"]["n_sv"], "mistakes": reps[0]["olk"]["mistakes"],
           "peak_rss_mb": max(r["peak_rss_mb"] for r in reps)}
    if "ref" in reps[0]:
        best = None
        for v in reps[0]["ref"]:
            t = _median([r["ref"][v]["time_s"] for r in reps])
            row[f"ref_{v}_m_evals_per_s"] = reps[0]["ref"][v]["kernel_evals"] / t / 1e6 if t > 0 else float("nan")
            best = max(best or 0.0, row[f"ref_{v}_m_evals_per_s"])
        row["limit_m_evals_per_s"] = best
        # the fraction within each process, then the median (a ratio measured in one run, not across runs)
        fr = []
        for r in reps:
            lim = max(r["ref"][v]["kernel_evals"] / r["ref"][v]["time_s"] for v in r["ref"])
            fr.append((r["olk"]["kernel_evals"] / r["olk"]["time_s"]) / lim)
        row["fraction_of_limit"] = _median(fr)
        if case.algorithm == "perceptron":
            for v, r in reps[0]["ref"].items():
                if (r["n_sv"], r["mistakes"]) != (row["n_sv"], row["mistakes"]):
                    raise SystemExit(f"olk bench core: {case.name}: reference loop '{v}' gives {r['n_sv']} SVs / "
                                     f"{r['mistakes']} mistakes, olk {row['n_sv']} / {row['mistakes']}: not the "
                                     f"same computation, the comparison would be meaningless")
    row["whole_process_s"] = _median(wholes) if wholes else None
    row["load_s"] = _median([r["load_s"] for r in reps])
    if scale < 1:
        case = Case(case.name, case.algorithm, case.dataset, case.split, case.order, case.params, case.gamma)
    row["cpp_loop_s_issue13"] = case.cpp_s
    row["cpp_over_olk_loop"] = case.cpp_s / row["olk_loop_s"] if case.cpp_s else None
    row["cpp_loop_over_olk_whole"] = (case.cpp_s / row["whole_process_s"]
                                      if case.cpp_s and row["whole_process_s"] else None)
    row["paper_s"] = case.paper_s
    row["paper_over_olk_loop"] = case.paper_s / row["olk_loop_s"] if case.paper_s else None
    return row


def print_table(rows: list[dict], file=sys.stdout) -> None:
    head = ("case", "rows", "olk loop s", "M evals/s", "limit", "fraction", "C++ s", "C++/olk", "whole s",
            "C++ loop/olk whole", "load s", "peak MB", "paper s", "paper/olk", "#SV", "mistakes")
    print("| " + " | ".join(head) + " |", file=file)
    print("|" + "|".join("---" for _ in head) + "|", file=file)
    for r in rows:
        cells = (r["case"], f"{r['rows']:,}", _fmt(r["olk_loop_s"]), _fmt(r["m_evals_per_s"], ".1f"),
                 _fmt(r.get("limit_m_evals_per_s"), ".1f"), _fmt(r.get("fraction_of_limit"), ".2f"),
                 _fmt(r["cpp_loop_s_issue13"]), _fmt(r["cpp_over_olk_loop"], ".1f") + ("x" if r["cpp_over_olk_loop"] else ""),
                 _fmt(r["whole_process_s"]), _fmt(r["cpp_loop_over_olk_whole"], ".2f"), _fmt(r["load_s"], ".3f"),
                 _fmt(r["peak_rss_mb"], ".0f"), _fmt(r["paper_s"]),
                 _fmt(r["paper_over_olk_loop"], ".1f") + ("x" if r["paper_over_olk_loop"] else ""),
                 f"{r['n_sv']:,}", f"{r['mistakes']:,}")
        print("| " + " | ".join(cells) + " |", file=file, flush=True)


def main(argv=None):
    ap = parser("core", __doc__)
    ap.add_argument("--cases", default=",".join(c.name for c in CASES),
                    help=f"comma-separated, from {', '.join(c.name for c in CASES)}")
    ap.add_argument("--repeats", type=int, default=3, help="fresh processes per case (medians; default 3)")
    ap.add_argument("--scale", type=float, default=1.0, help="fraction of each dataset's rows")
    ap.add_argument("--quick", action="store_true", help="--scale 0.1 --repeats 1 (a smoke test)")
    ap.add_argument("--out", default=None, help="CSV file (default results/bench/core.csv; '-' for none)")
    ap.add_argument("--run", default=None, help=argparse.SUPPRESS)          # internal: one repeat, JSON on stdout
    ap.add_argument("--no-refs", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.run:
        print(json.dumps(run_one(BY_NAME[args.run], args.scale, not args.no_refs)))
        return
    if args.quick:
        args.scale, args.repeats = 0.1, 1
    names = [c.strip() for c in args.cases.split(",") if c.strip()]
    bad = [c for c in names if c not in BY_NAME]
    if bad:
        from olk.errors import did_you_mean
        ap.error(f"unknown case '{bad[0]}'{did_you_mean(bad[0], list(BY_NAME))}; cases: {', '.join(BY_NAME)}")
    if args.repeats < 1:
        ap.error("--repeats must be >= 1")
    from tqdm.auto import tqdm
    rows = []
    total = len(names) * args.repeats * 2
    with tqdm(total=total, desc="olk bench core", unit="proc", disable=not sys.stderr.isatty(), leave=False) as bar:
        for name in names:
            case = BY_NAME[name]
            reps, wholes = [], []
            for _ in range(args.repeats):
                rep, _wall = _spawn(case, args.scale, refs=True)
                reps.append(rep)
                bar.update()
                _, wall = _spawn(case, args.scale, refs=False)      # the whole process a user runs: no references
                wholes.append(wall)
                bar.update()
            rows.append(summarise(case, reps, wholes, args.scale))
    print(f"olk bench core: {args.repeats} repeat(s), scale {args.scale:g}, exp {rows[0]['exp_simd'] if rows else '-'}, "
          f"{platform.processor() or platform.machine()}, python {platform.python_version()}")
    print_table(rows)
    if args.out != "-":
        out = Path(args.out) if args.out else _results_dir() / "core.csv"
        out.parent.mkdir(parents=True, exist_ok=True)
        stamp = time.strftime("%Y-%m-%dT%H:%M:%S")
        with open(out, "w", newline="") as f:
            keys = list(dict.fromkeys(k for r in rows for k in r)) + ["date", "scale", "load_avg"]
            w = csv.DictWriter(f, fieldnames=keys)
            w.writeheader()
            for r in rows:
                w.writerow({**r, "date": stamp, "scale": args.scale, "load_avg": _load()})
        print(f"olk bench core: wrote {out}")


def _results_dir() -> Path:
    from olk.paths import project_dir
    return Path(project_dir()) / "results" / "bench"


def _load() -> str:
    try:
        return " ".join(f"{v:.2f}" for v in os.getloadavg())
    except OSError:
        return ""


if __name__ == "__main__":
    main()

"""Bound vs observed: the ALT 2010 mistake bounds that the ``omkl_*`` learners record with ``bound: true``
(computed by :mod:`olk.algorithms.omkl.bounds`), next to the observed mistakes of a results directory.

    python -m olk.report.bounds results/omkl_alt2010 [--out bounds.md]
"""
from __future__ import annotations

import argparse
import math
import sys

from ..algorithms import REGISTRY
from .results import load_results


def bound_table(results_dir):
    """Per (dataset, label) of a results directory whose runs carry ``mistake_bound``: T, mean ± std mistakes
    and updates over the runs, the bound, bound / mean mistakes, and whether every run (deterministic) or the
    mean (stochastic: an expected-mistake bound) is within it."""
    import pandas as pd

    res = load_results(results_dir)
    runs = res.main
    if "bound_theorem" not in runs.columns:
        return pd.DataFrame()
    runs = runs[~runs["bound_theorem"].astype(str).str.strip().isin(["", "nan", "None"])]
    rows = []
    for (ds, lab), g in runs.groupby(["dataset", "label"], sort=False):
        mist = g["mistakes"].astype(float)
        bound = float(pd.to_numeric(g["mistake_bound"]).max())
        bound = math.inf if math.isnan(bound) else bound               # NaN = vacuous (bound_vacuous)
        algo = str(g["algorithm"].iloc[0])
        stochastic = bool(REGISTRY[algo].stochastic) if algo in REGISTRY else False
        ok = (mist.mean() <= bound) if stochastic else bool((mist <= bound).all())
        rows.append({"dataset": ds, "label": lab, "display": res.display(lab, g["setting"].iloc[0]),
                     "theorem": str(g["bound_theorem"].iloc[0]).strip().replace(".0", ""),
                     "T": int(g["n_examples"].iloc[0]), "runs": len(g),
                     "mistakes": mist.mean(), "mistakes_std": mist.std(ddof=1) if len(g) > 1 else math.nan,
                     "updates": pd.to_numeric(g["n_updates"]).mean(), "bound": bound,
                     "ratio": bound / mist.mean() if mist.mean() > 0 else math.inf,
                     "holds": "vacuous (k(x, x) > 1)" if math.isinf(bound) else
                     ("mean" if stochastic else "every run") + (" <= bound" if ok else " > BOUND")})
    return pd.DataFrame(rows)


def bound_markdown(df) -> str:
    head = "| dataset | algorithm | theorem | T | mistakes (mean ± std) | #updates | bound | bound / mistakes | holds |"
    out = [head, "|---|---|---|---:|---:|---:|---:|---:|---|"]
    for r in df.itertuples(index=False):
        sd = "" if math.isnan(r.mistakes_std) else f" ± {r.mistakes_std:,.1f}"
        bnd = "inf (vacuous)" if math.isinf(r.bound) else f"{r.bound:,.0f}"
        ratio = "inf" if math.isinf(r.ratio) else f"{r.ratio:,.1f}"
        out.append(f"| {r.dataset} | {r.display} | {r.theorem} | {r.T:,} | {r.mistakes:,.1f}{sd} | "
                   f"{r.updates:,.1f} | {bnd} | {ratio} | {r.holds} |")
    return "\n".join(out)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m olk.report.bounds",
                                 description="ALT 2010 mistake bounds vs observed mistakes of a results directory "
                                             "(runs made with the omkl_* learners' bound=True)")
    ap.add_argument("results", help="results directory written by `olk run` (with runs.csv)")
    ap.add_argument("--out", help="also write the Markdown table to this file")
    a = ap.parse_args(argv)
    df = bound_table(a.results)
    if df.empty:
        print(f"{a.results}: no run records a mistake_bound (run the omkl_* learners with bound: true)",
              file=sys.stderr)
        return 1
    md = bound_markdown(df)
    print(md)
    if a.out:
        with open(a.out, "w", encoding="utf-8") as fh:
            fh.write(md + "\n")
    return 0


if __name__ == "__main__":          # pragma: no cover
    sys.exit(main())

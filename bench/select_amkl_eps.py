"""Choose a random-feature learner's selection parameters (AMKL's epsilon; AMKL-AKS's epsilon and M) on some AMKL
datasets, by the rule written in the config of the chosen reading before it ran (issue 48):

* the grid point with the most of the chosen-on datasets' judged Table III cells of that learner (MSE and the
  labelling efficiency rho, each the mean over the random-feature seeds; olk's tolerance rule:
  olk.report.tolerance.judge with RULE) in tolerance;
* a tie goes to the smaller mean gap in tolerances (|ours - paper| / the cell's margin, averaged over the cells),
* then to the point nearer the literal one (the sum over the parameters of |log10(value / literal value)|).

Usage:
  python bench/select_amkl_eps.py RESULTS_DIR --label amkl_grid --algorithm amkl --on air,energy \
      --literal epsilon=0.005
  python bench/select_amkl_eps.py results/amkl_fig2 --label amkl_aks --algorithm amkl_aks --on tom,air \
      --literal epsilon=0.005,M=1
Prints every grid point's count and gap, best first, and the chosen point; writes nothing.
"""
from __future__ import annotations

import argparse
import csv
import json
import math
from collections import defaultdict
from pathlib import Path

from olk.report.tolerance import RULE, judge, margin

UNIT = {"mse": 1e-3, "efficiency": 1.0}              # the paper's units (table_layout units: mse 1e-3)
OURS = {"mse": "mse", "efficiency": "label_efficiency"}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("results")
    ap.add_argument("--label", required=True)
    ap.add_argument("--algorithm", required=True, help="the paper's row (results/paper/amkl_tableIII.csv)")
    ap.add_argument("--on", required=True, help="datasets to choose on, comma-separated")
    ap.add_argument("--literal", required=True, help="the literal point, e.g. epsilon=0.005,M=1")
    a = ap.parse_args()
    on = a.on.split(",")
    literal = {k: float(v) for k, v in (kv.split("=") for kv in a.literal.split(","))}
    paper = {(r["dataset"], r["metric"]): float(r["mean"])
             for r in csv.DictReader(Path("results/paper/amkl_tableIII.csv").open())
             if r["algorithm"] == a.algorithm and r["dataset"] in on}
    runs: dict[tuple, list] = defaultdict(list)
    for line in Path(a.results, "runs.jsonl").read_text().splitlines():
        r = json.loads(line)
        if r["phase"] != "main" or r["label"] != a.label or r["dataset"] not in on:
            continue
        point = tuple(float(r["params"][k]) for k in literal)
        runs[(point, r["dataset"])].append(r)
    points = sorted({p for p, _ in runs})
    scored = []
    for p in points:
        cells = []
        for d in on:
            rs = runs[(p, d)]
            for metric, field in OURS.items():
                ours = sum(r[field] for r in rs) / len(rs) / UNIT[metric]
                want = paper[(d, metric)]
                verdict = judge(ours - want, want, math.nan, RULE[metric])
                cells.append((d, metric, len(rs), ours, want, verdict, abs(ours - want) / margin(RULE[metric], want)))
        n_in = sum(c[5] != "off" for c in cells)
        gap = sum(c[6] for c in cells) / len(cells)
        near = sum(abs(math.log10(v / literal[k])) for k, v in zip(literal, p))
        scored.append((-n_in, gap, near, p, cells))
    scored.sort(key=lambda s: s[:3])
    names = ", ".join(literal)
    print(f"({names})  in tolerance (of {len(scored[0][4])})  mean gap in tolerances")
    for neg, gap, _, p, _ in scored:
        print(f"{p}  {-neg:>6d}  {gap:10.2f}")
    best = scored[0]
    print("chosen: " + ", ".join(f"{k} = {v:g}" for k, v in zip(literal, best[3])))
    for d, metric, n, ours, want, verdict, _gap in best[4]:
        print(f"  {d:<8s} {metric:<10s} ours {ours:.4g} ({n} seeds)  paper {want:g}  {verdict}")


if __name__ == "__main__":
    main()

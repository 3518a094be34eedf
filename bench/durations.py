"""How long each reproduction took: per results directory and dataset, the number of runs and the
summed run time (the learning loops or training, which dominate), and the recorded wall clock.

    python bench/durations.py                      # every results/<name>/ with runs.jsonl
    python bench/durations.py results/spa_table2

``run s`` is the sum over runs (tuning, matching, main) of each run's measured time: the CPU time the
config needs on one core.  With ``--n-jobs 2`` on 2 cores the wall clock is about half of it (plus
data loading and, for batch mode, test-set scoring).  ``wall`` is ``finished - started`` from
experiment.json, meaningful only for a run that was not resumed across sessions.
"""
from __future__ import annotations

import datetime as dt
import json
import sys
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def summarize(d: Path) -> None:
    per = defaultdict(lambda: [0, 0.0])
    with open(d / "runs.jsonl") as fh:
        for line in fh:
            try:
                r = json.loads(line)
            except json.JSONDecodeError:
                continue
            t = r.get("train_time_s", r.get("time_s")) or 0.0
            per[r["dataset"]][0] += 1
            per[r["dataset"]][1] += t
    meta = json.loads((d / "experiment.json").read_text()) if (d / "experiment.json").is_file() else {}
    wall = "-"
    if meta.get("started") and meta.get("finished"):
        started, finished = dt.datetime.fromisoformat(meta["started"]), dt.datetime.fromisoformat(meta["finished"])
        secs = (finished - started).total_seconds()
        wall = f"{secs / 60:.1f} min (n_jobs {meta.get('n_jobs')})"
    total = sum(v[1] for v in per.values())
    print(f"{d.name}: {sum(v[0] for v in per.values())} runs, run time {total / 60:.1f} min, wall {wall}")
    for ds, (n, s) in per.items():
        print(f"    {ds:<10} {n:>5} runs  {s / 60:>8.1f} min")


def main(argv: list[str]) -> None:
    dirs = [Path(a) for a in argv] or sorted(p.parent for p in (ROOT / "results").glob("*/runs.jsonl"))
    for d in dirs:
        summarize(d)


if __name__ == "__main__":
    main(sys.argv[1:])

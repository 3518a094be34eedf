"""Adding a learner to a results directory (docs/guide/resuming.md, "the rows of a results directory"): the
existing rows do not change, stale records of the log are never shown, fewer --repeats keep every permutation
the directory holds, and a ``match:``ed budget is the value the directory records (SPA's mean #SV over every
permutation it holds, in experiment.json "matched"), not the mean over the permutations this invocation ran."""
from __future__ import annotations

import json

import pandas as pd

from olk.experiment import Runner, parse_config

BASE = {"name": "t", "seed": 5, "repeats": 4, "kernel": {"type": "gaussian", "gamma": 0.4},
        "datasets": ["a9a-small", "codrna-small"],
        "algorithms": [{"name": "spa", "params": {"alpha": 1, "beta": 5, "eta": 0.1}},
                       {"name": "rbp", "params": {"budget": {"match": "spa", "stat": "n_sv"}}}]}
MINE = {"name": "margin_random_budget", "params": {"budget": {"match": "spa", "stat": "n_sv"}, "margin": 0.2}}


def _run(raw, out, **kw):
    from olk.experiment.plan import variant
    cfg = parse_config(raw, "t.yaml")
    cfg = variant(cfg, algorithms=kw.pop("algorithms", None), repeats=kw.pop("repeats", None))
    return Runner(cfg, out, progress=False, log=lambda m: None, **kw).run()


def test_adding_a_learner_changes_no_row_and_matches_the_recorded_budget(tmp_path):
    out = tmp_path / "o"
    _run(BASE, out)
    before = pd.read_csv(out / "runs.csv")
    # a stale record in the log: an RBP run at another budget that no row lists (an earlier configuration's)
    log = out / "runs.jsonl"
    recs = [json.loads(line) for line in log.read_text().splitlines()]
    stale = next(r for r in recs if r["label"] == "rbp" and r["phase"] == "main")
    stale = {**stale, "run_id": "stale0000000000a", "params": {**stale["params"], "budget": 7}, "n_sv": 7}
    with open(log, "a") as fh:
        fh.write(json.dumps(stale) + "\n")
    # the researcher's learner, on 2 of the 4 permutations, on top of the directory
    raw = {**BASE, "algorithms": BASE["algorithms"] + [MINE]}
    _run(raw, out, algorithms=["margin_random_budget"], repeats=2, resume=True)
    after = pd.read_csv(out / "runs.csv")
    cols = [c for c in before.columns if c != "run_id"]
    old = after[after.run_id.isin(before.run_id)].set_index("run_id").sort_index()
    pd.testing.assert_frame_equal(old[cols], before.set_index("run_id").sort_index()[cols])
    assert set(before.run_id) <= set(after.run_id) and "stale0000000000a" not in set(after.run_id)
    mine = after[(after.label == "margin_random_budget") & (after.phase == "main")]
    assert len(mine) == 2 * 2                                       # 2 permutations x 2 datasets
    meta = json.loads((out / "experiment.json").read_text())
    for ds in ("a9a-small", "codrna-small"):
        spa = before[(before.dataset == ds) & (before.label == "spa") & (before.phase == "main")]
        rec = meta["matched"][ds]["margin_random_budget"]["budget"]
        assert rec["perms"] == [0, 1, 2, 3] and rec["runs"] == 4 and rec["match"] == "spa"
        assert abs(rec["value"] - spa.n_sv.mean()) < 1e-9             # all 4 of SPA's permutations, not 2
        assert set(mine[mine.dataset == ds].n_sv) == {round(spa.n_sv.mean())}
        assert json.loads(mine[mine.dataset == ds].params.iloc[0])["budget"] == round(spa.n_sv.mean())
    # the table shows one row per learner: no stale "RBP (budget=7)" row
    from olk.report.tables import render_table
    md = render_table(out, "md")
    assert "budget=7" not in md and "| RBP |" in md and "| MRB |" in md


def test_the_rows_rule_drops_a_main_run_whose_matched_value_moved(tmp_path):
    """More permutations of SPA move RBP's matched budget: RBP's runs at the old budget are superseded (stale), the
    directory then equals a fresh run with that many permutations."""
    out = tmp_path / "o"
    _run(BASE, out, repeats=2)
    _run(BASE, out, resume=True)                                    # 4 permutations now
    fresh = tmp_path / "fresh"
    _run(BASE, fresh)
    a = pd.read_csv(out / "runs.csv").sort_values("run_id").reset_index(drop=True)
    b = pd.read_csv(fresh / "runs.csv").sort_values("run_id").reset_index(drop=True)
    cols = ["run_id", "phase", "dataset", "label", "perm", "params", "n_sv", "mistakes"]
    pd.testing.assert_frame_equal(a[cols], b[cols])

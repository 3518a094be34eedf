"""One sweep mechanism: `olk sweep --set beta=5,20` (or --beta 5,20) is the YAML `sweep: {beta: [5, 20]}`, and an
entry that matches a swept entry (a budget baseline matching SPA's #SV) runs once per point with that point's
matched value."""
import json

import numpy as np
import pandas as pd
import pytest

from olk.cli import main

BASE = """
name: s
repeats: 2
seed: 3
kernel: {type: gaussian, gamma: 0.4}
datasets: [a9a-small]
algorithms:
  - {name: spa, params: {alpha: 1, eta: 1%s}}
  - {name: bogd, params: {budget: {match: spa, stat: n_sv}, eta: 1, lam: 0.01}}
"""


def _run(argv):
    with pytest.raises(SystemExit) as e:
        main(argv)
        raise SystemExit(0)
    assert e.value.code == 0


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("sweep")
    (tmp / "cli.yaml").write_text(BASE % "")
    (tmp / "yaml.yaml").write_text(BASE.replace("eta: 1%s}}", "eta: 1}, sweep: {beta: [5, 20]}}"))
    _run(["sweep", str(tmp / "cli.yaml"), "--beta", "5,20", "--out", str(tmp / "a"), "--no-progress", "-q"])
    _run(["run", str(tmp / "yaml.yaml"), "--out", str(tmp / "b"), "--no-progress", "-q"])
    return pd.read_csv(tmp / "a" / "runs.csv"), pd.read_csv(tmp / "b" / "runs.csv"), tmp


def test_matched_entries_run_once_per_point_of_the_entry_they_match(runs):
    df, _, _ = runs
    assert set(df.label) == {"spa", "bogd"}
    for setting in ("beta=5", "beta=20"):
        spa = df[(df.label == "spa") & (df.setting == setting)]
        bogd = df[(df.label == "bogd") & (df.setting == setting)]
        assert len(spa) == len(bogd) == 2
        budgets = {json.loads(p)["budget"] for p in bogd.params}
        assert budgets == {int(round(np.mean(spa.n_sv)))}      # the budget of *this* point's SPA runs
    b5 = json.loads(df[(df.label == "bogd") & (df.setting == "beta=5")].params.iloc[0])["budget"]
    b20 = json.loads(df[(df.label == "bogd") & (df.setting == "beta=20")].params.iloc[0])["budget"]
    assert b5 > b20                                              # larger beta, sparser SPA, smaller budget


def test_command_line_sweep_and_yaml_sweep_are_one_mechanism(runs):
    a, b, _ = runs
    cols = ["run_id", "label", "setting", "mistakes", "n_sv"]
    assert a[cols].sort_values("run_id").values.tolist() == b[cols].sort_values("run_id").values.tolist()


def test_a_swept_parameter_the_learner_has_not_reads_as_what_it_changes(runs):
    """BOGD has no beta: its rows say what beta changes for them, the budget matched to SPA's #SV at that beta."""
    from olk.report.results import load_results
    _, _, tmp = runs
    for d in ("a", "b"):
        res = load_results(tmp / d)
        assert [res.display(lab, st) for lab, st in res.rows] == [
            "SPA (beta=5)", "SPA (beta=20)", "BOGD (B = SPA's #SVs at beta=5)", "BOGD (B = SPA's #SVs at beta=20)"]


def test_an_own_sweep_and_an_inherited_point_read_together():
    from olk.experiment.config import MatchRef
    from olk.experiment.plan import Point, setting_display
    names = {"spa": "SPA", "oskl": "OSKL"}.get
    pt = Point({"eta": 0.1}, {"spa": "beta=5,alpha=1"})
    assert setting_display(pt, {"B": MatchRef("spa")}, lambda lab, stat: (names(lab), "#SVs")) == \
        "eta=0.1; B = SPA's #SVs at beta=5, alpha=1"
    assert setting_display(Point({}, {"spa": "beta=5"}), {"G": MatchRef("spa", "n_sv", "median")},
                           lambda lab, stat: (names(lab), "#SVs")) == "G = SPA's #SVs (median) at beta=5"
    assert setting_display(Point({"beta": 5}), {}, lambda lab, stat: (lab, stat)) is None    # nothing inherited

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
    return pd.read_csv(tmp / "a" / "runs.csv"), pd.read_csv(tmp / "b" / "runs.csv")


def test_matched_entries_run_once_per_point_of_the_entry_they_match(runs):
    df, _ = runs
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
    a, b = runs
    cols = ["run_id", "label", "setting", "mistakes", "n_sv"]
    assert a[cols].sort_values("run_id").values.tolist() == b[cols].sort_values("run_id").values.tolist()

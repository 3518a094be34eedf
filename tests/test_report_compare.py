"""Comparison with published values (olk.report.compare) on a hand-made published table.

tests/report_fixtures/toy_paper_table1.csv vs toy_table (ours, see test_report_tables.py):

a9a  perceptron acc  ours 79.30 paper 79.00 ± 0.50  diff +0.30  -> within paper std
a9a  spa        acc  ours 82.04 paper 81.00 ± 0.30  diff +1.04  -> within tolerance (0.30 + 1.5)
a9a  spa_last   acc  ours 81.70 paper 84.00 ± 0.40  diff -2.30  -> off (> 0.40 + 1.5)
a9a  perceptron n_sv ours 8000  paper 9000 ± 100    diff -1000  -> within tolerance (100 + 10% of 9000: the bound)
a9a  spa        n_sv ours 1000  paper 1050          diff -4.8%  -> within tolerance
a9a  perceptron time                                 -> n/a (no time tolerance by default)
w7a  perceptron acc  not run;  covtype spa acc: not run (data unavailable)
Ranking a9a: ours SPA > SPA-last > Perceptron, paper SPA-last > SPA > Perceptron -> tau = (2-1)/3.
"""
from __future__ import annotations

import csv
import io
import json
import math
import shutil
from pathlib import Path

import pandas as pd
import pytest

from olk.errors import OlkError
from olk.report.compare import DEFAULT_TOLERANCES, _match, compare, parse_tolerances

FIX = Path(__file__).parent / "report_fixtures"
PUB = FIX / "toy_paper_table1.csv"


@pytest.fixture
def toy(tmp_path):
    dst = tmp_path / "toy_table"
    shutil.copytree(FIX / "toy_table", dst)
    return dst


def _verdicts(c) -> dict[tuple[str, str, str], str]:
    return {(r.dataset, r.algorithm, r.metric): r.verdict for r in c.cells.itertuples()}


def test_verdicts_hand_made_case(toy):
    c = compare(toy, published=PUB)
    v = _verdicts(c)
    assert v["a9a", "perceptron", "accuracy"] == "within paper std"
    assert v["a9a", "spa", "accuracy"] == "within tolerance"
    assert v["a9a", "spa_last", "accuracy"] == "off"
    assert v["a9a", "perceptron", "n_sv"] == "within tolerance"   # |diff| = std + 10% exactly
    assert v["a9a", "spa", "n_sv"] == "within tolerance"
    assert v["a9a", "perceptron", "time"] == "n/a"
    assert v["a9a", "spa", "time"] == "no paper value"
    assert v["w7a", "perceptron", "accuracy"] == "not run"
    assert v["w7a", "spa", "accuracy"] == "within tolerance"      # |-0.30| > 0.20 std, <= 1.5
    assert v["w7a", "spa_last", "accuracy"] == "within paper std"  # +0.10 <= 0.20
    assert v["covtype", "spa", "accuracy"] == "not run"
    cov = c.cells[(c.cells["dataset"] == "covtype")].iloc[0]
    assert cov["paper_note"].startswith("data unavailable: LIBSVM mirror unreachable")
    row = c.cells[(c.cells["dataset"] == "a9a") & (c.cells["algorithm"] == "spa") & (c.cells["metric"] == "accuracy")]
    assert math.isclose(row["diff"].iloc[0], 1.04) and math.isclose(row["tolerance"].iloc[0], 1.5)
    assert c.summary() == {"within paper std": 2, "within tolerance": 4, "off": 1, "n/a": 1,
                           "no paper value": 7, "not run": 2}
    off = c.cells[c.cells["verdict"] == "off"]
    assert list(off["cause_category"]) == ["open"]            # no results/annotations.yaml: nothing recorded
    assert set(c.cells.loc[c.cells["verdict"] != "off", "cause_category"]) == {""}


def test_ranking_kendall_tau(toy):
    rk = compare(toy, published=PUB).ranking.set_index("dataset")
    assert math.isclose(rk.loc["a9a", "tau"], 1 / 3)
    assert rk.loc["a9a", "n_algorithms"] == 3 and rk.loc["a9a", "metric"] == "accuracy"
    assert rk.loc["a9a", "ours_order"] == "SPA > SPA-last > Perceptron"
    assert rk.loc["a9a", "paper_order"] == "SPA-last > SPA > Perceptron"
    assert math.isclose(rk.loc["w7a", "tau"], 1.0) and rk.loc["w7a", "n_algorithms"] == 2
    assert "covtype" not in rk.index  # nothing to rank


def test_tolerances_from_experiment_json_need_a_reason_and_the_argument_overrides(toy):
    meta = json.loads((toy / "experiment.json").read_text())
    meta["compare"] = {"accuracy": 0.5, "time": "50%", "n_sv": 0.10}     # bare: ignored unless equal to the rule
    (toy / "experiment.json").write_text(json.dumps(meta))
    c = compare(toy, published=PUB)
    v = _verdicts(c)
    assert v["a9a", "spa", "accuracy"] == "within tolerance"     # the rule's 1.5, not the unexplained 0.5
    assert v["a9a", "perceptron", "time"] == "n/a"
    assert sorted(c.ignored) == ["accuracy", "time"] and "without a reason" in c.ignored["accuracy"]
    assert "Not applied (the config gives no reason): accuracy: 0.5 given without a reason" in c.to_markdown()
    meta["compare"] = {"accuracy": {"tolerance": 0.5, "reason": "the paper reports 10 runs"},
                       "time": {"tolerance": "50%", "reason": "same hardware"}}
    (toy / "experiment.json").write_text(json.dumps(meta))
    c = compare(toy, published=PUB)
    v = _verdicts(c)
    assert v["a9a", "spa", "accuracy"] == "off"                  # |1.04| > 0.30 + 0.5
    assert v["a9a", "perceptron", "time"] == "within tolerance"  # |1.2-2.0| = 40% <= 50%
    assert c.reasons == {"accuracy": "the paper reports 10 runs", "time": "same hardware"} and not c.ignored
    assert "accuracy ±0.5 points (the paper reports 10 runs)" in c.to_markdown()
    c = compare(toy, ["accuracy=1.1", "n_sv=abs:1000"], published=PUB)
    v = _verdicts(c)
    assert v["a9a", "spa", "accuracy"] == "within tolerance"     # argument beats experiment.json
    assert v["a9a", "perceptron", "time"] == "within tolerance"  # experiment.json still applies
    assert c.overridden == ("accuracy", "n_sv") and "accuracy" not in c.reasons
    assert "Set on the command line (--tol), not the rule: accuracy ±1.1 points; #SV ±1000." in c.to_markdown()


def test_a_deviation_without_a_reason_or_with_bad_keys_is_one_line(toy):
    from olk.report.tolerance import parse_compare

    for spec, msg in [({"n_sv": {"tolerance": "25%"}}, "compare.n_sv.reason: say in one line why"),
                      ({"n_sv": {"tolerance": "25%", "reason": " "}}, "compare.n_sv.reason"),
                      ({"n_sv": {"tol": "25%", "reason": "x"}}, "compare.n_sv: expected {tolerance: VALUE"),
                      ({"n_sv": {"tolerance": "lots", "reason": "x"}}, "compare.n_sv.tolerance: tolerance 'lots'"),
                      ({"variant": ""}, "compare.variant: expected one line"),
                      ({"datasets": ["a"]}, "compare.datasets: expected a mapping"),
                      ({"nsv": 0.1}, "unknown metric 'nsv'")]:
        with pytest.raises(OlkError) as e:
            parse_compare(spec, "c.yaml: compare")
        assert msg in str(e.value) and "\n" not in str(e.value), (spec, str(e.value))
        with pytest.raises(OlkError):               # the config layer's check (parse_tolerances) refuses it too
            parse_tolerances(spec, "c.yaml: compare")
    with pytest.raises(OlkError, match=r"^c\.yaml: compare\.n_sv: 25% differs from the tolerance rule \(#SV ±10% "
                                       r"beyond the paper's std\); delete it, or give the table's reason: n_sv: "):
        parse_compare({"n_sv": 0.25, "accuracy": 1.5}, "c.yaml: compare", strict=True)   # the check before a run
    assert parse_compare({"n_sv": 0.1, "accuracy": 1.5}, "c.yaml: compare", strict=True).ignored == {}
    meta = json.loads((toy / "experiment.json").read_text())
    meta["compare"] = {"n_sv": {"tolerance": "25%"}}
    (toy / "experiment.json").write_text(json.dumps(meta))
    with pytest.raises(OlkError, match=r"experiment\.json: compare\.n_sv\.reason"):
        compare(toy, published=PUB)


def test_parse_tolerances():
    assert parse_tolerances(None) == DEFAULT_TOLERANCES
    t = parse_tolerances({"time_s": "20%", "test_accuracy": 2, "n_sv": None})
    assert t["time"] == ("rel", 0.2) and t["accuracy"] == ("abs", 2.0) and t["n_sv"] == ("rel", None)
    assert parse_tolerances({"tolerances": {"accuracy": "rel:0.01"}})["accuracy"] == ("rel", 0.01)
    for bad, msg in [(["accurcy=1"], "unknown metric 'accurcy' (did you mean 'accuracy'?)"),
                     (["accuracy"], "must look like METRIC=VALUE"),
                     (["accuracy=lots"], "tolerance 'lots' is not a number"),
                     (["accuracy=-1"], "must be >= 0")]:
        with pytest.raises(OlkError) as e:
            parse_tolerances(bad)
        assert msg in str(e.value) and "\n" not in str(e.value)


def test_markdown_and_csv_outputs(toy):
    c = compare(toy, published=PUB)
    md = c.to_markdown()
    assert "| Algorithm | Metric | Ours | Paper | Diff | Verdict |" in md
    assert "| SPA | accuracy | 82.04 ± 0.05 | 81.00 ± 0.30 | +1.04 | within tolerance |" in md
    assert "| Perceptron | n_sv | 8,000 ± 50 | 9,000 ± 100 | -1,000 (-11.1%) | within tolerance |" in md
    assert "| SPA-last | accuracy | 81.70 ± 0.20 | 84.00 ± 0.40 | -2.30 | off (open) |" in md
    assert "- SPA-last, accuracy: *open*: nothing recorded in results/annotations.yaml" in md
    assert "| a9a | accuracy | 3 | 0.33 |" in md
    written = c.write()
    assert [p.name for p in written] == ["compare.md", "compare.csv", "compare_ranking.csv"]
    rows = list(csv.DictReader(io.StringIO((toy / "compare.csv").read_text())))
    assert {"dataset", "algorithm", "metric", "ours_mean", "ours_std", "paper_mean", "paper_std", "diff",
            "verdict"} <= set(rows[0])
    assert len(rows) == len(c.cells)


def test_published_rows_outside_the_experiment_are_kept_apart(toy):
    pub = pd.read_csv(PUB, dtype=str, keep_default_na=False)
    extra = pd.DataFrame([dict(pub.iloc[0], algorithm="ogd", paper_label="OGD"),
                          dict(pub.iloc[0], dataset="kdd08")])
    c = compare(toy, published=pd.concat([pub, extra], ignore_index=True))
    assert int((~c.cells["in_experiment"]).sum()) == 2
    assert "not run" in set(c.cells.loc[~c.cells["in_experiment"], "verdict"])
    md = c.to_markdown()
    assert "Also in the paper, not in this experiment: OGD." in md
    assert "Paper datasets not in this experiment: kdd08" in md
    assert c.summary()["not run"] == 2  # the two extra cells are not counted


def test_settings_matched_to_paper_labels_by_number():
    pairs = _match(["", ""], [{1e-5, 0.5}, {1e-7, 0.5}],
                   ["Pegasos (λ = 1e-7)", "Pegasos (λ = 1e-5)", "Pegasos (λ = 1e-9)"])
    assert pairs == [(0, 1), (1, 0), (None, 2)]
    assert _match(["budget=100"], [{100.0}], ["SPA"]) == [(0, 0)]
    assert _match([], [], ["KL-RBF (=0.1)", "KL-RBF (=1)"]) == [(None, 0), (None, 1)]


def test_paper_unit_scaling_and_batch_metrics(tmp_path):
    d = tmp_path / "batch"
    shutil.copytree(FIX / "toy_table", d)
    runs = pd.read_csv(d / "runs.csv", dtype=str, keep_default_na=False)
    runs["test_accuracy"] = "90.0"
    runs["train_time_s"] = "3.0"
    runs.to_csv(d / "runs.csv", index=False)
    pub = pd.DataFrame([["toy_paper", "1", "a9a", "spa", "SPA", "accuracy", "89.5", "", "%", ""],
                        ["toy_paper", "1", "a9a", "spa", "SPA", "time", "3000", "", "1e-3", "ms"]],
                       columns=["paper", "table", "dataset", "algorithm", "paper_label", "metric", "mean",
                                "std", "unit", "note"])
    c = compare(d, {"time": "1%"}, published=pub)
    r = c.cells.set_index(["dataset", "algorithm", "metric"])
    assert r.loc[("a9a", "spa", "accuracy"), "our_metric"] == "test_accuracy"
    assert r.loc[("a9a", "spa", "accuracy"), "verdict"] == "within tolerance"
    assert r.loc[("a9a", "spa", "time"), "our_metric"] == "train_time_s"
    assert r.loc[("a9a", "spa", "time"), "paper_mean"] == 3.0 \
        and r.loc[("a9a", "spa", "time"), "verdict"] == "within tolerance"


@pytest.mark.parametrize("meta,kwargs,expected", [
    ({}, {}, "does not name the published table ('paper' and 'table' keys)"),
    ({"paper": "toy_paper", "table": "9"}, {}, "no published values for toy_paper Table 9"),
])
def test_compare_errors_are_one_line(toy, meta, kwargs, expected):
    (toy / "experiment.json").write_text(json.dumps(meta))
    with pytest.raises(OlkError) as e:
        compare(toy, published=PUB, **kwargs)
    assert expected in str(e.value) and "\n" not in str(e.value)


def test_dataset_aliases_from_experiment_json(toy):
    meta = json.loads((toy / "experiment.json").read_text())
    meta["compare"] = {"datasets": {"a9a": "adult-a9a"}}
    (toy / "experiment.json").write_text(json.dumps(meta))
    pub = pd.read_csv(PUB, dtype=str, keep_default_na=False)
    pub.loc[pub["dataset"] == "a9a", "dataset"] = "adult-a9a"
    c = compare(toy, published=pub)
    assert _verdicts(c)["a9a", "perceptron", "accuracy"] == "within paper std"
    assert "## a9a (paper: adult-a9a)" in c.to_markdown()

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
import re
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
    pairs = _match(["", ""], [({1e-5}, {1e-5, 0.5}), ({1e-7}, {1e-7, 0.5})],
                   ["Pegasos (λ = 1e-7)", "Pegasos (λ = 1e-5)", "Pegasos (λ = 1e-9)"])
    assert pairs == [(0, 1), (1, 0), (None, 2)]
    assert _match(["budget=100"], [({100.0}, {100.0})], ["SPA"]) == [(0, 0)]
    assert _match([], [], ["KL-RBF (=0.1)", "KL-RBF (=1)"]) == [(None, 0), (None, 1)]
    # a parameter every setting shares (step_scale = 1) must not make the width sigma = 0.1's row ambiguous with
    # the paper's "(=1)": the numbers that vary between the settings decide first
    sigmas = [({50.0, 0.1}, {50.0, 0.1, 1.0, 0.01}), ({0.5, 1.0}, {0.5, 1.0, 0.01}),
              ({0.005, 10.0}, {0.005, 10.0, 1.0})]
    assert _match(["g50", "g0.5", "g0.005"], sigmas, ["KL-RBF (=0.1)", "KL-RBF (=1)", "KL-RBF (=10)"]) == \
        [(0, 0), (1, 1), (2, 2)]
    assert _match(["g50", "g0.5"], [(set(), s[1]) for s in sigmas[:2]], ["KL-RBF (=0.1)", "KL-RBF (=1)"]) == \
        [(0, None), (1, 1), (None, 0)]         # all numbers alone: sigma = 0.1's row also names 1 -> unpaired


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


# ----------------------------------------------------------------------------- issue 48: no verdict without a value
def test_a_cell_without_a_paper_value_gets_no_verdict_even_where_ours_diverged(toy):
    """a9a SPA-last's accuracy diverged (no finite value) and the paper prints none: 'no paper value', never 'off',
    and the overview does not count it."""
    from olk.report.overview import PAPER_DATA, cell_counts

    runs = pd.read_csv(toy / "runs.csv", dtype=str, keep_default_na=False)
    runs.loc[(runs["dataset"] == "a9a") & (runs["label"] == "spa_last"), "accuracy"] = ""
    runs.to_csv(toy / "runs.csv", index=False)
    pub = pd.read_csv(PUB, dtype=str, keep_default_na=False)
    pub = pub[~((pub["dataset"] == "a9a") & (pub["algorithm"] == "spa_last"))]
    c = compare(toy, published=pub)
    cell = c.cells[(c.cells["dataset"] == "a9a") & (c.cells["algorithm"] == "spa_last")
                   & (c.cells["metric"] == "accuracy")].iloc[0]
    assert cell["verdict"] == "no paper value" and cell["cause_category"] == ""
    assert "diverged" in cell["paper_note"]
    assert "| SPA-last | accuracy | not finite (diverged) | — |  | no paper value |" in c.to_markdown()
    judged = c.cells[c.cells["in_experiment"] & c.cells["verdict"].isin(["within paper std", "within tolerance",
                                                                          "off"])]
    assert sum(v["judged"] for v in cell_counts(c).values()) == len(judged)
    assert not judged["paper_mean"].isna().any()
    assert cell_counts(c)[PAPER_DATA]["judged"] == len(judged)
    # with the paper's value the same diverged cell is off, as before
    assert _verdicts(compare(toy, published=PUB))["a9a", "spa_last", "accuracy"] == "off"


# ----------------------------------------------------------------------------- issue 48: the reading keys
@pytest.mark.parametrize("spec,msg", [
    ({"reading": "literal_alternative"}, "compare.contradiction: a literal alternative names the row"),
    ({"reading": "literal_alternative", "contradiction": 0}, "compare.contradiction: a literal alternative"),
    ({"reading": "literal", "contradiction": 1}, "compare.contradiction: only a literal alternative"),
    ({"reading": "literal_alternative", "contradiction": 1, "chosen_on": []}, "compare.chosen_on: only a fitted"),
    ({"reading": "fited"}, "compare.reading: expected literal"),
    ({"reading": "fitted", "chosen_on": ["a9a"], "designed": "2026-11-26"}, "designed and after_fit go together"),
    ({"reading": "fitted", "chosen_on": ["a9a"], "designed": "26/11/2026", "after_fit": "x"}, "YYYY-MM-DD"),
    ({"reading": "fitted", "chosen_on": ["a9a"], "designed": "2026-02-30", "after_fit": "x"}, "is not a date"),
    ({"reading": "fitted", "chosen_on": ["a9a"], "designed": "2026-11-26", "after_fit": "a/b"}, "after_fit: the name"),
    ({"reading": "literal", "designed": "2026-11-26", "after_fit": "x"}, "only a fitted reading's candidates"),
    ({"reading": "fitted", "choices": {"beta = 10": "ijcnn1"}}, "compare.choices.beta = 10: a fitted reading lists"),
    ({"reading": "fitted", "chosen_on": ["a9a"], "choices": {"beta = 10": ["ijcnn1"]}}, "is not the datasets its"),
    ({"reading": "literal", "choices": {"beta = 10": []}}, "compare.choices: only a fitted reading"),
])
def test_the_reading_keys_are_checked_where_compare_is(spec, msg):
    """parse_compare is the check `olk run` makes of a config's compare: before anything runs
    (olk.experiment.config._check_report_keys); every bad reading key is one line naming it."""
    from olk.errors import ConfigError
    from olk.report.tolerance import parse_compare

    with pytest.raises(ConfigError, match=re.escape(msg)):
        parse_compare(spec, "c.yaml: compare", strict=True)


def test_the_reading_keys_and_their_one_label():
    import datetime

    from olk.report.tolerance import parse_compare

    alt = parse_compare({"reading": "literal_alternative", "contradiction": 1})
    assert alt.label() == alt.short_label() == "literal alternative (contradiction 1)"
    fit = parse_compare({"reading": "fitted", "choices": {"beta = 10 on ijcnn1": ["ijcnn1"], "y f <= 0": []},
                         "designed": datetime.date(2026, 11, 26), "after_fit": "spa_table5_fitted"})
    assert fit.chosen_on == ("ijcnn1",) and fit.designed == "2026-11-26" and fit.after_fit == "spa_table5_fitted"
    assert fit.label() == "fitted: beta = 10 on ijcnn1 (chosen on ijcnn1); y f <= 0 (chosen on no cell)"
    assert fit.short_label() == "fitted on ijcnn1"
    assert parse_compare({"reading": "fitted", "chosen_on": []}).label() == "fitted on no cell"
    assert parse_compare(None).label() == "reading not labelled"


def test_a_config_with_the_reading_keys_passes_olk_runs_check(tmp_path):
    from olk.experiment.config import load_config

    cfg = tmp_path / "c.yaml"
    base = "name: c\npaper: spa_tist2018\ntable: '5'\ndatasets: [german]\nalgorithms: [perceptron]\n"
    cfg.write_text(base + "compare: {reading: literal_alternative, contradiction: 1, variant: the printed y f < 0}\n")
    assert load_config(str(cfg)).compare["contradiction"] == 1
    cfg.write_text(base + "compare: {reading: fitted, chosen_on: [german], designed: 2026-11-26, "
                          "after_fit: spa_table5_fitted}\n")
    assert load_config(str(cfg)).compare["after_fit"] == "spa_table5_fitted"
    cfg.write_text(base + "compare: {reading: literal_alternative}\n")
    with pytest.raises(OlkError, match="contradiction"):
        load_config(str(cfg))


def test_a_literal_alternatives_off_cells_are_cause_paper_without_an_annotation(toy):
    """compare: {reading: literal_alternative, contradiction: 1}: a labelled variant (its label the reading's), its
    off cells cause *paper*, linking the contradictions page; an annotation of the cell still takes precedence."""
    from olk.report.compare import cause_texts

    meta = json.loads((toy / "experiment.json").read_text())
    meta["compare"] = {"reading": "literal_alternative", "contradiction": 1}
    (toy / "experiment.json").write_text(json.dumps(meta))
    c = compare(toy, published=PUB)
    assert c.variant == "literal alternative (contradiction 1)" and c.reading == "literal_alternative"
    off = c.cells[c.cells["verdict"] == "off"]
    assert len(off) == 1 and list(off["cause_category"]) == ["paper"]
    assert "contradiction 1 of docs/reproduction/contradictions.md" in off["cause"].iloc[0]
    assert c.causes() == {"paper": 1}
    line = cause_texts(c, c.cells, lambda p: p.name)[0]
    assert "*paper*" in line and "([docs/reproduction/contradictions.md](contradictions.md), row 1)" in line
    (toy.parent / "annotations.yaml").write_text(
        "causes:\n  - {paper: toy_paper, table: '1', dataset: a9a, algorithm: spa_last, metric: accuracy,\n"
        "     category: open, cause: not the contradiction, tried: nothing}\n")
    c = compare(toy, published=PUB)
    assert list(c.cells.loc[c.cells["verdict"] == "off", "cause_category"]) == ["open"]

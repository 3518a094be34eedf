"""Loading and aggregating results directories (olk.report.results); broken input -> one-line OlkError."""
from __future__ import annotations

import json
import math
import shutil
from pathlib import Path

import pytest

from olk.errors import OlkError
from olk.report.results import aggregate, load_results

FIX = Path(__file__).parent / "report_fixtures"


@pytest.fixture
def toy(tmp_path):
    dst = tmp_path / "toy_table"
    shutil.copytree(FIX / "toy_table", dst)
    return dst


def test_aggregate_mean_sample_std_and_counts():
    agg = aggregate(FIX / "toy_table", ["accuracy", "time_s", "n_sv", "kernel_evals", "mistake_rate"])
    a = agg.set_index(["dataset", "algorithm", "metric"])
    row = a.loc[("a9a", "perceptron", "accuracy")]
    assert math.isclose(row["mean"], 79.3) and math.isclose(row["std"], 0.2)  # ddof=1
    assert row["n_runs"] == 3 and row["display"] == "Perceptron"
    # an empty kernel_evals cell is skipped, the run still counts
    ke = a.loc[("a9a", "spa_last", "kernel_evals")]
    assert ke["mean"] == 123456 and ke["std"] == 0 and ke["n_runs"] == 3
    # mistake rate derived from mistakes / n_examples
    assert math.isclose(a.loc[("a9a", "perceptron", "mistake_rate")]["mean"], 100 * (209 + 205 + 207) / 3000)
    assert list(dict.fromkeys(agg["dataset"])) == ["a9a", "w7a"]
    assert ("w7a", "perceptron", "accuracy") not in a.index


def test_results_properties():
    res = load_results(FIX / "toy_table")
    assert res.datasets == ["a9a", "w7a", "covtype"]
    assert res.unavailable == {"covtype": "LIBSVM mirror unreachable"}
    assert res.layout.metrics == ("accuracy", "time_s", "n_sv") and res.layout.datasets_per_block == 2
    assert not res.is_batch and res.scale is None
    assert set(res.runs["phase"]) == {"tune", "main"} and len(res.main) == 15
    assert (res.main["setting"] == "").all()
    assert res.curves is not None and len(res.curves) == 60


def test_sweep_settings_are_detected():
    res = load_results(FIX / "toy_sweep")
    spa = res.main[res.main["label"] == "spa"]
    assert spa["setting"].nunique() == 6 and "alpha=0.5, beta=0.1" in set(spa["setting"])
    assert res.scale == 0.5


def test_per_permutation_tuning_is_not_a_sweep(toy):
    lines = (toy / "runs.csv").read_text().splitlines()
    lines = [ln.replace('""beta"": 0.1', '""beta"": 0.3') if ln.startswith("a9a-spa-main-2,") else ln
             for ln in lines]
    (toy / "runs.csv").write_text("\n".join(lines) + "\n")
    res = load_results(toy)
    assert (res.main["setting"] == "").all()  # one run per perm: differing params are tuning


def _one_line(exc) -> str:
    msg = str(exc.value)
    assert "\n" not in msg and msg
    return msg


def _edit(path: Path, old: str, new: str, count: int = 1) -> None:
    text = path.read_text()
    assert old in text
    path.write_text(text.replace(old, new, count))


def test_missing_directory_suggests_sibling(tmp_path):
    (tmp_path / "spa_table2").mkdir()
    with pytest.raises(OlkError) as e:
        load_results(tmp_path / "spa_tabel2")
    msg = _one_line(e)
    assert "does not exist" in msg and "did you mean 'spa_table2'" in msg


def test_not_a_results_directory(tmp_path):
    with pytest.raises(OlkError) as e:
        load_results(tmp_path)
    assert "runs.csv" in _one_line(e) and "not an olk results directory" in str(e.value)


@pytest.mark.parametrize("old,new,expected", [
    ("run_id,experiment,phase,dataset", "id,experiment,phase,dataset", "missing column(s) 'run_id'"),
    (",main,a9a,perceptron", ",mian,a9a,perceptron",
     "line 4: phase 'mian' must be 'tune', 'match' or 'main' (did you mean 'main'?)"),
    (",79.1,7950,", ",79.1x,7950,", "line 4: column 'accuracy' has non-numeric value '79.1x'"),
    ("a9a-spa-tune-1,", "a9a-spa-tune-0,", "run_id 'a9a-spa-tune-0' appears on lines 2, 3"),
    (',{},', ',{oops},', "line 4: column 'params' is not valid JSON"),
])
def test_bad_runs_csv(toy, old, new, expected):
    _edit(toy / "runs.csv", old, new)
    with pytest.raises(OlkError) as e:
        load_results(toy)
    msg = _one_line(e)
    assert expected in msg and "runs.csv" in msg


def test_empty_runs_csv(toy):
    (toy / "runs.csv").write_text("")
    with pytest.raises(OlkError, match="runs.csv is empty"):
        load_results(toy)


@pytest.mark.parametrize("text,expected", [
    ('{"name": "x",}', "experiment.json is not valid JSON (line 1"),
    ("[1, 2]", "must hold a JSON object"),
    ('{"unavailable": ["covtype"]}', "key 'unavailable' must be a JSON object"),
])
def test_bad_experiment_json(toy, text, expected):
    (toy / "experiment.json").write_text(text)
    with pytest.raises(OlkError) as e:
        load_results(toy)
    assert expected in _one_line(e)


@pytest.mark.parametrize("layout,expected", [
    ({"metrics": ["acuracy"]}, "table_layout.metrics has unknown metric 'acuracy' (did you mean 'accuracy'?)"),
    ({"datasets_per_block": 0}, "table_layout.datasets_per_block must be a positive integer"),
])
def test_bad_table_layout(toy, layout, expected):
    meta = json.loads((toy / "experiment.json").read_text())
    meta["table_layout"] = layout
    (toy / "experiment.json").write_text(json.dumps(meta))
    with pytest.raises(OlkError) as e:
        load_results(toy).layout      # noqa: B018 - reading the property is what raises
    assert expected in _one_line(e) and "experiment.json" in str(e.value)


def test_missing_optional_files_use_defaults(toy):
    (toy / "experiment.json").unlink()
    (toy / "curves.csv").unlink()
    res = load_results(toy)
    assert res.meta == {} and res.curves is None and res.name == "toy_table"
    assert res.layout.metrics == ("accuracy", "time_s", "n_sv")


def test_bad_curves_csv(toy):
    (toy / "curves.csv").write_text("run,t\nx,1\n")
    with pytest.raises(OlkError) as e:
        load_results(toy)
    assert "curves.csv is missing column(s) 'run_id', 'mistake_rate'" in _one_line(e)


def test_experiment_json_algorithms_are_registry_names(toy):
    meta = json.loads((toy / "experiment.json").read_text())
    meta["algorithms"] = ["perceptron", "spa", "ogd"]  # ogd configured but never run
    (toy / "experiment.json").write_text(json.dumps(meta))
    assert load_results(toy).rows == [("perceptron", ""), ("spa", ""), ("spa_last", ""), ("ogd", "")]

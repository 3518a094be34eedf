"""The batch-mode protocol pieces the sparse online KLR paper needs (olk/experiment, olk/tasks.py):
k-fold evaluation (dataset key ``folds``), held-out curves during training (``test_curve``), and the Gaussian
width from pairwise distances (``gamma: {percentile: P}``)."""
import numpy as np
import pandas as pd
import pytest
from scipy.spatial.distance import pdist

from olk.data import load_dataset
from olk.errors import ConfigError
from olk.experiment import Runner, parse_config, seeds
from olk.experiment.config import WidthRef
from olk.experiment.data import kernel_width

CFG = {
    "name": "klr_protocol", "mode": "batch", "seed": 5, "repeats": 3, "test_curve": 4,
    "kernel": {"type": "gaussian", "gamma": {"percentile": 5, "sample": 300}},
    "datasets": [{"name": "a9a-small", "folds": 3}],
    "algorithms": [{"name": "klr_nc", "params": {"eta": 0.5, "R": 10}},
                   {"name": "klr_pcd", "params": {"lam": 0.01, "max_iter": 3, "tol": 1e-9}}],
}


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    out = tmp_path_factory.mktemp("klr") / "res"
    Runner(parse_config(CFG), out, n_jobs=1, log=lambda *a: None).run()
    return pd.read_csv(out / "runs.csv"), pd.read_csv(out / "test_curves.csv", dtype={"run_id": str})


def test_k_fold_evaluation_tests_every_row_once():
    y = load_dataset("a9a-small").y
    folds = seeds.eval_folds(y, 3, 5, "a9a-small")
    tests = np.concatenate([te for _, te in folds])
    assert sorted(tests.tolist()) == list(range(len(y)))
    for tr, te in folds:
        assert not set(tr) & set(te) and len(tr) + len(te) == len(y)
        assert abs(y[te].mean() - y.mean()) < 0.02                    # stratified
    assert all((a == b).all() for (a, _), (b, _) in zip(folds, seeds.eval_folds(y, 3, 5, "a9a-small")))


def test_runs_train_and_test_on_the_folds(run):
    runs, _ = run
    assert sorted(runs["perm"].tolist()) == [0, 0, 1, 1, 2, 2]
    assert ((runs["n_examples"] + runs["n_test"]) == 2000).all()
    y = load_dataset("a9a-small").y
    sizes = {r: len(te) for r, (_, te) in enumerate(seeds.eval_folds(y, 3, 5, "a9a-small"))}
    assert [sizes[p] for p in runs["perm"]] == runs["n_test"].tolist()


def test_held_out_curve_points_and_last_point_is_the_final_score(run):
    runs, tc = run
    for _, r in runs.iterrows():
        c = tc[tc["run_id"] == r["run_id"]].sort_values("t")
        if r["algorithm"] == "klr_nc":      # 4 evenly spaced example counts, the last = the whole pass
            n = r["n_examples"]
            assert c["t"].tolist() == [round(n * k / 4) for k in (1, 2, 3, 4)]
            assert c["n_sv"].tolist() == c["t"].tolist()             # NC: every example is an SV
        else:                               # PCD: one point per sweep
            assert c["t"].tolist() == [1, 2, 3]
        assert c["test_accuracy"].iloc[-1] == pytest.approx(r["test_accuracy"], abs=1e-12)
        assert (np.diff(c["train_time_s"]) >= 0).all() and c["train_time_s"].iloc[-1] <= r["train_time_s"] + 1e-9


def test_gaussian_width_is_the_percentile_of_pairwise_distances(run):
    runs, _ = run
    d = load_dataset("a9a-small")
    w = kernel_width(d.X, WidthRef(5, 300), 5, "a9a-small")
    idx = seeds.subsample(2000, 300 / 2000, 5, "a9a-small", part="kernel-width")
    sigma = np.percentile(pdist(d.X[idx].toarray()), 5)               # an independent distance computation
    assert w["sample"] == 300 and w["sigma"] == pytest.approx(sigma, rel=1e-12)
    assert w["gamma"] == pytest.approx(1 / (2 * sigma ** 2), rel=1e-12)
    assert all(f'"gamma": {w["gamma"]!r}' in k for k in runs["kernel"])


@pytest.mark.parametrize("change, message", [
    ({"mode": "online"}, "set mode: batch"),
    ({"datasets": [{"name": "a9a-small", "folds": 3, "holdout": 0.3}]}, "replaces 'test' and 'holdout'"),
    ({"datasets": [{"name": "a9a-small", "part": "train"}]}, "only k-fold evaluation"),
    ({"datasets": [{"name": "a9a-small", "folds": 1}]}, "folds: must be >= 2"),
    ({"kernel": {"type": "polynomial", "gamma": {"percentile": 5}}}, "applies to the gaussian and chi2 kernels"),
    ({"kernel": {"type": "gaussian", "gamma": {"percentil": 5}}}, "did you mean 'percentile'"),
    ({"test_curve": 0}, "test_curve: must be >= 1"),
])
def test_protocol_config_errors_are_one_line(change, message):
    with pytest.raises(ConfigError, match=message) as e:
        parse_config({**CFG, **change})
    assert "\n" not in str(e.value)

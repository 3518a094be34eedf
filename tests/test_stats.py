"""olk stats (olk.report.stats) on a committed results directory against scipy computed here from the same runs.csv
columns: the per-dataset paired tests (Wilcoxon exact, paired t, Holm), the Friedman test over datasets and over
(dataset, permutation) blocks, Nemenyi's critical difference; the warning when too few permutations make
significance impossible; the table marks (bold / dagger) and the critical-difference diagram."""
from __future__ import annotations

import math
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy.stats import friedmanchisquare, studentized_range, ttest_rel, wilcoxon

from olk.report import stats

ROOT = Path(__file__).resolve().parents[1]
T2 = ROOT / "results" / "spa_table2"
OLK = [sys.executable, "-m", "olk.cli"]


@pytest.fixture(scope="module")
def t2(tmp_path_factory):
    d = tmp_path_factory.mktemp("stats") / "spa_table2"
    shutil.copytree(T2, d, ignore=shutil.ignore_patterns("figures"))
    return d


def _main(d: Path) -> pd.DataFrame:
    df = pd.read_csv(d / "runs.csv")
    return df[df.phase == "main"]


def _holm(ps):
    """Holm's step-down adjustment, written out (checks statsmodels' use)."""
    order = np.argsort(ps)
    out, running = np.empty(len(ps)), 0.0
    for k, i in enumerate(order):
        running = max(running, min(1.0, (len(ps) - k) * ps[i]))
        out[i] = running
    return out


def test_holm_is_statsmodels_holm():
    from statsmodels.stats.multitest import multipletests
    rng = np.random.default_rng(3)
    for m in (1, 2, 7, 30):
        p = rng.uniform(0, 0.2, m) ** 2
        p[::3] = p[0]                                           # ties too
        np.testing.assert_allclose(stats.holm(list(p)), multipletests(p, method="holm")[1], rtol=0, atol=1e-15)
    assert math.isnan(stats.holm([0.01, math.nan, 0.02])[1]) and stats.holm([0.01, math.nan, 0.02])[2] == 0.02


def test_paired_tests_match_scipy(t2):
    r = subprocess.run([*OLK, "stats", str(t2), "--baseline", "spa"], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    ours = pd.read_csv(t2 / "stats.csv")
    main = _main(t2)
    assert sorted(set(ours.dataset)) == ["a9a", "codrna", "w7a"]
    for ds, g in main.groupby("dataset"):
        spa = g[g.label == "spa"].set_index("perm")["accuracy"]
        rows = ours[ours.dataset == ds].set_index("label")
        want_w, want_t = [], []
        for lab in rows.index:
            other = g[g.label == lab].set_index("perm")["accuracy"]
            perms = sorted(set(spa.index) & set(other.index))
            x, y = other.loc[perms].to_numpy(), spa.loc[perms].to_numpy()
            want_w.append(wilcoxon(x, y, zero_method="wilcox", method="exact").pvalue)
            want_t.append(ttest_rel(x, y).pvalue)
            assert rows.loc[lab, "n"] == len(perms) == 20
            assert math.isclose(rows.loc[lab, "mean_diff"], float(np.mean(x - y)), rel_tol=1e-9)
        np.testing.assert_allclose(rows["wilcoxon_p"], want_w, rtol=1e-9)
        np.testing.assert_allclose(rows["ttest_p"], want_t, rtol=1e-9)
        np.testing.assert_allclose(rows["wilcoxon_holm"], _holm(np.array(want_w)), rtol=1e-9)
        np.testing.assert_allclose(rows["ttest_holm"], _holm(np.array(want_t)), rtol=1e-9)
    assert (t2 / "figures" / "cd_accuracy.png").stat().st_size > 0 and (t2 / "figures" / "cd_accuracy.pdf").is_file()
    assert "Friedman test over 3 blocks" in r.stdout


@pytest.mark.parametrize("blocks", ["dataset", "run"])
def test_friedman_and_nemenyi_match_scipy(t2, blocks):
    fr = stats.friedman(t2, "accuracy", blocks)
    main = _main(t2)
    labels = list(dict.fromkeys(main.label))
    if blocks == "dataset":
        m = main.groupby(["dataset", "label"])["accuracy"].mean().unstack()[labels]
    else:
        m = main.pivot_table(index=["dataset", "perm"], columns="label", values="accuracy")[labels]
    want = friedmanchisquare(*[m[c].to_numpy() for c in labels])
    assert math.isclose(fr.statistic, want.statistic, rel_tol=1e-9) and math.isclose(fr.pvalue, want.pvalue,
                                                                                      rel_tol=1e-9)
    k, n = len(labels), len(m)
    assert fr.n_blocks == n and len(fr.learners) == k
    cd = studentized_range.ppf(0.95, k, np.inf) / math.sqrt(2) * math.sqrt(k * (k + 1) / (6 * n))
    assert math.isclose(fr.cd, cd, rel_tol=1e-9)
    ranks = (-m).rank(axis=1).mean()                   # 1 = the highest accuracy
    np.testing.assert_allclose(fr.ranks.to_numpy(), ranks.to_numpy(), rtol=1e-12)


def test_five_permutations_warn_that_nothing_can_be_significant(t2, tmp_path):
    d = tmp_path / "five"
    shutil.copytree(t2, d, ignore=shutil.ignore_patterns("figures"))
    df = pd.read_csv(d / "runs.csv")
    df[(df.phase != "main") | (df.perm < 5)].to_csv(d / "runs.csv", index=False)
    r = subprocess.run([*OLK, "stats", str(d), "--no-figure"], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    warn = [ln for ln in r.stderr.splitlines() if "smallest two-sided exact Wilcoxon p is 0.0625 > alpha 0.05" in ln]
    assert len(warn) == 3 and all(ln.startswith("olk: warning: ") for ln in warn)
    assert stats.min_wilcoxon_p(5) == 0.0625 and stats.min_wilcoxon_p(20) == 2 / 2 ** 20
    assert not (d / "figures").exists()


def test_bad_options_are_one_line(t2):
    for args, want in ((["--baseline", "spaa"], "--baseline spaa: no learner of that label"),
                       (["--metric", "n_examples"], "metric 'n_examples' has no better direction"),
                       (["--metric", "acuracy"], "unknown metric 'acuracy' (did you mean 'accuracy'?)")):
        r = subprocess.run([*OLK, "stats", str(t2), *args], capture_output=True, text=True, timeout=300)
        assert r.returncode == 2 and r.stderr.count("\n") == 1 and want in r.stderr, r.stderr


def test_table_marks_bold_the_best_and_dagger_the_significantly_worse(t2):
    from olk.report.results import load_results
    res = load_results(t2)
    marks = stats.cell_marks(res, ["accuracy"])
    main = _main(t2)
    for ds, g in main.groupby("dataset"):
        means = g.groupby("label")["accuracy"].mean()
        best = means.idxmax()
        assert marks[ds, (best, ""), "accuracy"] == "best"
        ref = g[g.label == best].set_index("perm")["accuracy"]
        others = [lab for lab in means.index if lab != best]
        ps = [wilcoxon(g[g.label == lab].set_index("perm")["accuracy"].loc[ref.index], ref, method="exact").pvalue
              for lab in others]
        for lab, p in zip(others, _holm(np.array(ps))):
            assert marks[ds, (lab, ""), "accuracy"] == ("worse" if p <= 0.05 else "")

"""The published reference values (results/paper/*.csv) transcribed from the five papers.

The expected shapes below were derived by reading each paper's table, independently of the CSVs:
datasets x printed rows x metrics.  Offline, pandas only, well under a second.
"""
from __future__ import annotations

import csv
import filecmp
import math
from pathlib import Path

import pandas as pd
import pytest

from olk.errors import OlkError
from olk.report import paper as P

REPO = Path(__file__).resolve().parent.parent
PUB = REPO / "results" / "paper"

SPA = "spa_tist2018"
KLR = "klr_aaai2012"
OKS = "oks_aaai2012"
AMKL = "amkl"

OKS_ALGS = ["mutron", "om1", "om2", "alsvm", "musvm", "sipmkl", "som_svm", "oks_svm"]
AMKL_DS = ["twitter", "twitter_l", "tom", "air", "energy", "naval"]

# (paper, table) -> datasets, printed rows per dataset (as (algorithm, paper_label)) count, metrics,
# total number of values.  'grid' = every (dataset, row) carries every metric.
EXPECTED = {
    (SPA, "1"): dict(datasets=["kdd08", "a9a", "w7a", "codrna", "covtype", "susy"], rows=1,
                     metrics={"n_instances", "n_features"}, values=6 * 1 * 2, grid=True),
    (SPA, "2"): dict(datasets=["kdd08", "a9a", "w7a", "codrna", "covtype", "susy"], rows=11,
                     metrics={"accuracy", "time", "n_sv"}, values=6 * 11 * 3, grid=True),
    (SPA, "3"): dict(datasets=["kdd08", "w7a", "a9a", "codrna"], rows=8,
                     metrics={"accuracy", "time", "n_sv"}, values=4 * 8 * 3, grid=True),
    (SPA, "4"): dict(datasets=["german", "svmguide3", "madelon", "magic04", "a9a", "ijcnn1", "kdd08",
                               "codrna", "susy"], rows=1,
                     metrics={"n_instances", "n_features"}, values=9 * 1 * 2, grid=True),
    (SPA, "5"): dict(datasets=["german", "madelon", "a9a", "magic04", "kdd08", "svmguide3"], rows=7,
                     metrics={"mistake_rate", "n_sv", "time"}, values=6 * 7 * 3, grid=True),
    # 4 DD rows + 4 SD rows + SPA
    (SPA, "6"): dict(datasets=["kdd08", "ijcnn1", "codrna", "a9a"], rows=9,
                     metrics={"mistake_rate", "n_sv", "time"}, values=4 * 9 * 3, grid=True),
    (KLR, "1"): dict(datasets=["mushrooms", "a9a", "ijcnn1", "rcv1"], rows=1,
                     metrics={"n_instances", "n_features"}, values=4 * 1 * 2, grid=True),
    # rcv1 only; 3 Auxiliary + 3 Pegasos parameter columns; #SVs, sparsity, accuracy, time
    (KLR, "2"): dict(datasets=["rcv1"], rows=6, metrics={"n_sv", "sparsity", "accuracy", "time"},
                     values=1 * 6 * 4, grid=True),
    # per task: n (1) + RT (8 cells; SOM/OKS-SVM printed as 'a+b' -> time, time_selection, time_svm)
    # + ACC (8) + opt-K (5 single ids, OM-2 'NA' omitted, SOM/OKS-SVM 5 ids each) = 1+12+8+5+10 = 36
    (OKS, "1"): dict(datasets=["pascal07_animal_vs_vehicle", "pascal07_animal_vs_person",
                               "pascal07_person_vs_vehicle"], rows=9,
                     metrics={"n_instances", "time", "time_selection", "time_svm", "accuracy", "opt_kernel",
                              "opt_kernel_1", "opt_kernel_2", "opt_kernel_3", "opt_kernel_4", "opt_kernel_5"},
                     values=3 * 36, grid=False),
    (OKS, "2"): dict(datasets=["corel5k_sky_vs_people", "corel5k_water_vs_tree", "corel5k_sky_vs_grass"], rows=9,
                     metrics={"n_instances", "time", "time_selection", "time_svm", "accuracy", "opt_kernel",
                              "opt_kernel_1", "opt_kernel_2", "opt_kernel_3", "opt_kernel_4", "opt_kernel_5"},
                     values=3 * 36, grid=False),
    # the datasets (Table I, uncaptioned in the extraction): samples T and features
    (AMKL, "I"): dict(datasets=AMKL_DS, rows=1, metrics={"n_instances", "n_features"}, values=6 * 2, grid=True),
    # 11 method rows (MSE) + the 'Efficiency' row (rho of AMKL-AKS)
    (AMKL, "II"): dict(datasets=AMKL_DS, rows=12, metrics={"mse", "efficiency"}, values=6 * 12, grid=False),
    (AMKL, "III"): dict(datasets=AMKL_DS, rows=4, metrics={"mse", "efficiency"}, values=6 * 4 * 2, grid=True),
}

UNITS = {"accuracy": "%", "mistake_rate": "%", "time": "s", "time_selection": "s", "time_svm": "s",
         "n_sv": "count", "n_instances": "count", "n_features": "count", "sparsity": "fraction",
         "efficiency": "fraction", "mse": "1e-3", "opt_kernel": "id", **{f"opt_kernel_{i}": "id" for i in range(1, 6)}}


@pytest.fixture(scope="module")
def allpub() -> pd.DataFrame:
    return P.load_published(directory=PUB)


def cell(df, paper, table, dataset, metric, algorithm=None, paper_label=None):
    q = df[(df.paper == paper) & (df.table == table) & (df.dataset == dataset) & (df.metric == metric)]
    if algorithm is not None:
        q = q[q.algorithm == algorithm]
    if paper_label is not None:
        q = q[q.paper_label == paper_label]
    assert len(q) == 1, (paper, table, dataset, metric, algorithm, paper_label, len(q))
    return q.iloc[0]


def close(row, mean, std=None):
    assert row["mean"] == pytest.approx(mean, abs=1e-9), (row.to_dict(), mean)
    if std is None:
        assert math.isnan(row["std"]), row.to_dict()
    else:
        assert row["std"] == pytest.approx(std, abs=1e-9), (row.to_dict(), std)


# ---------------------------------------------------------------- files and columns
def test_every_expected_table_has_a_file_and_nothing_else():
    assert set(P.list_tables(PUB)) == set(EXPECTED)
    for paper, table in EXPECTED:
        assert (PUB / f"{paper}_table{table}.csv").is_file()
    # the OMKL ALT 2010 paper is theory only: no numeric table, hence no file
    assert not list(PUB.glob("omkl_alt2010*"))
    assert "omkl_alt2010" in (PUB / "README.md").read_text(encoding="utf-8")


def test_exact_columns_in_every_csv():
    for f in sorted(PUB.glob("*_table*.csv")):
        with f.open(encoding="utf-8", newline="") as fh:
            rows = list(csv.reader(fh))
        assert tuple(rows[0]) == P.COLUMNS, f.name
        assert all(len(r) == len(P.COLUMNS) for r in rows[1:]), f.name


def test_default_location_and_shipped_copy():
    assert P.published_dir().resolve() in {PUB.resolve(), (REPO / "olk" / "report" / "published").resolve()}
    shipped = REPO / "olk" / "report" / "published"
    if shipped.is_dir():  # package-data copy for wheels must equal the source of truth
        names = sorted(f.name for f in PUB.glob("*_table*.csv"))
        assert sorted(f.name for f in shipped.glob("*.csv")) == names
        match, mismatch, errors = filecmp.cmpfiles(PUB, shipped, names, shallow=False)
        assert not mismatch and not errors, (mismatch, errors)


# ---------------------------------------------------------------- values
def test_values_finite_and_in_range(allpub):
    df = allpub
    assert df["mean"].map(math.isfinite).all()
    s = df["std"].dropna()
    assert s.map(math.isfinite).all() and (s >= 0).all()
    for m in ("accuracy", "mistake_rate"):
        v = df[df.metric == m]["mean"]
        assert ((v >= 0) & (v <= 100)).all(), m
    for m in ("sparsity", "efficiency"):
        v = df[df.metric == m]["mean"]
        assert ((v >= 0) & (v <= 1)).all(), m
    for m in ("time", "time_selection", "time_svm", "n_sv", "n_instances", "n_features", "mse"):
        assert (df[df.metric == m]["mean"] >= 0).all(), m
    sizes = df[df.metric.isin(["n_instances", "n_features"])]["mean"]
    assert (sizes == sizes.round()).all() and (sizes > 0).all()


def test_units_and_names_consistent(allpub):
    df = allpub
    assert set(df.metric) <= set(UNITS)
    for m, u in UNITS.items():
        assert set(df[df.metric == m]["unit"]) <= {u}, m
    for col in ("dataset", "algorithm", "metric"):
        v = df[col]
        assert (v == v.str.lower()).all() and not v.str.contains(" ").any(), col
    # dataset-summary rows use algorithm '-'; every other row names an algorithm
    assert set(df[df.algorithm == "-"].metric) <= {"n_instances", "n_features"}


@pytest.mark.parametrize("key", sorted(EXPECTED))
def test_shape_matches_the_paper(allpub, key):
    exp = EXPECTED[key]
    df = allpub[(allpub.paper == key[0]) & (allpub.table == key[1])]
    assert len(df) == exp["values"]
    assert list(dict.fromkeys(df.dataset)) == exp["datasets"]
    assert set(df.metric) == exp["metrics"]
    assert not df.duplicated(list(P.KEY)).any()
    for ds, g in df.groupby("dataset"):
        pairs = g[["algorithm", "paper_label"]].drop_duplicates()
        assert len(pairs) == exp["rows"], (key, ds, len(pairs))
        if exp["grid"]:
            per = g.groupby(["algorithm", "paper_label"]).metric.apply(frozenset)
            assert (per == frozenset(exp["metrics"])).all(), (key, ds)


def test_oks_metric_pattern(allpub):
    df = allpub[allpub.paper == OKS]
    for (_table, _ds), g in df.groupby(["table", "dataset"]):
        assert list(dict.fromkeys(g[g.algorithm != "-"].algorithm)) == OKS_ALGS
        for alg, h in g.groupby("algorithm"):
            ms = set(h.metric)
            if alg == "-":
                assert ms == {"n_instances"}
            elif alg in ("som_svm", "oks_svm"):
                assert ms == ({"time", "time_selection", "time_svm", "accuracy"}
                              | {f"opt_kernel_{i}" for i in range(1, 6)})
                tot, a, b = (h[h.metric == m]["mean"].item() for m in ("time", "time_selection", "time_svm"))
                assert tot == pytest.approx(a + b)
                assert h[h.metric == "accuracy"]["std"].notna().all()
            elif alg == "om2":
                assert ms == {"time", "accuracy"}  # opt-K printed 'NA'
            else:
                assert ms == {"time", "accuracy", "opt_kernel"}


def test_amkl_table_ii_efficiency_row(allpub):
    df = allpub[(allpub.paper == AMKL) & (allpub.table == "II")]
    eff = df[df.metric == "efficiency"]
    assert len(eff) == 6 and set(eff.algorithm) == {"amkl_aks"}
    assert len(df[df.metric == "mse"]) == 6 * 11


# ---------------------------------------------------------------- spot checks (values read off the papers)
def test_spot_spa(allpub):
    d = allpub
    close(cell(d, SPA, "1", "susy", "n_instances"), 1000000)
    close(cell(d, SPA, "1", "w7a", "n_features"), 300)
    close(cell(d, SPA, "1", "codrna", "n_instances"), 59535)
    close(cell(d, SPA, "2", "a9a", "accuracy", "spa"), 82.04, 0.25)
    close(cell(d, SPA, "2", "a9a", "n_sv", "perceptron"), 9900)
    close(cell(d, SPA, "2", "susy", "time", "projectronpp"), 3738.6)
    assert cell(d, SPA, "2", "susy", "time", "projectronpp")["paper_label"] == "Projcetron++"
    close(cell(d, SPA, "2", "w7a", "n_sv", "oskl"), 177)
    close(cell(d, SPA, "2", "covtype", "accuracy", "bpas"), 72.37, 0.13)
    close(cell(d, SPA, "3", "kdd08", "accuracy", "libsvm"), 99.39)
    close(cell(d, SPA, "3", "a9a", "accuracy", "spa_avg"), 84.88, 0.10)
    close(cell(d, SPA, "3", "a9a", "time", "spa_last"), 3.16)
    close(cell(d, SPA, "3", "codrna", "n_sv", "spa_last"), 2386)
    close(cell(d, SPA, "3", "codrna", "accuracy", "spa_last"), 91.23, 3.40)
    close(cell(d, SPA, "3", "codrna", "n_sv", "pegasos"), 12200)
    close(cell(d, SPA, "4", "codrna", "n_instances"), 271617)
    close(cell(d, SPA, "4", "madelon", "n_features"), 500)
    close(cell(d, SPA, "4", "german", "n_instances"), 1000)
    close(cell(d, SPA, "5", "german", "mistake_rate", "bomkc_spa_dd"), 28.57, 0.51)
    close(cell(d, SPA, "5", "a9a", "n_sv", "omkc_ddpa"), 491137.2, 237.2)
    close(cell(d, SPA, "5", "kdd08", "time", "omkc_sdpa"), 10834)
    close(cell(d, SPA, "5", "german", "n_sv", "perceptron_best"), 318.8, 16.1)
    close(cell(d, SPA, "6", "ijcnn1", "n_sv", "bomkc_spa_dd"), 4391.1, 1164.7)
    close(cell(d, SPA, "6", "codrna", "mistake_rate", "bomkc_bpas_dd"), 7.06, 0.15)
    close(cell(d, SPA, "6", "kdd08", "n_sv", "bomkc_rbp_sd"), 4384.0, 0.0)
    close(cell(d, SPA, "6", "a9a", "time", "bomkc_forgetron_sd"), 96.5)


def test_spot_klr(allpub):
    d = allpub
    close(cell(d, KLR, "1", "rcv1", "n_features"), 47236)
    close(cell(d, KLR, "1", "ijcnn1", "n_instances"), 141691)
    close(cell(d, KLR, "1", "mushrooms", "n_features"), 112)
    close(cell(d, KLR, "2", "rcv1", "n_sv", paper_label="Auxiliary (γ = 2)"), 23894)
    close(cell(d, KLR, "2", "rcv1", "time", paper_label="Pegasos (λ = 1e-5)"), 34098)
    close(cell(d, KLR, "2", "rcv1", "accuracy", paper_label="Auxiliary (γ = 1.01)"), 97.94)  # printed 0.9794
    close(cell(d, KLR, "2", "rcv1", "sparsity", paper_label="Pegasos (λ = 1e-9)"), 0.9645)


def test_spot_oks(allpub):
    d = allpub
    close(cell(d, OKS, "1", "pascal07_animal_vs_vehicle", "accuracy", "oks_svm"), 86.75, 1.55)
    close(cell(d, OKS, "1", "pascal07_person_vs_vehicle", "time", "sipmkl"), 31 * 3600)  # printed 31h
    close(cell(d, OKS, "1", "pascal07_animal_vs_person", "opt_kernel_3", "som_svm"), 25)
    close(cell(d, OKS, "1", "pascal07_animal_vs_vehicle", "time_selection", "oks_svm"), 0.013 * 3600)
    close(cell(d, OKS, "2", "corel5k_sky_vs_people", "accuracy", "musvm"), 89.22)
    close(cell(d, OKS, "2", "corel5k_water_vs_tree", "time", "sipmkl"), 25124)
    close(cell(d, OKS, "2", "corel5k_water_vs_tree", "time", "oks_svm"), 36)  # printed 12s+24s
    close(cell(d, OKS, "2", "corel5k_sky_vs_grass", "n_instances"), 1187)


def test_spot_amkl(allpub):
    d = allpub
    close(cell(d, AMKL, "II", "naval", "mse", "omkl_b"), 818.74)
    close(cell(d, AMKL, "II", "twitter", "mse", "raker"), 2.72)
    close(cell(d, AMKL, "II", "energy", "mse", "kl_rbf", "KL-RBF (=1)"), 28.29)
    close(cell(d, AMKL, "II", "tom", "efficiency", "amkl_aks"), 0.65)
    close(cell(d, AMKL, "III", "tom", "mse", "amkl"), 4.26)
    close(cell(d, AMKL, "III", "tom", "efficiency", "amkl"), 0.88)
    close(cell(d, AMKL, "III", "air", "mse", "amkl"), 2.13)
    close(cell(d, AMKL, "III", "naval", "efficiency", "amkl_aks"), 0.54)
    close(cell(d, AMKL, "III", "twitter_l", "mse", "omkl_aks"), 2.87)


# ---------------------------------------------------------------- loader API and errors
def test_filters_and_types():
    t2 = P.load_published(SPA, 2, directory=PUB)
    assert set(t2.table) == {"2"} and len(t2) == 198
    assert t2["mean"].dtype == float and t2["std"].dtype == float
    assert len(P.load_published(AMKL, directory=PUB)) == 12 + 72 + 48
    assert len(P.load_published(table="II", directory=PUB)) == 72
    with pytest.raises(OlkError, match="unknown paper"):
        P.load_published("spa_tist2019", directory=PUB)
    with pytest.raises(OlkError, match="no published table"):
        P.load_published(SPA, "7", directory=PUB)


def _write(tmp_path, text, name="x_table1.csv"):
    (tmp_path / name).write_text(text, encoding="utf-8")
    return tmp_path


HEADER = ",".join(P.COLUMNS) + "\n"
GOOD = "x,1,a9a,spa,SPA,accuracy,82.04,0.25,%,\n"


@pytest.mark.parametrize("body, msg", [
    ("paper,table,dataset,algorithm,metric,mean,std,unit,note\n" + "x,1,a9a,spa,accuracy,1,,%,\n", "columns"),
    (HEADER + "x,1,a9a,spa,SPA,accuracy,eighty,,%,\n", "not a number"),
    (HEADER + "x,1,a9a,spa,SPA,accuracy,inf,,%,\n", "finite"),
    (HEADER + "x,1,a9a,spa,SPA,accuracy,80,-1,%,\n", "negative"),
    (HEADER + "x,1,a9a,spa,SPA,accuracy,,,%,\n", "empty"),
    (HEADER + "x,1,,spa,SPA,accuracy,80,,%,\n", "'dataset' is empty"),
    (HEADER + GOOD + GOOD, "duplicate"),
    (HEADER + "y,1,a9a,spa,SPA,accuracy,80,,%,\n", "file name"),
    (HEADER + "x,1,a9a,spa,SPA,accuracy,80\n", "fields"),
    (HEADER, "no rows"),
])
def test_malformed_files_raise_one_line_olkerror(tmp_path, body, msg):
    d = _write(tmp_path, body)
    with pytest.raises(OlkError, match=msg) as ei:
        P.load_published(directory=d)
    assert "\n" not in str(ei.value)


def test_good_tmp_file_loads(tmp_path):
    d = _write(tmp_path, HEADER + GOOD)
    df = P.load_published("x", "1", directory=d)
    assert df.loc[0, "mean"] == 82.04 and df.loc[0, "std"] == 0.25
    assert P.list_tables(d) == [("x", "1")]

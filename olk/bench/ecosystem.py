"""olk next to River's and scikit-learn's own models on their bundled datasets: accuracy and speed side by side
(issue 35's ecosystem table).

**River** (``river.evaluate.progressive_val_score``, River's bundled streams, no download): Phishing and Bananas
(binary), ImageSegments (multi-class), TrumpApproval (regression).  Every model, olk's and River's, runs as
``preprocessing.StandardScaler() | model`` with its default parameters (olk's with ``seed=0``): olk's Perceptron,
SPA, FOGD and BOGD (binary), multi-class PA-I and Perceptron, kernel OGD regression and Raker, reached by their
registry ids (:data:`olk.river.by_name`); River's ``PAClassifier``, ``LogisticRegression`` and ``Perceptron``
(binary), ``OneVsRestClassifier(LogisticRegression())``, ``HoeffdingTreeClassifier`` and ``GaussianNB``
(multi-class), ``LinearRegression``, ``PARegressor``, ``KNNRegressor`` and ``HoeffdingTreeRegressor`` (regression).
Reported: progressive accuracy (MAE for regression) and examples per second (the stream held in memory, the
scaler included, median over the rounds); for the binary streams ROCAUC and LogLoss from one more untimed pass
(``predict_proba_one``: olk's binary classifiers give an online Platt fit of their score, 0.5 at f = 0).

**scikit-learn** (``sklearn.model_selection.cross_validate``, 5 folds, shuffled with ``random_state=0``,
stratified for classification): breast_cancer, ``make_moons(n_samples=1000, noise=0.3, random_state=0)`` (binary),
digits (multi-class), ``make_friedman1(n_samples=1000, noise=1.0, random_state=0)`` (regression).  Every model is
``Pipeline([StandardScaler(), est])`` with its default parameters (``random_state=0`` where it has one): olk's SPA,
FOGD and kernel Perceptron (binary), multi-class PA-I and Perceptron, kernel OGD regression and Raker, by registry
id (:func:`olk.estimators.estimator`); ``SVC()`` (rbf), ``LogisticRegression()``, ``SGDClassifier()`` and
random-feature SGD (``RBFSampler(gamma="scale", n_components=D) + SGDClassifier()``, D = 100 and 500; SVC's gamma
rule, the sampler's own default gamma = 1 fails on these scaled sets); ``SGDRegressor()`` and ``SVR()``.
Reported: test accuracy (MAE for regression) mean ± std over the folds, ROCAUC (binary) or R^2 (regression), and
the mean time per fold of ``fit`` and of scoring the test fold (``score_time``: its predictions for each metric),
medians over the rounds.

All of it in ONE process: each round runs every model of every dataset once (the order of a dataset's models
rotating from round to round), so that machine load hits them alike; the 1/5/15-minute load averages before and
after, the olk commit and the library versions head ``results/bench/ecosystem.md`` (the tables; docs/speed.md
includes them) and ``ecosystem.csv`` (one row per dataset and model).  Wall-clock speeds on a shared machine are
upper bounds: read the ratios within a table.

    olk bench ecosystem                   # ~1-2 minutes on 2 cores
    olk bench ecosystem --rounds 15
    olk bench ecosystem --quick --out /tmp/eco     # 1 round, the first 300 examples of each set: a smoke test

Speed claims live here, never in unit tests.
"""
from __future__ import annotations

import itertools
import math
import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from . import parser
from .core import _load, _results_dir, _write_csv
from .river import _run

#: olk's learners on each side, by registry id, per task
OLK_RIVER = {"binary": ("perceptron", "spa", "fogd", "bogd"), "multiclass": ("mc_pa1", "mc_perceptron"),
             "regression": ("kogd_reg", "raker")}
OLK_SKLEARN = {"binary": ("spa", "fogd", "perceptron"), "multiclass": ("mc_pa1", "mc_perceptron"),
               "regression": ("kogd_reg", "raker")}
#: River's bundled streams and scikit-learn's datasets, with their task
RIVER_SETS = (("Phishing", "binary"), ("Bananas", "binary"), ("ImageSegments", "multiclass"),
              ("TrumpApproval", "regression"))
SKLEARN_SETS = (("breast_cancer", "binary"), ("moons", "binary"), ("digits", "multiclass"),
                ("friedman1", "regression"))
#: --quick: the first this many examples of each set, one round
QUICK_EXAMPLES = 300
FOLDS = 5


@dataclass
class Model:
    """One row of a table: its label, its olk registry id ('' for a baseline), a fresh-model factory, and what the
    rounds measured."""
    label: str
    registry_id: str
    make: Callable
    times: list[float]                 # River: seconds per pass; scikit-learn: mean fit seconds per fold
    score_times: list[float]           # scikit-learn: mean score seconds per fold
    scores: dict


def _model(label: str, registry_id: str, make: Callable) -> Model:
    return Model(label, registry_id, make, [], [], {})


# ------------------------------------------------------------------------------------------------ River
def river_models(task: str) -> list[Model]:
    """olk's River models for `task` and River's baselines, each a ``StandardScaler() | model`` factory."""
    from river import linear_model, multiclass, naive_bayes, neighbors, preprocessing, tree

    import olk.river as R
    bases: dict[str, dict[str, Callable]] = {
        "binary": {"PAClassifier": linear_model.PAClassifier, "LogisticRegression": linear_model.LogisticRegression,
                   "Perceptron": linear_model.Perceptron},
        "multiclass": {"OneVsRestClassifier(LogisticRegression)":
                       lambda: multiclass.OneVsRestClassifier(linear_model.LogisticRegression()),
                       "HoeffdingTreeClassifier": tree.HoeffdingTreeClassifier, "GaussianNB": naive_bayes.GaussianNB},
        "regression": {"LinearRegression": linear_model.LinearRegression, "PARegressor": linear_model.PARegressor,
                       "KNNRegressor": neighbors.KNNRegressor, "HoeffdingTreeRegressor": tree.HoeffdingTreeRegressor},
    }
    base = bases[task]
    out = [_model(f"olk {R.by_name[k].__name__}", k,
                  lambda k=k: preprocessing.StandardScaler() | R.by_name[k](seed=0)) for k in OLK_RIVER[task]]
    return out + [_model(f"river {name}", "", lambda f=f: preprocessing.StandardScaler() | f())
                  for name, f in base.items()]


def river_stream(name: str, limit: int | None) -> list:
    from river import datasets
    return list(itertools.islice(getattr(datasets, name)(), limit))


def river_round(stream: list, task: str, m: Model) -> None:
    from river import metrics
    seconds, value = _run(m.make, stream, 1, metrics.MAE if task == "regression" else metrics.Accuracy)
    m.times.append(seconds)
    m.scores["mae" if task == "regression" else "accuracy"] = value


def river_proba(stream: list, m: Model) -> None:
    """ROCAUC and LogLoss of a binary model, one untimed pass (``predict_proba_one``)."""
    from river import metrics
    try:
        _, (auc, logloss) = _run(m.make, stream, 1, lambda: metrics.ROCAUC() + metrics.LogLoss())
    except NotImplementedError:                  # a model without probabilities: no cell
        return
    m.scores.update(rocauc=auc, logloss=logloss)


# ------------------------------------------------------------------------------------------------ scikit-learn
def sklearn_models(task: str) -> list[Model]:
    """olk's estimators for `task` and scikit-learn's baselines, each a ``Pipeline([StandardScaler(), est])``
    factory."""
    from sklearn.kernel_approximation import RBFSampler
    from sklearn.linear_model import LogisticRegression, SGDClassifier, SGDRegressor
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler
    from sklearn.svm import SVC, SVR

    import olk.estimators as E
    if task == "regression":
        base: dict[str, Callable] = {"SGDRegressor": lambda: SGDRegressor(random_state=0), "SVR (rbf)": SVR}
    else:
        base = {"SVC (rbf)": SVC, "LogisticRegression": LogisticRegression,
                "SGDClassifier": lambda: SGDClassifier(random_state=0),
                **{f"RBFSampler(D={d}) + SGDClassifier":
                   (lambda d=d: make_pipeline(RBFSampler(gamma="scale", n_components=d, random_state=0),
                                              SGDClassifier(random_state=0))) for d in (100, 500)}}
    out = [_model(f"olk {E.by_name[k].__name__}", k,
                  lambda k=k: make_pipeline(StandardScaler(), E.estimator(k, random_state=0)))
           for k in OLK_SKLEARN[task]]
    return out + [_model(f"sklearn {name}", "", lambda f=f: make_pipeline(StandardScaler(), f()))
                  for name, f in base.items()]


def sklearn_data(name: str, limit: int | None):
    from sklearn import datasets
    X, y = {"breast_cancer": lambda: datasets.load_breast_cancer(return_X_y=True),
            "moons": lambda: datasets.make_moons(n_samples=1000, noise=0.3, random_state=0),
            "digits": lambda: datasets.load_digits(return_X_y=True),
            "friedman1": lambda: datasets.make_friedman1(n_samples=1000, noise=1.0, random_state=0)}[name]()
    return X[:limit], y[:limit]


#: the scorers of cross_validate per task, and the score column each fills (a negated error is turned back)
SCORING = {"binary": {"accuracy": "accuracy", "roc_auc": "rocauc"}, "multiclass": {"accuracy": "accuracy"},
           "regression": {"neg_mean_absolute_error": "mae", "r2": "r2"}}


def sklearn_round(X, y, task: str, m: Model) -> None:
    from sklearn.model_selection import KFold, StratifiedKFold, cross_validate
    split = KFold if task == "regression" else StratifiedKFold
    r = cross_validate(m.make(), X, y, cv=split(FOLDS, shuffle=True, random_state=0), scoring=list(SCORING[task]))
    m.times.append(float(r["fit_time"].mean()))
    m.score_times.append(float(r["score_time"].mean()))
    for scorer, key in SCORING[task].items():
        v = r[f"test_{scorer}"] * (-1 if scorer.startswith("neg_") else 1)
        m.scores[key], m.scores[f"{key}_std"] = float(v.mean()), float(v.std())


# ------------------------------------------------------------------------------------------------ tables
def _cell(v, spec: str) -> str:
    return "-" if v is None or (isinstance(v, float) and math.isnan(v)) else f"{v:{spec}}"


def _pm(m: Model, key: str, spec: str) -> str:
    return f"{m.scores[key]:{spec}} ± {m.scores[key + '_std']:{spec}}"


def river_table(task: str, n: int, models: list[Model]) -> list[str]:
    head = ["model", "registry id", "MAE" if task == "regression" else "accuracy",
            *(("ROCAUC", "LogLoss") if task == "binary" else ()), "examples/s"]
    rows = []
    for m in models:
        cells = [m.label, m.registry_id or "-",
                 _cell(m.scores["mae"], ".3f") if task == "regression" else _cell(m.scores["accuracy"], ".4f")]
        if task == "binary":
            cells += [_cell(m.scores.get("rocauc"), ".4f"), _cell(m.scores.get("logloss"), ".3f")]
        rows.append(cells + [f"{n / statistics.median(m.times):,.0f}"])
    return _table(head, rows)


def sklearn_table(task: str, models: list[Model]) -> list[str]:
    head = ["model", "registry id", *(("MAE ± std", "R²") if task == "regression" else ("accuracy ± std",)),
            *(("ROCAUC",) if task == "binary" else ()), "fit ms", "predict ms (score_time)"]
    rows = []
    for m in models:
        cells = [m.label, m.registry_id or "-"]
        cells += [_pm(m, "mae", ".3f"), _cell(m.scores["r2"], ".3f")] if task == "regression" else \
            [_pm(m, "accuracy", ".4f")]
        if task == "binary":
            cells.append(_cell(m.scores["rocauc"], ".4f"))
        rows.append(cells + [f"{1e3 * statistics.median(m.times):.1f}",
                             f"{1e3 * statistics.median(m.score_times):.1f}"])
    return _table(head, rows)


def _table(head: list[str], rows: list[list[str]]) -> list[str]:
    return ["| " + " | ".join(head) + " |", "|" + "---|" * len(head), *("| " + " | ".join(r) + " |" for r in rows)]


def csv_rows(side: str, dataset: str, task: str, n: int, d: int, models: list[Model]) -> list[dict]:
    out = []
    for m in models:
        row = {"side": side, "dataset": dataset, "task": task, "examples": n, "features": d, "model": m.label,
               "registry_id": m.registry_id, **m.scores, "rounds": len(m.times)}
        if side == "river":
            row["examples_per_s"] = n / statistics.median(m.times)
        else:
            row["fit_ms"] = 1e3 * statistics.median(m.times)
            row["predict_ms"] = 1e3 * statistics.median(m.score_times)
        out.append(row)
    return out


def _versions() -> str:
    import platform
    from importlib.metadata import version

    from olk.experiment.runner import _git_commit, machine_info
    libs = ", ".join(f"{p} {version(p)}" for p in ("river", "scikit-learn", "numpy"))
    return f"olk {_git_commit() or 'unknown commit'} ({version('olk')}), {libs}, python {platform.python_version()}; " \
           f"{machine_info()}"


def _rotated(models: list[Model], r: int) -> list[Model]:
    k = r % len(models)
    return models[k:] + models[:k]


# ------------------------------------------------------------------------------------------------ main
def main(argv=None):
    ap = parser("ecosystem", __doc__)
    ap.add_argument("--rounds", type=int, default=7, help="runs of every model (medians of the times; default 7)")
    ap.add_argument("--quick", action="store_true",
                    help=f"1 round on the first {QUICK_EXAMPLES} examples of each set (a smoke test; writes no "
                         f"file unless --out is given)")
    ap.add_argument("--out", default=None,
                    help="directory of ecosystem.md / .csv (default results/bench; '-' for none)")
    args = ap.parse_args(argv)
    if args.rounds < 1:
        ap.error("--rounds must be >= 1")
    try:
        import river  # noqa: F401
    except ImportError:
        from olk.errors import ConfigError
        raise ConfigError("olk bench ecosystem: River is not installed (pip install olk[river])") from None
    limit = QUICK_EXAMPLES if args.quick else None
    rounds = 1 if args.quick else args.rounds
    out_dir = None
    if args.out != "-" and (args.out or not args.quick):
        from olk.fileio import check_writable_dir
        out_dir = Path(args.out) if args.out else _results_dir()
        check_writable_dir(out_dir, "--out")

    load_before = _load()
    rv = [(name, task, river_stream(name, limit), river_models(task)) for name, task in RIVER_SETS]
    sk = [(name, task, *sklearn_data(name, limit), sklearn_models(task)) for name, task in SKLEARN_SETS]
    t0 = time.perf_counter()
    for r in range(rounds):
        for _, task, stream, models in rv:
            for m in _rotated(models, r):
                river_round(stream, task, m)
        for _, task, X, y, models in sk:
            for m in _rotated(models, r):
                sklearn_round(X, y, task, m)
        print(f"olk bench ecosystem: round {r + 1}/{rounds} done ({time.perf_counter() - t0:.0f} s)",
              file=sys.stderr, flush=True)
    for _, task, stream, models in rv:
        if task == "binary":
            for m in models:
                river_proba(stream, m)
    load_after = _load()
    versions = _versions()

    md = [f"olk bench ecosystem: {rounds} round(s), every model once per round (order rotating)"
          + (f", --quick: the first {QUICK_EXAMPLES} examples of each set" if args.quick else "")
          + f"; {versions}; load average (1/5/15 min) before {load_before}, after {load_after}; "
            f"{time.perf_counter() - t0:.0f} s"]
    rows: list[dict] = []
    for name, task, stream, models in rv:
        d = len({k for x, _ in stream for k in x})
        md += ["", f"### River: {name} ({task}, {len(stream):,} examples, {d} features)", "",
               "progressive_val_score, `preprocessing.StandardScaler() | model`, defaults; examples/s: median over "
               "the rounds of one pass (scaler included)", "", *river_table(task, len(stream), models)]
        rows += csv_rows("river", name, task, len(stream), d, models)
    for name, task, X, _, models in sk:
        md += ["", f"### scikit-learn: {name} ({task}, {X.shape[0]:,} examples, {X.shape[1]} features)", "",
               f"cross_validate, {FOLDS} folds (shuffled, random_state=0), `Pipeline([StandardScaler(), est])`, "
               f"defaults; ms per fold, median over the rounds", "", *sklearn_table(task, models)]
        rows += csv_rows("sklearn", name, task, X.shape[0], X.shape[1], models)
    print("\n".join(md), flush=True)
    if out_dir is not None:
        from olk.fileio import atomic_write_text
        out_dir.mkdir(parents=True, exist_ok=True)
        extra = {"date": time.strftime("%Y-%m-%dT%H:%M:%S"), "load_before": load_before, "load_after": load_after,
                 "versions": versions}
        written = [_write_csv(out_dir / "ecosystem.csv", rows, extra),
                   atomic_write_text(out_dir / "ecosystem.md", "\n".join(md) + "\n")]
        print("olk bench ecosystem: wrote " + ", ".join(str(w) for w in written))


if __name__ == "__main__":
    main()

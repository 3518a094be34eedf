"""Issue 47's closing table, measured: the traps a scikit-learn or River user fell into, at the current commit.

    .venv/bin/python bench/issue47_traps.py            # about two minutes on a loaded 2-core machine

Each "before" that the current code can still produce is measured the old way beside the new one: ``shuffle=False``
is the former ``fit`` (one pass in the given order), ``learner.predict_proba_one`` the River KLR classes' former
probabilities (the learner's own sigmoid(f)).  Platt's intercept, which River's binary classes had before, is gone
from the code: those "before" figures were measured at da897be (SPA 66.56% with a probability metric, 79.28%
without; 385 / 217 / 228 of Phishing's 1,250 examples where the most probable label was not predict_one's for
SPA / Perceptron / BOGD, 12 of ImageSegments' 2,310 for mc_pa1).  The site and the long-stream rows are measured by
tests/test_site_browser.py and in docs/guide/river.md.
"""
from __future__ import annotations

import warnings

import numpy as np


def row_order() -> None:
    from sklearn.datasets import load_iris, load_wine
    from sklearn.linear_model import Perceptron
    from sklearn.model_selection import cross_val_score
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    import olk

    def cv(name, X, y, **kw):
        return cross_val_score(make_pipeline(StandardScaler(), olk.estimator(name, **kw)), X, y).mean()

    print("## 1. class-sorted rows, cross_val_score(make_pipeline(StandardScaler(), est)), defaults")
    print("| data | model | shuffle=False (before) | default, mean of 10 (after) | rows shuffled first, mean of 10 |")
    print("|---|---|---|---|---|")
    for data, loader in [("iris", load_iris), ("wine", load_wine)]:
        X, y = loader(return_X_y=True)
        for name in ["mc_perceptron", "mc_pa1"]:
            np.random.seed(0)
            after = np.mean([cv(name, X, y) for _ in range(10)])
            perms = [np.random.default_rng(r).permutation(len(y)) for r in range(10)]
            shuffled = np.mean([cv(name, X[p], y[p]) for p in perms])
            print(f"| {data} | {name} | {cv(name, X, y, shuffle=False):.3f} | {after:.3f} | {shuffled:.3f} |")
        sk = cross_val_score(make_pipeline(StandardScaler(), Perceptron()), X, y).mean()
        print(f"| {data} | scikit-learn Perceptron() | | {sk:.3f} | |")


def river_rows() -> None:
    from river import datasets, evaluate, metrics, preprocessing

    import olk.river as R
    from olk.algorithms.registry import REGISTRY

    print("\n## 2-3. River, progressive_val_score(Phishing, StandardScaler() | model(seed=0)), defaults")
    print("| model | Accuracy() alone | Accuracy() + ROCAUC() + LogLoss() | argmax != predict_one | "
          "P(True) 5-95% | own sigmoid(f): ROCAUC, LogLoss, 5-95% |")
    print("|---|---|---|---|---|---|")
    for name in ["spa", "perceptron", "bogd", "klr_nc", "klr_margin", "klr_aux"]:
        alone = evaluate.progressive_val_score(datasets.Phishing(), preprocessing.StandardScaler() |
                                               R.by_name[name](seed=0), metrics.Accuracy()).get()
        mixed = evaluate.progressive_val_score(datasets.Phishing(), preprocessing.StandardScaler() |
                                               R.by_name[name](seed=0),
                                               metrics.Accuracy() + metrics.ROCAUC() + metrics.LogLoss())
        model = preprocessing.StandardScaler() | R.by_name[name](seed=0)
        m = model[R.by_name[name].__name__]
        klr = REGISTRY[name].task == "probabilistic"
        auc0, ll0, bad, p_true, p_own = metrics.ROCAUC(), metrics.LogLoss(), 0, [], []
        for x, y in datasets.Phishing():
            p, label = model.predict_proba_one(x), model.predict_one(x)
            bad += max(p, key=p.get) != label
            p_true.append(p[True])
            if klr:
                own = m.learner.predict_proba_one(m._row(model["StandardScaler"].transform_one(x)))
                own = {False: own[-1.0], True: own[1.0]} if -1.0 in own else own
                auc0.update(y, own)
                ll0.update(y, own)
                p_own.append(own[True])
            model.learn_one(x, y)
        lo, hi = np.quantile(p_true, [0.05, 0.95])
        own = (f"{100 * auc0.get():.2f}%, {ll0.get():.3f}, {np.quantile(p_own, 0.05):.3f}-"
               f"{np.quantile(p_own, 0.95):.3f}" if klr else "")
        print(f"| {name} | {100 * alone:.2f}% | {100 * mixed[0].get():.2f}%, {100 * mixed[1].get():.2f}%, "
              f"{mixed[2].get():.3f} | {bad} / 1250 | {lo:.3f}-{hi:.3f} | {own} |")
    for name in ["mc_pa1", "mc_perceptron"]:
        model = preprocessing.StandardScaler() | R.by_name[name](seed=0)
        acc, bad = metrics.Accuracy(), 0
        for x, y in datasets.ImageSegments():
            p, label = model.predict_proba_one(x), model.predict_one(x)
            if p:
                bad += max(p, key=p.get) != label
                acc.update(y, max(p, key=p.get))
            model.learn_one(x, y)
        alone = evaluate.progressive_val_score(datasets.ImageSegments(), preprocessing.StandardScaler() |
                                               R.by_name[name](seed=0), metrics.Accuracy()).get()
        print(f"| {name} (ImageSegments) | {100 * alone:.2f}% | {100 * acc.get():.2f}% (argmax) | {bad} / 2310 | | |")


def sklearn_klr() -> None:
    from sklearn.datasets import load_breast_cancer
    from sklearn.metrics import accuracy_score, log_loss, roc_auc_score
    from sklearn.model_selection import train_test_split
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    import olk

    print("\n## 3. scikit-learn, breast cancer behind StandardScaler, a stratified held-out quarter, defaults")
    print("| model | accuracy | ROC AUC | log loss: map (after) | learner's own sigmoid(f) (before) |")
    print("|---|---|---|---|---|")
    X, y = load_breast_cancer(return_X_y=True)
    Xa, Xb, ya, yb = train_test_split(X, y, random_state=0, stratify=y)
    for name in ["klr_nc", "klr_margin", "klr_aux"]:
        pipe = make_pipeline(StandardScaler(), olk.estimator(name, random_state=0)).fit(Xa, ya)
        P = pipe.predict_proba(Xb)[:, 1]
        own = pipe[-1].learner_.predict_proba(pipe[0].transform(Xb))[:, 1]
        print(f"| {name} | {accuracy_score(yb, pipe.predict(Xb)):.3f} | {roc_auc_score(yb, P):.3f} | "
              f"{log_loss(yb, P):.3f} | {log_loss(yb, own):.3f} |")


if __name__ == "__main__":
    warnings.filterwarnings("ignore")
    row_order()
    river_rows()
    sklearn_klr()

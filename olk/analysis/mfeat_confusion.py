"""Which digit pairs of UCI Multiple Features (mfeat) are the most confusable: the evidence behind the binary
tasks of ``configs/oks_table1.yaml`` (3 vs 5, 7 vs 9; 6 vs 9 for another reason, see the config).

A 10-class classifier is cross-validated on all 2,000 rows (stratified 5-fold, seeded) and its errors are
counted per unordered digit pair (a 3 predicted as 5 and a 5 predicted as 3 both count for {3, 5}).  Two
classifiers, both on the six views stacked and each feature min-max scaled to [0, 1] (the registry's default):

* ``1nn``: the nearest neighbour (Euclidean) -- the criterion the config names;
* ``svm``: LIBSVM (scikit-learn's SVC, one-vs-one) with a Gaussian kernel of median-heuristic width
  (gamma = 1 / (2 median^2) of the pairwise distances of a seeded 500-row sample) and C = 10, as a check that
  the ranking does not depend on the classifier.

Run: ``python -m olk.analysis.mfeat_confusion [--seeds 5]`` (about a minute); it prints, summed over the CV
splits of seeds 0..N-1, the pairs with the most errors for each classifier and per view (1-NN on one view).
``results/notes/oks_aaai2012_table1.md`` quotes it.
"""
from __future__ import annotations

import argparse
import itertools

import numpy as np


def pair_errors(y_true: np.ndarray, y_pred: np.ndarray, n_classes: int = 10) -> dict[tuple[int, int], int]:
    """Errors per unordered class pair {a, b} (a < b): rows of class a predicted b plus rows of b predicted a.

    >>> pair_errors(np.array([3, 3, 5, 5, 7]), np.array([5, 3, 3, 5, 9]))[(3, 5)]
    2
    """
    out = {(a, b): 0 for a, b in itertools.combinations(range(n_classes), 2)}
    for t, p in zip(y_true.tolist(), y_pred.tolist()):
        if t != p:
            out[(min(t, p), max(t, p))] += 1
    return out


def cross_validated_predictions(X: np.ndarray, y: np.ndarray, kind: str, folds: int = 5, seed: int = 0) -> np.ndarray:
    """Out-of-fold predictions of the ``1nn`` or ``svm`` classifier (stratified ``folds``-fold CV, seeded)."""
    from sklearn.model_selection import StratifiedKFold, cross_val_predict
    from sklearn.neighbors import KNeighborsClassifier
    from sklearn.svm import SVC

    if kind == "1nn":
        clf = KNeighborsClassifier(n_neighbors=1)
    elif kind == "svm":
        rng = np.random.default_rng(seed)
        S = X[rng.choice(X.shape[0], size=min(500, X.shape[0]), replace=False)]
        d2 = np.maximum((S * S).sum(1)[:, None] + (S * S).sum(1)[None, :] - 2 * S @ S.T, 0.0)
        med = float(np.median(np.sqrt(d2[np.triu_indices_from(d2, 1)])))
        clf = SVC(kernel="rbf", gamma=1.0 / (2.0 * med * med), C=10.0)
    else:
        raise ValueError(f"unknown classifier {kind!r}: 1nn or svm")
    cv = StratifiedKFold(n_splits=folds, shuffle=True, random_state=seed)
    return cross_val_predict(clf, X, y, cv=cv)


def ranking(X: np.ndarray, y: np.ndarray, kind: str, top: int = 5, seed: int = 0) -> list[tuple[tuple[int, int], int]]:
    """The ``top`` digit pairs with the most cross-validated errors of classifier ``kind``, most first (ties: the
    smaller pair first), with their error counts."""
    errs = pair_errors(y, cross_validated_predictions(X, y, kind, seed=seed))
    return sorted(errs.items(), key=lambda kv: (-kv[1], kv[0]))[:top]


def summed_errors(X: np.ndarray, y: np.ndarray, kind: str, seeds) -> tuple[dict, int]:
    """Pair errors (and all errors) of classifier ``kind`` summed over the CV splits of ``seeds``."""
    total: dict[tuple[int, int], int] = {}
    n = 0
    for s in seeds:
        pred = cross_validated_predictions(X, y, kind, seed=s)
        n += int((pred != y).sum())
        for k, v in pair_errors(y, pred).items():
            total[k] = total.get(k, 0) + v
    return total, n


def _top(errs: dict, k: int) -> list:
    return sorted(errs.items(), key=lambda kv: (-kv[1], kv[0]))[:k]


def main(argv=None) -> None:
    from olk.data import load_dataset

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--top", type=int, default=5, help="pairs to print per classifier (default 5)")
    ap.add_argument("--seeds", type=int, default=5, help="CV splits (seeds 0..N-1) to sum the errors over (default 5)")
    args = ap.parse_args(argv)
    d = load_dataset("mfeat")
    X, y = d.X, d.y.astype(int)
    seeds = range(args.seeds)
    what = f"5-fold CV x {args.seeds} seeded splits, {2000 * args.seeds:,} predictions"
    for kind in ("1nn", "svm"):
        errs, n = summed_errors(X, y, kind, seeds)
        print(f"{kind} on all views ({what}): {n} errors; most confused pairs: "
              + ", ".join(f"{a} vs {b}: {c}" for (a, b), c in _top(errs, args.top)))
    for v, (lo, hi) in d.meta["views"].items():
        errs, n = summed_errors(X[:, lo:hi], y, "1nn", seeds)
        print(f"1nn on view {v} alone: {n} errors; " + ", ".join(f"{a} vs {b}: {c}" for (a, b), c in _top(errs, 3))
              + f"; 6 vs 9: {errs[(6, 9)]}, 3 vs 5: {errs[(3, 5)]}, 7 vs 9: {errs[(7, 9)]}")


if __name__ == "__main__":
    main()

"""olk inside River, paired against River's own PAClassifier: examples per second through
``river.evaluate.progressive_val_score`` on River's bundled Phishing stream (1,250 examples, no download).

Per round every model runs once, in the order PAClassifier, then each olk model (``--models``, default Perceptron and
SPA with ``kernel="rbf", gamma=0.1``), so that machine load hits them alike; ``--rounds`` rounds, the median time
per model, and the median of the per-round ratios (olk examples/s / PAClassifier examples/s) are printed.  Each run
goes over the stream ``--repeats`` times (a fresh model each time) to time more than a few milliseconds.  Accuracy
(and ROCAUC for the olk models through their online Platt fit) is printed for the same runs.

Same process, same machine, one run: the ratios are what we quote, not the absolute numbers.

    olk bench river                       # ~30 s
    olk bench river --rounds 7 --models perceptron,spa,bogd

Speed claims live here, never in unit tests.
"""
from __future__ import annotations

import statistics
import time

from . import parser


def _run(make_model, stream, repeats: int, metric_cls):
    from river import evaluate
    t0 = time.perf_counter()
    for _ in range(repeats):
        metric = evaluate.progressive_val_score(stream, make_model(), metric_cls())
    return time.perf_counter() - t0, metric.get()


def main(argv=None):
    ap = parser("river", __doc__)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--repeats", type=int, default=2)
    ap.add_argument("--models", default="perceptron,spa", help="olk.river registry names, comma-separated")
    args = ap.parse_args(argv)
    if args.rounds < 1 or args.repeats < 1:
        from olk.errors import ConfigError
        raise ConfigError("olk bench river: --rounds and --repeats must be >= 1")
    try:
        from river import datasets, linear_model, metrics
    except ImportError:
        from olk.errors import ConfigError
        raise ConfigError("olk bench river: River is not installed (pip install olk[river])") from None
    import olk.river as R
    names = [n.strip() for n in args.models.split(",") if n.strip()]
    unknown = [n for n in names if n not in R.by_name]
    if unknown:
        from olk.errors import ConfigError
        raise ConfigError(f"olk bench river: --models {unknown[0]!r} is not an olk.river learner "
                          f"(olk.river.by_name lists them)")
    stream = list(datasets.Phishing())
    n = len(stream) * args.repeats
    makers = {"river PAClassifier": lambda: linear_model.PAClassifier(),
              **{f"olk {R.by_name[m].__name__}": (lambda m=m: R.by_name[m](kernel="rbf", gamma=0.1, seed=0))
                 for m in names}}
    times: dict[str, list[float]] = {k: [] for k in makers}
    acc: dict[str, float] = {}
    for _ in range(args.rounds):
        for label, make_model in makers.items():
            t, a = _run(make_model, stream, args.repeats, metrics.Accuracy)
            times[label].append(t)
            acc[label] = a
    auc = {label: _run(make_model, stream, 1, metrics.ROCAUC)[1] for label, make_model in makers.items()}
    print(f"Phishing: {len(stream)} examples x {args.repeats} passes, progressive_val_score, {args.rounds} rounds "
          f"(PAClassifier first, then each olk model)")
    print(f"{'model':24s} {'examples/s':>11s} {'accuracy':>9s} {'ROCAUC':>7s} {'ratio to PA':>12s}")
    base = times["river PAClassifier"]
    for label, ts in times.items():
        ratio = statistics.median(b / t for b, t in zip(base, ts))
        print(f"{label:24s} {n / statistics.median(ts):11,.0f} {acc[label]:9.4f} {auc[label]:7.4f} {ratio:12.2f}")
    print("ratio to PA: median over rounds of (olk examples/s) / (PAClassifier examples/s) in the same round")


if __name__ == "__main__":
    main()

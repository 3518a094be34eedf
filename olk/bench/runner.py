"""One timed run of ``olk bench core`` / ``olk bench multi --baseline``, in a fresh interpreter: load the data,
run one learner's online pass over it, optionally the reference loops (:mod:`olk._core.refloop`) on the same
rows, and print one JSON line.

The benches do not import this module: they run its *source* with ``python -c SOURCE SPEC`` so that the olk it
exercises is whichever one the interpreter finds (this checkout, or with ``PYTHONPATH=DIR`` another checkout for
``--baseline DIR``).  It therefore uses only interfaces every olk since issue 13 has (``make``, ``load_dataset``,
``online_pass``, ``perceptron_pass``, ``exp_simd_now``, ``KernelSet.preset``, ``olk.bench.learners.bench_data``,
``olk.bench.multi.IndependentPools``) and nothing else of this checkout.  SPEC is a JSON object: either file,
sparse (a LIBSVM file in file order) or dataset, scale, seed (a registry dataset as ``olk bench multi`` streams
it); algorithm, params; gamma (one Gaussian kernel) or kernels (a preset, e.g. spa16) and layout (pooled or
independent); refs.
"""
import json
import resource
import sys
import time
from typing import Any


def run(spec: dict) -> dict:
    """Load spec["file"], run the learner's pass over it (and the reference loops when spec["refs"])."""
    import numpy as np

    from olk._core.svpool import exp_simd_now
    from olk.algorithms import make
    from olk.data import load_dataset
    from olk.tasks import online_pass
    t0 = time.perf_counter()
    if "file" in spec:
        d = load_dataset(spec["file"], sparse=spec["sparse"])
        X, y = d.X, d.y
        order = np.arange(X.shape[0])
    else:
        from olk.bench.learners import bench_data
        X, y, order = bench_data(spec["dataset"], spec["scale"], spec["seed"])
    load_s = time.perf_counter() - t0
    nnz = int(X.nnz) if hasattr(X, "nnz") else int(np.count_nonzero(X))
    binary = bool(np.all(X.data == 1.0)) if hasattr(X, "nnz") else bool(np.all((X == 0.0) | (X == 1.0)))
    kernel: Any = {"type": "gaussian", "gamma": spec["gamma"]} if not spec.get("kernels") else None
    if spec.get("kernels"):
        from olk.kernels import KernelSet
        kernel = KernelSet.preset(spec["kernels"])
    model = make(spec["algorithm"], kernel=kernel, random_state=1, **spec["params"])
    if spec.get("layout") == "independent":
        from olk.bench.multi import IndependentPools
        model._make_pool = lambda n_features, sparse: IndependentPools(n_features, sparse, model.kernels)
    c0 = time.process_time()
    res = online_pass(model, X, y, order, n_checkpoints=2)
    out = {"rows": int(X.shape[0]), "load_s": load_s, "cpu_before_pass_s": c0, "nnz": nnz, "binary": binary,
           "width": int(X.shape[1]), "exp_simd": exp_simd_now(),
           "olk": {"time_s": res["time_s"], "cpu_s": time.process_time() - c0, "kernel_evals": res["kernel_evals"],
                   "n_sv": res["n_sv"], "mistakes": res["mistakes"]}}
    if spec.get("refs"):
        from olk._core.refloop import VARIANTS, perceptron_pass
        out["ref"] = {}
        for v in VARIANTS:
            c0 = time.process_time()
            r = perceptron_pass(X, y, order, spec["gamma"], v)
            r["cpu_s"] = time.process_time() - c0
            out["ref"][v] = r
    out["peak_rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0
    return out


def run_klr_batch(spec: dict) -> dict:
    """``olk bench klr``'s Part 2 batch fits in this process: PCD and DCD on the seeded 80/20 split of
    spec["dataset"] (spec["scale"] of its rows), each fit's time (no probe), sweeps, #SV and test accuracy."""
    import numpy as np

    from olk.algorithms import make
    from olk.bench.klr import BATCH, WIDTH
    from olk.data import load_dataset
    from olk.experiment import seeds
    from olk.experiment.data import kernel_width
    ds, seed = spec["dataset"], spec["seed"]
    d = load_dataset(ds)
    X, y = d.X, d.y
    if spec["scale"] < 1:
        idx = seeds.subsample(X.shape[0], spec["scale"], seed, ds)
        X, y = X[idx], y[idx]
    tr, te = seeds.holdout_split(y, 0.2, seed, ds)
    gamma = kernel_width(X[tr], WIDTH, seed, ds)["gamma"]
    out = {}
    for label, name in BATCH.items():
        model = make(name, kernel={"type": "gaussian", "gamma": gamma}, random_state=0, lam=spec["lam"],
                     tol=spec["tol"], max_iter=spec["max_iter"])
        c0, t0 = time.process_time(), time.perf_counter()
        model.fit(X[tr], y[tr])
        out[label] = {"time_s": time.perf_counter() - t0, "cpu_s": time.process_time() - c0,
                      "n_iter": int(model.n_iter_), "n_sv": int(model.n_sv),
                      "accuracy": float(np.mean(model.predict(X[te]) == y[te]))}
    return out


def as_the_cli() -> None:
    """What the ``olk`` command does before numpy is imported: one BLAS thread (``olk._lazy.one_blas_thread``, since
    issue 38; an older olk has none, and its runs start as its command did)."""
    try:
        from olk._lazy import one_blas_thread
    except ImportError:
        return
    one_blas_thread()


def leave_as_the_cli() -> None:
    """What the ``olk`` command does once its work is done: no collection at shutdown
    (``olk._lazy.no_exit_collection``, since issue 38; an older olk's command has none)."""
    try:
        from olk._lazy import no_exit_collection
    except ImportError:
        return
    no_exit_collection()


if __name__ == "__main__":
    as_the_cli()
    _spec = json.loads(sys.argv[1])
    print(json.dumps(run_klr_batch(_spec) if _spec.get("mode") == "klr_batch" else run(_spec)), flush=True)
    leave_as_the_cli()

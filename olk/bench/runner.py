"""One timed run of ``olk bench core``, in a fresh interpreter: load one LIBSVM file, run one learner's online
pass over it in file order, optionally the reference loops (:mod:`olk._core.refloop`) on the same rows, and
print one JSON line.

The bench does not import this module: it runs its *source* with ``python -c SOURCE SPEC`` so that the olk
it exercises is whichever one the interpreter finds (this checkout, or with ``PYTHONPATH=DIR`` another checkout
for ``olk bench core --baseline DIR``).  It therefore uses only interfaces every olk since issue 13 has
(``make``, ``load_dataset``, ``online_pass``, ``perceptron_pass``, ``exp_simd_now``) and nothing else of this
checkout.  SPEC is a JSON object: file, sparse, algorithm, params, gamma, refs.
"""
import json
import resource
import sys
import time


def run(spec: dict) -> dict:
    """Load spec["file"], run the learner's pass over it (and the reference loops when spec["refs"])."""
    import numpy as np
    from olk._core.svpool import exp_simd_now
    from olk.algorithms import make
    from olk.data import load_dataset
    from olk.tasks import online_pass
    t0 = time.perf_counter()
    d = load_dataset(spec["file"], sparse=spec["sparse"])
    X, y = d.X, d.y
    load_s = time.perf_counter() - t0
    order = np.arange(X.shape[0])
    model = make(spec["algorithm"], kernel={"type": "gaussian", "gamma": spec["gamma"]}, random_state=1,
                 **spec["params"])
    c0 = time.process_time()
    res = online_pass(model, X, y, order, n_checkpoints=2)
    out = {"rows": int(X.shape[0]), "load_s": load_s, "exp_simd": exp_simd_now(),
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


if __name__ == "__main__":
    print(json.dumps(run(json.loads(sys.argv[1]))))

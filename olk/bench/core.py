"""Core speed benchmark (issues 13, 29 and 38): olk's learning loop against olk's own fastest reference loop and a
hardware bound of this core, and, with ``--vs-cpp``, against the SPA authors' group's C++ library run on the same
file in alternating pairs.

    olk bench core                      # the ten cases, 3 repeats each (medians)
    olk bench core --cases perceptron_a9a,bpas_a9a_train --repeats 5
    olk bench core --quick              # 10% of each file, 1 repeat: a smoke test (times not comparable)
    olk bench core --vs-cpp ~/KOL/build/bin/KOL --pairs 5   # + the C++ library, cold and warm (docs/speed.md)
    olk bench core --vs-cpp KOL --baseline ../olk-old       # + an older olk in the same pairs: before -> after
    olk bench core --baseline ../olk-old --pairs 5           # before/after pairs against another checkout

**The data.**  Every case reads one LIBSVM file in file order, written once under ``--data-dir`` (default
``datasets/bench/`` of the project, not committed) and kept: ``a9a.libsvm`` (a9a train + test, 48,842 rows),
``a9a.train.libsvm`` (32,561 rows) and ``codrna.pm1.shuffled.libsvm`` (cod-rna train, 59,535 rows, each feature
min-max scaled to [-1, 1], written with 9 significant digits, and the rows shuffled once: permutation 0 of seed
2018).  olk and the C++ library read the same bytes in the same order; each file's sha256 goes into the CSVs.

**The reference loop and the hardware bound.**  Each repeat of a case runs in a fresh process
(:mod:`olk.bench.runner`): olk's learning loop, then, for the kernel-sum learners, the reference loops
(:mod:`olk._core.refloop`: the same kernel Perceptron written as plain C loops, scalar exp / vectorised exp / our
best) on the same rows; for a Perceptron case they must reproduce olk's SVs and mistakes exactly (checked).  The
fastest is **olk's fastest reference loop** ("ref loop": the fastest loop we know for this data layout and this
arithmetic, not a law of nature; for the budget learners the Perceptron reference on the same file stands in).
Beside it, a **hardware bound**: the bytes and flops one kernel evaluation needs (an SV's stored entries, its norm
and coefficient; the products, the distance and olk's exp: see :func:`per_eval`) against this core's memory
bandwidth (a single-threaded copy of 128 MB) and its peak flops (a single-threaded BLAS matrix product), both
measured at the start of the run; the fractions of both are reported.  Reported per case, medians over the
repeats: ``olk loop s`` (predict + update for every example; no loading), ``M evals/s``, the two fractions
(wall-clock and CPU time, ``process_time``: on a loaded machine the CPU fraction is the steadier one), ``whole s``
a separate fresh process that imports olk, loads the file (olk's dataset cache warm) and runs the loop, from spawn
to exit; ``CPU to 1st row`` the CPU the process spent before the first example (interpreter, imports, load, set-up);
``peak MB`` (the runner's own ru_maxrss); the SPA paper's C++ time (Table 2, a 3.2 GHz PC) where the case is the
paper's.  FOGD and NOGD are not kernel sums (FOGD evaluates no kernel): no reference loop there.

**Against the C++ library** (``--vs-cpp PATH``: its ``KOL`` executable, built as docs/speed.md says; its ``Cacher`` next
to it is used for the parse line).  Per case, ``--pairs`` alternating pairs (the order of the sides rotates from
pair to pair) of whole processes on the same file: *cold* (olk's dataset cache emptied: ``$OLK_CACHE`` points at a
fresh empty directory, so olk parses the text like the C++ does) and then *warm* (olk's cache filled by one untimed
run).  Each process is timed from spawn to exit (wall) and by its own CPU time (``wait4``), and its peak memory is
its own (``/usr/bin/time -f %M``, a fresh small process between the bench and the program: ``ru_maxrss`` of a child
forked from the bench's large Python process would report the parent's size).  The like-for-like learning time is
**parse + learn**: the library's "Learning time" (its learning loop and, in its reader thread meanwhile, the text
parsing) against olk's load + pass (cold: olk parses the text too; warm: olk reads its binary cache).  Ratios
C++ / olk are taken within each pair, then the median.  The **load average** (1 minute) is recorded before every
pair; a pair started above ``--max-load`` (default 1.5) is marked and left out of the medians (all pairs are used,
and the row marked, only if none was quiet).  The implementations differ in details (the library keeps features
as 32-bit floats, its Forgetron/BOGD remove by their own rules, its FOGD map and NOGD eigenpairs are not the
paper's: :data:`CPP_NOTES`), so #SV, mistakes and the online accuracy are printed for both.  With ``--baseline
DIR`` as well, every pair has a third process, the other checkout's olk, in the same rotation: the table then gives
before -> after (C++ / old olk -> C++ / new olk), CPU and wall.  Every process goes to ``vs_cpp_runs.csv``.

**Before / after** (``--baseline DIR`` alone: another olk checkout with its extensions built): ``--pairs``
alternating pairs of whole processes (warm cache) of that checkout and this one on every case; loop and
whole-process ratios old / new within each pair, every process in ``before_after_core.csv``.

The reader line: if :mod:`olk.bench.reader` is importable, its ``measure_reader(path, repeats)`` (the LIBSVM
reader's MB/s and rows/s, cold and warm) is printed for each file, with the C++ library's parse (its ``Cacher``:
parse + a binary cache write, a whole process) when ``--vs-cpp`` is given.

Wall-clock times on a shared machine are upper bounds; ratios measured within one process or one pair are what
docs/speed.md quotes.  Results go to ``results/bench/`` (``core.csv``: one row per case; ``core.md``: the tables as
printed).
"""
from __future__ import annotations

import argparse
import csv
import hashlib
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from . import parser


@dataclass(frozen=True)
class DataFile:
    key: str
    filename: str
    description: str
    sparse: bool                        # how olk stores it (a9a: CSR; cod-rna: dense, as the registry does)


@dataclass(frozen=True)
class Case:
    name: str
    algorithm: str
    data: str                           # a DataFile key
    params: dict = field(default_factory=dict)
    gamma: float = 0.4
    cpp: tuple = ()                     # the C++ library's -opt and its options for the same learner
    paper_s: float | None = None        # SPA paper Table 2 (C++, 3.2 GHz), where the case is the paper's
    kernel_sum: bool = True             # a kernel expansion: the Perceptron reference loop and the hardware bound apply
    #: the reference loops (olk._core.refloop, a kernel Perceptron) compute this very case: their #SV and mistakes
    #: must equal olk's, or the comparison would be meaningless
    same_as_reference: bool = False


DATA = {d.key: d for d in (
    DataFile("a9a", "a9a.libsvm", "a9a train + test, file order", True),
    DataFile("a9a_train", "a9a.train.libsvm", "a9a train, file order", True),
    DataFile("codrna", "codrna.pm1.shuffled.libsvm",
             "cod-rna train, each feature min-max scaled to [-1, 1], shuffled once (permutation 0, seed 2018)", False),
)}

#: budgets: SPA's mean #SV (Table 2: 1,350 on a9a, 822 on codrna); BOGD's eta / lambda: olk's defaults, given to both
CASES = (
    Case("perceptron_a9a", "perceptron", "a9a", {}, cpp=("kernel-perceptron",), paper_s=19.93,
         same_as_reference=True),
    Case("rbp_a9a_train", "rbp", "a9a_train", {"budget": 1350}, cpp=("kernel-rbp", "-B", "1350")),
    Case("bpas_a9a_train", "bpas", "a9a_train", {"budget": 1350, "C": 1.0},
         cpp=("kernel-bpas", "-B", "1350", "-cbpas", "1")),
    Case("perceptron_codrna", "perceptron", "codrna", {}, cpp=("kernel-perceptron",), same_as_reference=True),
    Case("forgetron_codrna", "forgetron", "codrna", {"budget": 822}, cpp=("kernel-forgetron", "-B", "822")),
    Case("bogd_codrna", "bogd", "codrna", {"budget": 822, "eta": 0.1, "lam": 0.01},
         cpp=("kernel-bogd", "-B", "822", "-eta", "0.1", "-lambda", "0.01")),
    # issue 38: FOGD (D = 2,000; the library's unnormalised map with eta / D = olk's normalised map with eta) and NOGD
    # (B = 500, k = 100, eta 1 in both phases: the library's -eta and -eta1)
    *(Case(f"fogd_{key}", "fogd", key, {"n_rf": 2000, "eta": 0.1}, kernel_sum=False,
           cpp=("kernel-fogd", "-D", "2000", "-eta", "0.00005")) for key in ("a9a", "codrna")),
    *(Case(f"nogd_{key}", "nogd", key, {"budget": 500, "rank": 100, "eta": 1.0}, kernel_sum=False,
           cpp=("kernel-nogd", "-B", "500", "-knogd", "100", "-eta", "1", "-eta1", "1")) for key in ("a9a", "codrna")),
)

#: what the C++ library computes differently, printed under the comparison (read in its source, kernel_fogd.h and
#: kernel_nogd.h of LIBOL/KOL; the accuracies beside them are measured in the run)
CPP_NOTES = {
    "fogd": "the library's FOGD does not compute the paper's map: sin(u'x) is a parabolic approximation "
            "(B x + C x|x|, then P (a|a| - a) + a after wrapping to [-pi, pi]) and the cos slot holds "
            "sign(u'x) sqrt(1 - sin^2) = |cos| sign; its frequencies are seeded by the clock (time(NULL)), so its runs "
            "differ; at gamma 0.4 it stays near the majority rate",
    "nogd": "the library's NOGD takes the eigenpairs of K from a non-symmetric solver (Eigen's EigenSolver, "
            "float) in the solver's order, not the k largest, divides each eigenvector by its squared norm (not the "
            "norm), starts w at 0 (olk carries the kernel expansion over), and restarts its instance count at the "
            "map, so its 'Learn accuracy' covers a different number of rows",
}
BY_NAME = {c.name: c for c in CASES}


# ------------------------------------------------------------------------------------------ the data files
def _num(v: float) -> str:
    """A value as LIBSVM text: an integer without a decimal point, else 9 significant digits (the C++ library's
    parser accumulates a value's digits in a 32-bit int: ten or more digits overflow it)."""
    return str(int(v)) if v == int(v) and abs(v) < 2 ** 31 else format(float(v), ".9g")


def _write_libsvm(path: Path, X, y) -> None:
    """Rows of X (CSR or dense; zeros left out) with labels +1 / -1, written atomically."""
    import scipy.sparse as sp
    A = sp.csr_matrix(X)
    A.sort_indices()
    lines = []
    for i in range(A.shape[0]):
        a, b = A.indptr[i], A.indptr[i + 1]
        feats = " ".join(f"{j + 1}:{_num(v)}" for j, v in zip(A.indices[a:b].tolist(), A.data[a:b].tolist()) if v != 0)
        lines.append(("+1" if y[i] > 0 else "-1") + (" " + feats if feats else ""))
    from olk.fileio import atomic_write_text
    atomic_write_text(path, "\n".join(lines) + "\n")


def _source(key: str):
    """(X, y) of a bench file, built from olk's registry datasets."""
    import numpy as np

    from olk.data import load_dataset
    if key == "a9a":
        d = load_dataset("a9a")                                   # train + test in file order
        return d.X, d.y
    if key == "a9a_train":
        d = load_dataset("a9a", split="train")
        return d.X, d.y
    from olk.experiment import seeds
    d = load_dataset("codrna", split="train")                     # unscaled, as LIBSVM distributes it
    X = np.asarray(d.X, dtype=np.float64)
    lo, hi = X.min(axis=0), X.max(axis=0)
    span = np.where(hi > lo, hi - lo, 1.0)
    Xs = np.where(hi > lo, 2.0 * (X - lo) / span - 1.0, 0.0)
    perm = seeds.permutation(X.shape[0], 2018, "codrna", 0)
    return Xs[perm], np.asarray(d.y)[perm]


def data_file(key: str, data_dir: Path, scale: float = 1.0) -> Path:
    """The bench file `key` under data_dir, written on first use and kept (scale < 1: a row subsample of it,
    file order kept, in its own file)."""
    df = DATA[key]
    full = data_dir / df.filename
    if not full.exists():
        data_dir.mkdir(parents=True, exist_ok=True)
        X, y = _source(key)
        _write_libsvm(full, X, y)
    if scale >= 1.0:
        return full
    path = data_dir / f"{Path(df.filename).stem}.scale{scale:g}.libsvm"
    if not path.exists():
        from olk.data import load_dataset
        from olk.experiment import seeds
        d = load_dataset(full, sparse=df.sparse)
        idx = seeds.subsample(d.X.shape[0], scale, 2018, key)
        _write_libsvm(path, d.X[idx], d.y[idx])
    return path


def sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


# ------------------------------------------------------------------------------------------ timed processes
@dataclass
class Proc:
    wall: float                          # spawn to exit
    cpu: float                           # the child's user + system time
    maxrss_mb: float | None              # its own peak resident size (None: no /usr/bin/time here)
    code: int
    stdout: str
    stderr: str


#: a small program between the bench and the measured one, reporting the latter's own peak memory (GNU time)
TIME = "/usr/bin/time"


def _gnu_time() -> bool:
    """Whether /usr/bin/time is GNU time (-q, -f %M, -o FILE)."""
    if not (os.path.isfile(TIME) and os.access(TIME, os.X_OK)):
        return False
    r = subprocess.run([TIME, "-q", "-f", "%M", "true"], capture_output=True, text=True)
    lines = r.stderr.strip().splitlines()
    return r.returncode == 0 and bool(lines) and lines[-1].isdigit()


def timed(cmd: list[str], env: dict | None = None, cwd=None) -> Proc:
    """Run `cmd`; its wall time from spawn to exit, its own CPU time (``os.wait4``: the CPU of every process it
    waited for, so through /usr/bin/time the program's), and its own peak memory from /usr/bin/time -f %M (a child
    forked from this large Python process would report the parent's size as its ru_maxrss)."""
    with tempfile.TemporaryDirectory(prefix="olk-bench-time-") as tmp:
        mem_file = Path(tmp) / "maxrss"
        full = [TIME, "-q", "-f", "%M", "-o", str(mem_file), *cmd] if _HAVE_TIME else cmd
        with open(Path(tmp) / "out", "w+") as out, open(Path(tmp) / "err", "w+") as err:
            t0 = time.perf_counter()
            p = subprocess.Popen(full, stdout=out, stderr=err, env=env, cwd=cwd)
            _, status, ru = os.wait4(p.pid, 0)
            wall = time.perf_counter() - t0
            p.returncode = os.waitstatus_to_exitcode(status)
            out.seek(0)
            err.seek(0)
            mem = None
            if _HAVE_TIME and mem_file.exists():
                lines = mem_file.read_text().strip().splitlines()
                mem = int(lines[-1]) / 1024.0 if lines and lines[-1].isdigit() else None
            return Proc(wall, ru.ru_utime + ru.ru_stime, mem, p.returncode, out.read(), err.read())


_HAVE_TIME = _gnu_time()


_RUNNER = None


def _runner_source() -> str:
    global _RUNNER
    if _RUNNER is None:
        _RUNNER = (Path(__file__).with_name("runner.py")).read_text()
    return _RUNNER


def child_env(tree: Path | None = None, **extra) -> dict:
    """The environment of a runner process: the olk of `tree` (default: this checkout) first on PYTHONPATH, olk's
    data directories as seen from here in $OLK_DATA (another checkout's own search path may not reach them), and
    `extra` (e.g. OLK_CACHE).  Runners start in a neutral directory, so the current one cannot shadow olk."""
    import olk
    from olk.data.search import search_path
    root = Path(tree) if tree is not None else Path(olk.__file__).resolve().parents[1]
    env = dict(os.environ)
    if tree is not None:                    # another olk starts as its own command does, not with our BLAS set-up
        from olk._lazy import SET_BY_OLK
        for name in SET_BY_OLK:
            env.pop(name, None)
    env["PYTHONPATH"] = str(root) + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    env["OLK_DATA"] = os.pathsep.join(str(p) for p in search_path() if p.is_dir())
    env.update({k: str(v) for k, v in extra.items()})
    return env


def run_spec(spec: dict, env: dict) -> Proc:
    """:mod:`olk.bench.runner` on `spec` in a fresh interpreter (started in a neutral directory)."""
    return timed([sys.executable, "-c", _runner_source(), json.dumps(spec)], env, cwd=tempfile.gettempdir())


def olk_process(case: Case, path: Path, refs: bool, env: dict | None = None) -> tuple[dict, Proc]:
    """One fresh interpreter running :mod:`olk.bench.runner` on `path`: (its JSON result, the process)."""
    spec = {"file": str(path), "sparse": DATA[case.data].sparse, "algorithm": case.algorithm,
            "params": case.params, "gamma": case.gamma, "refs": refs and case.kernel_sum}
    p = run_spec(spec, env if env is not None else child_env())
    if p.code != 0:
        raise SystemExit(f"olk bench core: case {case.name} failed:\n{p.stderr[-2000:]}")
    return json.loads(p.stdout.strip().splitlines()[-1]), p


def kol_lines(stdout: str) -> dict:
    """What the C++ library's KOL prints: time_s ("Learning time"), n_sv, accuracy ("Learn acuracy", sic), rows."""
    got: dict = {}
    for line in stdout.splitlines():
        line = line.strip()
        if line.startswith("Learning time:"):
            got["time_s"] = float(line.split(":")[1].split()[0])
        elif line.startswith("#SV:"):
            got["n_sv"] = int(line.split(":")[1])
        elif line.startswith("Learn acuracy:") or line.startswith("Learn accuracy:"):
            got["accuracy"] = float(line.split(":")[1].strip().rstrip("%"))
        elif line.startswith("#Training Instances:"):
            got["rows"] = int(line.split(":")[1])
    return got


def cpp_process(exe: Path, case: Case, path: Path) -> tuple[dict, Proc]:
    """The C++ library's KOL on `path`: its "Learning time", #SV and mistakes, and the process."""
    from olk.errors import ConfigError
    cmd = [str(exe), "-i", str(path), "-opt", case.cpp[0], "-gamma", str(case.gamma), *case.cpp[1:]]
    p = timed(cmd)
    got = kol_lines(p.stdout)
    if p.code != 0 or "time_s" not in got or "rows" not in got:
        raise ConfigError(f"olk bench core: --vs-cpp {exe}: '{' '.join(cmd)}' exited {p.code} without the library's "
                          f"'Learning time' line ({(p.stderr or p.stdout).strip()[-200:]!r}); give the KOL executable "
                          f"built from the library's source (docs/speed.md)")
    got["mistakes"] = round(got["rows"] * (100.0 - got.get("accuracy", 0.0)) / 100.0)
    got.setdefault("accuracy", float("nan"))
    got.setdefault("n_sv", 0)
    return got, p


# ------------------------------------------------------------------------------------------ the suite
def _median(xs):
    xs = sorted(xs)
    n = len(xs)
    if n == 0:
        return None
    return xs[n // 2] if n % 2 else 0.5 * (xs[n // 2 - 1] + xs[n // 2])


def _fmt(v, spec=".2f", none="-"):
    return none if v is None else format(v, spec)


def per_eval(nnz_per_sv: float, sparse: bool, binary: bool) -> tuple[float, float]:
    """(bytes, flops) of one Gaussian kernel evaluation k(x, sv) in the pool's (and the reference loop's) layout, for
    an SV with `nnz_per_sv` stored entries: the bytes the SV brings (sparse: a 4-byte index and an 8-byte value per
    entry; dense: 8 bytes per column) plus its norm and its coefficient (16); the flops of the product (a multiply
    and an add per entry; binary sparse data skips the multiply by 1.0), of the distance qn + sn - 2p and -gamma d
    (4), of olk's exp (20: the reduction 7, the polynomial 11, the scaling 2; olk_exp.h) and of the sum's term (2).
    The query itself stays in cache and is not counted."""
    nbytes = (12.0 if sparse else 8.0) * nnz_per_sv + 16.0
    flops = (1.0 if sparse and binary else 2.0) * nnz_per_sv + 4.0 + 20.0 + 2.0
    return nbytes, flops


def measure_hardware(repeats: int = 3) -> dict:
    """This core's memory bandwidth (GB/s: the best of `repeats` single-threaded copies of 128 MB (4x the L3 of a
    large server CPU), counting the
    bytes read and written) and its peak flops (GFLOP/s: the best of `repeats` single-threaded BLAS products of two
    1,024 x 1,024 matrices, 2 n^3 flops; what a tuned kernel reaches on one core, not the data sheet's figure)."""
    import numpy as np
    from threadpoolctl import threadpool_limits
    a = np.ones(16 * 1024 * 1024)
    b = np.empty_like(a)
    bw = 0.0
    for _ in range(repeats):
        t0 = time.perf_counter()
        np.copyto(b, a)
        bw = max(bw, 2 * a.nbytes / (time.perf_counter() - t0) / 1e9)
    del a, b
    n = 1024
    A = np.random.default_rng(0).random((n, n))
    B = A.T.copy()
    gf = 0.0
    with threadpool_limits(1):
        A @ B                                           # warm-up
        for _ in range(repeats):
            t0 = time.perf_counter()
            A @ B
            gf = max(gf, 2.0 * n ** 3 / (time.perf_counter() - t0) / 1e9)
    return {"mem_gb_s": bw, "peak_gflops": gf}


def summarise(case: Case, reps: list[dict], wholes: list[float], scale: float = 1.0, hw: dict | None = None) -> dict:
    """One CSV row: medians (and min/max of the loop time) over the repeats of `case`.  The paper's time is for
    the full case, so it is left out at scale < 1."""
    loop = [r["olk"]["time_s"] for r in reps]
    evals = reps[0]["olk"]["kernel_evals"]
    rate = evals / _median(loop) / 1e6 if _median(loop) > 0 else float("nan")
    row = {"case": case.name, "algorithm": case.algorithm, "data": DATA[case.data].filename,
           "params": json.dumps(case.params, sort_keys=True), "gamma": case.gamma,
           "rows": reps[0]["rows"], "repeats": len(reps), "exp_simd": reps[0]["exp_simd"],
           "olk_loop_s": _median(loop), "olk_loop_s_min": min(loop), "olk_loop_s_max": max(loop),
           "olk_cpu_s": _median([r["olk"]["cpu_s"] for r in reps]), "kernel_evals": evals, "m_evals_per_s": rate,
           "us_per_row": _median(loop) / max(reps[0]["rows"], 1) * 1e6,
           "cpu_before_pass_s": _median([r.get("cpu_before_pass_s") for r in reps if r.get("cpu_before_pass_s")]),
           "n_sv": reps[0]["olk"]["n_sv"], "mistakes": reps[0]["olk"]["mistakes"],
           "peak_rss_mb": max(r["peak_rss_mb"] for r in reps)}
    if "ref" in reps[0]:
        best = None
        for v in reps[0]["ref"]:
            t = _median([r["ref"][v]["time_s"] for r in reps])
            row[f"ref_{v}_m_evals_per_s"] = reps[0]["ref"][v]["kernel_evals"] / t / 1e6 if t > 0 else float("nan")
            best = max(best or 0.0, row[f"ref_{v}_m_evals_per_s"])
        row["ref_loop_m_evals_per_s"] = best
        # the fraction within each process, then the median (a ratio measured in one run, not across runs)
        fr, fc = [], []
        for r in reps:
            lim = max(r["ref"][v]["kernel_evals"] / r["ref"][v]["time_s"] for v in r["ref"])
            fr.append((r["olk"]["kernel_evals"] / r["olk"]["time_s"]) / lim)
            limc = max(r["ref"][v]["kernel_evals"] / r["ref"][v]["cpu_s"] for v in r["ref"])
            fc.append((r["olk"]["kernel_evals"] / r["olk"]["cpu_s"]) / limc)
        row["fraction_of_ref_loop"] = _median(fr)
        row["fraction_of_ref_loop_cpu"] = _median(fc)
        if case.same_as_reference:
            for v, r in reps[0]["ref"].items():
                if (r["n_sv"], r["mistakes"]) != (row["n_sv"], row["mistakes"]):
                    raise SystemExit(f"olk bench core: {case.name}: reference loop '{v}' gives {r['n_sv']} SVs / "
                                     f"{r['mistakes']} mistakes, olk {row['n_sv']} / {row['mistakes']}: not the "
                                     f"same computation, the comparison would be meaningless")
    if hw and case.kernel_sum and "nnz" in reps[0]:
        r0 = reps[0]
        sparse = DATA[case.data].sparse
        nnz_row = r0["nnz"] / max(r0["rows"], 1) if sparse else float(r0["width"])
        nbytes, flops = per_eval(nnz_row, sparse, r0["binary"])
        mem_rate, flop_rate = hw["mem_gb_s"] * 1e9 / nbytes / 1e6, hw["peak_gflops"] * 1e9 / flops / 1e6
        row.update({"bytes_per_eval": nbytes, "flops_per_eval": flops, "hw_mem_m_evals_per_s": mem_rate,
                    "hw_flop_m_evals_per_s": flop_rate, "fraction_of_hw_mem": rate / mem_rate,
                    "fraction_of_hw_flops": rate / flop_rate})
    row["whole_process_s"] = _median(wholes) if wholes else None
    row["load_s"] = _median([r["load_s"] for r in reps])
    paper = case.paper_s if scale >= 1 else None
    row["paper_s"] = paper
    row["paper_over_olk_loop"] = paper / row["olk_loop_s"] if paper else None
    return row


def _table(head, rows) -> list[str]:
    return ["| " + " | ".join(head) + " |", "|" + "|".join("---" for _ in head) + "|",
            *("| " + " | ".join(r) + " |" for r in rows)]


def limit_table(rows: list[dict]) -> list[str]:
    head = ("case", "rows", "olk loop s", "us/row", "M evals/s", "ref loop", "of ref (wall)", "of ref (CPU)",
            "hw bound: mem / flops", "of hw: mem / flops", "whole s", "CPU to 1st row s", "peak MB", "paper C++ s",
            "paper/olk", "#SV", "mistakes")
    return _table(head, [(
        r["case"], f"{r['rows']:,}", _fmt(r["olk_loop_s"]), _fmt(r["us_per_row"], ".1f"),
        _fmt(r["m_evals_per_s"], ".1f") if r["kernel_evals"] else "-",
        _fmt(r.get("ref_loop_m_evals_per_s"), ".1f"), _fmt(r.get("fraction_of_ref_loop"), ".2f"),
        _fmt(r.get("fraction_of_ref_loop_cpu"), ".2f"),
        _pair_cell(r.get("hw_mem_m_evals_per_s"), r.get("hw_flop_m_evals_per_s"), ".0f"),
        _pair_cell(r.get("fraction_of_hw_mem"), r.get("fraction_of_hw_flops"), ".2f"),
        _fmt(r["whole_process_s"]), _fmt(r.get("cpu_before_pass_s"), ".3f"),
        _fmt(r["peak_rss_mb"], ".0f"), _fmt(r["paper_s"]),
        _fmt(r["paper_over_olk_loop"], ".1f") + ("x" if r["paper_over_olk_loop"] else ""),
        f"{r['n_sv']:,}", f"{r['mistakes']:,}") for r in rows])


def _pair_cell(a, b, spec: str) -> str:
    return "-" if a is None else f"{a:{spec}} / {b:{spec}}"


def _ratio_cell(xs) -> str:
    """The median of paired ratios and their range."""
    if not xs:
        return "-"
    m = _median(xs)
    return f"{m:.2f}" + (f" ({min(xs):.2f}-{max(xs):.2f})" if len(xs) > 1 else "")


def _load1() -> float:
    try:
        return os.getloadavg()[0]
    except OSError:
        return float("nan")


def pairs_vs_cpp(exe: Path, case: Case, path: Path, pairs: int, log: list[dict], tick=lambda: None,
                 tree: Path | None = None, max_load: float = 1.5) -> dict:
    """Alternating pairs olk / C++ (and the `tree` checkout's olk, "old", when given) on `path`, cold then warm; the
    order of the sides rotates from pair to pair; the 1-minute load average before each pair recorded (a pair
    above `max_load` marked); every process appended to `log`."""
    sides = ("olk", "cpp", "old") if tree is not None else ("olk", "cpp")
    out: dict = {"case": case.name, "algorithm": case.algorithm, "sides": sides}
    with tempfile.TemporaryDirectory(prefix="olk-bench-cache-") as tmp:
        for mode in ("cold", "warm"):
            warm = {side: Path(tmp) / f"warm-{side}" for side in ("olk", "old")}
            if mode == "warm":                                                          # fill, untimed
                olk_process(case, path, False, child_env(OLK_CACHE=warm["olk"]))
                if tree is not None:
                    olk_process(case, path, False, child_env(tree, OLK_CACHE=warm["old"]))
            runs = []
            for k in range(pairs):
                load = _load1()
                order = sides[k % len(sides):] + sides[:k % len(sides)]
                res = {}
                for pos, side in enumerate(order, 1):
                    if side == "cpp":
                        r, p = cpp_process(exe, case, path)
                        res[side] = {"learn_s": r["time_s"], "n_sv": r["n_sv"], "mistakes": r["mistakes"],
                                     "accuracy": r["accuracy"], "rows": r["rows"]}
                    else:
                        cache = warm[side] if mode == "warm" else Path(tmp) / f"cold-{side}-{k}"   # cold: empty
                        env = child_env(tree, OLK_CACHE=cache) if side == "old" else child_env(OLK_CACHE=cache)
                        r, p = olk_process(case, path, False, env)
                        res[side] = {"learn_s": r["load_s"] + r["olk"]["time_s"], "loop_s": r["olk"]["time_s"],
                                     "load_s": r["load_s"], "n_sv": r["olk"]["n_sv"],
                                     "mistakes": r["olk"]["mistakes"], "rows": r["rows"],
                                     "accuracy": 100.0 * (1.0 - r["olk"]["mistakes"] / max(r["rows"], 1))}
                    res[side].update({"whole_s": p.wall, "cpu_s": p.cpu, "peak_mb": p.maxrss_mb, "position": pos})
                    log.append({"case": case.name, "mode": mode, "pair": k, "side": side, "position": pos,
                                "load1": load, "quiet": load <= max_load, **res[side]})
                    tick()
                runs.append({"load": load, "quiet": load <= max_load, **res})
            out[mode] = runs
    return out


def _pair_ratios(runs: list[dict], num: str, den: str, key: str) -> tuple[list[float], bool]:
    """num[key] / den[key] of every quiet pair (of every pair, and False, if none was quiet)."""
    quiet = [r for r in runs if r["quiet"]]
    use = quiet or runs
    return [r[num][key] / r[den][key] for r in use if r[den][key]], bool(quiet)


def cpp_table(results: list[dict], max_load: float = 1.5) -> list[str]:
    """Per case: parse + learn and whole-process ratios C++ / olk (cold and warm, CPU and wall), peak memory,
    #SV / mistakes / online accuracy of both, the load averages; with an old checkout, before -> after."""
    old = any("old" in r["sides"] for r in results)
    head = ["case", "load (1 min)", "parse+learn s C++ / olk", "parse+learn C++/olk",
            "cold: whole C++/olk (wall)", "(CPU)", "warm: whole C++/olk (wall)", "(CPU)", "peak MB C++ / olk",
            "#SV / mistakes C++", "olk", "accuracy % C++ / olk"]
    if old:
        head += ["before -> after, CPU cold / warm", "wall cold / warm"]
    rows = []
    for r in results:
        allruns = r["cold"] + r["warm"]
        loads = [x["load"] for x in allruns]
        quiet_all = all(x["quiet"] for x in allruns)
        mark = "" if quiet_all else f" ({sum(x['quiet'] for x in allruns)}/{len(allruns)} <= {max_load:g})"
        learn, _ = _pair_ratios(allruns, "cpp", "olk", "learn_s")
        last = allruns[-1]
        cells = [r["case"], f"{min(loads):.2f}-{max(loads):.2f}{mark}",
                 f"{_median([x['cpp']['learn_s'] for x in allruns]):.2f} / "
                 f"{_median([x['olk']['learn_s'] for x in allruns]):.2f}", _ratio_cell(learn)]
        for mode in ("cold", "warm"):
            for key in ("whole_s", "cpu_s"):
                xs, ok = _pair_ratios(r[mode], "cpp", "olk", key)
                cells.append(_ratio_cell(xs) + ("" if ok else " (loaded)"))
        mem = [x["cpp"]["peak_mb"] for x in allruns], [x["olk"]["peak_mb"] for x in allruns]
        cells.append(f"{_fmt(_median([m for m in mem[0] if m is not None]), '.1f')} / "
                     f"{_fmt(_median([m for m in mem[1] if m is not None]), '.1f')}")
        cells += [f"{last['cpp']['n_sv']:,} / {last['cpp']['mistakes']:,}",
                  f"{last['olk']['n_sv']:,} / {last['olk']['mistakes']:,}",
                  f"{last['cpp']['accuracy']:.1f} / {last['olk']['accuracy']:.1f}"]
        if old:
            for key in ("cpu_s", "whole_s"):
                parts = []
                for mode in ("cold", "warm"):
                    before, _ = _pair_ratios(r[mode], "cpp", "old", key)
                    after, _ = _pair_ratios(r[mode], "cpp", "olk", key)
                    parts.append(f"{_fmt(_median(before))} -> {_fmt(_median(after))}")
                cells.append(" / ".join(parts))
        rows.append(tuple(cells))
    return _table(head, rows)


def cpp_notes(results: list[dict]) -> list[str]:
    """The library's differences (:data:`CPP_NOTES`) for the algorithms in `results`, with the accuracies measured."""
    lines = []
    for alg in dict.fromkeys(r["algorithm"] for r in results):
        if alg not in CPP_NOTES:
            continue
        accs = "; ".join(f"{r['case']}: C++ {r['warm'][-1]['cpp']['accuracy']:.1f}% vs olk "
                         f"{r['warm'][-1]['olk']['accuracy']:.1f}%" for r in results if r["algorithm"] == alg)
        lines.append(f"* {alg.upper()}: {CPP_NOTES[alg]} (online accuracy, this run: {accs}).")
    return lines


def pairs_baseline(tree: Path, case: Case, path: Path, pairs: int, log: list[dict], tick=lambda: None) -> dict:
    """Alternating pairs: another checkout (`tree`, on PYTHONPATH) and this one, whole processes, warm cache."""
    old_env, new_env = child_env(tree), child_env()
    olk_process(case, path, False, old_env)                 # both caches warm, untimed
    olk_process(case, path, False, new_env)
    loop, whole, cpu = [], [], []
    for k in range(pairs):
        res = {}
        for tree_name in (("old", "new") if k % 2 == 0 else ("new", "old")):
            r, p = olk_process(case, path, False, old_env if tree_name == "old" else new_env)
            res[tree_name] = (r, p)
            log.append({"case": case.name, "pair": k, "tree": tree_name, "loop_s": r["olk"]["time_s"],
                        "loop_cpu_s": r["olk"]["cpu_s"], "whole_s": p.wall, "cpu_s": p.cpu,
                        "kernel_evals": r["olk"]["kernel_evals"], "n_sv": r["olk"]["n_sv"],
                        "mistakes": r["olk"]["mistakes"]})
            tick()
        (ro, po), (rn, pn) = res["old"], res["new"]
        if (ro["olk"]["n_sv"], ro["olk"]["mistakes"]) != (rn["olk"]["n_sv"], rn["olk"]["mistakes"]):
            raise SystemExit(f"olk bench core: {case.name}: the baseline gives {ro['olk']['n_sv']} SVs / "
                             f"{ro['olk']['mistakes']} mistakes, this checkout {rn['olk']['n_sv']} / "
                             f"{rn['olk']['mistakes']}: not the same computation")
        loop.append(ro["olk"]["time_s"] / rn["olk"]["time_s"])
        whole.append(po.wall / pn.wall)
        cpu.append(ro["olk"]["cpu_s"] / rn["olk"]["cpu_s"])
    return {"case": case.name, "loop": loop, "whole": whole, "loop_cpu": cpu,
            "evals": res["new"][0]["olk"]["kernel_evals"]}


def baseline_table(results: list[dict]) -> list[str]:
    head = ("case", "loop old/new (wall)", "loop old/new (CPU)", "whole process old/new")
    return _table(head, [(r["case"], _ratio_cell(r["loop"]), _ratio_cell(r["loop_cpu"]), _ratio_cell(r["whole"]))
                         for r in results])


def reader_lines(paths: dict, repeats: int, cacher: Path | None) -> list[str]:
    """The reader line per file: olk.bench.reader.measure_reader (if that module exists) and the C++ parse."""
    try:
        from olk.bench.reader import measure_reader
    except ImportError:
        return []
    lines = []
    for _key, path in paths.items():
        got = measure_reader(str(path), repeats)
        parts = []
        for k, v in (got.items() if isinstance(got, dict) else []):
            if isinstance(v, dict):
                parts.append(f"{k}: " + ", ".join(f"{kk} {_fmt(vv, ',.1f') if isinstance(vv, float) else vv}"
                                                  for kk, vv in v.items()))
            else:
                parts.append(f"{k} {_fmt(v, ',.1f') if isinstance(v, float) else v}")
        text = f"reader {path.name}: " + ("; ".join(parts) if parts else str(got))
        if cacher is not None:
            size = path.stat().st_size
            rows = sum(1 for _ in open(path, "rb"))
            walls = []
            with tempfile.TemporaryDirectory(prefix="olk-bench-cacher-") as tmp:
                for k in range(repeats):
                    p = timed([str(cacher), str(path), str(Path(tmp) / f"c{k}")])
                    walls.append(p.wall)
            w = _median(walls)
            text += (f"; C++ parse (Cacher, whole process, median of {repeats}): {size / w / 1e6:,.1f} MB/s, "
                     f"{rows / w:,.0f} rows/s")
        lines.append(text)
    return lines


def _resolve_cpp(path: str, ap: argparse.ArgumentParser) -> tuple[Path, Path | None]:
    """--vs-cpp PATH: the KOL executable (or a directory holding it, or its bin/); Cacher beside it if built."""
    p = Path(path).expanduser()
    for cand in (p, p / "KOL", p / "bin" / "KOL"):
        if cand.is_file() and os.access(cand, os.X_OK):
            cacher = cand.with_name("Cacher")
            return cand, (cacher if cacher.is_file() and os.access(cacher, os.X_OK) else None)
    ap.error(f"--vs-cpp {path}: no executable KOL there; build the C++ library as docs/speed.md says and give "
             f"the path of its KOL")


def _check_tree(path: str, ap: argparse.ArgumentParser) -> Path:
    p = Path(path).expanduser().resolve()
    if not (p / "olk" / "__init__.py").is_file() or not list((p / "olk" / "_core").glob("svpool*.so")):
        ap.error(f"--baseline {path}: not an olk checkout with its extensions built (no olk/_core/svpool*.so); "
                 f"build it there first: python setup.py build_ext --inplace")
    return p


def main(argv=None):
    ap = parser("core", __doc__)
    ap.add_argument("--cases", default=",".join(c.name for c in CASES),
                    help=f"comma-separated, from {', '.join(c.name for c in CASES)}")
    ap.add_argument("--repeats", type=int, default=3, help="fresh processes per case (medians; default 3)")
    ap.add_argument("--scale", type=float, default=1.0, help="fraction of each file's rows (its own file)")
    ap.add_argument("--quick", action="store_true", help="--scale 0.1 --repeats 1 (a smoke test)")
    ap.add_argument("--data-dir", default=None, help="where the bench's LIBSVM files are written and kept "
                                                     "(default datasets/bench/ of the project)")
    ap.add_argument("--vs-cpp", default=None, metavar="PATH", help="the C++ library's KOL executable: alternating "
                                                                   "pairs on the same file, cold and warm")
    ap.add_argument("--baseline", default=None, metavar="DIR", help="another olk checkout (extensions built): "
                                                                    "before/after pairs")
    ap.add_argument("--pairs", type=int, default=5, help="alternating pairs per case and mode (default 5)")
    ap.add_argument("--max-load", type=float, default=1.5, help="a --vs-cpp pair started above this 1-minute load "
                                                                "average is marked and left out of the medians")
    ap.add_argument("--no-limit", action="store_true", help="skip the limit table (only --vs-cpp / --baseline)")
    ap.add_argument("--out", default=None, help="directory of the CSVs (default results/bench; '-' for none)")
    args = ap.parse_args(argv)
    if args.quick:
        args.scale, args.repeats = 0.1, 1
    names = [c.strip() for c in args.cases.split(",") if c.strip()]
    bad = [c for c in names if c not in BY_NAME]
    if bad:
        from olk.errors import did_you_mean
        ap.error(f"unknown case '{bad[0]}'{did_you_mean(bad[0], list(BY_NAME))}; cases: {', '.join(BY_NAME)}")
    if args.repeats < 1:
        ap.error("--repeats must be >= 1")
    if args.pairs < 1:
        ap.error("--pairs must be >= 1")
    if not 0.0 < args.scale <= 1.0:
        ap.error(f"--scale must be in (0, 1], got {args.scale:g}")
    cpp, cacher = _resolve_cpp(args.vs_cpp, ap) if args.vs_cpp else (None, None)
    tree = _check_tree(args.baseline, ap) if args.baseline else None
    out_dir = None
    if args.out != "-":
        from olk.fileio import check_writable_dir
        out_dir = Path(args.out) if args.out else _results_dir()
        check_writable_dir(out_dir, "--out")
    data_dir = Path(args.data_dir) if args.data_dir else _project() / "datasets" / "bench"
    from olk.fileio import check_writable_dir
    check_writable_dir(data_dir, "--data-dir")
    cases = [BY_NAME[n] for n in names]
    paths = {c.data: data_file(c.data, data_dir, args.scale) for c in cases}
    shas = {k: sha256(p) for k, p in paths.items()}

    from tqdm.auto import tqdm
    n_sides = 3 if (cpp and tree) else 2
    per_case = (0 if args.no_limit else 2 * args.repeats) + (2 * n_sides * args.pairs + n_sides - 1 if cpp else 0) + \
        (2 * args.pairs + 2 if tree and not cpp else 0)
    md = [f"olk bench core: {args.repeats} repeat(s), {args.pairs} pair(s), scale {args.scale:g}, "
          f"{platform.processor() or platform.machine()}, python {platform.python_version()}, load {_load()}",
          *(f"data {paths[k].name}: {DATA[k].description}, sha256 {shas[k]}" for k in paths)]
    hw = None
    if not args.no_limit:
        hw = measure_hardware()
        md.append(f"this core: memory bandwidth {hw['mem_gb_s']:.1f} GB/s (single-threaded copy of 128 MB), peak "
                  f"{hw['peak_gflops']:.1f} GFLOP/s (single-threaded BLAS dgemm, n = 1,024)")
    for line in md:
        print(line, flush=True)
    rows, cpp_res, base_res, cpp_log, base_log = [], [], [], [], []
    with tqdm(total=len(cases) * per_case, desc="olk bench core", unit="proc", disable=not sys.stderr.isatty(),
              leave=False) as bar:
        for case in cases:
            path = paths[case.data]
            if not args.no_limit:
                reps, wholes = [], []
                for _ in range(args.repeats):
                    rep, _p = olk_process(case, path, True)
                    reps.append(rep)
                    bar.update()
                    _, p = olk_process(case, path, False)      # the whole process a user runs: no references
                    wholes.append(p.wall)
                    bar.update()
                row = summarise(case, reps, wholes, args.scale, hw)
                row["data_sha256"] = shas[case.data]
                rows.append(row)
            if cpp:
                cpp_res.append(pairs_vs_cpp(cpp, case, path, args.pairs, cpp_log, bar.update, tree, args.max_load))
            elif tree:
                base_res.append(pairs_baseline(tree, case, path, args.pairs, base_log, bar.update))
    if rows:
        md += ["", *limit_table(rows)]
        print("\n".join(limit_table(rows)), flush=True)
    if cpp_res:
        t = cpp_table(cpp_res, args.max_load) + [""] + cpp_notes(cpp_res)
        md += ["", f"vs the C++ library ({cpp.name}){' and the olk of ' + tree.name if tree else ''}: "
                   f"{args.pairs} pair(s) per case and mode, the order rotating; medians of the ratios of the pairs "
                   f"started at a 1-minute load <= {args.max_load:g}; parse+learn = the library's 'Learning time' "
                   f"(its reader thread parses meanwhile) vs olk's load + pass", *t]
        print("\n".join(md[-len(t) - 1:]), flush=True)
    if base_res:
        t = baseline_table(base_res)
        md += ["", f"before ({tree.name}) / after (this checkout): {args.pairs} alternating pair(s) per case", *t]
        print("\n".join(md[-len(t) - 1:]), flush=True)
    rl = reader_lines(paths, max(args.repeats, 3), cacher)
    if rl:
        md += ["", *rl]
        print("\n".join(rl), flush=True)
    if out_dir is not None:
        out_dir.mkdir(parents=True, exist_ok=True)
        stamp = time.strftime("%Y-%m-%dT%H:%M:%S")
        extra = {"date": stamp, "scale": args.scale, "load_avg": _load(), **(
            {"mem_gb_s": hw["mem_gb_s"], "peak_gflops": hw["peak_gflops"]} if hw else {})}
        written = []
        if rows:
            written.append(_write_csv(out_dir / "core.csv", rows, extra))
        if cpp_log:
            written.append(_write_csv(out_dir / "vs_cpp_runs.csv", cpp_log,
                                      {**extra, "cpp": cpp.name, "pairs": args.pairs, "max_load": args.max_load,
                                       "baseline": tree.name if tree else ""}))
        if base_log:
            written.append(_write_csv(out_dir / "before_after_core.csv", base_log,
                                      {**extra, "baseline": tree.name, "pairs": args.pairs}))
        from olk.fileio import atomic_write_text
        written.append(atomic_write_text(out_dir / "core.md", "\n".join(md) + "\n"))
        print("olk bench core: wrote " + ", ".join(str(w) for w in written))


def _write_csv(path: Path, rows: list[dict], extra: dict) -> Path:
    import io

    from olk.fileio import atomic_write_text
    buf = io.StringIO()
    keys = list(dict.fromkeys(k for r in rows for k in r)) + list(extra)
    w = csv.DictWriter(buf, fieldnames=keys)
    w.writeheader()
    for r in rows:
        w.writerow({**r, **extra})
    return atomic_write_text(path, buf.getvalue())


def _project() -> Path:
    from olk.paths import project_dir
    return Path(project_dir())


def _results_dir() -> Path:
    return _project() / "results" / "bench"


def _load() -> str:
    try:
        return " ".join(f"{v:.2f}" for v in os.getloadavg())
    except OSError:
        return ""


if __name__ == "__main__":
    main()

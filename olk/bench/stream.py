"""Streaming benchmark (issue 45): ``olk train`` and ``olk predict`` on generated dense LIBSVM files of 2M and 10M
rows (gzip), next to the C++ library's ``KOL`` and to River's ``stream.iter_libsvm`` + ``learn_one``: peak memory and
rows per second, whole processes in alternating pairs at low load.

    olk bench stream                                  # 2M and 10M rows x 50 features, RBP and Forgetron (B = 200)
    olk bench stream --vs-cpp ~/KOL/build/bin/KOL     # + the C++ library on the same rows (a plain copy of the file)
    olk bench stream --rows 200000 --pairs 1          # a quick check of the suite (times not comparable)
    olk bench stream --baseline ../olk-da897be        # + the olk of before (its olk train, a cold cache) up to 2M

**The data** (:func:`write_data`, written once under ``--data-dir`` and kept): ``--rows`` rows of ``--features``
dense features drawn from numpy's ``default_rng(--seed)`` (default seed 45): each row ``x ~ N(0, I)`` written with 4
decimals (a value that rounds to 0 is written ``0.0000`` and read as an explicit zero), label ``+1`` if
``w'x + 0.5 e > 0`` else ``-1`` (``w ~ N(0, I)`` drawn first from the same generator, ``e ~ N(0, 1)`` per row), rows
drawn in blocks of 20,000; gzip level 1.  The file's sha256 goes into the CSV.  The C++ library reads plain text
only: with ``--vs-cpp`` a plain copy is written beside it, and olk reads the gzip file (its bytes read from disk:
a quarter of the plain file's).

**The sides**, each a whole process timed from spawn to exit, its peak memory its own (``/usr/bin/time -f %M``, as
:mod:`olk.bench.core` measures it):

* ``olk train FILE -a ALG --set budget=B -k gaussian(gamma)``: the streamed train (the rows learned as they are
  parsed: one read here, binary labels and dense rows being clear from the first chunk; ``--chunk``); rows/s =
  rows / wall;
* ``olk train --in-memory``: the same model with the dataset loaded whole first (through an empty dataset cache of
  its own: a file this large is converted to the cache in blocks and mapped), up to ``--in-memory-rows`` rows
  (default 2,000,000);
* ``olk train (baseline)`` (``--baseline DIR``: another olk checkout with its extensions built, e.g. the commit
  before issue 45): that olk's ``olk train`` on the same file with an empty cache of its own, as a new user runs it
  (before issue 45 it parsed the whole file: about 1.7 KB of memory per row of 50 features), up to
  ``--in-memory-rows`` rows; its model is checked identical to the streamed one;
* ``KOL -i PLAIN -opt kernel-rbp -B B -gamma G`` (``--vs-cpp``): the library reads the file on its reader thread;
* River: ``river.stream.iter_libsvm(FILE)`` and the olk learner's River class, ``learn_one`` per row, then
  ``predict_one`` per row (its predict figure), on the first ``--river-rows`` rows (default 100,000: River's rate
  is per row and about a thousand rows a second here, so a prefix gives it; 0 = all);
* ``olk predict MODEL FILE``: the streamed predict of the model the streamed train saved, predictions to a file.

Per size and learner, ``--pairs`` rounds (default 3); in each round every side runs once, the order rotating from
round to round; the 1-minute **load average** is recorded before each round, and a round started above
``--max-load`` (default 1.5) is marked and left out of the medians (all rounds count, and the row says so, only if
none was quiet).  Medians of peak MB and rows/s are printed per side, with the median of the per-round ratios of
olk's rows/s to each other side's.  olk's predictions and model are checked identical between rounds.

**olk run from the cache** (``--run``, default on): ``olk run`` of one RBP run (permutation 0: random order) on the
same file, cold (an empty ``$OLK_CACHE``: the text is converted to the binary cache in chunks first) then warm
(the memory-mapped cache): its rows/s (rows / the run's ``time_s``) and the process's peak memory.  The cache here
fits in memory; docs/guide/memory-and-clusters.md says what happens when it does not.

Results: ``results/bench/stream.md`` (the tables as printed), ``stream.csv`` (one row per size, learner and side:
medians) and ``stream_runs.csv`` (every process); ``--out DIR`` elsewhere, ``--out -`` nowhere.
"""
from __future__ import annotations

import gzip
import json
import os
import platform
import shutil
import sys
import tempfile
import time
from pathlib import Path

from . import parser

SEED = 45
FEATURES = 50
ROWS = (2_000_000, 10_000_000)
BLOCK = 20_000
RIVER = """
import json, sys, time
from river import stream
import olk.river as R
path, name, params, limit = sys.argv[1], sys.argv[2], json.loads(sys.argv[3]), int(sys.argv[4])
model = R.by_name[name](**params)
rows = []
t0 = time.perf_counter()
n = 0
for x, y in stream.iter_libsvm(path):
    model.learn_one(x, y)
    n += 1
    if limit and n >= limit:
        break
learn = time.perf_counter() - t0
t0 = time.perf_counter()
m = right = 0
for x, y in stream.iter_libsvm(path):
    right += model.predict_one(x) == y
    m += 1
    if limit and m >= limit:
        break
print(json.dumps({"rows": n, "learn_s": learn, "predict_s": time.perf_counter() - t0, "accuracy": right / max(m, 1)}))
"""


# ------------------------------------------------------------------------------------------------- the data
def write_data(path: Path, rows: int, features: int = FEATURES, seed: int = SEED) -> Path:
    """The generated dataset (see the module docstring), gzip (level 1) if `path` ends in .gz, written atomically."""
    import numpy as np
    rng = np.random.default_rng(seed)
    w = rng.standard_normal(features)
    grid = np.arange(-50_000, 50_001)                       # values as integers of 1e-4: text made once
    text = np.array([f"{v / 10_000:.4f}" for v in grid], dtype=object)
    prefix = [f" {j + 1}:" for j in range(features)]
    tmp = path.with_name(path.name + ".tmp")
    path.parent.mkdir(parents=True, exist_ok=True)
    opener = (lambda p: gzip.open(p, "wt", compresslevel=1)) if path.suffix == ".gz" else (lambda p: open(p, "w"))
    with opener(tmp) as f:
        for a in range(0, rows, BLOCK):
            n = min(BLOCK, rows - a)
            X = rng.standard_normal((n, features))
            q = np.clip(np.rint(X * 10_000).astype(np.int64), grid[0], grid[-1]) - grid[0]
            labels = np.where(X @ w + 0.5 * rng.standard_normal(n) > 0, "+1", "-1")
            T = text[q]
            f.write("".join(lab + "".join([p + s for p, s in zip(prefix, row)]) + "\n"
                            for lab, row in zip(labels.tolist(), T.tolist())))
    os.replace(tmp, path)
    return path


def data_file(data_dir: Path, rows: int, features: int, seed: int) -> Path:
    path = data_dir / f"stream-{rows}x{features}-seed{seed}.libsvm.gz"
    return path if path.exists() else write_data(path, rows, features, seed)


def plain_copy(path: Path) -> Path:
    """The gzip file's plain text beside it (the C++ library reads plain text), written once."""
    plain = path.with_suffix("")
    if not plain.exists():
        tmp = plain.with_name(plain.name + ".tmp")
        with gzip.open(path, "rb") as src, open(tmp, "wb") as dst:
            shutil.copyfileobj(src, dst, 1 << 22)
        os.replace(tmp, plain)
    return plain


# ------------------------------------------------------------------------------------------------- the sides
def _olk(*args) -> list[str]:
    """The installed ``olk`` command beside this interpreter (else olk's CLI through it)."""
    script = Path(sys.executable).with_name("olk")
    head = [str(script)] if script.exists() else [sys.executable, "-c", "from olk.cli import main; main()"]
    return [*head, *map(str, args)]


def _kernel(gamma: float) -> str:
    return json.dumps({"type": "gaussian", "gamma": gamma})


def olk_train(path: Path, alg: str, budget: int, gamma: float, out: Path, chunk: str | None, in_memory: bool, env,
              baseline: bool = False):
    """`olk train` (`baseline`: the olk on the PYTHONPATH of `env`, with its own options only)."""
    from .core import timed
    args = ("train", path, "-a", alg, "--set", f"budget={budget}", "--kernel", _kernel(gamma), "-o", out)
    if baseline:
        cmd = [sys.executable, "-c", "from olk.cli import main; main()", *map(str, args)]
    else:
        cmd = _olk(*args, *(["--chunk", chunk] if chunk else []), *(["--in-memory"] if in_memory else []))
    p = timed(cmd, env, cwd=tempfile.gettempdir())      # a neutral directory: `python -c` puts the current one first
    if p.code != 0:
        raise SystemExit(f"olk bench stream: {' '.join(cmd)} failed:\n{p.stderr[-2000:]}")
    return p


def olk_predict(model: Path, path: Path, out: Path, chunk: str | None, env):
    from .core import timed
    cmd = _olk("predict", model, path, "-o", out, *(["--chunk", chunk] if chunk else []))
    p = timed(cmd, env)
    if p.code != 0:
        raise SystemExit(f"olk bench stream: {' '.join(cmd)} failed:\n{p.stderr[-2000:]}")
    return p


CPP_OPT = {"rbp": "kernel-rbp", "forgetron": "kernel-forgetron"}


def kol(exe: Path, plain: Path, alg: str, budget: int, gamma: float):
    from .core import kol_lines, timed
    cmd = [str(exe), "-i", str(plain), "-opt", CPP_OPT[alg], "-B", str(budget), "-gamma", str(gamma)]
    p = timed(cmd)
    got = kol_lines(p.stdout)
    if p.code != 0 or "rows" not in got:
        from olk.errors import ConfigError
        raise ConfigError(f"olk bench stream: --vs-cpp {exe}: '{' '.join(cmd)}' exited {p.code} without its "
                          f"'#Training Instances' line ({(p.stderr or p.stdout).strip()[-200:]!r})")
    return p, got


def river_side(path: Path, alg: str, budget: int, gamma: float, limit: int, env):
    from .core import timed
    params = {"kernel": "rbf", "gamma": gamma, "budget": budget, "seed": 0}
    p = timed([sys.executable, "-c", RIVER, str(path), alg, json.dumps(params), str(limit)], env,
              cwd=tempfile.gettempdir())
    if p.code != 0:
        raise SystemExit(f"olk bench stream: the River side failed:\n{p.stderr[-2000:]}")
    return p, json.loads(p.stdout.strip().splitlines()[-1])


RUN_CONFIG = """name: stream_run
repeats: 1
kernel: {{type: gaussian, gamma: {gamma}}}
datasets: [{path}]
algorithms:
  - {{name: {alg}, params: {{budget: {budget}}}}}
"""


def olk_run(path: Path, alg: str, budget: int, gamma: float, work: Path, cache: Path, env):
    """`olk run` of one run (permutation 0) on `path` with $OLK_CACHE = `cache`: (process, the run's record)."""
    from .core import timed
    cfg = work / "run.yaml"
    cfg.write_text(RUN_CONFIG.format(gamma=gamma, path=json.dumps(str(path)), alg=alg, budget=budget))
    out = work / f"run-{time.monotonic_ns()}"
    p = timed(_olk("run", cfg, "--out", out, "--no-progress", "-q", "--memory-limit", "0"),
              {**env, "OLK_CACHE": str(cache)})
    if p.code != 0:
        raise SystemExit(f"olk bench stream: olk run failed:\n{p.stderr[-2000:]}")
    rec = json.loads((out / "runs.jsonl").read_text().splitlines()[0])
    shutil.rmtree(out, ignore_errors=True)
    return p, rec


# ------------------------------------------------------------------------------------------------- the suite
def _median(xs):
    from .core import _median as median
    return median([x for x in xs if x is not None])


def _fmt(v, spec=",.0f"):
    return "-" if v is None else format(v, spec)


def main(argv=None):
    ap = parser("stream", __doc__)
    ap.add_argument("--rows", default=",".join(str(r) for r in ROWS), help="comma-separated sizes (rows)")
    ap.add_argument("--features", type=int, default=FEATURES)
    ap.add_argument("--seed", type=int, default=SEED, help="the generator's seed (default 45)")
    ap.add_argument("--algorithms", default="rbp,forgetron", help="comma-separated, of rbp, forgetron")
    ap.add_argument("--budget", type=int, default=200)
    ap.add_argument("--gamma", type=float, default=0.01, help="the Gaussian kernel's gamma (1 / (2 x 50 features))")
    ap.add_argument("--pairs", type=int, default=3, help="rounds per size and learner (every side once per round)")
    ap.add_argument("--max-load", type=float, default=1.5)
    ap.add_argument("--chunk", default=None, help="olk's --chunk (default: olk's own, 4M)")
    ap.add_argument("--in-memory-rows", type=int, default=2_000_000,
                    help="run `olk train --in-memory` (the path before streaming) up to this many rows")
    ap.add_argument("--vs-cpp", default=None, metavar="PATH", help="the C++ library's KOL executable")
    ap.add_argument("--baseline", default=None, metavar="DIR", help="another olk checkout (extensions built): its olk "
                                                                    "train on the same file, a cold cache (before)")
    ap.add_argument("--river-rows", type=int, default=100_000, help="rows River learns and predicts (0 = all)")
    ap.add_argument("--no-river", action="store_true", help="leave River out")
    ap.add_argument("--no-run", action="store_true", help="leave `olk run` from the cache out")
    ap.add_argument("--data-dir", default=None, help="where the generated files are kept (default datasets/bench/)")
    ap.add_argument("--out", default=None, help="directory of the results (default results/bench; '-' for none)")
    args = ap.parse_args(argv)
    from olk.errors import ConfigError
    try:
        sizes = [int(r.replace("_", "")) for r in args.rows.split(",") if r.strip()]
    except ValueError:
        raise ConfigError(f"olk bench stream: --rows {args.rows!r}: give row counts, e.g. 2000000,10000000") from None
    algs = [a.strip() for a in args.algorithms.split(",") if a.strip()]
    bad = [a for a in algs if a not in CPP_OPT]
    if bad or not sizes or min(sizes) < 1 or args.pairs < 1 or args.features < 1:
        raise ConfigError(f"olk bench stream: --algorithms from {', '.join(CPP_OPT)}, --rows, --pairs and "
                          f"--features positive (got {bad[0] if bad else args.rows})")
    from .core import (
        _HAVE_TIME,
        _check_tree,
        _load,
        _load1,
        _project,
        _resolve_cpp,
        _table,
        _write_csv,
        child_env,
        sha256,
    )
    exe = _resolve_cpp(args.vs_cpp, ap)[0] if args.vs_cpp else None
    tree = _check_tree(args.baseline, ap) if args.baseline else None
    use_river = not args.no_river
    if use_river:
        import importlib.util
        use_river = importlib.util.find_spec("river") is not None
    out_dir = None
    if args.out != "-":
        from olk.fileio import check_writable_dir
        out_dir = Path(args.out) if args.out else _project() / "results" / "bench"
        check_writable_dir(out_dir, "--out")
    data_dir = (Path(args.data_dir) if args.data_dir else _project() / "datasets" / "bench").resolve()
    env = child_env()
    md = [f"olk bench stream: {args.pairs} round(s) per size and learner, {args.features} dense features, seed "
          f"{args.seed}, B = {args.budget}, gamma {args.gamma:g}, {platform.processor() or platform.machine()}, "
          f"python {platform.python_version()}, load {_load()}"
          + ("" if _HAVE_TIME else " (no GNU time: no peak memory)")]
    print(md[0], flush=True)
    runs: list[dict] = []
    rows_out: list[dict] = []
    tables: list[str] = []
    with tempfile.TemporaryDirectory(prefix="olk-bench-stream-") as tmp_dir:
        tmp = Path(tmp_dir)
        for n in sizes:
            path = data_file(data_dir, n, args.features, args.seed)
            sha = sha256(path)
            plain = plain_copy(path) if exe else None
            line = (f"data {path.name}: {n:,} rows, {path.stat().st_size / 2**20:,.0f} MB gzip"
                    + (f", plain copy {plain.stat().st_size / 2**20:,.0f} MB" if plain else "") + f", sha256 {sha}")
            md.append(line)
            print(line, flush=True)
            for alg in algs:
                whole = n <= args.in_memory_rows
                sides = ["olk train"] + (["olk train --in-memory"] if whole else []) + \
                    (["olk train (baseline)"] if whole and tree else []) + (["KOL"] if exe else []) + \
                    (["River"] if use_river else []) + ["olk predict"]
                got: dict[str, list[dict]] = {s: [] for s in sides}
                reference = None
                for k in range(args.pairs):
                    load = _load1()
                    order = sides[k % len(sides):] + sides[:k % len(sides)]
                    if "olk predict" in order:              # predict needs this round's model: after the train
                        order.remove("olk predict")
                        order.insert(order.index("olk train") + 1, "olk predict")
                    model = tmp / f"m-{k}.olk"
                    for side in order:
                        rec = {"rows": n, "learner": alg, "side": side, "round": k, "load1": load,
                               "quiet": load <= args.max_load, "sha256": sha}
                        if side == "olk train":
                            p = olk_train(path, alg, args.budget, args.gamma, model, args.chunk, False, env)
                            rec.update(rows_s=n / p.wall)
                        elif side == "olk train --in-memory":
                            p = olk_train(path, alg, args.budget, args.gamma, tmp / "mem.olk", args.chunk, True,
                                          {**env, "OLK_CACHE": str(tmp / "mem-cache")})
                            shutil.rmtree(tmp / "mem-cache", ignore_errors=True)
                            rec.update(rows_s=n / p.wall)
                        elif side == "olk train (baseline)":
                            p = olk_train(path, alg, args.budget, args.gamma, tmp / "base.olk", None, False,
                                          child_env(tree, OLK_CACHE=tmp / "base-cache"), baseline=True)
                            shutil.rmtree(tmp / "base-cache", ignore_errors=True)
                            rec.update(rows_s=n / p.wall)
                        elif side == "olk predict":
                            p = olk_predict(model, path, tmp / "pred.txt", args.chunk, env)
                            rec.update(rows_s=n / p.wall)
                            digest = sha256(tmp / "pred.txt")
                            if reference is not None and digest != reference:
                                raise SystemExit("olk bench stream: olk's predictions differ between rounds")
                            reference = digest
                        elif side == "KOL":
                            p, r = kol(exe, plain, alg, args.budget, args.gamma)
                            rec.update(rows_s=r["rows"] / p.wall, learn_s=r.get("time_s"),
                                       accuracy=r.get("accuracy"))
                        else:                               # River: learn_one over its rows, then predict_one
                            p, r = river_side(path, alg, args.budget, args.gamma, args.river_rows, env)
                            pred = {**rec, "side": "River predict_one", "rows_s": r["rows"] / r["predict_s"],
                                    "river_rows": r["rows"], "wall_s": r["predict_s"], "cpu_s": None,
                                    "peak_mb": p.maxrss_mb, "accuracy": 100 * r["accuracy"]}
                            runs.append(pred)
                            got.setdefault("River predict_one", []).append(pred)
                            rec.update(rows_s=r["rows"] / (p.wall - r["predict_s"]), river_rows=r["rows"],
                                       learn_pass_rows_s=r["rows"] / r["learn_s"])
                        rec.update(wall_s=p.wall, cpu_s=p.cpu, peak_mb=p.maxrss_mb)
                        runs.append(rec)
                        got[side].append(rec)
                        print(f"  {n:,} {alg} round {k} {side}: {p.wall:.1f} s, {_fmt(rec['rows_s'])} rows/s, peak "
                              f"{_fmt(p.maxrss_mb, '.0f')} MB (load {load:.2f})", flush=True)
                    for side, other in (("olk train --in-memory", "mem.olk"), ("olk train (baseline)", "base.olk")):
                        if (tmp / other).exists():          # loading whole, and the olk before, give the same model
                            got[side][-1]["same_model"] = _same_model(tmp / other, model)
                            (tmp / other).unlink()
                rows_out += _summarise(n, alg, got)
            if not args.no_run:
                for k in range(args.pairs):
                    cache = tmp / f"cache-{n}-{k}"
                    for mode in ("cold", "warm"):
                        load = _load1()
                        p, r = olk_run(path, algs[0], args.budget, args.gamma, tmp, cache, env)
                        rec = {"rows": n, "learner": algs[0], "side": f"olk run ({mode} cache)", "round": k,
                               "load1": load, "quiet": load <= args.max_load, "sha256": sha, "wall_s": p.wall,
                               "cpu_s": p.cpu, "peak_mb": p.maxrss_mb, "rows_s": n / r["time_s"],
                               "pass_s": r["time_s"]}
                        runs.append(rec)
                        print(f"  {n:,} olk run {mode}: pass {r['time_s']:.1f} s ({_fmt(rec['rows_s'])} rows/s), "
                              f"whole {p.wall:.1f} s, peak {_fmt(p.maxrss_mb, '.0f')} MB (load {load:.2f})", flush=True)
                    shutil.rmtree(cache, ignore_errors=True)
                for mode in ("cold", "warm"):
                    side = f"olk run ({mode} cache)"
                    mine = [r for r in runs if r["rows"] == n and r["side"] == side]
                    rows_out += _summarise(n, algs[0], {side: mine})
    head = ("rows", "learner", "side", "rounds (quiet)", "load", "peak MB", "rows/s", "olk's rows/s / side's",
            "wall s", "same model")
    tables = _table(head, [(
        f"{r['rows']:,}", r["learner"], r["side"], r["rounds"], r["load"], _fmt(r["peak_mb"], ",.0f"),
        _fmt(r["rows_s"]), r["ratio"], _fmt(r["wall_s"], ",.1f"), r["same_model"]) for r in rows_out])
    md += ["", *tables, "",
           "rows/s: rows / the whole process's wall time (spawn to exit; olk train: both reads and the learning, "
           "start-up and saving the model; River: start-up and the learn_one pass over its first --river-rows rows; "
           "River predict_one: its predict_one pass over them alone; olk run: rows / the run's pass time, in "
           "permutation 0's random order); peak MB: the process's own peak resident memory (/usr/bin/time -f %M); "
           "ratio: the median over the rounds of olk train's rows/s (olk predict's, against River predict_one) / the "
           "side's rows/s in the same round; rounds started above the load limit "
           f"({args.max_load:g}) are left out of the medians unless none was quiet."]
    print("\n".join(md[-len(tables) - 2:]), flush=True)
    if out_dir is not None:
        from olk.fileio import atomic_write_text
        out_dir.mkdir(parents=True, exist_ok=True)
        extra = {"date": time.strftime("%Y-%m-%dT%H:%M:%S"), "load_avg": _load(), "seed": args.seed,
                 "features": args.features, "budget": args.budget, "gamma": args.gamma}
        written = [_write_csv(out_dir / "stream.csv", rows_out, extra) if rows_out else None,
                   _write_csv(out_dir / "stream_runs.csv", runs, extra) if runs else None,
                   atomic_write_text(out_dir / "stream.md", "\n".join(md) + "\n")]
        print("olk bench stream: wrote " + ", ".join(str(w) for w in written if w is not None))


def _same_model(a: Path, b: Path) -> bool:
    """Whether two model files hold the same arrays and the same JSON document, bit for bit."""
    import numpy as np
    with np.load(a) as A, np.load(b) as B:
        return sorted(A.files) == sorted(B.files) and all(
            A[k].dtype == B[k].dtype and A[k].shape == B[k].shape and A[k].tobytes() == B[k].tobytes()
            for k in A.files)


def _summarise(n: int, alg: str, got: dict) -> list[dict]:
    """One row per side: medians over the quiet rounds (all rounds if none was quiet)."""
    out = []
    for side, recs in got.items():
        if not recs:
            continue
        quiet = [r for r in recs if r["quiet"]]
        use = quiet or recs
        mine = "olk predict" if side == "River predict_one" else "olk train"     # the olk side it is set against
        base = {r["round"]: r for r in got.get(mine, [])}
        ratios = [base[r["round"]]["rows_s"] / r["rows_s"] for r in use
                  if r["round"] in base and side not in ("olk train", "olk predict") and not side.startswith("olk run")
                  and r["rows_s"]]
        loads = [r["load1"] for r in recs]
        same = [r.get("same_model") for r in recs if r.get("same_model") is not None]
        rs = sorted(ratios)
        out.append({"rows": n, "learner": alg, "side": side,
                    "rounds": f"{len(recs)} ({len(quiet)})" + ("" if quiet else " loaded"),
                    "load": f"{min(loads):.2f}-{max(loads):.2f}",
                    "peak_mb": _median([r["peak_mb"] for r in use]), "rows_s": _median([r["rows_s"] for r in use]),
                    "wall_s": _median([r["wall_s"] for r in use]),
                    "ratio": "-" if not rs else f"{_median(rs):.2f}" + (f" ({rs[0]:.2f}-{rs[-1]:.2f})" if len(rs) > 1
                                                                         else ""),
                    "same_model": "-" if not same else ("yes" if all(same) else "NO")})
    return out


if __name__ == "__main__":
    main()

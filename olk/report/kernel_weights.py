"""Which kernels won: the final combination weights that multi-kernel runs record (``kernel_weights`` in runs.csv,
one weight per kernel in the order of the run's ``kernel`` column), summarised per (dataset, algorithm).

Generic: it reads the records only, never a learner.  A run without weights (a learner that records none, or
an older run) is counted as missing; a (dataset, algorithm) group none of whose runs has weights is left out,
and so is a group whose weights never move from uniform (e.g. OMKC(U): theta stays 1/m), which the caller may
list separately (:func:`kernel_weights_summary` returns both kinds, flagged).
"""
from __future__ import annotations

import json
import math
from typing import Any

import numpy as np
import pandas as pd


def _num(v: Any) -> str:
    return f"{float(v):g}"


def kernel_label(spec: Any) -> str:
    """A short name for one kernel of a run's ``kernel`` column: (x·x')^p for the SPA paper's polynomials,
    Gaussian σ=2^k (γ) for Gaussians exp(-γ||x - x'||²) = exp(-||x - x'||²/(2σ²))."""
    if not isinstance(spec, dict):
        return str(spec)
    kind = spec.get("kind") or spec.get("type")
    if kind == "polynomial":
        g, c, p = float(spec.get("gamma", 1.0)), float(spec.get("coef0", 0.0)), spec.get("degree", 1)
        inner = "x·x'" if g == 1.0 else f"{_num(g)} x·x'"
        if c:
            inner += f" + {_num(c)}"
        return f"({inner})^{_num(p)}"
    if kind in ("gaussian", "rbf") and spec.get("gamma"):
        g = float(spec["gamma"])
        sigma = 1.0 / math.sqrt(2.0 * g)
        k = math.log2(sigma)
        s = f"2^{int(round(k))}" if abs(k - round(k)) < 1e-9 else f"{sigma:.3g}"
        return f"Gaussian σ={s} (γ={_num(g)})"
    rest = ", ".join(f"{k}={v}" for k, v in sorted(spec.items()) if k not in ("kind", "type"))
    return f"{kind}({rest})" if rest else str(kind)


def _parse(v: Any) -> Any:
    if isinstance(v, str) and v.strip():
        try:
            return json.loads(v)
        except ValueError:
            return None
    if isinstance(v, (list, tuple, np.ndarray)):
        return list(v)
    return None


def kernel_weights_summary(runs: pd.DataFrame, top: int = 3) -> pd.DataFrame:
    """One row per (dataset, label) of ``runs`` (main-phase runs, in their order) that recorded kernel weights:
    dataset, label, display, n_runs, n_weights (runs with weights), uniform (True when every recorded weight
    vector is uniform), and ``top``: [(kernel name, mean weight, std, runs)] of the ``top`` kernels by mean
    final weight over the runs that recorded weights (the mean over those runs; std ddof=1, NaN with one)."""
    cols = ["dataset", "label", "display", "n_runs", "n_weights", "uniform", "top"]
    if "kernel_weights" not in runs.columns:
        return pd.DataFrame(columns=cols)
    out = []
    for (ds, label), g in runs.groupby(["dataset", "label"], sort=False):
        per_kernel: dict[str, list[float]] = {}
        order: list[str] = []
        n_w, uniform = 0, True
        for kw, ks in zip(g["kernel_weights"], g["kernel"] if "kernel" in g.columns else [None] * len(g)):
            w = _parse(kw)
            if not w:
                continue
            specs = _parse(ks)
            names = ([kernel_label(s) for s in specs] if isinstance(specs, list) and len(specs) == len(w)
                     else [f"kernel {i + 1}" for i in range(len(w))])
            n_w += 1
            w = np.asarray(w, dtype=float)
            uniform &= bool(np.ptp(w) <= 1e-12 * max(1.0, float(np.abs(w).max())))
            for name, v in zip(names, w):
                if name not in per_kernel:
                    per_kernel[name] = []
                    order.append(name)
                per_kernel[name].append(float(v))
        if not n_w:
            continue
        stats = []
        for name in order:
            v = np.asarray(per_kernel[name])
            stats.append((name, float(v.mean()), float(v.std(ddof=1)) if v.size > 1 else float("nan"), int(v.size)))
        stats.sort(key=lambda s: -s[1])                 # stable: ties keep the kernel order
        display = str(g["display"].iloc[0]) if "display" in g.columns and pd.notna(g["display"].iloc[0]) else label
        out.append([ds, label, display, len(g), n_w, uniform, stats[:top]])
    return pd.DataFrame(out, columns=cols)

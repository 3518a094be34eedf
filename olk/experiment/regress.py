"""Regression checks: rerun the small CI configs and compare every run with a stored baseline.

``configs/ci/*.yaml`` are quick configs (real datasets cut to a reproducible fraction with
``scale:``, fixed seeds).  ``tests/baselines/<name>.json`` holds, per (dataset, label, permutation),
the parameters and metrics of each main run.  A check fails when

* a deterministic learner's mistake count or #SV changes at all (exact), or
* a stochastic learner's mean accuracy over permutations moves by more than the config's
  ``regress.accuracy`` tolerance (points, default 0.5) or its mean #SV by more than
  ``regress.n_sv`` (relative, default 0.05) — stochastic runs are seeded and reproduce exactly on one
  machine, the tolerance only absorbs last-bit floating-point differences between platforms, or
* a run, a parameter or a tuned choice differs from the baseline.

``olk regress --update`` rewrites the baselines deliberately.
"""
from __future__ import annotations

import json
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ..algorithms import registry as algo_registry
from ..errors import OlkError
from ..paths import project_dir
from .config import load_config
from .runner import Runner
from .store import atomic_write_text

DEFAULT_TOL = {"accuracy": 0.5, "n_sv": 0.05}


@dataclass
class RegressReport:
    config: str
    failures: list = field(default_factory=list)
    checked: int = 0

    @property
    def ok(self) -> bool:
        return not self.failures


def _key(rec) -> str:
    label = rec["label"] + (f"@{rec['setting']}" if rec.get("setting") else "")
    return f"{rec['dataset']}|{label}|{rec['perm']}"


def summarize(out_dir: Path) -> dict:
    """The baseline content of a finished results directory."""
    log = Path(out_dir) / "runs.jsonl"
    runs = {}
    with open(log) as fh:
        for line in fh:
            rec = json.loads(line)
            if rec.get("phase") != "main":
                continue
            run = {"algorithm": rec["algorithm"], "params": rec["params"], "mistakes": rec.get("mistakes"),
                   "n_sv": rec["n_sv"], "accuracy": rec.get("accuracy"), "n_examples": rec["n_examples"]}
            if rec.get("mode") == "batch":     # batch mode: the test accuracy of every output classifier
                run["kernel"] = rec["kernel"]
                run["test_accuracy"] = rec.get("test_accuracy_by_output") or {"default": rec["test_accuracy"]}
            runs[_key(rec)] = run
    meta = json.loads((Path(out_dir) / "experiment.json").read_text())
    return {"tuning": meta.get("tuning", {}), "runs": dict(sorted(runs.items()))}


def compare_to_baseline(current: dict, baseline: dict, tol: dict, name: str) -> RegressReport:
    rep = RegressReport(name)
    cur, base = current["runs"], baseline["runs"]
    for k in sorted(set(base) - set(cur)):
        rep.failures.append(f"{name}: run {k} is in the baseline but was not produced")
    for k in sorted(set(cur) - set(base)):
        rep.failures.append(f"{name}: run {k} has no baseline (run 'olk regress --update' if it is new on purpose)")
    groups: dict[tuple, list] = {}
    for k in sorted(set(cur) & set(base)):
        c, b = cur[k], base[k]
        rep.checked += 1
        if c["params"] != b["params"] or c.get("kernel") != b.get("kernel"):
            rep.failures.append(f"{name}: {k}: parameters changed {b['params']} -> {c['params']}"
                                + (f", kernel {b.get('kernel')} -> {c.get('kernel')}" if c.get("kernel") != b.get("kernel") else ""))
            continue
        cls = algo_registry.REGISTRY.get(c["algorithm"])
        if cls is not None and not cls.stochastic:
            for m in ("mistakes", "n_sv", "n_examples", "test_accuracy"):
                if c.get(m) != b.get(m):
                    rep.failures.append(f"{name}: {k}: {m} changed {b.get(m)} -> {c.get(m)} (deterministic learner: must be exact)")
        else:
            ds, label, _ = k.split("|")
            groups.setdefault((ds, label), []).append((c, b))
    for (ds, label), pairs in groups.items():
        metrics = [("accuracy", lambda r: r.get("accuracy"))]
        for o in (pairs[0][1].get("test_accuracy") or {}):
            metrics.append((f"test accuracy ({o})", lambda r, o=o: (r.get("test_accuracy") or {}).get(o)))
        for what, get in metrics:
            cv, bv = [get(c) for c, _ in pairs], [get(b) for _, b in pairs]
            if any(v is None for v in cv + bv):
                if cv != bv:
                    rep.failures.append(f"{name}: {ds}/{label}: {what} missing (baseline {bv}, now {cv})")
                continue
            ca, ba = float(np.mean(cv)), float(np.mean(bv))
            if abs(ca - ba) > tol["accuracy"]:
                rep.failures.append(f"{name}: {ds}/{label}: mean {what} {ba:.3f} -> {ca:.3f} "
                                    f"(tolerance {tol['accuracy']} points)")
        cs = np.mean([c["n_sv"] for c, _ in pairs])
        bs = np.mean([b["n_sv"] for _, b in pairs])
        if abs(cs - bs) > tol["n_sv"] * max(bs, 1.0):
            rep.failures.append(f"{name}: {ds}/{label}: mean #SV {bs:.1f} -> {cs:.1f} (tolerance {tol['n_sv']:.0%})")
    for ds, labels in baseline.get("tuning", {}).items():
        for label, info in labels.items():
            now = current.get("tuning", {}).get(ds, {}).get(label, {}).get("chosen")
            if now != info.get("chosen"):
                rep.failures.append(f"{name}: {ds}/{label}: tuned choice changed {info.get('chosen')} -> {now}")
    return rep


def regress(config_dir: str | Path | None = None, baseline_dir: str | Path | None = None, *, update: bool = False,
            n_jobs: int = 1, log=print) -> list[RegressReport]:
    config_dir = Path(config_dir) if config_dir else project_dir() / "configs" / "ci"
    baseline_dir = Path(baseline_dir) if baseline_dir else project_dir() / "tests" / "baselines"
    configs = sorted(config_dir.glob("*.yaml"))
    if not configs:
        raise OlkError(f"{config_dir}: no *.yaml regression configs found")
    reports = []
    for path in configs:
        cfg = load_config(path)
        with tempfile.TemporaryDirectory(prefix="olk-regress-") as tmp:
            out = Runner(cfg, Path(tmp) / cfg.name, n_jobs=n_jobs, progress=False, log=lambda m: None).run()
            current = summarize(out)
        base_file = baseline_dir / f"{cfg.name}.json"
        if update:
            baseline_dir.mkdir(parents=True, exist_ok=True)
            atomic_write_text(base_file, json.dumps(current, indent=1, sort_keys=True) + "\n")
            log(f"olk regress: wrote {base_file} ({len(current['runs'])} runs)")
            reports.append(RegressReport(cfg.name, [], len(current["runs"])))
            continue
        if not base_file.is_file():
            raise OlkError(f"{base_file}: no baseline for {path}; create it with 'olk regress --update'")
        baseline = json.loads(base_file.read_text())
        tol = dict(DEFAULT_TOL)
        tol.update(cfg.regress or {})
        rep = compare_to_baseline(current, baseline, tol, cfg.name)
        log(f"olk regress: {cfg.name}: {rep.checked} runs checked, "
            + ("OK" if rep.ok else f"{len(rep.failures)} FAILED"))
        for f in rep.failures:
            log(f"  {f}")
        reports.append(rep)
    return reports

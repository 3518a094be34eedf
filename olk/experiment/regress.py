"""Regression checks: rerun the small CI configs and compare every run with a stored baseline.

``configs/ci/*.yaml`` are quick configs (real datasets cut to a reproducible fraction with
``scale:``, fixed seeds).  ``tests/baselines/<name>.json`` holds, per (dataset, label, permutation),
the parameters and metrics of each main run.  What a run must reproduce is declared by its learner
(``reproducibility``, a :class:`~olk.algorithms.registry.Reproducibility`), not by the config:

* ``exact`` learners (everything computed in olk's own loops): mistakes, #SV, examples, online and
  test accuracy equal to the baseline's, run by run, on any machine;
* the others: per run |mistakes - baseline| <= ``mistakes``; over the permutations of one
  (dataset, label), |mean accuracy - baseline| <= ``accuracy`` points (online and every test
  accuracy) and |mean #SV - baseline| <= ``n_sv`` x baseline;
* for everyone: the same runs, the same parameters and the same tuned choices.

The report prints each learner's contract next to its result, so a loosened tolerance is visible.
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
from ..fileio import atomic_write_text
from ..paths import project_dir
from .config import load_config
from .identity import same_params
from .runner import Runner


@dataclass
class RegressReport:
    config: str
    failures: list = field(default_factory=list)
    checked: int = 0
    contracts: dict = field(default_factory=dict)      # learner -> its declared reproducibility label

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
            for m in ("mse", "label_efficiency"):       # regression runs (olk.tasks): online MSE, labels used
                if rec.get(m) is not None:
                    run[m] = rec[m]
            if rec.get("mode") == "batch":     # batch mode: the test accuracy of every output classifier
                run["kernel"] = rec["kernel"]
                run["test_accuracy"] = rec.get("test_accuracy_by_output") or {"default": rec["test_accuracy"]}
            runs[_key(rec)] = run
    meta = json.loads((Path(out_dir) / "experiment.json").read_text())
    return {"tuning": meta.get("tuning", {}), "runs": dict(sorted(runs.items()))}


def _reproducibility(algorithm: str):
    cls = algo_registry.REGISTRY.get(algorithm)
    return cls.reproducibility if cls is not None else algo_registry.EXACT


def compare_to_baseline(current: dict, baseline: dict, name: str) -> RegressReport:
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
        repro = _reproducibility(c["algorithm"])
        rep.contracts[c["algorithm"]] = repro.label()
        if not same_params(c["algorithm"], c["params"], b["params"]) or c.get("kernel") != b.get("kernel"):
            rep.failures.append(f"{name}: {k}: parameters changed {b['params']} -> {c['params']}"
                                + (f", kernel {b.get('kernel')} -> {c.get('kernel')}"
                                   if c.get("kernel") != b.get("kernel") else ""))
            continue
        if repro.exact:
            for m in ("mistakes", "n_sv", "n_examples", "accuracy", "test_accuracy", "mse", "label_efficiency"):
                if c.get(m) != b.get(m):
                    rep.failures.append(f"{name}: {k}: {m} changed {b.get(m)} -> {c.get(m)} "
                                        f"({c['algorithm']} declares exact reproducibility)")
            continue
        if c.get("n_examples") != b.get("n_examples"):
            rep.failures.append(f"{name}: {k}: n_examples changed {b.get('n_examples')} -> {c.get('n_examples')}")
        if c.get("mistakes") is not None and b.get("mistakes") is not None \
                and abs(c["mistakes"] - b["mistakes"]) > repro.mistakes:
            rep.failures.append(f"{name}: {k}: mistakes {b['mistakes']} -> {c['mistakes']} "
                                f"(tolerance ±{repro.mistakes} declared by {c['algorithm']})")
        ds, label, _ = k.split("|")
        groups.setdefault((ds, label), []).append((c, b, repro))
    for (ds, label), pairs in groups.items():
        repro = pairs[0][2]
        metrics: list = [("accuracy", lambda r: r.get("accuracy"))]
        for o in (pairs[0][1].get("test_accuracy") or {}):
            metrics.append((f"test accuracy ({o})", lambda r, o=o: (r.get("test_accuracy") or {}).get(o)))
        for what, get in metrics:
            cv, bv = [get(c) for c, _, _ in pairs], [get(b) for _, b, _ in pairs]
            if any(v is None for v in cv + bv):
                if cv != bv:
                    rep.failures.append(f"{name}: {ds}/{label}: {what} missing (baseline {bv}, now {cv})")
                continue
            ca, ba = float(np.mean(cv)), float(np.mean(bv))
            if abs(ca - ba) > repro.accuracy + 1e-9:
                rep.failures.append(f"{name}: {ds}/{label}: mean {what} {ba:.3f} -> {ca:.3f} "
                                    f"(tolerance ±{repro.accuracy:g} points)")
        for m in ("mse", "label_efficiency"):           # regression: relative tolerance on the mean
            cv, bv = [c.get(m) for c, _, _ in pairs], [b.get(m) for _, b, _ in pairs]
            if all(v is None for v in cv + bv):
                continue
            if any(v is None for v in cv + bv):
                rep.failures.append(f"{name}: {ds}/{label}: {m} missing (baseline {bv}, now {cv})")
                continue
            ca, ba = float(np.mean(cv)), float(np.mean(bv))
            if abs(ca - ba) > repro.mse * max(abs(ba), 1e-300):
                rep.failures.append(f"{name}: {ds}/{label}: mean {m} {ba:.6g} -> {ca:.6g} "
                                    f"(tolerance ±{repro.mse:.0e} relative)")
        cs = np.mean([c["n_sv"] for c, _, _ in pairs])
        bs = np.mean([b["n_sv"] for _, b, _ in pairs])
        if abs(cs - bs) > repro.n_sv * max(bs, 1.0):
            rep.failures.append(f"{name}: {ds}/{label}: mean #SV {bs:.1f} -> {cs:.1f} (tolerance ±{repro.n_sv:.0%})")
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
        rep = compare_to_baseline(current, baseline, cfg.name)
        log(f"olk regress: {cfg.name}: {rep.checked} runs checked, "
            + ("OK" if rep.ok else f"{len(rep.failures)} FAILED"))
        for alg, contract in sorted(rep.contracts.items()):
            log(f"  {alg:14s} {contract}")
        for f in rep.failures:
            log(f"  {f}")
        reports.append(rep)
    return reports

"""What ``olk report`` reports on: the results directories under ``results/`` and the configs in ``configs/``.

:func:`find_results` walks the results root for directories written by ``olk run`` (``experiment.json``,
``runs.csv``) and classifies each (:class:`Entry`): a reproduction of a published table, a quick run
(experiment.json ``scale`` < 1, or a name ending in ``_sweep``), a run still in progress (experiment.json but
no runs.csv), a directory naming no published table, or one that cannot be read.  :func:`find_configs` lists
the configs whose ``paper:``/``table:`` keys select a published table, so a table not yet run can name the
config that produces it.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from olk.errors import OlkError
from olk.fileio import lock_holder, read_json_object
from olk.report.results import Results, load_results

NOTES_DIR = "notes"
SKIP_DIRS = {"paper", NOTES_DIR, "figures"}


# ----------------------------------------------------------------------------- discovery
@dataclass
class Entry:
    """One results directory found under the results root."""

    path: Path
    meta: dict[str, Any]
    kind: str  # 'reproduction' | 'quick' | 'in_progress' | 'unmatched' | 'broken'
    reason: str = ""
    results: Results | None = None

    @property
    def name(self) -> str:
        return str(self.meta.get("name") or self.path.name)

    @property
    def key(self) -> tuple[str, str] | None:
        paper, table = self.meta.get("paper"), self.meta.get("table")
        if not paper or table is None or str(table).strip() == "":
            return None
        return str(paper), str(table).strip()


def run_scale(meta: dict[str, Any], res: Results | None) -> float | None:
    """The run's scale when it is below 1 (a reproducible fraction of each dataset), else None."""
    s = meta.get("scale")
    try:
        s = float(s) if s is not None and not isinstance(s, bool) else None
    except (TypeError, ValueError):
        s = None
    if (s is None or s >= 1) and res is not None and res.scale is not None:
        s = res.scale
    return s if s is not None and s < 1 else None


def quick_reason(entry_name: str, dir_name: str, meta: dict[str, Any], res: Results | None) -> str:
    """Why a results directory is a quick run, not a reproduction ('' when it is a full run)."""
    s = run_scale(meta, res)
    if s is not None:
        return f"scaled-down run (scale {s:g})"
    if entry_name.endswith("_sweep") or dir_name.endswith("_sweep"):
        return "parameter sweep"
    return ""


def find_results(results_root: Path, tables: set[tuple[str, str]], include_quick: bool = False
                 ) -> list[Entry]:
    """Every directory under ``results_root`` holding experiment.json, classified (see :class:`Entry`)."""
    out = []
    for exp in sorted(results_root.rglob("experiment.json")):
        d = exp.parent
        rel = d.relative_to(results_root).parts
        if not rel or rel[0] in SKIP_DIRS or any(p.startswith(".") for p in rel) or "figures" in rel:
            continue
        try:
            meta = read_json_object(exp, "re-run its config, or remove the directory") or {}
        except OlkError as err:
            out.append(Entry(d, {}, "broken", f"experiment.json unreadable ({err})"))
            continue
        holder = lock_holder(d)
        if holder is not None:
            out.append(Entry(d, meta, "in_progress", f"run in progress (pid {holder})"))
            continue
        if not (d / "runs.csv").is_file():
            status = meta.get("status") or "no status"
            out.append(Entry(d, meta, "in_progress", f"no runs.csv yet (status: {status}, "
                                                     f"started {meta.get('started') or '?'})"))
            continue
        try:
            res = load_results(d)
        except OlkError as err:
            out.append(Entry(d, meta, "broken", f"cannot be read: {err}"))
            continue
        e = Entry(d, res.meta, "reproduction", results=res)
        quick = quick_reason(e.name, d.name, res.meta, res)
        if e.key is None:
            e.kind, e.reason = "unmatched", "experiment.json names no published table ('paper', 'table')"
        elif e.key not in tables:
            e.kind, e.reason = "unmatched", f"no published table {e.key[0]} Table {e.key[1]} in results/paper/"
        elif quick:
            e.reason = f"{quick}: not a reproduction"
            if not include_quick:
                e.kind = "quick"
        out.append(e)
    return out


# ----------------------------------------------------------------------------- configs
@dataclass
class ConfigInfo:
    """A config found in ``configs/``: the published table it produces (``paper:``, ``table:``; '' for none, e.g.
    the demo and the CI configs), ``note`` saying why it is no reproduction (scaled down, substitute datasets; ''
    for a full-scale one), the datasets it lists as ``unavailable:`` with the reason, and its ``compare:
    {variant: ...}`` label ('' for a table's main config).  ``readable`` is False for a file that is not a YAML
    mapping (listed, never run)."""

    path: Path
    paper: str
    table: str
    note: str = ""
    unavailable: dict[str, str] = field(default_factory=dict)
    variant: str = ""
    description: str = ""
    readable: bool = True


def read_configs(configs_dir: Path | None) -> list[ConfigInfo]:
    """Every config in ``configs_dir`` (recursively), in path order."""
    if configs_dir is None or not configs_dir.is_dir():
        return []
    import yaml

    from olk._lazy import yaml_load, yaml_read

    out = []
    for f in sorted(list(configs_dir.rglob("*.yaml")) + list(configs_dir.rglob("*.yml"))):
        try:
            cfg = yaml_load(yaml_read(f).decode("utf-8"))
        except (OSError, UnicodeDecodeError, yaml.YAMLError):
            cfg = None
        if not isinstance(cfg, dict):
            out.append(ConfigInfo(f, "", "", readable=False))
            continue
        paper = str(cfg["paper"]) if cfg.get("paper") else ""
        table = str(cfg["table"]).strip() if paper and cfg.get("table") is not None else ""
        notes = []
        try:
            if cfg.get("scale") is not None and float(cfg["scale"]) < 1:
                notes.append(f"scale {float(cfg['scale']):g}: quick run, not a reproduction")
        except (TypeError, ValueError):
            pass
        cmp = cfg.get("compare")
        if isinstance(cmp, dict) and isinstance(cmp.get("datasets"), dict) and cmp["datasets"]:
            ours = [str(d.get("label") or d.get("name")) if isinstance(d, dict) else str(d)
                    for d in (cfg.get("datasets") or [])]
            subs = {str(k): str(v) for k, v in cmp["datasets"].items()}
            if all(d in subs for d in ours if d not in (cfg.get("unavailable") or {})):
                notes.append("runs on substitute datasets: a protocol check, not a reproduction")
            else:
                notes.append("; ".join(f"{k} stands for the paper's {v}" for k, v in subs.items()))
        unavailable = cfg.get("unavailable")
        unavailable = {str(k): " ".join(str(v).split()) for k, v in unavailable.items()} \
            if isinstance(unavailable, dict) else {}
        variant = cmp.get("variant") if isinstance(cmp, dict) else None
        out.append(ConfigInfo(f, paper, table, "; ".join(notes), unavailable,
                              " ".join(variant.split()) if isinstance(variant, str) else "",
                              " ".join(str(cfg.get("description") or "").split())))
    return out


def find_configs(configs_dir: Path | None) -> list[ConfigInfo]:
    """Configs in ``configs_dir`` (recursively) with ``paper:`` and ``table:`` keys; full-scale first."""
    out = [c for c in read_configs(configs_dir) if c.paper and c.table]
    return sorted(out, key=lambda c: (bool(c.note), str(c.path)))

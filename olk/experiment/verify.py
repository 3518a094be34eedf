"""``olk verify DIR``: rerun a results directory's runs at the current commit and compare them with its records.

A results directory says which commit computed each of its runs (``commit`` / ``dirty`` in every record of
``runs.jsonl``); ``olk verify`` says whether the current commit still computes them, bit for bit.

**Which runs.**  The directory's runs are the rows of its ``runs.csv`` (what its tables show, tuning and matching
runs included; a record of ``runs.jsonl`` in no row is stale and not checked).  ``--sample N`` checks N of them
instead of all: the N whose SHA-256 of ``"<seed>:<run_id>"`` is smallest (a deterministic sample, the same for the
same seed on any machine; a larger N checks a superset).

**How they are rebuilt.**  Not from the records: from the config the directory was run with, through the machinery
of ``olk run --resume``.  The config is experiment.json's ``config`` (its path as given then, relative to the working
directory or to the project directory); its variant is the directory's own: its datasets and algorithm entries
(those of its runs), its ``scale``, its repeats (the highest permutation of its runs), and the ``--set`` values (and
the sweep of ``olk sweep``) of its recorded ``command``; learners from outside olk are imported from the origins
experiment.json records (``plugins``) or ``--plugin``.  The planner then plans the directory stage by stage as a
resume would, with one difference: a run is looked up in the directory's records, except the runs checked, which are
computed again in a scratch directory (a temporary directory, removed afterwards; the directory's runs.jsonl is never
written).  So a sampled main run's tuned parameters (and a ``match:``ed value) come from the directory's tuning runs
and main runs as recorded; when those runs are checked too (no ``--sample``, or the sample holds them), from their
reruns, so a difference there carries on to the runs planned from them.  A run the plan needs that the directory
does not hold (a tuning run, or a main run of an entry another one ``match:``es) is computed too, and not compared.
A checked run the plan at this commit no longer makes (its parameters or its id moved) differs in
``(not planned)``, except one whose only change is a parameter the learner declared after the run was recorded,
planned at the value that keeps the old behaviour (:attr:`olk.algorithms.registry.Param.before`, the rule of ``olk
regress``): its id moved with its parameters, so it is planned under the new id, computed and compared as the same
run (its ``run_id`` and those added parameters are not compared; ``ignored_fields`` lists ``run_id (a parameter
added since)``); a run not checked that the plan makes under a new id that way is looked up as its record (a
tuning run, a run another entry matches), not computed again.

**What is compared.**  Every field of the rerun record and of the recorded one but the timings (``time_s`` and every
key ending in ``_time_s``, at any depth: ``train_time_s``, a test curve's ``train_time_s``, a learner summary's
``select_time_s``), the provenance keys (:data:`olk.fileio.RUN_PROVENANCE`) and the names (:data:`NAMES`: the
config's name, the display names, which ``--resume`` does not compare either; one that differs is listed in
``ignored_fields``), by their JSON text: floats bit for
bit (their shortest repr), learning curves value by value.  A field of the record the rerun lacks differs; a field of
the rerun that the record lacks (``task``, which olk wrote into records later) has nothing to be compared with: it is
listed in ``ignored_fields`` as ``task (not in the record)``.

**What is written.**  One entry appended to ``DIR/verified.json`` (:func:`verify`'s docstring has its keys), nothing
else in DIR but its lock file; outside DIR only the temporary directory (and olk's dataset cache, as for any run).
The memory guard and ``--memory-limit`` apply as in ``olk run``.
"""
from __future__ import annotations

import datetime as _dt
import hashlib
import json
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from .._version import __version__
from ..errors import ConfigError, OlkError
from ..fileio import (
    BACKFILL_FIX,
    RUN_PROVENANCE,
    DirLock,
    atomic_write_text,
    check_own_files,
    lock_holder,
    read_json_object,
)
from ..paths import project_dir
from .identity import by_slot, same_run, slot
from .runner import Runner, run_provenance, table_rows
from .store import RunStore

VERIFIED = "verified.json"
#: a checked run that the plan at this commit does not make
NOT_PLANNED = "(not planned)"
#: how ignored_fields names a field of the rerun records that a record lacks (an older olk did not write it)
NOT_RECORDED = "(not in the record)"
#: fields that name a run rather than result from it (the config's name, the row's display names): as ``--resume``
#: never compares them (olk.experiment.fingerprint), a difference is listed in ignored_fields, not counted
NAMES = ("experiment", "display", "setting_display")
#: how ignored_fields names such a field that differs
RENAMED_FIELD = "(a name, not a result)"
#: how ignored_fields names the run id of a run planned under a new id (a parameter added since, at its old value)
RENAMED = "run_id (a parameter added since)"


_FIX = "is it a results directory olk run wrote?"


def is_timing(key: str) -> bool:
    """A timing key (never compared): ``time_s`` or a key ending in ``_time_s``."""
    return key == "time_s" or key.endswith("_time_s")


def _result(value, path: str, ignored: set):
    """`value` without its timing keys at any depth (their dotted paths added to `ignored`)."""
    if isinstance(value, dict):
        out = {}
        for k, v in value.items():
            if is_timing(str(k)):
                ignored.add(f"{path}.{k}" if path else str(k))
            else:
                out[k] = _result(v, f"{path}.{k}" if path else str(k), ignored)
        return out
    if isinstance(value, list):
        return [_result(v, path, ignored) for v in value]
    return value


def differing_fields(recorded: dict, rerun: dict, ignored: set | None = None) -> list[str]:
    """The top-level fields in which two run records differ, timing and provenance keys and the rerun's fields the
    record lacks left out (collected in `ignored`): compared by their JSON text, so floats bit for bit and curves
    value by value."""
    ignored = set() if ignored is None else ignored
    out = []
    for key in sorted(set(recorded) | set(rerun)):
        if key in RUN_PROVENANCE:
            ignored.add(key)
            continue
        if is_timing(key):
            ignored.add(key)
            continue
        if key not in recorded:         # written by an olk that did not record it: nothing to compare with
            ignored.add(f"{key} {NOT_RECORDED}")
            continue
        if key not in rerun:
            out.append(key)
            continue
        a = json.dumps(_result(recorded[key], key, ignored), sort_keys=True)
        b = json.dumps(_result(rerun[key], key, ignored), sort_keys=True)
        if a != b:
            if key in NAMES:
                ignored.add(f"{key} {RENAMED_FIELD}")
            else:
                out.append(key)
    return out


def sample_ids(run_ids: list[str], n: int | None, seed: int) -> list[str]:
    """All of `run_ids` (n None or >= their number), else the n whose SHA-256 of ``"<seed>:<run_id>"`` is smallest,
    in the order of `run_ids`."""
    if n is None or n >= len(run_ids):
        return list(run_ids)
    key = {rid: hashlib.sha256(f"{seed}:{rid}".encode()).hexdigest() for rid in run_ids}
    chosen = set(sorted(run_ids, key=lambda r: key[r])[:n])
    return [r for r in run_ids if r in chosen]


@dataclass
class RecordedOptions:
    """What the command line of the directory's invocations set beyond its runs: ``--set`` values (``olk run``; a
    grid with ``olk sweep``), plugin modules.  The CLI reads them from experiment.json's ``command``."""
    sets: dict = field(default_factory=dict)
    sweep: bool = False
    plugins: list = field(default_factory=list)


class _Runs:
    """The run lookup of a verification: a run checked is its rerun (None until it is computed), any other run its
    record in the directory, or its rerun when the plan needed it and the directory has none."""

    def __init__(self, recorded: dict, checked: set, scratch: Path):
        self.recorded = recorded
        self.checked = checked
        self.reruns = RunStore(scratch)
        #: planned id -> recorded id of a run not checked that the plan makes under a new id (identity.same_run)
        self.alias: dict[str, str] = {}

    def get(self, run_id: str):
        rec = self.reruns.get(run_id)
        if rec is not None or run_id in self.checked:
            return rec
        return self.recorded.get(self.alias.get(run_id, run_id))

    def append(self, rec: dict) -> None:
        self.reruns.append(rec)


class _Verifier(Runner):
    """A resume of the directory that computes only the runs checked (and tuning runs it lacks) into a scratch
    directory: :meth:`Runner._stage` plans each step from the lookup (:class:`_Runs`)."""

    def __init__(self, cfg, scratch: Path, recorded: dict, rows: list[str], checked: set, **kw):
        super().__init__(cfg, scratch, **kw)
        self.runs = _Runs(recorded, checked, scratch)
        # get and append are all a stage uses of its store
        self.store = self.runs               # type: ignore[assignment]
        self._previous = list(rows)
        self.planned: dict = {}
        self.extra: list[str] = []           # runs the plan needed that the directory lacks
        #: planned id -> recorded id of a checked run planned under a new id (identity.same_run)
        self.renamed: dict[str, str] = {}
        self._by_slot = by_slot(recorded)

    def _execute(self, specs, what: str) -> None:
        for s in specs:
            self.planned.setdefault(s.run_id, s)
            if s.run_id not in self.order:
                self.order.append(s.run_id)
        # the entries another one takes a value from (match:, match_tune): their main runs are needed too
        targets = {lab for a in self.cfg.algorithms for lab in a.depends_on()}
        keep = []
        for s in specs:
            if s.run_id not in self.runs.checked and s.run_id not in self.runs.recorded:
                # planned under a new id: the same run as a record if only parameters declared since differ
                old = next((r for r in self._by_slot.get(slot(s.to_record()), ())
                            if r not in self.planned and same_run(s, self.runs.recorded[r])), None)
                if old is not None and old in self.runs.checked:
                    self.renamed[s.run_id] = old
                    self.runs.checked.add(s.run_id)
                elif old is not None:
                    self.runs.alias[s.run_id] = old
            if s.run_id in self.runs.checked:
                keep.append(s)
            elif (s.run_id not in self.runs.recorded and s.run_id not in self.runs.alias
                  and (s.phase != "main" or s.label in targets)):
                keep.append(s)
                self.extra.append(s.run_id)
        super()._execute(keep, what)

    def _same_as_earlier(self, spec) -> bool:
        """The runs planned under a new id are resolved in :meth:`_execute` (checked ones are computed again)."""
        return False

    def verify_runs(self, directory: Path, provenance: dict) -> None:
        """Compute the checked runs again; their records carry ``provenance`` (:func:`run_provenance`, taken once
        by :func:`verify`, whose verified.json entry names the same commit)."""
        self.provenance = provenance
        self._prepare()
        for ds in dict.fromkeys(str(self.runs.recorded[r]["dataset"]) for r in self.runs.checked):
            if ds in self.unavailable:
                raise OlkError(f"{directory}: its runs on {ds} cannot be rerun here ({ds}: "
                               f"{self.unavailable[ds]}); fetch it (olk datasets fetch {ds}) and verify again")
        with self._session():
            for stage in self.cfg.stages():
                self._stage(stage)


def _config_path(meta: dict, directory: Path) -> Path:
    given = meta.get("config")
    if not isinstance(given, str) or not given.strip():
        raise OlkError(f"{directory / 'experiment.json'}: it names no config ('config'), so its runs cannot be "
                       f"rebuilt; {_FIX}")
    for cand in (Path(given), project_dir() / given):
        if cand.is_file():
            return cand
    raise OlkError(f"{directory / 'experiment.json'}: its config {given} is not found (neither from here nor from "
                   f"{project_dir()}); run olk verify from the checkout the directory was computed in")


def _load_plugins(meta: dict, where: Path) -> None:
    """Import the learners from outside olk that experiment.json names (``plugins``: name -> origin)."""
    from ..algorithms import plugins as plug
    from ..algorithms import registry
    found = meta.get("plugins") or {}
    if not isinstance(found, dict):
        raise OlkError(f"{where}: its 'plugins' is not an object; {_FIX}")
    for name, org in found.items():
        if name in registry.REGISTRY._classes or not isinstance(org, dict):
            continue
        path = org.get("path")
        why = plug.ensure(name, plug.Origin(str(org.get("kind")), str(org.get("module")), str(org.get("source") or ""),
                                            str(path) if path else None))
        if why is not None:
            raise ConfigError(f"{where}: {why}; or give it with olk verify --plugin MODULE")


def _read_verified(path: Path) -> dict:
    doc = read_json_object(path, "move it away (olk verify writes a new one)") or {"verifications": []}
    if not isinstance(doc.get("verifications"), list):
        raise OlkError(f"{path}: its 'verifications' is not a list olk verify writes; move it away (olk verify "
                       f"writes a new one)")
    return doc


@dataclass
class Verification:
    """What :func:`verify` found (its entry of verified.json) and the lines to print."""
    entry: dict
    lines: list[str]

    @property
    def ok(self) -> bool:
        return not self.entry["differing"]


def verify(directory, *, options: RecordedOptions | None = None, sample: int | None = None, seed: int = 0,
           n_jobs: int | None = None, memory_limit: str | None = None, command: str | None = None,
           progress: bool | None = None, log=print) -> Verification:
    """Rerun the runs of `directory` (all, or a sample of `sample`) at the current commit, compare each with its
    record and append the result to ``directory/verified.json``::

        {"verifications": [{"commit": "abcdef123456", "dirty": false, "date": "2026-11-28T18:02:11",
          "olk_version": "0.1.0", "command": "olk verify results/x --sample 20", "sample": 20, "sample_seed": 0,
          "runs_total": 430, "runs_checked": 20, "identical": 20,
          "differing": [{"run_id": "...", "label": "...", "dataset": "...", "perm": 3, "fields": ["accuracy"]}],
          "ignored_fields": ["time_s", "commit", "dirty", "commit_from", "machine"], "wall_s": 81.2}]}

    ``sample`` is null when every run was checked; ``ignored_fields`` lists the timing keys met (dotted below the
    top level), the fields of the reruns some record lacks (``task (not in the record)``) and the provenance keys.
    See the module docstring for which runs, how they are rebuilt and what is compared."""
    t0 = time.perf_counter()
    directory = Path(directory)
    options = options or RecordedOptions()
    if not (directory / "runs.jsonl").is_file():
        raise OlkError(f"{directory}: no runs.jsonl here; {_FIX}")
    if sample is not None and sample < 1:
        raise ConfigError(f"--sample: must be >= 1 (got {sample})")
    holder = lock_holder(directory)
    if holder is not None:
        raise OlkError(f"{directory}: run in progress (pid {holder}); verify it when it has finished")
    meta = read_json_object(directory / "experiment.json", _FIX)
    if meta is None:
        raise OlkError(f"{directory}: no experiment.json here; {_FIX}")
    committed = RunStore(directory)
    recorded = committed.load()
    committed.check_attributed(BACKFILL_FIX)
    rows = table_rows(directory / "runs.csv", recorded.get, log) or list(recorded)
    if not rows:
        raise OlkError(f"{directory}: holds no runs to verify")
    checked = sample_ids(rows, sample, seed)
    stale = len(recorded) - len(rows)

    cfg = _variant(directory, meta, options, [recorded[r] for r in rows], [recorded[r] for r in checked])
    check_own_files(directory, (VERIFIED,))
    verified_path = directory / VERIFIED
    _read_verified(verified_path)                  # a foreign verified.json is refused before hours of runs
    provenance = run_provenance()                  # the tree of this verification, before it computes anything
    commit, dirty = provenance["commit"], provenance["dirty"]
    if dirty:
        log("olk: warning: the tree has uncommitted changes (outside results/): a verification at a dirty tree does "
            "not count as verified at a clean commit")
    with DirLock(directory, "olk verify"), tempfile.TemporaryDirectory(prefix="olk-verify-") as tmp:
        # the planner's and the loader's notes speak of a run (what experiment.json records): only warnings here
        v = _Verifier(cfg, Path(tmp) / "runs", recorded, rows, set(checked), n_jobs=n_jobs, progress=progress,
                      log=lambda m: log(m) if "warning" in m else None, memory_limit=memory_limit)
        v.verify_runs(directory, provenance)
        reruns = {rid: rec for rid, rec in RunStore(Path(tmp) / "runs").load().items()}
        ignored: set = set()
        differing: list[dict] = []
        by_old = {old: new for new, old in v.renamed.items()}
        for rid in checked:
            rec = recorded[rid]
            if rid not in reruns and by_old.get(rid) in reruns:         # planned under a new id: the same run
                new = reruns[by_old[rid]]
                cls_params = set(new["params"]) - set(rec.get("params") or {})
                new = {**new, "run_id": rid, "params": {k: v for k, v in new["params"].items() if k not in cls_params}}
                ignored.add(RENAMED)
                fields = differing_fields(rec, new, ignored)
            else:
                fields = differing_fields(rec, reruns[rid], ignored) if rid in reruns else [NOT_PLANNED]
            if fields:
                differing.append({"run_id": rid, "label": rec.get("label"), "dataset": rec.get("dataset"),
                                  "perm": rec.get("perm"), "fields": fields})
        date = _dt.datetime.now().isoformat(timespec="seconds")
        entry = {"commit": commit, "dirty": dirty, "date": date, "olk_version": __version__, "command": command,
                 "sample": None if len(checked) == len(rows) else len(checked), "sample_seed": seed,
                 "runs_total": len(rows), "runs_checked": len(checked), "identical": len(checked) - len(differing),
                 "differing": differing,
                 "ignored_fields": sorted(ignored - set(RUN_PROVENANCE),
                                          key=lambda k: (k.endswith(NOT_RECORDED), k.count("."), k))
                 + list(RUN_PROVENANCE), "wall_s": round(time.perf_counter() - t0, 1)}
        doc = _read_verified(verified_path)
        doc["verifications"].append(entry)
        atomic_write_text(verified_path, json.dumps(doc, indent=2) + "\n")
    lines = [f"differs: {d['run_id']} {d['label']} on {d['dataset']}, permutation {d['perm']}: "
             f"{', '.join(d['fields'])}" for d in differing]
    at = f"{commit or 'an unknown commit'}{' (dirty)' if dirty else ''}"
    sampled = entry["sample"] is not None
    of = f"{len(checked)} of {len(rows)} runs" + (f" (sample of {len(checked)}, seed {seed})" if sampled else "")
    if differing:
        checked_of = (f"of the {len(checked)} runs checked (a sample of the {len(rows)}, seed {seed})" if sampled
                      else f"of the {len(rows)} runs")
        lines.append(f"{len(differing)} {checked_of} differ at {at} on {date} ({entry['identical']} bit-identical); "
                     f"{verified_path} lists them")
    else:
        lines.append(f"verified bit-identical at {at} on {date}: {of}")
    if v.extra:
        lines.append(f"olk verify: {len(set(v.extra))} run(s) the plan needed are not in {directory} (tuning runs, or "
                     f"main runs another entry matches): computed to plan the others, not compared")
    if stale:
        lines.append(f"olk verify: {stale} record(s) of {directory / 'runs.jsonl'} are in no row of runs.csv (stale): "
                     f"not checked")
    return Verification(entry, lines)


def _variant(directory: Path, meta: dict, options: RecordedOptions, rows: list[dict], checked: list[dict]):
    """The config of the directory's invocations, restricted to what the runs checked need (their datasets and
    entries; an entry keeps those it matches on)."""
    from ..algorithms.registry import load_plugin
    from .config import load_config
    from .plan import restrict, variant
    where = directory / "experiment.json"
    for spec in options.plugins:
        load_plugin(spec, Path.cwd(), where=f"--plugin {spec}")
    _load_plugins(meta, where)
    cfg = load_config(_config_path(meta, directory))
    scale = meta.get("scale")
    if scale is not None and not isinstance(scale, (int, float)):
        raise OlkError(f"{where}: its 'scale' is not a number; {_FIX}")
    perms: list[int] = [r["perm"] for r in rows if r.get("phase") == "main" and isinstance(r.get("perm"), int)]
    datasets = list(dict.fromkeys(str(r["dataset"]) for r in checked))
    labels = list(dict.fromkeys(str(r["label"]) for r in checked))
    known_d = {d.name for d in cfg.datasets}
    known_a = {a.label for a in cfg.algorithms}
    for what, names, known in (("dataset", datasets, known_d), ("algorithm entry", labels, known_a)):
        gone = [n for n in names if n not in known]
        if gone:
            raise OlkError(f"{directory}: its runs of {what} {gone[0]} are not in its config {cfg.path} any more; "
                           f"verify it at the commit that has it")
    # the --set values on the whole config (as the invocations had them), then only what the checked runs need
    cfg = variant(cfg, repeats=max(perms) + 1 if perms else None, scale=float(scale) if scale is not None else None,
                  sets=options.sets, sweep=options.sweep)
    return restrict(cfg, datasets, labels)

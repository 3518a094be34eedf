"""Results on disk: an append-only run log that survives interruption, and the tidy CSVs made from it.

``runs.jsonl`` gets one JSON line per finished run, flushed and fsync'ed before the next is reported,
so an interrupted experiment loses nothing it finished; ``--resume`` skips every run_id already there
(a torn last line from a kill is ignored).  ``runs.csv`` and ``curves.csv`` are rewritten atomically
(temp file + rename) from the log, so readers never see half a file.
"""
from __future__ import annotations

import json
import os
from pathlib import Path

from ..tasks import TEST_CURVE_COLUMNS, TEST_CURVES

RUN_COLUMNS = ["run_id", "experiment", "phase", "dataset", "algorithm", "label", "display", "params", "kernel",
               "perm", "seed", "scale", "n_examples", "mistakes", "accuracy", "n_sv", "n_sv_last", "n_updates",
               "time_s", "kernel_evals", "test_accuracy", "train_time_s", "n_test", "setting", "fold"]
#: the other tasks' metrics (olk.tasks): columns of runs.csv only when some run has them, so a classification
#: experiment's runs.csv keeps RUN_COLUMNS exactly (olk.fileio.RECORD_FIELDS checks their types when a record is
#: read back)
TASK_COLUMNS = ["mse", "test_mse", "log_loss", "n_labels", "label_efficiency"]
#: columns of runs.csv only when some run has them: how a sweep point inherited through a match reads
OPTIONAL_COLUMNS = ["setting_display"]
#: learning-curve values by task (olk.tasks.Task.curve): curves.csv has run_id, t and the ones present
CURVE_VALUES = ["mistake_rate", "mse"]


from ..fileio import (  # noqa: E402,F401  (the one atomic writer; record_problem: what a record olk wrote is)
    PHASES,
    RERUN_RESUME,
    atomic_write_text,
    check_size,
    no_commit_error,
    open_own,
    open_own_if_any,
    record_problem,
    unattributed,
    write_error,
)

#: the files of a results directory the run log writes (runs.jsonl in place, the others atomically)
FILES = ("runs.jsonl", "runs.csv", "curves.csv", TEST_CURVES)


class RunStore:
    """The run log of one results directory."""

    def __init__(self, out_dir: Path):
        self.dir = Path(out_dir)
        self.log = self.dir / "runs.jsonl"
        self._records: dict[str, dict] = {}
        #: planned run id -> the id of an earlier record of the same run (olk.experiment.identity: a parameter the
        #: learner declared since, at its old value, gave the run a new id); get() answers it with that record
        self.alias: dict[str, str] = {}
        self.skipped: list[tuple[int, str]] = []     # (line, why) of the lines load() skipped
        self.unattributed: list[tuple[int, str]] = []   # (line, run id) of the records that name no commit

    def exists(self) -> bool:
        return self.log.is_file() and self.log.stat().st_size > 0

    def repair(self) -> int:
        """Cut a torn last line off the log (a write cut short by a full disk, a file-size limit or a kill: the
        log does not end with a newline), so the next record starts on a line of its own instead of being glued
        to the fragment and lost.  Returns the bytes removed (that run is simply computed again)."""
        fd = open_own_if_any(self.log, os.O_RDWR, "repair", RERUN_RESUME)
        if fd is None:
            return 0
        try:
            with open(fd, "rb+") as fh:
                size = fh.seek(0, os.SEEK_END)
                if size == 0:
                    return 0
                fh.seek(size - 1)
                if fh.read(1) == b"\n":
                    return 0
                keep, pos, block = 0, size, 1 << 16
                while pos > 0:                      # the last newline, reading backwards
                    start = max(0, pos - block)
                    fh.seek(start)
                    chunk = fh.read(pos - start)
                    i = chunk.rfind(b"\n")
                    if i >= 0:
                        keep = start + i + 1
                        break
                    pos = start
                fh.truncate(keep)
                fh.flush()
                os.fsync(fh.fileno())
                return size - keep
        except OSError as e:
            raise write_error(self.log, e, "repair", RERUN_RESUME) from None

    def load(self) -> dict[str, dict]:
        """The records of the log, by run id.  A line that is not a record olk wrote (not UTF-8, not JSON -- a
        torn write --, or not a run record: :func:`record_problem`) is skipped and listed in :attr:`skipped`
        ((line, why) pairs; the runner warns once): that run is computed again.  A log larger than the
        ``results_file_bytes`` limit is refused in one line before it is read."""
        self._records, self.skipped, self.unattributed, self.alias = {}, [], [], {}
        fd = open_own_if_any(self.log, os.O_RDONLY, "read", RERUN_RESUME)
        if fd is None:
            return self._records
        with open(fd, "rb") as fh:
            check_size(self.log, os.fstat(fh.fileno()).st_size)
            for lineno, raw in enumerate(fh, 1):
                if not raw.strip():
                    continue
                try:
                    rec = json.loads(raw.decode("utf-8"))
                    why = record_problem(rec)
                except UnicodeDecodeError:
                    why = "not UTF-8 text"
                except (ValueError, RecursionError):
                    why = "not a JSON record (a torn write?)"
                if why:
                    self.skipped.append((lineno, why))
                else:
                    self._records[rec["run_id"]] = rec
                    if unattributed(rec):
                        self.unattributed.append((lineno, rec["run_id"]))
        return self._records

    def check_attributed(self, fix: str) -> None:
        """Refuse, in one line naming the log, the line and `fix`, a log holding a record that does not say which
        commit computed it (:func:`olk.fileio.unattributed`): a table would show it as if it did."""
        if self.unattributed:
            line, rid = self.unattributed[0]
            more = len(self.unattributed) - 1
            raise no_commit_error(self.log, line, rid, (f"and {more} more; " if more else "") + fix)

    def reset(self) -> None:
        self.dir.mkdir(parents=True, exist_ok=True)
        for name in ("runs.jsonl", "runs.csv", "curves.csv", TEST_CURVES):
            p = self.dir / name
            if p.exists():
                p.unlink()
        self._records, self.alias = {}, {}

    def append(self, rec: dict) -> None:
        self.dir.mkdir(parents=True, exist_ok=True)
        line = json.dumps(rec, sort_keys=True, default=float)
        fd = open_own(self.log, os.O_WRONLY | os.O_APPEND | os.O_CREAT, "append to the run log", RERUN_RESUME)
        try:
            with open(fd, "a", encoding="utf-8") as fh:
                fh.write(line + "\n")
                fh.flush()
                os.fsync(fh.fileno())
        except OSError as e:
            self.repair()                   # what was half-written must not swallow the next record
            raise write_error(self.log, e, "append to the run log", RERUN_RESUME) from None
        self._records[rec["run_id"]] = rec

    def records(self) -> dict[str, dict]:
        """Every run in the log, in log order."""
        return dict(self._records)

    def get(self, run_id: str):
        """The record of ``run_id``, or of the earlier run it is an alias of (:attr:`alias`), or None."""
        rec = self._records.get(run_id)
        return rec if rec is not None or run_id not in self.alias else self._records.get(self.alias[run_id])

    def write_tables(self, run_ids: list[str], outputs: dict | None = None) -> tuple[Path, Path]:
        """Write runs.csv and curves.csv for the given runs, in that order.

        ``outputs`` maps a label to ``{result label: (output, display)}``: such a run (one training
        pass, e.g. SPA in batch mode) becomes one row per output classifier (SPA-last, SPA-avg), each
        with that output's test accuracy, run_id ``<run_id>:<output>``.
        """
        import pandas as pd  # lazy: only writing the tables needs it
        rows, curves, held = [], [], []
        outputs = outputs or {}
        for rid in run_ids:
            rec = self.get(rid)
            row = {k: rec.get(k) for k in RUN_COLUMNS}
            row.update({k: rec[k] for k in TASK_COLUMNS + OPTIONAL_COLUMNS if rec.get(k) is not None})
            if rec.get("task") == "regression":     # the report picks its metrics from it (classification: absent)
                row["task"] = rec["task"]
            row["params"] = json.dumps(rec.get("params", {}), sort_keys=True)
            row["kernel"] = json.dumps(rec.get("kernel", {}), sort_keys=True)
            for k, v in sorted((rec.get("params") or {}).items()):
                row[f"param_{k}"] = v
            for k, v in sorted((rec.get("summary") or {}).items()):   # the learner's run_summary()
                row[k] = json.dumps(v) if isinstance(v, (list, dict)) else v
            by_out = rec.get("test_accuracy_by_output") or {}
            if rec.get("label") in outputs and by_out:
                for lab, (out, display) in outputs[rec["label"]].items():
                    rows.append({**row, "run_id": f"{rid}:{out}", "label": lab, "display": display,
                                 "test_accuracy": by_out.get(out)})
            else:
                rows.append(row)
            c = rec.get("curve") or {}
            for k, t in enumerate(c.get("t", [])):
                curves.append({"run_id": rid, "t": t, **{v: c[v][k] for v in CURVE_VALUES if v in c}})
            h = rec.get("test_curve") or {}
            for k, t in enumerate(h.get("t", [])):
                held.append({"run_id": rid, **{c: h[c][k] for c in TEST_CURVE_COLUMNS[2:] if c in h}, "t": t})
        runs = pd.DataFrame(rows)
        cur = pd.DataFrame(curves)
        cur = cur.reindex(columns=["run_id", "t", "mistake_rate"] + [v for v in CURVE_VALUES[1:] if v in cur.columns])
        p1, p2 = self.dir / "runs.csv", self.dir / "curves.csv"
        atomic_write_text(p1, runs.to_csv(index=False), then=RERUN_RESUME)
        atomic_write_text(p2, cur.to_csv(index=False), then=RERUN_RESUME)
        p3 = self.dir / TEST_CURVES
        if held:
            atomic_write_text(p3, pd.DataFrame(held).reindex(columns=TEST_CURVE_COLUMNS).dropna(axis=1, how="all")
                              .to_csv(index=False), then=RERUN_RESUME)
        elif p3.exists():
            p3.unlink()
        return p1, p2

"""Writing files safely: whole or not at all, one-line errors naming the file, and one writer per results
directory.  A ground-floor module (it imports only :mod:`olk.errors`): the experiment engine, the report and the
model saver all write through it.

* :func:`atomic_write` (and :func:`atomic_write_text`) writes a temporary file beside the target and renames it
  over the target, so a reader (or a later run) sees the old file or the new one, never half of one -- also when
  the disk fills up or a file-size limit (``ulimit -f``) is hit half-way: then the target is untouched, the
  temporary file removed, and the error is one line naming the target and the errno.
* :func:`write_error` turns an ``OSError`` of a write into that one line (``e.filename`` is often empty for a
  failed ``write``/``fsync``: the caller names the file), ending with what to do next: the caller says it
  (``olk run`` writes :data:`RERUN_RESUME`, which keeps what it finished; the default is to rerun the command).
* :class:`DirLock` holds an exclusive ``fcntl.flock`` on ``DIR/.lock`` while a command writes into a results
  directory: a second ``olk run`` on the same ``--out`` is refused in one line naming the PID that holds it.  The
  kernel releases the lock when the holder exits in any way (a SIGKILL too), so a stale lock never blocks;
  :func:`lock_holder` says who holds it now (``olk table`` on a live run names the run's PID).
* :func:`check_writable_dir` says in one line why a directory cannot be created or written, before anything is
  made, so a refused ``--out`` leaves nothing half-made.
* Nothing is written outside the directory a command writes into: every file is opened without following a
  symbolic link (``O_NOFOLLOW``; an atomic write's temporary file is created new, ``O_EXCL``), a file written in
  place (the run log, the lock) must be a regular file with no other name (a hard link), and a file replaced
  atomically must be a regular file or absent.  :func:`open_own` opens such a file, :func:`check_own_files`
  checks a results directory's files before a run starts; each refusal is one line naming the file and the fix.
* What olk reads back from a results directory is checked before it is trusted: :func:`record_problem` says whether
  a line of ``runs.jsonl`` is a run record olk wrote, and every record names the commit that computed it
  (:data:`RUN_PROVENANCE`): :func:`read_run_provenance` (the tables and reports) refuses a record that does not.
"""
from __future__ import annotations

import errno as _errno
import os
import secrets
import stat
from pathlib import Path

from .errors import OlkError

LOCK_NAME = ".lock"
#: the end of a write error of ``olk run`` (results directory, run log, tables): a rerun with --resume keeps the
#: finished runs
RERUN_RESUME = "then rerun with --resume (a run keeps what it finished)"


def write_error(path, e: OSError, what: str = "write", then: str = "then rerun the command") -> OlkError:
    """One line for an OSError while writing `path`: the file, the reason, the errno name, a fix and `then`, what
    to do after it (the command that wrote knows: :data:`RERUN_RESUME` for a run)."""
    code = _errno.errorcode.get(e.errno or 0, str(e.errno))
    reason = e.strerror or str(e) or code
    fix = {"ENOSPC": "free some disk space", "EDQUOT": "free some disk space (quota)",
           "EFBIG": "raise the file-size limit (ulimit -f)", "EACCES": "check the permissions",
           "EROFS": "the file system is read-only: choose another place",
           "EPERM": "check the permissions"}.get(code, "check the path")
    return OlkError(f"{path}: cannot {what} ({reason}, {code}): {fix}; {then}")


def not_own(path, st: os.stat_result | None, in_place: bool = False) -> OlkError | None:
    """The one-line refusal of a file olk would write (`st`: its ``os.lstat``, None when absent) that is not a
    file of its own: a symbolic link (writing would change the file it points to, outside the directory), a FIFO,
    a device, a socket or a directory; and, when it is written in place (`in_place`), a regular file with another
    name elsewhere (a hard link).  None when it may be written."""
    if st is None:
        return None
    mode = st.st_mode
    fix = "remove it (or choose another directory)"
    if stat.S_ISLNK(mode):
        return OlkError(f"{path}: is a symbolic link; olk never writes through one (it would change the file it "
                        f"points to): {fix}")
    if not stat.S_ISREG(mode):
        kind = ("a directory" if stat.S_ISDIR(mode) else "a FIFO (named pipe)" if stat.S_ISFIFO(mode) else
                "a socket" if stat.S_ISSOCK(mode) else "a device" if stat.S_ISCHR(mode) or stat.S_ISBLK(mode)
                else "not a regular file")
        return OlkError(f"{path}: is {kind}, not a regular file olk wrote: {fix}")
    if in_place and st.st_nlink > 1:
        return OlkError(f"{path}: has {st.st_nlink} names (a hard link to a file elsewhere); olk writes into it "
                        f"in place, which would change the other names too: {fix}")
    return None


def _lstat(path) -> os.stat_result | None:
    try:
        return os.lstat(path)
    except FileNotFoundError:
        return None


def open_own(path, flags: int, what: str = "open", then: str = "then rerun the command", mode: int = 0o644) -> int:
    """``os.open(path, flags)`` of a file of olk's own (see :func:`not_own`): never through a symbolic link
    (``O_NOFOLLOW``), never blocking on a FIFO (``O_NONBLOCK``, cleared once the file is known to be regular),
    refused in one line unless it is a regular file -- written with one name only when opened for writing.  Other
    OSErrors are :func:`write_error`'s line.  Returns the descriptor."""
    fd = _open_own(path, flags, what, then, mode, missing_ok=False)
    assert fd is not None
    return fd


def open_own_if_any(path, flags: int, what: str = "open", then: str = "then rerun the command") -> int | None:
    """:func:`open_own` of a file that may be absent: None then."""
    return _open_own(path, flags, what, then, 0o644, missing_ok=True)


def _open_own(path, flags: int, what: str, then: str, mode: int, missing_ok: bool) -> int | None:
    try:
        fd = os.open(path, flags | os.O_NOFOLLOW | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0), mode)
    except FileNotFoundError as e:
        if missing_ok:
            return None
        raise write_error(path, e, what, then) from None
    except OSError as e:
        if e.errno == _errno.ELOOP or (e.errno == _errno.ENXIO and _lstat(path) is not None):
            bad = not_own(path, _lstat(path))
            if bad is not None:
                raise bad from None
        raise write_error(path, e, what, then) from None
    try:
        st = os.fstat(fd)
        bad = not_own(path, st, in_place=bool(flags & (os.O_WRONLY | os.O_RDWR)))
        if bad is not None:
            raise bad
        import fcntl
        fcntl.fcntl(fd, fcntl.F_SETFL, fcntl.fcntl(fd, fcntl.F_GETFL) & ~os.O_NONBLOCK)
    except BaseException:
        os.close(fd)
        raise
    return fd


def check_size(path, size: int) -> None:
    """A file of a results directory larger than the ``results_file_bytes`` limit (:mod:`olk.limits`) is refused
    in one line before it is read."""
    from .limits import LIMITS
    lim = LIMITS["results_file_bytes"]
    if size > lim.value():
        raise OlkError(f"{path}: the file ({size:,} bytes) is " + lim.exceeded("larger than")
                       + "; is this an olk results directory?")


def read_own_bytes(path, fix: str) -> bytes | None:
    """The bytes of a file of a results directory (None when it is absent): opened by :func:`open_own` (no link,
    no FIFO) and no larger than ``results_file_bytes``; a refusal ends with `fix`."""
    try:
        fd = open_own_if_any(path, os.O_RDONLY, "read", fix)
    except OlkError as e:
        raise OlkError(f"{e}" if str(e).endswith(fix) else f"{e}; {fix}") from None
    if fd is None:
        return None
    with open(fd, "rb") as f:
        check_size(path, os.fstat(f.fileno()).st_size)
        try:
            return f.read()
        except OSError as e:
            raise write_error(path, e, "read", fix) from None


def read_json_object(path, fix: str) -> dict | None:
    """The JSON object a results file holds (experiment.json), None when the file is absent; anything else -- a
    link, a FIFO, a file beyond ``results_file_bytes``, bytes that are not UTF-8, not JSON or nested deeper than
    Python's parser goes, a JSON value that is not an object -- is one line naming the file, ending with `fix`."""
    raw = read_own_bytes(path, fix)
    if raw is None:
        return None
    import json
    try:
        value = json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError as e:
        raise OlkError(f"{path}: not UTF-8 text (byte {e.start:,}); {fix}") from None
    except json.JSONDecodeError as e:
        raise OlkError(f"{path} is not valid JSON (line {e.lineno} column {e.colno}: {e.msg}); {fix}") from None
    except RecursionError:
        raise OlkError(f"{path}: its JSON is nested too deeply to be one olk wrote; {fix}") from None
    if not isinstance(value, dict):
        raise OlkError(f"{path} must hold a JSON object {{...}}, not {_json_type(value)}; {fix}")
    return value


#: the keys of a run record (runs.jsonl) that say which tree computed it, not what it computed: ``commit`` (12 hex
#: digits, null outside a git checkout), ``dirty`` (uncommitted changes outside results/) and, for a record whose
#: commit was reconstructed from git history afterwards (tools/backfill_run_commits.py), ``commit_from``
#: (``history`` or ``history-ambiguous``), and ``machine`` (the CPU, cores, OS and Python that computed it, so the
#: time of each run names its own machine, not the last invocation's; records written before 2026-11-28 lack it).
#: Like ``time_s`` they are no part of a run's identity or result: no run id, resume match, regression baseline or
#: ``olk verify`` comparison reads them.
RUN_PROVENANCE = ("commit", "dirty", "commit_from", "machine")
COMMIT_FROM = ("history", "history-ambiguous")


#: the fields of a run record read back by a resumed run and by the tables: (name, the JSON types it may have); the
#: numbers include the other tasks' metrics (olk.experiment.store.TASK_COLUMNS)
RECORD_FIELDS = {**{k: (str,) for k in ("run_id", "phase", "dataset", "label")},
                 **{k: (str, type(None)) for k in ("algorithm", "display", "setting", "task", "experiment")},
                 **{k: (int, float, type(None)) for k in ("n_examples", "mistakes", "accuracy", "n_sv", "n_sv_last",
                                                          "n_updates", "time_s", "kernel_evals", "test_accuracy",
                                                          "train_time_s", "n_test", "perm", "seed", "scale", "fold",
                                                          "mse", "test_mse", "log_loss", "n_labels",
                                                          "label_efficiency")},
                 **{k: (dict, type(None)) for k in ("params", "summary", "test_accuracy_by_output", "curve",
                                                    "test_curve")}}
PHASES = ("tune", "match", "main")


def record_problem(rec) -> str | None:
    """Why `rec` (one line of runs.jsonl, parsed) is not a run record olk wrote, or None if it is one: a JSON
    object whose fields have the types olk writes (:data:`RECORD_FIELDS`), a known phase, learning curves whose
    value lists are as long as their ``t`` and provenance keys of their types (:func:`provenance_problem`)."""
    if not isinstance(rec, dict):
        return f"a JSON {type(rec).__name__}, not a run record"
    for key, types in RECORD_FIELDS.items():
        v = rec.get(key)
        required = types[-1] is not type(None)
        if (key in rec or required) and (type(v) not in types or (required and v == "")):
            return f"its '{key}' is {'missing' if key not in rec else repr(v)[:30]}"
    if rec["phase"] not in PHASES:
        return f"its phase {rec['phase'][:20]!r} is not one of {', '.join(PHASES)}"
    for key in ("curve", "test_curve"):
        c = rec.get(key) or {}
        t = c.get("t", [])
        if not isinstance(t, list) or any(not isinstance(v, list) or len(v) < len(t) for v in c.values()):
            return f"its '{key}' is not lists of one value per point"
    return provenance_problem(rec)


def provenance_problem(rec: dict) -> str | None:
    """Why the provenance keys a run record holds (:data:`RUN_PROVENANCE`) are not ones olk writes, or None: each
    present key of its type (an absent one is :func:`unattributed`'s business)."""
    commit = rec.get("commit")
    if "commit" in rec and commit is not None and not (isinstance(commit, str) and len(commit) == 12
                                                       and all(c in "0123456789abcdef" for c in commit)):
        return f"its 'commit' is {repr(commit)[:30]}, not 12 hex digits"
    if "dirty" in rec and rec["dirty"] is not None and not isinstance(rec["dirty"], bool):
        return f"its 'dirty' is {repr(rec['dirty'])[:30]}, not true or false"
    if "machine" in rec and rec["machine"] is not None and not (isinstance(rec["machine"], str) and rec["machine"]):
        return f"its 'machine' is {repr(rec['machine'])[:30]}, not a description of a machine"
    if "commit_from" in rec and rec["commit_from"] not in COMMIT_FROM:
        return f"its 'commit_from' is {repr(rec['commit_from'])[:30]}, not one of {', '.join(COMMIT_FROM)}"
    return None


def unattributed(rec: dict) -> bool:
    """True when a run record does not say which commit computed it (written before olk recorded it)."""
    return "commit" not in rec or "dirty" not in rec


#: how a results directory whose run records lack their commit is put right (the end of :func:`no_commit_error`)
BACKFILL_FIX = ("give its runs their commits from the git history of the results directory (python "
                "tools/backfill_run_commits.py DIR, in olk's checkout) or compute them again (olk run CONFIG --force)")


def no_commit_error(path, line: int, run_id, fix: str = BACKFILL_FIX) -> OlkError:
    """The one line refusing a run record that does not say which commit computed it."""
    return OlkError(f"{path}: line {line}: run {str(run_id)[:40]} does not record the commit that computed it "
                    f"(written before olk recorded each run's commit, or edited); {fix}")


_PROVENANCE_CACHE: dict = {}


def read_run_provenance(path, fix: str = BACKFILL_FIX) -> dict[str, dict]:
    """run_id -> ``{commit, dirty, commit_from}`` of every run record of the run log `path` (``runs.jsonl``; {} when
    absent), read as :func:`read_own_bytes` reads (no link, bounded).  A record without its commit is refused in one
    line naming the file, the line and `fix` (:func:`no_commit_error`); a line that is not a run record olk wrote (a
    torn write: :func:`record_problem`) is passed over, as ``olk run --resume`` passes over it.  Cached per file
    (size and modification time) for the process: a report reads each directory several times."""
    import json
    try:
        st = os.stat(path)
    except OSError:
        st = None
    key = (str(path), st.st_size, st.st_mtime_ns) if st is not None else None
    if key is not None and key in _PROVENANCE_CACHE:
        return _PROVENANCE_CACHE[key]
    raw = read_own_bytes(path, fix)
    if raw is None:
        return {}
    out: dict[str, dict] = {}
    for lineno, line in enumerate(raw.split(b"\n"), 1):
        if not line.strip():
            continue
        try:
            rec = json.loads(line.decode("utf-8"))
        except (UnicodeDecodeError, ValueError, RecursionError):
            continue
        if record_problem(rec) is not None:        # not a run record olk wrote: olk run --resume skips it too
            continue
        if unattributed(rec):
            raise no_commit_error(path, lineno, rec["run_id"], fix)
        out[rec["run_id"]] = {k: rec.get(k) for k in RUN_PROVENANCE}
    if key is not None:
        if len(_PROVENANCE_CACHE) >= 128:
            _PROVENANCE_CACHE.clear()
        _PROVENANCE_CACHE[key] = out
    return out


def _json_type(value) -> str:
    return {list: "a list", str: "a string", bool: "a boolean", int: "a number", float: "a number",
            type(None): "null"}.get(type(value), type(value).__name__)


def check_own_files(directory, names, then: str = "then rerun the command") -> None:
    """Before a command writes into `directory`: each of `names` there (files it writes; a name ending in ``/``
    is a directory it writes into) is absent or a file of olk's own (:func:`not_own`), else one line."""
    d = Path(directory)
    for name in names:
        path = d / name.rstrip("/")
        st = _lstat(path)
        if name.endswith("/"):
            if st is not None and not stat.S_ISDIR(st.st_mode):
                refusal = (OlkError(f"{path}: is a symbolic link; olk never writes into a linked directory (it "
                                    f"would write outside {d}): remove it") if stat.S_ISLNK(st.st_mode) else
                           OlkError(f"{path}: is a file, not a directory: remove it"))
                raise OlkError(f"{refusal}; {then}")
            continue
        bad = not_own(path, st, in_place=name in _IN_PLACE)
        if bad is not None:
            raise OlkError(f"{bad}; {then}")


#: the files of a results directory written in place (appended to, truncated), not replaced atomically
_IN_PLACE = {"runs.jsonl", ".lock"}


def atomic_write(path, write, then: str = "then rerun the command") -> Path:
    """Call ``write(f)`` on a binary file beside `path` and rename it over `path` (``os.replace``); a failed write
    leaves `path` as it was and raises :func:`write_error`'s one line (ending with `then`).  The temporary file is
    created new (``O_EXCL``, never through a link) and `path` must be absent or a regular file (:func:`not_own`):
    a symbolic link there is refused in one line, not replaced nor written through."""
    path = Path(path)
    bad = not_own(path, _lstat(path))
    if bad is not None:
        raise OlkError(f"{bad}; {then}")
    tmp = path.with_name(f".{path.name}.{os.getpid()}.{secrets.token_hex(4)}.tmp")
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0), 0o666)
    except OSError as e:
        raise write_error(path, e, then=then) from None
    try:
        with open(fd, "wb") as f:
            write(f)
            f.flush()
        os.replace(tmp, path)
    except OSError as e:
        try:
            tmp.unlink()
        except OSError:
            pass
        raise write_error(path, e, then=then) from None
    except BaseException:
        try:
            tmp.unlink()
        except OSError:
            pass
        raise
    return path


def atomic_write_text(path, text: str, encoding: str = "utf-8", then: str = "then rerun the command") -> Path:
    """Write `text` to `path` atomically (:func:`atomic_write`)."""
    return atomic_write(path, lambda f: f.write(text.encode(encoding)), then)


def check_writable_dir(path, option: str = "--out") -> None:
    """Refuse, in one line naming `path` and the fix, a directory that cannot be created or written: an existing
    regular file on the way, a parent without write permission, a read-only file system.  Creates nothing."""
    p = Path(path).expanduser()
    probe = p
    while True:
        try:
            st_exists = probe.exists() or probe.is_symlink()
        except OSError:
            st_exists = False
        if st_exists:
            break
        if probe.parent == probe:
            break
        probe = probe.parent
    if probe.exists() and not probe.is_dir():
        where = "is" if probe == p else f"is under {probe}, which is"
        raise OlkError(f"{option} {path}: {where} a file, not a directory; choose another {option}")
    if not os.access(probe, os.W_OK | os.X_OK):
        what = "cannot be written" if probe == p else f"cannot be created: {probe} is not writable"
        raise OlkError(f"{option} {path}: {what} (permission denied); choose a writable {option}")


def lock_holder(directory) -> str | None:
    """The PID (as written in ``DIR/.lock``) of the process that holds `directory`'s :class:`DirLock` now, else
    None (no lock file, or nobody holds it: a lock dies with its holder).  Creates nothing."""
    import fcntl
    try:
        fd = os.open(Path(directory) / LOCK_NAME, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError:
        return None
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except OSError:
            return os.read(fd, 64).decode("ascii", "replace").strip() or "?"
        fcntl.flock(fd, fcntl.LOCK_UN)
        return None
    finally:
        os.close(fd)


class DirLock:
    """An exclusive, non-blocking ``flock`` on ``DIR/.lock`` (with the holder's PID in it) for as long as the
    ``with`` block runs; a second holder gets one line naming the directory and the PID."""

    def __init__(self, directory, what: str = "olk run"):
        self.dir = Path(directory)
        self.what = what
        self.fd: int | None = None

    def __enter__(self) -> "DirLock":
        import fcntl
        path = self.dir / LOCK_NAME
        fd = open_own(path, os.O_RDWR | os.O_CREAT, "create the lock file")
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            try:
                holder = os.read(fd, 64).decode("ascii", "replace").strip() or "?"
            except OSError:
                holder = "?"
            os.close(fd)
            raise OlkError(f"{self.dir} is in use by another {self.what} (pid {holder}); wait for it to finish, "
                           f"or choose another --out") from None
        os.ftruncate(fd, 0)
        os.write(fd, f"{os.getpid()}\n".encode())
        self.fd = fd
        return self

    def __exit__(self, *exc) -> None:
        if self.fd is not None:
            os.close(self.fd)           # releases the lock; the file stays (removing it would race a new holder)
            self.fd = None


__all__ = ["atomic_write", "atomic_write_text", "write_error", "RERUN_RESUME", "check_writable_dir", "DirLock",
           "lock_holder", "LOCK_NAME", "open_own", "open_own_if_any", "not_own", "check_own_files", "check_size",
           "read_own_bytes", "read_json_object", "RUN_PROVENANCE", "COMMIT_FROM", "provenance_problem", "unattributed",
           "no_commit_error", "read_run_provenance", "BACKFILL_FIX", "RECORD_FIELDS", "PHASES", "record_problem"]

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
"""
from __future__ import annotations

import errno as _errno
import os
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


def atomic_write(path, write, then: str = "then rerun the command") -> Path:
    """Call ``write(f)`` on a binary file beside `path` and rename it over `path` (``os.replace``); a failed write
    leaves `path` as it was and raises :func:`write_error`'s one line (ending with `then`)."""
    path = Path(path)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        with open(tmp, "wb") as f:
            write(f)
            f.flush()
        os.replace(tmp, path)
    except OSError as e:
        try:
            tmp.unlink()
        except OSError:
            pass
        raise write_error(path, e, then=then) from None
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
        fd = os.open(Path(directory) / LOCK_NAME, os.O_RDONLY)
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
        try:
            fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
        except OSError as e:
            raise write_error(path, e, "create the lock file") from None
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
           "lock_holder", "LOCK_NAME"]

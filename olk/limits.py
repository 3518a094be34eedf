"""Every size limit olk checks on its input, in one place: name, default, what it refuses, and how to raise it.

Each input olk reads is bounded *before* memory is spent on it, counted in the unit that memory is spent in: a
YAML document by the bytes it expands to (an alias is counted each time it is used), a model file by the sizes
its zip directory and ``.npy`` headers declare, a data file by the length of one line.  A refused input is one
line naming the file (and line or key), the limit and how to raise it; exit status 2 (docs/guide/limits.md lists
every message).

A limit is raised for one command with ``olk --limit NAME=VALUE ...`` (before the command, repeatable) or for a
shell with the environment variable ``OLK_LIMIT_<NAME>`` (``OLK_LIMIT_LINE_BYTES=64M``); sizes as
:func:`olk.units.parse_size` reads them (``64M``, ``2G``, ``50%`` of the machine's memory), ``0`` for no limit.
The option sets the variable, so worker processes see the same limits.

>>> LIMITS["line_bytes"].value() == 16 * 2**20, LIMITS["line_bytes"].env
(True, 'OLK_LIMIT_LINE_BYTES')
>>> print("seed: an integer of 5,000 digits is " + LIMITS["yaml_int_digits"].exceeded("more than"))
seed: an integer of 5,000 digits is more than olk's limit of 100 digits (raise it with
--limit yaml_int_digits=N or OLK_LIMIT_YAML_INT_DIGITS)
"""
from __future__ import annotations

import os
import sys
from dataclasses import dataclass

from .errors import ConfigError, did_you_mean
from .units import fmt, parse_size


@dataclass(frozen=True)
class Limit:
    """One limit: its ``name`` (``--limit NAME=...``), its ``default``, its ``unit`` ("bytes", "digits",
    "levels", "entries" or "runs") and what it refuses (``refuses``, for the documentation and ``olk --limit help``)."""

    name: str
    default: int
    unit: str
    refuses: str

    @property
    def env(self) -> str:
        """The environment variable that raises it: ``OLK_LIMIT_<NAME>``."""
        return f"OLK_LIMIT_{self.name.upper()}"

    def value(self) -> int:
        """The limit in force: ``$OLK_LIMIT_<NAME>`` if set (0: no limit), else the default."""
        text = os.environ.get(self.env, "").strip()
        if not text:
            return self.default
        n = self.parse(text, self.env)
        return sys.maxsize if n == 0 else n

    def parse(self, text, where: str) -> int:
        """A value of this limit as written (``64M`` for bytes, ``200`` for a count); one line if it is not one."""
        if self.unit == "bytes":
            return parse_size(text, where)
        try:
            n = int(str(text).strip())
        except ValueError:
            n = -1
        if n < 0:
            raise ConfigError(f"{where}: {str(text)[:40]!r} is not a number of {self.unit}; give e.g. "
                              f"{self.default} (0: no limit)")
        return n

    def show(self, n: int | None = None) -> str:
        """`n` (default: the limit in force) in this limit's unit: ``16 MB``, ``100 digits``."""
        n = self.value() if n is None else n
        if n >= sys.maxsize:
            return "no limit"
        return fmt(n) if self.unit == "bytes" else f"{n:,} {self.unit}"

    def exceeded(self, relation: str = "beyond", note: str = "") -> str:
        """The end of the one-line error for an input beyond this limit: ``<relation> olk's limit of <value>
        [<note>] (raise it with ...)``, e.g. ``more than olk's limit of 100 digits (raise it with --limit
        yaml_int_digits=N or OLK_LIMIT_YAML_INT_DIGITS)``."""
        return (f"{relation} olk's limit of {self.show()}{' ' + note if note else ''} (raise it with --limit "
                f"{self.name}=N or {self.env})")


_ALL = (
    Limit("config_bytes", 1 << 20, "bytes",
          "a YAML text longer than this: a config file, a dataset registry, report notes, a --set or --kernel "
          "value"),
    Limit("yaml_expanded_bytes", 16 << 20, "bytes",
          "a YAML document whose anchors and aliases expand to more bytes than this (every alias counted as "
          "the text it stands for), checked before any value is built: an alias bomb"),
    Limit("yaml_int_digits", 100, "digits",
          "an integer in YAML (decimal, 0x hex, 0o octal, 1:2:3 sexagesimal) with more digits than this"),
    Limit("line_bytes", 16 << 20, "bytes",
          "a line of a LIBSVM data file or of standard input longer than this (memory holds one line at most)"),
    Limit("planned_runs", 100_000, "runs",
          "an experiment planning more runs than this (datasets x entries x sweep points x tuning candidates and "
          "repeats), counted from the config's numbers before any plan is built"),
    Limit("dense_row_bytes", 256 << 20, "bytes",
          "data whose rows, as one dense float64 row (8 bytes a feature, up to the largest feature index), are larger "
          "than this: every learner holds at least one such row"),
    Limit("model_bytes", 1 << 30, "bytes", "a model file larger than this on disk"),
    Limit("model_expanded_bytes", 4 << 30, "bytes",
          "a model file whose entries add up to more than this uncompressed (as its zip directory declares, "
          "read before any entry)"),
    Limit("model_entries", 10_000, "entries",
          "a model file with more entries than this (its zip end record, read first; a learner writes 6 to 20)"),
    Limit("model_directory_bytes", 4 << 20, "bytes",
          "a model file whose zip directory (the list of its entries, read before any entry) is larger than this"),
    Limit("model_meta_bytes", 64 << 20, "bytes", "a model file's JSON document (its __meta__ entry) larger than this"),
    Limit("model_json_depth", 100, "levels", "a model file's JSON document nested deeper than this"),
    Limit("results_file_bytes", 256 << 20, "bytes",
          "a file of a results directory that olk reads back (runs.jsonl, experiment.json, runs.csv, curves.csv, "
          "test_curves.csv) larger than this"),
)
#: every limit, by name
LIMITS: dict[str, Limit] = {lim.name: lim for lim in _ALL}


def limit(name: str) -> int:
    """The value in force of the limit `name` (:data:`LIMITS`)."""
    return LIMITS[name].value()


def set_limit(assignment: str) -> None:
    """``NAME=VALUE`` (the CLI's ``--limit``): checked, then set as ``$OLK_LIMIT_<NAME>`` for this process and the
    processes it starts."""
    name, sep, value = assignment.partition("=")
    name = name.strip().replace("-", "_")
    if not sep or name not in LIMITS:
        raise ConfigError(f"--limit {assignment}: expected NAME=VALUE with NAME one of {', '.join(LIMITS)}"
                          f"{did_you_mean(name, LIMITS) if name else ''}")
    lim = LIMITS[name]
    lim.parse(value, f"--limit {name}")
    os.environ[lim.env] = value.strip()


__all__ = ["Limit", "LIMITS", "limit", "set_limit"]

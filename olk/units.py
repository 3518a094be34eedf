"""Byte sizes as people write them (12G, 500M, 80%) and as olk prints them (512 MB, 3.2 GB): one parser and one
formatter for every size olk reads or prints (``--memory-limit``, ``memory_limit:``, ``$OLK_CACHE_MAX``, ``olk
datasets list``, ``olk cache info``).

>>> parse_size("1.5G", "--memory-limit"), parse_size("500M", "x"), parse_size(0, "x")
(1610612736, 524288000, 0)
>>> fmt(3 * 2**30), fmt(512 * 2**20), fmt(100)
('3.0 GB', '512 MB', '100 B')
"""
from __future__ import annotations

import math
import os
import re

from .errors import ConfigError

_UNITS = {"": 1, "b": 1, "k": 2**10, "m": 2**20, "g": 2**30, "t": 2**40}
_SIZE = re.compile(r"^\s*([0-9]*\.?[0-9]+)\s*([kmgt]?)(i?b)?\s*$", re.IGNORECASE)


def physical_memory() -> int:
    """The machine's memory in bytes (os.sysconf, i.e. /proc/meminfo's MemTotal), or a smaller cgroup v2/v1
    limit of this process; 0 if unknown."""
    try:
        total = int(os.sysconf("SC_PAGE_SIZE")) * int(os.sysconf("SC_PHYS_PAGES"))
    except (ValueError, OSError, AttributeError):
        total = 0
    for f in ("/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"):
        try:
            with open(f) as fh:
                text = fh.read().strip()
        except OSError:
            continue
        if text.isdigit() and 0 < int(text) < (total or float("inf")):
            total = int(text)
    return total


def parse_size(value, where: str, zero: str = "no limit") -> int:
    """A size in bytes: 12G, 500M, 1.5T, 123456 (bytes), 50% (of the machine's memory); 0 or none (returned as
    0) means `zero`.  A bad value is a one-line ConfigError naming ``where``."""
    if isinstance(value, bool):
        raise ConfigError(f"{where}: expected a size such as 12G, 500M or 80% (0 or none: {zero}), got {value!r}")
    if isinstance(value, (int, float)):
        if not math.isfinite(value) or value < 0:
            raise ConfigError(f"{where}: expected a size such as 12G, 500M or 80% (0 or none: {zero}), "
                              f"got {value!r}")
        return int(value)
    text = str(value).strip()
    if text.lower() in ("none", "off", "no", "0"):
        return 0
    if text.endswith("%"):
        try:
            pct = float(text[:-1])
        except ValueError:
            pct = -1.0
        if not 0 < pct <= 100:
            raise ConfigError(f"{where}: {text!r}: a percentage of the machine's memory must be in (0, 100]")
        return int(physical_memory() * pct / 100)
    m = _SIZE.match(text)
    if not m:
        raise ConfigError(f"{where}: {text[:40]!r} is not a size; give e.g. 12G, 500M, 1.5T, 80% or 0 ({zero})")
    return int(float(m.group(1)) * _UNITS[m.group(2).lower()])


def fmt(n: float) -> str:
    """Bytes as 512 MB / 3.2 GB (powers of 1024)."""
    for unit, size in (("TB", 2**40), ("GB", 2**30), ("MB", 2**20), ("KB", 2**10)):
        if n >= size:
            return f"{n / size:.1f} {unit}" if n < 10 * size else f"{n / size:.0f} {unit}"
    return f"{int(n)} B"

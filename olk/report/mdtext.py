"""Markdown text helpers of the report: escaping, code spans, anchors, relative links, pipe tables."""
from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any
from urllib.parse import quote


def md_escape(s: Any) -> str:
    """Text safe inside Markdown prose and pipe tables."""
    return re.sub(r"([\\`*\[\]|<])", r"\\\1", str(s))


def code(s: Any) -> str:
    """``s`` as a Markdown code span (double backticks when it holds one)."""
    s = str(s)
    tick = "``" if "`" in s else "`"
    return f"{tick}{s}{tick}" if tick == "`" else f"`` {s} ``"


def anchor(paper: str, table: str) -> str:
    """The HTML id of a published table's section: 'spa-tist2018-table2'."""
    return re.sub(r"[^a-z0-9]+", "-", f"{paper}-table{table}".lower()).strip("-")


def link_path(target: Path, base: Path) -> str:
    """A relative URL from the directory ``base`` to ``target``."""
    return quote(os.path.relpath(target, base).replace(os.sep, "/"), safe="/._-~")


def shown(p: Path, root: Path | None) -> str:
    """``p`` relative to the project root when inside it."""
    if root is not None:
        try:
            return p.resolve().relative_to(root.resolve()).as_posix()
        except ValueError:
            pass
    return str(p)


def table_md(header: list[str], rows: list[list[str]], align: list[str]) -> list[str]:
    """A pipe table: header, alignment row (':---', '---:'), one line per row."""
    out = ["| " + " | ".join(header) + " |", "|" + "|".join(align) + "|"]
    out += ["| " + " | ".join(r) + " |" for r in rows]
    return out

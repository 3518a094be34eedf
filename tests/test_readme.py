"""Every ```python block of README.md runs as written.

Each block runs in a fresh temporary directory (the current directory during the run) that holds what the
README's examples refer to: ``datasets/`` (the repository's ``datasets/`` with the bundled samples) and
``my_data.libsvm.bz2`` (the a9a-small sample, bz2-compressed, standing in for "your own file").  Blocks that
load a full registry dataset (e.g. ``load_dataset("a9a")``) find it along olk's usual search path
(``../shared/datasets``); where it is absent the block is skipped, never fetched.  ```bash, ```yaml and
plain ``` blocks (shell commands, configs, output) are not executed.
"""
from __future__ import annotations

import bz2
import lzma
import os
import re
import shutil
from pathlib import Path

import pytest

from olk.data import find_file, get_registry

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
SAMPLE = ROOT / "datasets" / "samples" / "a9a-small.libsvm.xz"


def python_blocks(text: str) -> list[tuple[int, str]]:
    """(first line number, code) of every fenced block whose info string is exactly 'python'."""
    out, lines, k = [], text.splitlines(), 0
    while k < len(lines):
        if lines[k].strip() == "```python":
            start, body = k + 2, []
            k += 1
            while k < len(lines) and lines[k].strip() != "```":
                body.append(lines[k])
                k += 1
            out.append((start, "\n".join(body) + "\n"))
        k += 1
    return out


BLOCKS = python_blocks(README.read_text(encoding="utf-8"))


def test_readme_has_python_examples():
    assert len(BLOCKS) >= 2
    assert any("partial_fit" in code for _, code in BLOCKS)        # the "Use olk on your data" examples


def test_block_extraction_ignores_other_languages():
    text = "```bash\nmake demo\n```\n\n```python\nx = 1\n```\n```\n| a | b |\n```\n```yaml\nk: v\n```\n"
    assert python_blocks(text) == [(6, "x = 1\n")]


@pytest.fixture
def readme_dir(tmp_path, monkeypatch):
    try:
        os.symlink(ROOT / "datasets", tmp_path / "datasets", target_is_directory=True)
    except OSError:                                   # pragma: no cover - no symlinks on this filesystem
        shutil.copytree(ROOT / "datasets" / "samples", tmp_path / "datasets" / "samples")
    with lzma.open(SAMPLE) as fh:
        (tmp_path / "my_data.libsvm.bz2").write_bytes(bz2.compress(fh.read()))
    monkeypatch.chdir(tmp_path)
    return tmp_path


def missing_datasets(code: str) -> list[str]:
    """Registry datasets that `code` loads by name whose default parts' files are not on this machine."""
    reg = get_registry()
    names = {n for n in re.findall(r"load_dataset\(\s*[\"']([^\"']+)[\"']", code) if n in reg}
    return sorted(n for n in names
                  if any(find_file(f.path) is None for s in reg[n].default_split for f in reg[n].parts[s].files))


@pytest.mark.parametrize("line,code", BLOCKS, ids=[f"README.md:{n}" for n, _ in BLOCKS])
def test_readme_python_block_runs(line, code, readme_dir, capsys):
    if re.search(r"^\s*(import|from) (river|olk\.river)\b", code, re.M):
        pytest.importorskip("river")                  # an optional extra (pip install olk[river])
    missing = missing_datasets(code)
    if missing:
        pytest.skip(f"README.md:{line} loads {', '.join(missing)}, not present offline here")
    exec(compile(code, f"README.md:{line}", "exec"), {"__name__": "__readme__"})

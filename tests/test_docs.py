"""The documentation: every ```python block of README.md and the site's pages (docs/) runs as written, every
registered learner has its generated section, every config key its reference entry, and the README and the home
page point where they promise.

Each block runs in a fresh temporary directory (the current directory during the run) that holds what the
examples refer to: ``datasets/`` (the repository's ``datasets/`` with the bundled samples) and
``my_data.libsvm.bz2`` (the a9a-small sample, bz2-compressed, standing in for "your own file").  Blocks that
load a full registry dataset (e.g. ``load_dataset("a9a")``) find it along olk's usual search path
(``../shared/datasets``); where it is absent the block is skipped, never fetched.  A block whose first line is
``# docs: skip-in-ci REASON`` is skipped when the ``CI`` environment variable is set, with that reason.
A block with a relative import (``from ..registry import ...``) is a module template: it is
skipped.  ```bash, ```yaml, ```pycon (docstring examples: tests/test_doctests.py runs them) and plain ``` blocks are
not executed.  ``mkdocs build --strict`` (run by ``make test`` before pytest) checks the links and the nav.
"""
from __future__ import annotations

import bz2
import importlib.util
import lzma
import os
import re
import shutil
from pathlib import Path

import pytest

from olk.algorithms import REGISTRY
from olk.data import find_file, get_registry

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
DOCS = ROOT / "docs"
SAMPLE = ROOT / "datasets" / "samples" / "a9a-small.libsvm.xz"
#: the hand-written pages (docs/_gen holds the generator; the family notes are pages' parts, run too)
PAGES = [README] + sorted(p for p in DOCS.rglob("*.md") if "_gen" not in p.parts)
SKIP_IN_CI = re.compile(r"^#\s*docs:\s*skip-in-ci\b\s*(.*)$")


def _hooks():
    spec = importlib.util.spec_from_file_location("olk_docs_hooks", DOCS / "_gen" / "hooks.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


HOOKS = _hooks()


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


def _name(page: Path) -> str:
    return page.relative_to(ROOT).as_posix()


BLOCKS = [(_name(p), n, code) for p in PAGES for n, code in python_blocks(p.read_text(encoding="utf-8"))]


def _text(rel: str) -> str:
    return (ROOT / rel).read_text(encoding="utf-8")


def test_the_usage_pages_have_python_examples():
    assert len(BLOCKS) >= 8
    by_page = {}
    for page, _, code in BLOCKS:
        by_page.setdefault(page, []).append(code)
    assert any("GridSearchCV" in c for c in by_page["docs/guide/sklearn.md"])         # use with scikit-learn
    assert any("partial_fit" in c for c in by_page["docs/guide/learners.md"])         # the learners underneath
    assert any("learn_one" in c for c in by_page["docs/guide/learners.md"])           # one example at a time
    assert any("olk.river" in c for c in by_page["docs/guide/river.md"])              # use with River
    assert any("olk.save" in c and "olk.load" in c for c in by_page["docs/guide/train-predict.md"])   # saving


def test_block_extraction_ignores_other_languages():
    text = "```bash\nmake demo\n```\n\n```python\nx = 1\n```\n```\n| a | b |\n```\n```yaml\nk: v\n```\n"
    assert python_blocks(text) == [(6, "x = 1\n")]


@pytest.fixture
def example_dir(tmp_path, monkeypatch):
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


@pytest.mark.parametrize("page,line,code", BLOCKS, ids=[f"{p}:{n}" for p, n, _ in BLOCKS])
def test_python_block_runs(page, line, code, example_dir):
    first = code.splitlines()[0] if code.strip() else ""
    marked = SKIP_IN_CI.match(first.strip())
    if marked and os.environ.get("CI"):
        pytest.skip(f"{page}:{line} is marked skip-in-ci: {marked.group(1) or 'no reason given'}")
    if re.search(r"^\s*from \.", code, re.M):
        pytest.skip(f"{page}:{line} is a module template (relative imports run only inside a package)")
    if re.search(r"^\s*(import|from) (river|olk\.river)\b", code, re.M):
        pytest.importorskip("river")                  # an optional extra (pip install olk[river])
    missing = missing_datasets(code)
    if missing:
        pytest.skip(f"{page}:{line} loads {', '.join(missing)}, not present offline here")
    exec(compile(code, f"{page}:{line}", "exec"), {"__name__": "__docs__"})


# ------------------------------------------------------------------------------------------------ generated pages
def test_every_registered_learner_has_a_generated_section():
    fams = HOOKS.families()
    listed = [n for names in fams.values() for n in names]
    own = sorted(n for n in REGISTRY if REGISTRY[n].__module__.startswith("olk.algorithms."))
    assert sorted(listed) == own
    index = HOOKS.algorithms_index(fams)
    for fid, names in fams.items():
        page = HOOKS.family_page(fid, names)
        for name in names:
            assert f"## `{name}` — " in page and f"{{ #{name} }}" in page, f"{name} has no section on {fid}.md"
            cls = REGISTRY[name]
            section = page.split(f"{{ #{name} }}", 1)[1].split("\n## `", 1)[0]
            for p in cls.params:                                        # every parameter, with its default
                assert f"| `{p.name}` |" in section, f"{name}.{p.name} missing from its page"
            assert "scikit-learn" in section and "River" in section and "reproducibility" in section
        assert f"]({fid}.md)" in index
    assert set(f"algorithms/{fid}.md" for fid in fams) <= {v for item in HOOKS._expand(["algorithms/*.md"], {})
                                                          for v in item.values()}


def test_a_learner_without_a_page_would_fail():
    """The check above is not vacuous: a learner the generator does not know has no section."""
    page = HOOKS.family_page("single", ["spa"])
    assert "{ #spa }" in page and "{ #perceptron }" not in page


def test_every_config_key_has_a_reference_entry():
    ref = HOOKS.config_reference()
    keys = HOOKS.config_keys()
    assert ("ConfigFile", "datasets") in keys and ("DatasetSpec", "holdout") in keys and len(keys) >= 40
    for struct, key in keys:
        row = next((ln for ln in ref.splitlines() if f'<a id="{struct.lower()}-{key}"></a>`{key}`' in ln), None)
        assert row is not None, f"{struct}.{key} has no entry in the config reference"
        cells = [c.strip() for c in row.split(" | ")]
        assert len(cells) == 4 and all(cells[1:3]), f"{struct}.{key}: type or default missing: {row}"
        meaning, _, example = cells[3].partition("<br>e.g. ")
        assert meaning and example.strip(" |"), f"{struct}.{key}: no meaning or no example: {row}"


def test_the_report_is_split_without_losing_a_line():
    text = (ROOT / "results" / "REPRODUCTION.md").read_text(encoding="utf-8")
    parts = HOOKS.split_report(text)
    assert parts[0][0] == "index" and len(parts) >= 3
    body = [ln for _, _, md in parts for ln in md.splitlines()]
    missing = [ln for ln in text.splitlines() if ln.strip() and ln not in body]
    assert missing == []
    pages = HOOKS.reproduction_pages()
    figures = set(re.findall(r"!\[[^\]]*\]\(([^)]+\.png)\)", text))
    present = {f for f in figures if (ROOT / "results" / f).is_file()}
    assert present and {p for p in pages if p.endswith(".png")} == {f"reproduction/files/results/{f}" for f in present}
    shown = "".join(v for v in pages.values() if isinstance(v, str))
    assert all(f"figure not found: `results/{f}`" in shown for f in figures - present)


# ------------------------------------------------------------------------------------------------ README and home
def test_readme_is_short_and_its_links_resolve():
    text = README.read_text(encoding="utf-8")
    assert len(text.splitlines()) <= 250
    for target in re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", text):
        if not re.match(r"^[a-z]+://", target):
            assert (ROOT / target).exists(), f"README links to {target}, which does not exist"
    assert "make demo" in text and "make test" in text and "make docs" in text


@pytest.mark.parametrize("target", ["guide/running.md#run-a-paper-table", "contributing/developing.md",
                                    "guide/sklearn.md", "guide/river.md", "guide/exit-codes.md", "speed/latest.md"])
def test_the_home_page_reaches_each_task_in_one_click(target):
    """Issue 37's promise: run a paper table, add a learner, use with scikit-learn, use with River, exit codes and
    the latest speed figures are one click from the home page."""
    assert f"]({target})" in _text("docs/index.md")


def test_every_page_is_in_the_nav():
    """mkdocs --strict reports a page outside the nav; this names the hand-written ones without a build."""
    nav = _text("mkdocs.yml").split("\nnav:", 1)[1]
    hand = [p.relative_to(DOCS).as_posix() for p in DOCS.rglob("*.md")
            if "_gen" not in p.parts and "notes" not in p.relative_to(DOCS).parts[:2]]
    assert [p for p in hand if p not in nav] == []


def test_a_page_includes_the_last_committed_bench_tables():
    """docs/speed.md's numbers are those of results/bench/, never copied by hand: the include marker becomes the
    file's tables, and a missing file says so."""
    page = (DOCS / "speed.md").read_text(encoding="utf-8")
    assert "<!-- olk:bench core.md -->" in page
    out = HOOKS.on_page_markdown("before\n<!-- olk:bench core.md -->\nafter", page=None, config=None, files=None)
    table = [ln for ln in out.splitlines() if ln.startswith("| ")]
    bench = (DOCS.parent / "results" / "bench" / "core.md").read_text(encoding="utf-8")
    assert table and all(ln in bench for ln in table) and "olk:bench" not in out
    missing = HOOKS.on_page_markdown("<!-- olk:bench nothing-here.md -->", page=None, config=None, files=None)
    assert "No `results/bench/nothing-here.md` yet" in missing



def test_a_bench_file_with_several_tables_keeps_their_headings(tmp_path, monkeypatch):
    """A results/bench file with one table per dataset (``olk bench ecosystem``) is included with the headings naming
    its tables; its other text lines stay out of the page (speed/latest.md shows them as text)."""
    assert "<!-- olk:bench ecosystem.md -->" in (DOCS / "speed.md").read_text(encoding="utf-8")
    (tmp_path / "bench").mkdir()
    (tmp_path / "bench" / "multi.md").write_text("settings\n\n### River: Phishing\n\nhow it ran\n\n| a |\n|---|\n"
                                                 "| 1 |\n\n### scikit-learn: digits\n\n| b |\n|---|\n| 2 |\n")
    monkeypatch.setattr(HOOKS, "RESULTS", tmp_path)
    out = HOOKS.on_page_markdown("<!-- olk:bench multi.md -->", page=None, config=None, files=None).splitlines()
    assert out[3] == "settings"
    body = [ln for ln in out[6:] if ln.strip()]
    assert body == ["### River: Phishing", "| a |", "|---|", "| 1 |", "### scikit-learn: digits", "| b |", "|---|",
                    "| 2 |"]
    assert "how it ran" in HOOKS.speed_latest()

"""The generated pages of olk's documentation site, as MkDocs hooks (``hooks:`` in mkdocs.yml).

Every page here is written at build time from what the code and the results say, so it cannot fall behind them:

* ``algorithms/index.md`` and one page per learner family (``algorithms/<family>.md``), from the registry
  (:mod:`olk.algorithms.registry`): every learner's paper and algorithm, its parameters with types and defaults,
  its scikit-learn and River classes, its runnable ``>>>`` example and its reproducibility class, plus the family's
  hand-written notes (``docs/algorithms/notes/<family>.md``, when there are any);
* ``guide/config-reference.md``, from the config schema (:mod:`olk.experiment.schema`): every key with its type,
  default, range and an example taken from the committed configs;
* ``guide/cli.md``, every command's ``--help`` (:mod:`olk.cli`);
* ``reproduction/*.md``, ``results/REPRODUCTION.md`` split by paper (it holds the notes of ``results/notes/``),
  with its figures (the PNG files under ``results/``);
* ``speed/latest.md``, the files of ``results/bench/``; a hand-written page's ``<!-- olk:bench NAME -->`` becomes the
  tables of ``results/bench/NAME`` (:func:`on_page_markdown`), its ``<!-- olk:results DIR/FILE -->`` a committed
  results directory's table, statistics (``.md``) or figure (``.png``);
* ``contributing/developing.md``, a copy of ``olk/algorithms/DEVELOPING.md``; ``contributing/tests.md``, every test
  file with the first sentence of its docstring.

``mkdocs.yml``'s nav names a generated group by a pattern (``algorithms/*.md``, ``reproduction/*.md``) that
:func:`on_config` replaces with the generated pages.  ``tests/test_docs.py`` imports this module to check that
every registered learner has its section and every config key its entry.
"""
from __future__ import annotations

import csv
import importlib
import inspect
import io
import posixpath
import re
import subprocess
import textwrap
from pathlib import Path
from typing import Any, Union, get_args, get_origin

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
RESULTS = ROOT / "results"

Content = Union[str, Path]          # a page's Markdown text, or a file copied as it is (a figure)


# ------------------------------------------------------------------------------------------------ Markdown helpers
_ROLE = re.compile(r":(?:py:)?(?:mod|class|func|meth|data|attr|obj|exc|ref|term):`~?([^`]+)`")


def md_text(text: str) -> str:
    """Docstring prose as Markdown: reST roles and ``literals`` become code spans; outside code spans the
    characters Markdown would read as emphasis or HTML (``*``, ``_``, ``<``, ``[``) are escaped, so ``f_t`` and
    ``a * b`` read as written."""
    text = _ROLE.sub(lambda m: f"`{m.group(1).split('.')[-1] if m.group(0).count('~') else m.group(1)}`", text)
    text = re.sub(r"``([^`]+)``", r"`\1`", text)
    out = []
    for k, part in enumerate(re.split(r"(`[^`]*`)", text)):
        if k % 2:
            out.append(part)
        else:
            part = re.sub(r"(?<!\n)(?<!^)\*", r"\\*", part)                 # keep "* " bullets at line start
            part = re.sub(r"(^|\n)(\s*)([#>])", r"\1\2\\\3", part)         # "#SV = ..." is not a heading
            out.append(part.replace("_", r"\_").replace("<", "&lt;").replace("[", r"\["))
    return "".join(out)


def md_cell(text: Any) -> str:
    """A value in a Markdown table cell: one line, pipes escaped."""
    return md_text(" ".join(str(text).split())).replace("|", r"\|")


def code_cell(text: Any) -> str:
    """A value shown as code in a table cell (backticks doubled when the value holds one)."""
    s = " ".join(str(text).split()).replace("|", r"\|")
    return f"`` {s} ``" if "`" in s else f"`{s}`"


def paragraphs(doc: str) -> list[str]:
    return [p for p in re.split(r"\n\s*\n", inspect.cleandoc(doc or "")) if p.strip()]


def prose_and_example(doc: str) -> tuple[str, str]:
    """A module docstring split into its prose (up to the first ``>>>``) and its doctest example."""
    doc = inspect.cleandoc(doc or "")
    k = doc.find(">>>")
    if k < 0:
        return doc, ""
    start = doc.rfind("\n", 0, k) + 1
    return doc[:start].strip(), doc[start:].strip()


def slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")


def git_date(path: Path) -> str:
    """The date of the last commit that changed ``path`` (empty outside a git checkout)."""
    try:
        out = subprocess.run(["git", "log", "-1", "--format=%cs", "--", str(path)], cwd=ROOT, capture_output=True,
                             text=True, timeout=20)
    except (OSError, subprocess.SubprocessError):
        return ""
    return out.stdout.strip()


# ------------------------------------------------------------------------------------------------ algorithms
def _family_order() -> list[str]:
    """The families in the order the package docstring lists them (``single/``, ``budget/``, ...)."""
    import olk.algorithms
    return re.findall(r"``(\w+)/``", olk.algorithms.__doc__ or "")


def families() -> dict[str, list[str]]:
    """family id -> the registry names of its learners (olk's own learners only), families in the package's order."""
    from olk.algorithms import REGISTRY
    found: dict[str, list[str]] = {}
    for name in sorted(REGISTRY):
        module = REGISTRY[name].__module__
        if module.startswith("olk.algorithms."):
            found.setdefault(module.split(".")[2], []).append(name)
    order = [f for f in _family_order() if f in found] + sorted(f for f in found if f not in _family_order())
    return {f: found[f] for f in order}


def family_doc(fid: str) -> tuple[str, str]:
    """(title, introduction) of a family from its package docstring: the title is its first sentence's head (up to
    a colon or parenthesis); the boilerplate paragraph about module imports is left out."""
    pkg = importlib.import_module(f"olk.algorithms.{fid}")
    paras = [p for p in paragraphs(pkg.__doc__ or fid) if "is imported when the package is" not in p]
    first = " ".join(paras[0].split()) if paras else fid
    title = re.split(r"[:(]", first, maxsplit=1)[0].strip().rstrip(".") or fid
    return title, "\n\n".join(paras)


def _type_text(p) -> str:
    if p.choices:
        return " \\| ".join(code_cell(c) for c in p.choices)
    name = getattr(p.type, "__name__", str(p.type))
    return md_cell(name)


def _reproducibility(cls) -> str:
    r = cls.reproducibility
    return "exact (bit-identical on every machine)" if r.exact else f"tolerance: {r.label()}; {md_cell(r.reason)}"


def _surface_classes(name: str) -> tuple[str, str]:
    """The scikit-learn and River class names of learner ``name`` (``olk.estimators``, ``olk.river``)."""
    import olk.estimators
    est = olk.estimators.by_name.get(name)
    sk = f"`olk.estimators.{est.__name__}`" if est is not None else "none"
    try:
        import olk.river
    except ImportError:                                    # pragma: no cover - River is an optional extra
        return sk, "needs `pip install olk[river]` (River 0.26, Python 3.11+)"
    riv = olk.river.by_name.get(name)
    river = f"`olk.river.{riv.__name__}`" if riv is not None else "none (a batch learner: River models learn online)"
    return sk, river


def learner_section(name: str) -> str:
    """One learner's reference: paper, facts, parameters, example."""
    from olk.algorithms import REGISTRY
    cls = REGISTRY[name]
    module = importlib.import_module(cls.__module__)
    prose, example = prose_and_example(module.__doc__ or "")
    source = cls.__module__.replace(".", "/") + ".py"
    sk, river = _surface_classes(name)
    lines = [f"## `{name}` — {md_text(cls.display)} {{ #{name} }}", ""]
    if prose:
        lines += [md_text(prose), ""]
    facts = [
        ("registry name", f"`{name}` (`olk.algorithms.make(\"{name}\", ...)`)"),
        ("scikit-learn", sk),
        ("River", river),
        ("task", f"`{cls.task}`"),
        ("protocol", "batch (`fit` once)" if cls.batch else "online (one pass, `partial_fit` / `learn_one`)"),
        ("reproducibility", _reproducibility(cls)),
        ("random draws", "stochastic (seeded from `random_state`)" if cls.stochastic else "deterministic"),
        ("kernels", f"up to {cls.max_kernels} (a kernel set)" if cls.max_kernels > 1 else "one"),
        ("input", "dense or sparse X" if cls.sparse_input else "dense X only"),
        ("source", f"`{source}`"),
    ]
    if cls.outputs:
        facts.insert(5, ("outputs", ", ".join(f"`{o}`" for o in cls.outputs) + " (the `output` parameter)"))
    lines += [f"| {facts[0][0]} | {facts[0][1]} |", "|---|---|"] + [f"| {k} | {v} |" for k, v in facts[1:]] + [""]
    if cls.params:
        lines += ["| parameter | type | default | valid | meaning |", "|---|---|---|---|---|"]
        for p in cls.params:
            valid = md_cell(p.requirement) if p.requirement and not p.choices else ""
            lines.append(f"| `{p.name}` | {_type_text(p)} | {code_cell(repr(p.default))} | {valid} | "
                         f"{md_cell(p.doc)} |")
        lines.append("")
    else:
        lines += ["No parameters besides `kernel` and `random_state`.", ""]
    if example:
        lines += ["Example (the module docstring's, run by `tests/test_doctests.py`):", "", "```pycon",
                  example, "```", ""]
    doc = inspect.cleandoc(cls.__doc__ or "")
    if doc:
        lines += [f'??? note "The update, as the class docstring states it (`{cls.__name__}`)"', "",
                  textwrap.indent("```text\n" + doc + "\n```", "    "), ""]
    return "\n".join(lines)


def family_page(fid: str, names: list[str]) -> str:
    from olk.algorithms import REGISTRY
    title, intro = family_doc(fid)
    lines = [f"# {title}", "", "<!-- generated from the registry by docs/_gen/hooks.py: edit the learner modules "
             f"or docs/algorithms/notes/{fid}.md -->", "", md_text(intro), "",
             f"Package `olk/algorithms/{fid}/`, {len(names)} learner{'s' if len(names) != 1 else ''}.", "",
             "| learner | name | paper, algorithm | reproducibility |", "|---|---|---|---|"]
    for n in names:
        cls = REGISTRY[n]
        head = inspect.cleandoc(cls.__doc__ or "").split("\n\n")[0]
        lines.append(f"| [`{n}`](#{n}) | {md_cell(cls.display)} | {md_cell(head)} | "
                     f"{'exact' if cls.reproducibility.exact else 'tolerance'} |")
    lines.append("")
    notes = DOCS / "algorithms" / "notes" / f"{fid}.md"
    if notes.is_file():
        lines += [notes.read_text(encoding="utf-8").strip(), ""]
    lines += [learner_section(n) for n in names]
    return "\n".join(lines)


def algorithms_index(fams: dict[str, list[str]]) -> str:
    from olk.algorithms import REGISTRY
    n = sum(map(len, fams.values()))
    lines = ["# Algorithms", "", "<!-- generated from the registry by docs/_gen/hooks.py -->", "",
             f"olk registers **{n} learners** in {len(fams)} families, one module each "
             "(`olk algorithms` lists them in the terminal). Each family has a page: for every learner its paper "
             "and algorithm number, its parameters with types and defaults, its scikit-learn and River classes, a "
             "runnable example and its reproducibility class.", "",
             "*Reproducibility*: **exact** learners give bit-identical mistakes, #SV and accuracies on every "
             "machine (olk's own compiled loops and seeded RNG only); the others go through code olk does not "
             "control (a third-party solver, BLAS) and declare the tolerance `olk regress` holds them to "
             "([the protocol](../guide/protocol.md#reproducibility-across-machines)).", ""]
    for fid, names in fams.items():
        title, _ = family_doc(fid)
        lines += [f"## [{title}]({fid}.md)", "", "| learner | name | task | reproducibility |", "|---|---|---|---|"]
        for name in names:
            cls = REGISTRY[name]
            lines.append(f"| [`{name}`]({fid}.md#{name}) | {md_cell(cls.display)} | `{cls.task}` | "
                         f"{'exact' if cls.reproducibility.exact else 'tolerance'} |")
        lines.append("")
    return "\n".join(lines)


# ------------------------------------------------------------------------------------------------ config reference
def _strip(ann):
    from typing import Annotated
    metas = []
    while get_origin(ann) is Annotated:
        ann, *m = get_args(ann)
        metas = m + metas
    return ann, metas


def _members(ann) -> list:
    inner, _ = _strip(ann)
    if get_origin(inner) is Union:
        return [m for a in get_args(inner) for m in _members(a)]
    return [ann]


def type_words(ann) -> str:
    """A schema field's type in words: ``integer >= 1``, ``online | batch``, ``list of (string | mapping)``."""
    import msgspec
    words = []
    for m in _members(ann):
        inner, metas = _strip(m)
        if inner is type(None):
            continue
        if inner is Any:
            w = "any (checked by the module that owns it)"
        elif get_origin(inner) is not None and str(get_origin(inner)).endswith("Literal"):
            w = " \\| ".join(f"`{v}`" for v in get_args(inner))
        elif isinstance(inner, type) and issubclass(inner, msgspec.Struct):
            w = f"mapping ([{inner.__name__}](#{inner.__name__.lower()}))"
        elif get_origin(inner) in (dict,):
            w = "mapping"
        elif get_origin(inner) in (list,):
            w = "list of " + " or ".join(type_words(a) for a in get_args(inner))
        else:
            w = {int: "integer", float: "number", bool: "boolean", str: "string"}.get(inner, str(inner))
        bounds = [f"{sym} {getattr(meta, b)}" for meta in metas for b, sym in
                  (("gt", ">"), ("ge", ">="), ("lt", "<"), ("le", "<="), ("min_length", "length >="))
                  if getattr(meta, b, None) is not None and not (b == "le" and getattr(meta, b) > 1e300)]
        if bounds:
            w += " " + ", ".join(bounds)
        if w not in words:
            words.append(w)
    if {"integer", "number"} <= set(words) and any(w.startswith("string") for w in words):
        words = [w for w in words if w not in ("integer", "number")]
        words = [w.replace("string length >= 1", "non-empty string") + " or number" if w.startswith("string") else w
                 for w in words]
    return " or ".join(words) or "any"


def _notes(ann) -> tuple[str, str]:
    """(description, expect) of a field, outermost first."""
    desc = expect = ""
    stack = [ann]
    while stack:
        a = stack.pop(0)
        inner, metas = _strip(a)
        for meta in metas:
            desc = desc or (getattr(meta, "description", None) or "")
            expect = expect or ((getattr(meta, "extra", None) or {}).get("expect") or "")
        if get_origin(inner) is Union:
            stack.extend(x for x in get_args(inner) if x is not type(None))
    return desc, expect


def schema_structs() -> list[type]:
    """Every mapping shape the config schema declares, the whole file first."""
    import msgspec

    from olk.experiment import schema
    found = [c for c in vars(schema).values()
             if isinstance(c, type) and issubclass(c, msgspec.Struct) and c.__module__ == schema.__name__
             and msgspec.structs.fields(c)]
    return sorted(found, key=lambda c: (c is not schema.ConfigFile, c.__name__))


def _yaml_examples() -> list[tuple[str, str, dict]]:
    """(key path, config file, the mapping holding the key) for every mapping key of the committed configs
    (configs/**/*.yaml); a path is written ``cv.folds``, ``datasets[].holdout``, ``algorithms[].params.budget``."""
    import yaml
    found: list[tuple[str, str, dict]] = []

    def visit(node, path: str, where: str, depth: int):
        if depth > 6:
            return
        if isinstance(node, list):
            for item in node:
                visit(item, path + "[]", where, depth + 1)
        elif isinstance(node, dict):
            for k, v in node.items():
                key = f"{path}.{k}" if path else str(k)
                found.append((key, where, node))
                visit(v, key, where, depth + 1)

    for f in sorted((ROOT / "configs").rglob("*.yaml")):
        try:
            doc = yaml.safe_load(f.read_text(encoding="utf-8"))
        except (yaml.YAMLError, UnicodeDecodeError):
            continue
        visit(doc, "", str(f.relative_to(ROOT)), 0)
    return found


#: where each mapping shape sits in a config file (its key path prefix); a shape not listed (``{match: ...}``,
#: ``{percentile: ...}``) is a value found anywhere, recognised by its keys
_PLACES = {"ConfigFile": "", "DatasetSpec": "datasets[]", "AlgorithmSpec": "algorithms[]", "CVSpec": "cv",
           "TuneSpec": "tune"}


def yaml_flow(value) -> str:
    """A value as YAML writes it in one line (``true``, ``{type: gaussian, gamma: 1.0}``)."""
    import yaml
    text = yaml.safe_dump(value, default_flow_style=True, width=10_000, sort_keys=False).strip()
    return text[:-4].strip() if text.endswith("\n...") else text.removesuffix("...").strip()


def _example(examples, struct, key: str) -> str:
    import msgspec
    place = _PLACES.get(struct.__name__)
    if place is not None:
        path = f"{place}.{key}" if place else key
        hits = [(where, node) for p, where, node in examples if p == path]
    else:
        fields = {f.name for f in msgspec.structs.fields(struct)}
        required = {f.name for f in msgspec.structs.fields(struct) if f.required}
        hits = [(where, node) for p, where, node in examples
                if p.rsplit(".", 1)[-1] == key and set(node) <= fields and required <= set(node)]
    if not hits:
        return _synthetic(struct, key)
    where, node = min(hits, key=lambda h: (len(repr(h[1][key])), h[0]))
    text = yaml_flow({key: node[key]})
    text = text[1:-1] if text.startswith("{") and text.endswith("}") else text
    if len(text) > 90:
        text = text[:87] + "..."
    return f"{code_cell(text)} ({where.removeprefix('configs/')})"


def _synthetic(struct, key: str) -> str:
    """An example for a key no committed config uses, made from its declaration (marked as such)."""
    import msgspec
    f = next(f for f in msgspec.structs.fields(struct) if f.name == key)
    desc, expect = _notes(f.type)
    value: Any = None
    stringy = any(_strip(m)[0] is str for m in _members(f.type))
    for m in _members(f.type):
        inner, metas = _strip(m)
        if get_origin(inner) is not None and str(get_origin(inner)).endswith("Literal"):
            choices = [c for c in get_args(inner) if c != f.default]
            value = choices[0] if choices else get_args(inner)[0]
        elif inner is int and value is None and not stringy:
            value = (f.default + 1) if isinstance(f.default, int) else 2
    if value is None:
        such = re.search(r"(?:such as|e\.g\.) ([^,;()]+)", expect or desc)
        value = such.group(1).strip() if such else f"<{expect or desc}>"
    return f"{code_cell(yaml_flow({key: value})[1:-1])} (no committed config sets it)"


def _default(field) -> str:
    import msgspec
    if field.required:
        return "**required**"
    value = field.default_factory() if field.default_factory is not msgspec.NODEFAULT else field.default
    return "none" if value is None else code_cell(yaml_flow(value))


def config_reference() -> str:
    import msgspec
    examples = _yaml_examples()
    lines = ["# Config reference", "",
             "<!-- generated from olk/experiment/schema.py by docs/_gen/hooks.py -->", "",
             "Every key a config file may hold, as the schema (`olk/experiment/schema.py`) declares it: its type and "
             "range, its default, what it is for, and an example from a committed config (`configs/`) where one "
             "uses it. A key not listed here is refused with a did-you-mean and exit status 2; the values of "
             "`params`, `tune`, `sweep`, `kernel` and `preprocess` are checked by the module that owns their meaning "
             "(the learner's parameters are on its [algorithm page](../algorithms/index.md)). "
             "[Writing a config](configs.md) shows them at work.", ""]
    for struct in schema_structs():
        doc = " ".join(md_text(p) for p in paragraphs(struct.__doc__ or "")[:1])
        lines += [f"## {struct.__name__} {{ #{struct.__name__.lower()} }}", "", doc, "",
                  "| key | type | default | meaning, example |", "|---|---|---|---|"]
        for f in msgspec.structs.fields(struct):
            desc, expect = _notes(f.type)
            meaning = md_cell(desc) + (f" (write {md_cell(expect)})" if expect and expect not in desc else "")
            ex = _example(examples, struct, f.name)
            lines.append(f'| <a id="{struct.__name__.lower()}-{f.name}"></a>`{f.name}` | {type_words(f.type)} | '
                         f'{_default(f)} | {meaning}<br>e.g. {ex} |')
        removed = getattr(struct, "removed", {})
        if removed:
            lines += ["", "Removed keys (refused with this message): "
                      + "; ".join(f"`{k}`: {md_cell(v)}" for k, v in removed.items()) + "."]
        lines.append("")
    return "\n".join(lines)


def config_keys() -> list[tuple[str, str]]:
    """(struct, key) of every key the schema declares (what the reference must cover)."""
    import msgspec
    return [(s.__name__, f.name) for s in schema_structs() for f in msgspec.structs.fields(s)]


# ------------------------------------------------------------------------------------------------ command line
def cli_reference() -> str:
    import click

    from olk.cli import cli
    lines = ["# Command reference", "", "<!-- generated from olk/cli.py by docs/_gen/hooks.py -->", "",
             "Every `olk` command's `--help`, as the installed version prints it. "
             "[Running experiments](running.md) shows the everyday ones at work.", ""]

    def visit(cmd, path: list[str]):
        ctx = click.Context(cmd, info_name=" ".join(path))
        lines.extend([f"## `{' '.join(path)}`", "", "```text", cmd.get_help(ctx).replace("\b\n", ""), "```", ""])
        if isinstance(cmd, click.Group):
            for name in sorted(cmd.list_commands(ctx)):
                visit(cmd.get_command(ctx, name), path + [name])

    visit(cli, ["olk"])
    return "\n".join(lines)


# ------------------------------------------------------------------------------------------------ reproduction
_LINK = re.compile(r"(!?)\[([^\]]*)\]\(([^)\s]+)\)")
_ID = re.compile(r'<a id="([^"]+)"></a>')


def _paper_of(heading: str) -> str | None:
    from olk.report.catalogue import PAPERS
    for pid, p in PAPERS.items():
        if p["title"] in heading or heading.startswith(p["short"]):
            return pid
    return None


def split_report(text: str) -> list[tuple[str, str, str]]:
    """REPRODUCTION.md as (page stem, page title, Markdown) parts: the overview (everything before the first
    paper's section), one part per paper (its tables and figures, wherever they stand), and the rest."""
    from olk.report.catalogue import PAPERS
    lines = text.splitlines()
    starts = [0]
    for k, line in enumerate(lines):
        if line.startswith("## "):
            j = k - 1
            while j > 0 and not lines[j].strip():
                j -= 1
            starts.append(j if j > starts[-1] and _ID.fullmatch(lines[j].strip()) else k)
    chunks = [lines[a:b] for a, b in zip(starts, starts[1:] + [len(lines)])]
    parts: dict[str, list[str]] = {"index": []}
    seen_paper = False
    for chunk in chunks:
        heading = next((h[3:] for h in chunk if h.startswith("## ")), "")
        pid = _paper_of(heading) if heading else None
        if pid:
            seen_paper = True
        key = pid or ("more" if seen_paper and heading else "index")
        parts.setdefault(key, []).extend(chunk)
    titles = {"index": "Reproduction report", "more": "Beyond the papers and other results",
              **{pid: p["short"] for pid, p in PAPERS.items()}}
    out = []
    for key, body in parts.items():
        body_text = "\n".join(body).strip()
        if key != "index":
            body_text = f"# {titles[key]}\n\n{body_text}"
        out.append((key, titles[key], body_text + "\n"))
    return out


def _rewrite_links(text: str, source: Path, page: str, anchors: dict[str, str], files: dict[str, Content]) -> str:
    """Links of a Markdown file under results/ made to work in the site: figures are copied beside the pages,
    REPRODUCTION.md anchors and notes point to the pages holding them, and paths the site does not hold (results
    directories, CSV files, configs) become code."""
    page_dir = posixpath.dirname(page)

    def rel(target: str) -> str:
        return posixpath.relpath(target, page_dir or ".")

    def sub(m):
        bang, label, target = m.groups()
        if re.match(r"^[a-z]+://|^mailto:", target):
            return m.group(0)
        path, _, anchor = target.partition("#")
        if not path:
            where = anchors.get(anchor)
            return m.group(0) if where in (None, page) else f"[{label}]({rel(where)}#{anchor})"
        repo = (source.parent / path).resolve()
        try:
            repo_rel = repo.relative_to(ROOT).as_posix()
        except ValueError:
            return label
        if repo.suffix.lower() in (".png", ".jpg", ".jpeg", ".svg", ".gif") and repo.is_file():
            site = f"reproduction/files/{repo_rel}"
            files[site] = repo
            return f"{bang}[{label}]({rel(site)})"
        if repo == RESULTS / "REPRODUCTION.md":
            where = anchors.get(anchor, "reproduction/index.md")
            return f"[{label}]({rel(where)}{'#' + anchor if anchor else ''})"
        if repo.suffix == ".md" and repo.is_file() and repo.is_relative_to(DOCS):    # a page of the site
            return f"[{label}]({rel(repo.relative_to(DOCS).as_posix())}{'#' + anchor if anchor else ''})"
        if repo.parent == RESULTS / "notes" and repo.suffix == ".md":      # `olk report` copies each note in
            return f"[{label}]({rel(_note_target(repo.stem, anchors))})"
        shown = repo_rel + ("/" if repo.is_dir() or path.endswith("/") else "")
        if bang:
            return f"*(figure not found: `{shown}`)*"
        return f"`{shown}`" if label.strip("`/ ") in (shown.strip("/"), shown.split("/", 1)[-1].strip("/")) \
            else f"{label} (`{shown}`)"

    return _LINK.sub(sub, text)


def _hash_words(text: str) -> str:
    """``#SV`` at the start of a line is a word, not a heading: Python-Markdown would read ``#SV counts`` as one
    (CommonMark, and so GitHub, needs a space after the ``#``); escape it outside code blocks."""
    out, fenced = [], False
    for line in text.split("\n"):
        if line.lstrip().startswith("```"):
            fenced = not fenced
        elif not fenced:
            line = re.sub(r"^(\s*)#(?=[^#\s])", r"\1\\#", line)
        out.append(line)
    return "\n".join(out)


def _note_target(stem: str, anchors: dict[str, str]) -> str:
    """Where the report holds note ``results/notes/<stem>.md`` (it copies every note under its table): the table's
    anchor, else its paper's page, else the overview."""
    from olk.report.catalogue import PAPERS
    anchor = stem.lower().replace("_", "-")
    if anchor in anchors:
        return f"{anchors[anchor]}#{anchor}"
    paper = next((pid for pid in PAPERS if stem.startswith(pid)), None)
    page = f"reproduction/{paper}.md" if paper else "reproduction/index.md"
    return page if page in set(anchors.values()) | {"reproduction/index.md"} else "reproduction/index.md"


def reproduction_pages() -> dict[str, Content]:
    """The reproduction report's pages and its figures."""
    out: dict[str, Content] = {}
    report = RESULTS / "REPRODUCTION.md"
    parts = split_report(report.read_text(encoding="utf-8")) if report.is_file() else \
        [("index", "Reproduction report", "# Reproduction report\n\n`results/REPRODUCTION.md` is missing: run "
          "`olk report`.\n")]
    anchors = {a: f"reproduction/{key}.md" for key, _, body in parts for a in _ID.findall(body)}
    head = ("!!! info \"Generated\"\n    This section is `results/REPRODUCTION.md` (written by `olk report` from every "
            "results directory; last changed {date}) split into one page per paper, with its figures. "
            "[Reproducing everything](reproducing.md) says how to rerun it and how a cell is judged.\n\n")
    date = git_date(report) or "not committed"
    for key, _, body in parts:
        page = f"reproduction/{key}.md"
        body = _hash_words(_rewrite_links(body, report, page, anchors, out))
        if key == "index":      # after the first screen (the headline and its figure): before the first section
            body = re.sub(r"^(## )", lambda m: head.format(date=date) + m.group(1), body, count=1, flags=re.M)
        out[page] = body
    return out


def reproduction_nav(pages: dict[str, Content]) -> list:
    from olk.report.catalogue import PAPERS
    order = ["index", *PAPERS, "more"]
    titles = {"index": "Report: overview", "more": "Beyond the papers",
              **{pid: p["short"] for pid, p in PAPERS.items()}}
    return [{titles[k]: f"reproduction/{k}.md"} for k in order if f"reproduction/{k}.md" in pages]


# ------------------------------------------------------------------------------------------------ speed
def _table_or_text(lines: list[str]) -> list[str]:
    """A results/bench text file for the page: its Markdown tables as tables, its Markdown headings (``### ...``,
    one per table of a file with several) as headings, every other line as text."""
    out, text = [], []

    def flush():
        if text:
            out.extend(["```text", *text, "```", ""])
            text.clear()

    for k, line in enumerate(lines):
        if line.startswith("|"):
            flush()
            out.append(line)
            if k + 1 == len(lines) or not lines[k + 1].startswith("|"):
                out.append("")
        elif line.startswith("#"):
            flush()
            out += [line, ""]
        elif line.strip():
            text.append(line)
    flush()
    return out


#: ``<!-- olk:bench core.md -->`` in a hand-written page: the tables of that results/bench/ file, as last committed
BENCH_INCLUDE = re.compile(r"<!-- olk:bench ([\w.-]+) -->")


def bench_tables(name: str) -> str:
    """The Markdown tables (and the headings naming them) of ``results/bench/<name>`` with its first line (the
    run's settings and load) and the date it was last committed: what a page includes with
    ``<!-- olk:bench NAME -->``, so its numbers are always those of the last committed run."""
    f = RESULTS / "bench" / name
    if not f.is_file():
        return f"*No `results/bench/{name}` yet: run `make bench`.*"
    lines = f.read_text(encoding="utf-8").splitlines()
    date = git_date(f)
    out = [f"*From `results/bench/{name}`" + (f", last committed {date}" if date else ", not committed") + ":*", "",
           "```text", lines[0] if lines else "", "```", ""]
    out += [ln for ln in _table_or_text(lines[1:]) if ln.startswith(("|", "#")) or not ln.strip()]
    return "\n".join(out)


#: ``<!-- olk:results DIR/FILE -->`` in a hand-written page: a committed results directory's table or statistics
#: (a .md file, without its title) or figure (a .png, copied beside the page): what the page shows is what the
#: committed runs give
RESULTS_INCLUDE = re.compile(r"<!-- olk:results ([\w.-]+)/([\w./-]+) -->")


def results_file(page: str, directory: str, name: str) -> str:
    """The Markdown that stands for ``<!-- olk:results DIR/FILE -->`` on `page` (see :data:`RESULTS_INCLUDE`)."""
    f = RESULTS / directory / name
    if not f.is_file():
        return f"*No `results/{directory}/{name}` yet.*"
    if f.suffix == ".png":
        site = _results_site_path(directory, name)
        return f"![{directory}: {f.stem}]({posixpath.relpath(site, posixpath.dirname(page) or '.')})"
    lines = f.read_text(encoding="utf-8").splitlines()
    if lines and lines[0].startswith("# "):
        lines = lines[1:]
    date = git_date(f)
    head = f"*From `results/{directory}/{name}`" + (f", last committed {date}" if date else ", not committed") + ":*"
    body = [re.sub(r"^(#+) ", r"\1## ", ln) for ln in lines]          # its headings below the page's
    return "\n".join([head, *body])


def _results_site_path(directory: str, name: str) -> str:
    return f"guide/files/{directory}/{name}"


def results_figures() -> dict[str, Content]:
    """The figures hand-written pages include with ``<!-- olk:results DIR/FILE.png -->``: copied into the site."""
    out: dict[str, Content] = {}
    for page in DOCS.rglob("*.md"):
        for directory, name in RESULTS_INCLUDE.findall(page.read_text(encoding="utf-8")):
            f = RESULTS / directory / name
            if f.suffix == ".png" and f.is_file():
                out[_results_site_path(directory, name)] = f
    return out


def speed_latest() -> str:
    bench = RESULTS / "bench"
    lines = ["# Latest benchmark numbers", "",
             "<!-- generated from results/bench/ by docs/_gen/hooks.py -->", "",
             "The files `make bench` (`olk bench SUITE`) last wrote into `results/bench/`, as they are, with the date "
             "each was last committed. [Speed](../speed.md) says what each suite measures and how to read it.", ""]
    kinds = [".md", ".txt", ".csv"]                     # the tables first, the raw measurements last
    files = sorted((p for p in bench.iterdir() if p.is_file()),
                   key=lambda p: (kinds.index(p.suffix) if p.suffix in kinds else len(kinds), p.name)) \
        if bench.is_dir() else []
    for f in files:
        date = git_date(f)
        lines += [f"## `{f.name}`", "", f"Last committed {date}." if date else "Not committed.", ""]
        if f.suffix in (".md", ".txt"):
            lines += _table_or_text(f.read_text(encoding="utf-8").splitlines())
        elif f.suffix == ".csv":
            rows = list(csv.reader(io.StringIO(f.read_text(encoding="utf-8"))))
            if rows and len(rows) <= 40:
                lines += ["| " + " | ".join(md_cell(c) for c in rows[0]) + " |",
                          "|" + "---|" * len(rows[0])]
                lines += ["| " + " | ".join(md_cell(c) for c in r) + " |" for r in rows[1:]] + [""]
            else:
                lines += [f"{max(len(rows) - 1, 0)} rows: one per measured process (the raw data behind the "
                          "tables above).", ""]
        else:
            n = len(f.read_text(encoding="utf-8").splitlines())
            lines += [f"{n} records (raw measurements, one JSON object per line).", ""]
    if not files:
        lines += ["No benchmark results yet: run `make bench`.", ""]
    return "\n".join(lines)


# ------------------------------------------------------------------------------------------------ contributing
def developing_page() -> str:
    """olk/algorithms/DEVELOPING.md with its relative links made to work on the site: a page the site holds
    (docs/*.md) is linked, a source file becomes its repository path in code."""
    src = ROOT / "olk" / "algorithms" / "DEVELOPING.md"

    def sub(m):
        bang, label, target = m.groups()
        if bang or re.match(r"^[a-z]+://|^mailto:|^#", target):
            return m.group(0)
        path, _, anchor = target.partition("#")
        repo = (src.parent / path).resolve()
        try:
            repo_rel = repo.relative_to(ROOT).as_posix()
        except ValueError:
            return label
        if repo_rel.startswith("docs/") and repo.suffix == ".md":
            return f"[{label}](../{repo_rel[len('docs/'):]}{'#' + anchor if anchor else ''})"
        return f"`{repo_rel}`" if label.strip("`") in (repo_rel, path) else f"{label} (`{repo_rel}`)"

    return ("<!-- a copy of olk/algorithms/DEVELOPING.md, made at build time by docs/_gen/hooks.py -->\n\n"
            + _LINK.sub(sub, src.read_text(encoding="utf-8")))


def tests_page() -> str:
    """Every test file with the first sentence of its docstring."""
    import ast
    lines = ["# Every test file", "", "<!-- generated from tests/ by docs/_gen/hooks.py -->", "",
             "What each file of `tests/` checks, in its own words (the first sentence of its docstring). "
             "`make test` runs them all ([the checks](checks.md)).", "", "| file | what it checks |", "|---|---|"]
    for f in sorted((ROOT / "tests").glob("test_*.py")):
        try:
            doc = ast.get_docstring(ast.parse(f.read_text(encoding="utf-8"))) or ""
        except SyntaxError:
            doc = ""
        first = re.split(r"(?<=[.!?:])\s", " ".join(doc.split()), maxsplit=1)[0] if doc else ""
        lines.append(f"| `tests/{f.name}` | {md_cell(first) or '—'} |")
    return "\n".join(lines) + "\n"


# ------------------------------------------------------------------------------------------------ all pages
def generated() -> dict[str, Content]:
    """Every generated page (site path -> Markdown text) and copied file (site path -> source path)."""
    fams = families()
    pages: dict[str, Content] = {
        "algorithms/index.md": algorithms_index(fams),
        "guide/config-reference.md": config_reference(),
        "guide/cli.md": cli_reference(),
        "speed/latest.md": speed_latest(),
        "contributing/developing.md": developing_page(),
        "contributing/tests.md": tests_page(),
    }
    for fid, names in fams.items():
        pages[f"algorithms/{fid}.md"] = family_page(fid, names)
    pages.update(reproduction_pages())
    pages.update(results_figures())
    return pages


# ------------------------------------------------------------------------------------------------ MkDocs hooks
_cache: dict[str, dict[str, Content]] = {}


def _expand(nav, pages: dict[str, Content]):
    """nav with each generated-group pattern replaced by its pages."""
    out = []
    for item in nav:
        if item == "algorithms/*.md":
            out += [{family_doc(f)[0]: f"algorithms/{f}.md"} for f in families()]
        elif item == "reproduction/*.md":
            out += reproduction_nav(pages)
        elif isinstance(item, dict):
            out.append({k: _expand(v, pages) if isinstance(v, list) else v for k, v in item.items()})
        else:
            out.append(item)
    return out


def on_config(config, **kwargs):
    _cache["pages"] = generated()
    if config.nav:
        config.nav = _expand(config.nav, _cache["pages"])
    return config


def on_files(files, config, **kwargs):
    from mkdocs.structure.files import File
    for path, content in _cache.get("pages", {}).items():
        old = files.get_file_from_path(path)
        if old is not None:
            files.remove(old)
        if isinstance(content, Path):
            files.append(File.generated(config, path, abs_src_path=str(content)))
        else:
            files.append(File.generated(config, path, content=content))
    return files


def on_page_markdown(markdown, page, config, files, **kwargs):
    """A hand-written page's ``<!-- olk:bench NAME -->``: the tables of the last committed benchmark run; its
    ``<!-- olk:results DIR/FILE -->``: a committed results directory's table, statistics or figure."""
    markdown = BENCH_INCLUDE.sub(lambda m: bench_tables(m.group(1)), markdown)
    return RESULTS_INCLUDE.sub(lambda m: results_file(page.file.src_uri, m.group(1), m.group(2)), markdown)


def on_serve(server, config, builder, **kwargs):
    """``make docs-serve``: rebuild when the sources of the generated pages change."""
    for p in ("olk/algorithms", "olk/experiment/schema.py", "olk/cli.py", "results/REPRODUCTION.md", "results/bench",
              "tests"):
        if (ROOT / p).exists():
            server.watch(str(ROOT / p))
    return server



"""Read and validate the dataset registry (olk/data/registry.yaml, plus any files listed in $OLK_REGISTRY)."""
from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from olk._lazy import yaml_load, yaml_read
from olk.data.dataset import TASKS
from olk.data.preprocess import validate_preprocess
from olk.errors import DataError, did_you_mean

REGISTRY_FILE = Path(__file__).resolve().parent / "registry.yaml"
FORMATS = ("libsvm", "delimited", "mat", "mfeat")
STORAGES = ("sparse", "dense")
_SHA = re.compile(r"^[0-9a-f]{64}$")

_ENTRY_KEYS = {"description", "papers", "task", "format", "options", "storage", "n_features", "labels", "files",
               "default_split", "preprocess", "offline", "homepage", "notes"}
_REQUIRED = ("description", "task", "format", "storage", "n_features", "files")
_FILE_KEYS = {"path", "rows", "sha256", "url", "verbatim", "offline", "columns"}
_PART_KEYS = _FILE_KEYS | {"views"}


@dataclass(frozen=True)
class FileSpec:
    """One file on disk: `path` relative to a data directory, without compression suffix."""
    path: str
    sha256: str | None = None
    url: str | None = None
    verbatim: bool = True          # False: the upstream file at `url` differs in bytes from the offline copy
    offline: bool = True
    view: str | None = None        # multi-view datasets: view name
    columns: int | None = None     # multi-view datasets: columns of this view


@dataclass(frozen=True)
class Part:
    """One split (train/test/all): rows, and one file (or one file per view)."""
    split: str
    rows: int | None
    files: tuple[FileSpec, ...]


@dataclass(frozen=True)
class DatasetSpec:
    name: str
    description: str
    task: str
    format: str
    storage: str
    n_features: int
    parts: dict[str, Part]
    default_split: tuple[str, ...]
    preprocess: dict = field(default_factory=dict)
    options: dict = field(default_factory=dict)
    labels: tuple | None = None
    papers: tuple[str, ...] = ()
    offline: bool = True
    homepage: str | None = None
    notes: str | None = None
    source: str = ""               # registry file it came from

    def rows(self, splits=None) -> int | None:
        """Expected rows of the given splits (default: default_split); None if unknown."""
        total = 0
        for s in splits or self.default_split:
            rows = self.parts[s].rows
            if rows is None:
                return None
            total += rows
        return total

    def files(self):
        """(split, FileSpec) for every file of every part."""
        return [(p.split, f) for p in self.parts.values() for f in p.files]


class Registry(Mapping):
    """Read-only mapping name -> :class:`DatasetSpec`."""

    def __init__(self, specs: dict[str, DatasetSpec], sources: list[Path]):
        self._specs = specs
        self.sources = sources

    def __getitem__(self, name: str) -> DatasetSpec:
        return self._specs[name]

    def __iter__(self):
        return iter(self._specs)

    def __len__(self):
        return len(self._specs)

    def get_spec(self, name: str) -> DatasetSpec:
        """The spec of `name`, or DataError with a suggestion."""
        try:
            return self._specs[name]
        except KeyError:
            raise DataError(
                f"unknown dataset '{name}'{did_you_mean(name, self._specs)}: run `olk datasets list` for the "
                f"registered names, or pass a path to your own LIBSVM file") from None


_CACHE: dict[tuple, Registry] = {}


def registry_files() -> list[Path]:
    """The package registry followed by the files in $OLK_REGISTRY."""
    extra = [Path(p).expanduser() for p in os.environ.get("OLK_REGISTRY", "").split(os.pathsep) if p.strip()]
    return [REGISTRY_FILE, *extra]


def get_registry() -> Registry:
    """The merged registry (cached; reloaded when a registry file changes)."""
    files = registry_files()
    key = tuple((str(f), _mtime(f)) for f in files)
    if key not in _CACHE:
        specs: dict[str, DatasetSpec] = {}
        for f in files:
            specs.update(_read_registry(f))
        _CACHE.clear()
        _CACHE[key] = Registry(specs, files)
    return _CACHE[key]


def _mtime(f: Path):
    try:
        return f.stat().st_mtime_ns
    except OSError:
        return None


def _read_registry(path: Path) -> dict[str, DatasetSpec]:
    where = str(path)
    try:
        text = yaml_read(path).decode("utf-8")
    except OSError as e:
        raise DataError(f"{where}: cannot read dataset registry ({e.strerror}): fix OLK_REGISTRY") from None
    except UnicodeDecodeError as e:
        raise DataError(f"{where}: dataset registry is not UTF-8 text (byte {e.start}): fix OLK_REGISTRY") from None
    doc = _parsed_copy(text)
    if doc is None:
        import yaml  # lazy: PyYAML's import and the parse cost ~20 ms of every command's start-up
        try:
            doc = yaml_load(text)
        except yaml.YAMLError as e:
            mark = getattr(e, "problem_mark", None)
            line = f":{mark.line + 1}" if mark else ""
            what = "dataset registry:" if getattr(e, "olk_bound", False) else "invalid YAML in dataset registry:"
            raise DataError(f"{where}{line}: {what} {getattr(e, 'problem', e)}") from None
        _keep_parsed_copy(text, doc)
    if not isinstance(doc, dict) or not isinstance(doc.get("datasets"), dict):
        raise DataError(f"{where}: a dataset registry needs a top-level mapping 'datasets: {{name: entry, ...}}'")
    return {str(name): _parse_entry(str(name), entry, where) for name, entry in doc["datasets"].items()}


def _copy_path(text: str) -> Path:
    import hashlib

    from olk.data.cache import data_cache_dir
    return data_cache_dir() / f"registry-{hashlib.sha256(text.encode()).hexdigest()[:40]}.json"


def _parsed_copy(text: str):
    """The YAML document of a registry text as parsed before (a JSON copy in the cache, keyed by the text's
    sha256), or None.  Never trusted beyond what JSON guarantees: the document is validated as if just parsed."""
    import json
    try:
        got = json.loads(_copy_path(text).read_text(encoding="utf-8"))
        return got["doc"] if isinstance(got, dict) and got.get("text_chars") == len(text) else None
    except (OSError, ValueError, KeyError):
        return None


def _keep_parsed_copy(text: str, doc) -> None:
    """Save the JSON copy of `doc`, if JSON holds it exactly (no date, no non-string key, no NaN); best effort."""
    import json
    import tempfile
    try:
        blob = json.dumps({"text_chars": len(text), "doc": doc}, allow_nan=False)
        if json.loads(blob)["doc"] != doc:
            return
        p = _copy_path(text)
        p.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=p.parent, prefix=".tmp-registry-")
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(blob)
        os.replace(tmp, p)
    except (OSError, TypeError, ValueError):
        pass


def is_path_like(name: str) -> bool:
    """Whether `name` holds a path separator: a file path, never a registry name (names cannot contain one), so
    :func:`olk.data.load_dataset` opens it without reading the registry."""
    return "/" in name or os.sep in name


def _parse_entry(name: str, e, where: str) -> DatasetSpec:
    ctx = f"{where}: dataset '{name}'"
    if is_path_like(name):
        raise DataError(f"{ctx}: a dataset name cannot contain '/' (load_dataset reads such a name as a file "
                        f"path): rename it")
    if not isinstance(e, dict):
        raise DataError(f"{ctx}: entry must be a mapping of keys ({', '.join(_REQUIRED)}, ...)")
    for k in e:
        if k not in _ENTRY_KEYS:
            raise DataError(f"{ctx}: unknown key '{k}'{did_you_mean(k, _ENTRY_KEYS)}")
    for k in _REQUIRED:
        if k not in e:
            raise DataError(f"{ctx}: missing key '{k}'")
    _choice(ctx, "task", e["task"], TASKS)
    _choice(ctx, "format", e["format"], FORMATS)
    _choice(ctx, "storage", e["storage"], STORAGES)
    nf = e["n_features"]
    if not isinstance(nf, int) or isinstance(nf, bool) or nf < 1:
        raise DataError(f"{ctx}: n_features must be a positive integer, got {nf!r}")
    offline = bool(e.get("offline", True))
    files = e["files"]
    if not isinstance(files, dict) or not files:
        raise DataError(f"{ctx}: 'files' must map split names to {{path, rows, sha256, url}}")
    parts = {str(s): _parse_part(f"{ctx} split '{s}'", str(s), p, offline) for s, p in files.items()}
    default = e.get("default_split", list(parts))
    if isinstance(default, str):
        default = [default]
    for s in default:
        if s not in parts:
            raise DataError(f"{ctx}: default_split names unknown split '{s}'{did_you_mean(s, parts)}")
    for p in parts.values():
        if (e["format"] == "mfeat") != any(f.view is not None for f in p.files):
            raise DataError(f"{ctx}: split '{p.split}': format mfeat needs 'views' (one file per view), and only "
                            f"format mfeat may have them")
    if e["format"] == "mfeat":
        for p in parts.values():
            if sum(f.columns or 0 for f in p.files) != nf:
                raise DataError(f"{ctx}: the views' columns add up to {sum(f.columns or 0 for f in p.files)}, "
                                f"not n_features={nf}")
    _check_options(ctx, e["format"], e.get("options") or {})
    labels = e.get("labels")
    if labels is not None and not isinstance(labels, list):
        raise DataError(f"{ctx}: 'labels' must be a list of the raw label values")
    pre = e.get("preprocess") or {}
    validate_preprocess(pre, f"{ctx} preprocess")
    return DatasetSpec(
        name=name, description=str(e["description"]), task=e["task"], format=e["format"], storage=e["storage"],
        n_features=nf, parts=parts, default_split=tuple(default), preprocess=dict(pre),
        options=dict(e.get("options") or {}), labels=tuple(labels) if labels is not None else None,
        papers=tuple(e.get("papers") or ()), offline=offline, homepage=e.get("homepage"), notes=e.get("notes"),
        source=where)


def _parse_part(ctx: str, split: str, p, offline: bool) -> Part:
    if not isinstance(p, dict):
        raise DataError(f"{ctx}: must be a mapping {{path, rows, sha256, url}}")
    for k in p:
        if k not in _PART_KEYS:
            raise DataError(f"{ctx}: unknown key '{k}'{did_you_mean(k, _PART_KEYS)}")
    rows = p.get("rows")
    if rows is not None and (not isinstance(rows, int) or rows < 0):
        raise DataError(f"{ctx}: rows must be a non-negative integer, got {rows!r}")
    if "views" in p:
        views = p["views"]
        if not isinstance(views, dict) or not views:
            raise DataError(f"{ctx}: 'views' must map view names to {{path, columns, sha256, url}}")
        files = tuple(_parse_file(f"{ctx} view '{v}'", f, offline, view=str(v)) for v, f in views.items())
    else:
        files = (_parse_file(ctx, p, offline),)
    return Part(split, rows, files)


def _parse_file(ctx: str, f, offline: bool, view: str | None = None) -> FileSpec:
    if not isinstance(f, dict) or "path" not in f:
        raise DataError(f"{ctx}: needs at least 'path' (relative to a data directory, no .xz/.bz2/.gz suffix)")
    sha = f.get("sha256")
    if sha is not None and not _SHA.match(str(sha)):
        raise DataError(f"{ctx}: sha256 must be 64 lowercase hex digits, got {sha!r}")
    if view is not None and not isinstance(f.get("columns"), int):
        raise DataError(f"{ctx}: a view needs 'columns' (its number of features)")
    return FileSpec(path=str(f["path"]), sha256=sha, url=f.get("url"), verbatim=bool(f.get("verbatim", True)),
                    offline=bool(f.get("offline", offline)), view=view, columns=f.get("columns"))


_OPTIONS: dict[str, dict[str, Any]] = {"libsvm": {}, "mat": {"x_key": str, "y_key": str, "x_layout": str},
            "delimited": {"sep": str, "target_column": int, "feature_columns": list, "label_map": dict},
            "mfeat": {"rows_per_class": int}}


def _check_options(ctx: str, fmt: str, options) -> None:
    allowed = _OPTIONS[fmt]
    if not isinstance(options, dict):
        raise DataError(f"{ctx}: options must be a mapping")
    for k, v in options.items():
        if k not in allowed:
            raise DataError(f"{ctx}: unknown option '{k}' for format {fmt}{did_you_mean(k, allowed)}"
                            f"{'; valid: ' + ', '.join(allowed) if allowed else ' (it takes none)'}")
        if not isinstance(v, allowed[k]) or isinstance(v, bool):
            raise DataError(f"{ctx}: option {k} must be a {allowed[k].__name__}, got {v!r}")
    if fmt == "delimited":
        if options.get("target_column", -1) < 0:
            raise DataError(f"{ctx}: format delimited needs options.target_column (0-based column of the label)")
        fc = options.get("feature_columns")
        if fc is not None and not (len(fc) == 2 and all(isinstance(i, int) and i >= 0 for i in fc) and fc[0] < fc[1]):
            raise DataError(f"{ctx}: options.feature_columns must be [start, stop) column numbers, got {fc!r}")
    if fmt == "mat" and options.get("x_layout", "samples_by_features") not in ("samples_by_features",
                                                                             "features_by_samples"):
        raise DataError(f"{ctx}: options.x_layout must be samples_by_features or features_by_samples")
    if fmt == "mfeat" and options.get("rows_per_class", 1) < 1:
        raise DataError(f"{ctx}: options.rows_per_class must be a positive integer")


def _choice(ctx: str, key: str, value, choices) -> None:
    if value not in choices:
        raise DataError(f"{ctx}: {key} '{value}' is not one of {', '.join(choices)}{did_you_mean(value, choices)}")

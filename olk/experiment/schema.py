"""The shape of an experiment config, declared once: every key the YAML may hold, its type, its range and what it
is for, as :mod:`msgspec` Structs; :func:`convert` turns a loaded YAML mapping into them, or raises one
:class:`~olk.errors.ConfigError` line naming the key, the value and the fix.

What the schema checks: which keys exist (an unknown key gets a did-you-mean and the allowed keys), which are
required, types (a name is a string or a number, never ``true``; an integer field takes ``3`` or ``3.0``, not
``2.5``), ranges (``repeats >= 1``, ``0 < scale <= 1``, a finite number), choices (``mode: online|batch``) and
non-empty lists.  What it leaves to the modules that own the meaning (:mod:`olk.experiment.config` calls them):
a learner's parameters and their values (:mod:`olk.algorithms.registry`, the one place they are checked:
``params``, ``tune``, ``sweep`` and ``outputs`` are mappings of anything here), kernels (:mod:`olk.kernels`),
preprocessing (:mod:`olk.data.preprocess`), sizes (:mod:`olk.units`), the report's ``compare`` and
``table_layout``, and every check across keys (labels used twice, ``match:`` references, ``folds`` needing
batch mode).  Values are converted as msgspec's lax mode does: ``"5"`` and ``5.0`` are the integer 5 and
``5e-1`` (a string to PyYAML) is 0.5, as the hand-written checks read them before; ``0``/``1`` and
``"true"``/``"false"`` are booleans.

Why msgspec (issue 26).  Candidates: pydantic v2, msgspec, cattrs + attrs.  What each would add to ``olk run``,
measured on top of what it has already imported when it reads a config (numpy, pandas, PyYAML, ...): import +
defining a five-class schema of this size + converting configs/demo.yaml, medians of 7 runs on the 2-core
development machine (shared, under load): msgspec 0.22 11.4 ms (10.7 + 0.6 + 0.1), cattrs 26.2 + attrs 26.1
46 ms (31.7 + 7.5 + 7.2), pydantic 2.14 174 ms (132.5 + 48.7 + 0.1).  ``olk run`` takes 0.38 s of CPU to reach
a parsed config, so pydantic would add about 45 %, msgspec a few per cent.  Error messages: pydantic's errors
are the most structured (location tuple, input, context), cattrs' come as exception groups of notes,
msgspec's are one string, ``Expected `int` >= 1 - at `$.repeats```, whose location :func:`convert` reads back
(``$.algorithms[0].params``; a dict value's ``[...]`` is found by converting each value again); the message
the user reads is then written by olk from the value found there and the type declared for it, so it names
the key, the value and the fix whichever library checked it.  Measured after the change, ``olk run
configs/demo.yaml --set bta=3`` (stops with a one-line error right after the config is parsed), 25 runs
interleaved with the hand validator's: CPU (user + sys) median 392 ms against 382 ms; ``python -X importtime``
shows msgspec 5 ms and this module 5 ms when the machine is quiet.  ``olk --help`` and ``olk train`` never
import it (tests/test_startup.py): :mod:`olk.experiment.config` imports this module only to parse a config.

Each field's ``Meta`` says what the key is for (``description``) and, in ``extra``, what to write instead of a
bad value (``expect``) or what the number is (``noun``: ``the test fraction must be in (0, 1)``).
"""
from __future__ import annotations

import math
import re
import sys
from typing import Annotated, Any, ClassVar, Dict, List, Literal, Optional, Union, get_args, get_origin

import msgspec
from msgspec import Meta, Struct, field

from ..errors import ConfigError, did_you_mean, excerpt

Mode = Literal["online", "batch"]
Backend = Literal["loky", "threading", "multiprocessing", "dask"]
MODES = get_args(Mode)
BACKENDS = get_args(Backend)
#: the tuning metrics of online mode
TuneMetric = Literal["accuracy", "test_accuracy"]
TUNE_METRICS = get_args(TuneMetric)
#: the largest finite float: an upper bound ``le=_FINITE`` refuses inf (and nan fails every bound)
_FINITE = sys.float_info.max


def _meta(description: str = "", expect: str | None = None, noun: str | None = None, **bounds) -> Meta:
    """A field's Meta: what it is for, and optionally what to write (``expect``) / what the number is."""
    extra = {k: v for k, v in (("expect", expect), ("noun", noun)) if v is not None}
    return Meta(description=description or None, extra=extra or None, **bounds)


NonEmpty = Annotated[str, Meta(min_length=1)]
# a name given in YAML: a non-empty string, or a number such as 2 (taken as '2'); never true/false or a list
Name = Union[NonEmpty, int, float]
Text = Union[str, int, float]                           # free text: a number is taken as its digits
AnyMapping = Dict[Any, Any]                             # keys and values checked by the module that owns them


class _Shape(Struct, forbid_unknown_fields=True):
    """A YAML mapping with a fixed set of keys."""

    #: keys that were removed: their message instead of "unknown key"
    removed: ClassVar[Dict[str, str]] = {}


class MatchSpec(_Shape, kw_only=True):
    """``{match: LABEL, stat: n_sv, agg: mean}``: a value taken from another algorithm entry's results on the same
    dataset (:class:`olk.experiment.config.MatchRef`)."""

    match: Annotated[Name, _meta("label of the algorithm entry whose results give the value",
                                 "the label of another algorithm entry")]
    stat: Annotated[Name, _meta("the statistic of its runs, e.g. n_sv or kernel.gamma", "a statistic such as "
                                "n_sv")] = "n_sv"
    agg: Annotated[Name, _meta("how its runs' values are combined, e.g. mean", "an aggregate such as mean")] = "mean"


class WidthSpec(_Shape, kw_only=True):
    """``gamma: {percentile: P, sample: N}``: a kernel width from the data
    (:class:`olk.experiment.config.WidthRef`)."""

    percentile: Annotated[float, _meta("percentile of the pairwise distances, e.g. {percentile: 5}",
                                       "a percentile in (0, 100], e.g. 5", gt=0, le=100)]
    sample: Annotated[int, _meta("rows sampled (seeded) to measure the distances", "an integer >= 2",
                                 ge=2)] = 2000


class TuneSpec(_Shape, kw_only=True):
    """The top-level ``tune:`` mapping."""

    metric: Annotated[TuneMetric, _meta("the score the tune grids maximise")] = "accuracy"


class CVSpec(_Shape, kw_only=True):
    """Batch mode's ``cv:`` mapping: cross-validation for tune grids."""

    folds: Annotated[int, _meta("number of folds", ge=2)] = 3
    max_rows: Optional[Annotated[int, _meta("stratified subsample of the training rows for the folds",
                                            ge=10)]] = None


class DatasetSpec(_Shape, kw_only=True):
    """One entry of ``datasets:`` written as a mapping."""

    name: Annotated[Name, _meta("a registry dataset ('olk datasets list') or the path of a LIBSVM file",
                                "a dataset name or path")]
    label: Optional[Annotated[Name, _meta("the id runs and tables use, when one dataset is listed for several "
                                          "tasks", "an id for this entry, e.g. mfeat-3v8")]] = None
    params: Annotated[Optional[AnyMapping], _meta("per-dataset parameters by algorithm label: {LABEL: {PARAM: "
                                                  "value}}", "a mapping, e.g. {spa: {beta: 5}}")] = None
    preprocess: Annotated[Optional[AnyMapping], _meta("preprocessing (olk.data.preprocess)",
                                                      "a mapping, e.g. {positive_label: 1}")] = None
    kernel: Annotated[Any, _meta("this dataset's kernel (olk.kernels)")] = None
    test: Optional[Annotated[Name, _meta("batch mode: the test part", "the name of a part such as 'test'")]] = None
    holdout: Optional[Annotated[float, _meta("batch mode: stratified test fraction when there is no test part",
                                             "a fraction in (0, 1), e.g. 0.3", "the test fraction", gt=0,
                                             lt=1)]] = None
    folds: Optional[Annotated[int, _meta("batch mode: k-fold evaluation of all the rows", ge=2)]] = None
    part: Optional[Annotated[Name, _meta("with folds: evaluate on this part only", "a part name")]] = None


class AlgorithmSpec(_Shape, kw_only=True):
    """One entry of ``algorithms:`` written as a mapping."""

    name: Annotated[Name, _meta("the learner ('olk algorithms' lists them)", "an algorithm name such as spa")]
    label: Optional[Annotated[Name, _meta("its id in results and paper tables (default: name)",
                                          "a label such as spa_last")]] = None
    display: Optional[Annotated[Text, _meta("pretty name in tables and figures", "a display name")]] = None
    params: Annotated[Optional[AnyMapping], _meta("parameters (olk.algorithms.registry)",
                                                  "a mapping of parameter: value, e.g. {beta: 5}")] = None
    tune: Annotated[Optional[AnyMapping], _meta("grids searched on one extra permutation, then fixed",
                                                "a mapping of parameter: [values...]")] = None
    kernel: Annotated[Any, _meta("this learner's kernel (olk.kernels); values may be {match: LABEL}")] = None
    sweep: Annotated[Optional[AnyMapping], _meta("one setting per grid point",
                                                 "a mapping of parameter: [values...]")] = None
    match_tune: Annotated[Optional[AnyMapping], _meta(
        "a grid whose point matches another entry's statistic",
        "{PARAM: [values...], target: {match: LABEL, stat: n_sv}}")] = None
    outputs: Annotated[Optional[AnyMapping], _meta("batch mode: result label -> output (avg/last)",
                                                   "a mapping such as {spa_last: last, spa_avg: avg}")] = None
    epochs: Optional[Annotated[int, _meta("batch mode, online learner: passes over the training set",
                                          ge=1)]] = None
    seeds_of: Optional[Annotated[str, _meta("use the random seeds of the entry with this label",
                                            "the label of another algorithm entry", pattern=r"\S")]] = None


class ConfigFile(_Shape, kw_only=True):
    """A whole config file (configs/*.yaml)."""

    removed: ClassVar[Dict[str, str]] = {
        "regress": "regression tolerances are declared by each learner (its 'reproducibility', listed by "
                   "'olk algorithms'), not by the config; remove this key"}

    name: Annotated[Optional[Text], _meta("results directory name (default: the config file's stem)",
                                          "a name for the results directory")] = None
    paper: Optional[Annotated[Name, _meta("paper id of the published table to compare with (results/paper/)",
                                          "a paper id such as spa_tist2018")]] = None
    table: Optional[Annotated[Text, _meta("table id within the paper", "a table id such as 2")]] = None
    description: Annotated[Optional[Text], _meta("free text", "text")] = None
    plugins: Annotated[Optional[List[Annotated[NonEmpty, _meta(expect="a module name such as mylearner")]]], _meta(
        "learners of your own to load first: a module beside the config (mylearner for mylearner.py or the "
        "folder mylearner/), a .py path, or an installed module; MODULE:CLASS names one class",
        "a list of module names, e.g. [mylearner]")] = None
    mode: Annotated[Mode, _meta("online (mistake rate along one pass) or batch (train on the train "
                                          "split, test on the test split)")] = "online"
    seed: Annotated[int, _meta("base seed: permutations and learners' RNGs derive from it", ge=0)] = 0
    repeats: Annotated[int, _meta("number of permutations", ge=1)] = 1
    shuffle: Annotated[bool, _meta("false keeps the file order (then all repeats share one order)",
                                   "true or false")] = True
    scale: Annotated[float, _meta("fraction of each dataset to use (reproducible subsample), 1 = all",
                                  gt=0, le=1)] = 1.0
    n_jobs: Annotated[int, _meta("parallel runs (joblib); negative: all cores but n-1")] = 1
    backend: Annotated[Backend, _meta("joblib backend")] = "loky"
    memory_limit: Annotated[Optional[Text], _meta(
        "refuse runs whose estimated peak memory exceeds this: 12G, 500M, 80% (of the machine's memory) or 0 "
        "(no limit); default 80% (olk.experiment.memory)",
        "a size such as 12G, 500M or 80% (0 or none: no limit)")] = None
    checkpoints: Annotated[int, _meta("number of learning-curve checkpoints", ge=2, le=100_000)] = 50
    data_dir: Annotated[Union[str, List[Annotated[str, _meta(expect="a directory path")]], None], _meta(
        "extra directory to search for datasets", "a directory path (or a list of paths)")] = None
    kernel: Annotated[Any, _meta("kernel for every algorithm, e.g. {type: gaussian, gamma: 0.4} (olk.kernels)")] \
        = field(default_factory=lambda: {"type": "gaussian", "gamma": 1.0})
    tune: Annotated[Optional[TuneSpec], _meta("parameter-selection protocol", "a mapping like "
                                              "{metric: accuracy}")] = None
    datasets: Annotated[List[Annotated[Union[NonEmpty, DatasetSpec], _meta(
        expect="a dataset name or a mapping with 'name'")]], _meta(
        "dataset names, or {name, label, params, preprocess, kernel, test, holdout, folds, part}",
        "a non-empty list of dataset names", min_length=1)]
    algorithms: Annotated[List[Annotated[Union[NonEmpty, AlgorithmSpec], _meta(
        expect="an algorithm name or a mapping with at least 'name'")]], _meta(
        "algorithm names, or {name, label, display, params, tune, kernel, sweep, match_tune, outputs, epochs, "
        "seeds_of}", "a non-empty list of algorithms", min_length=1)]
    compare: Annotated[Optional[Dict[str, Any]], _meta("tolerances for olk compare, e.g. {accuracy: 1.5}",
                                                       "a mapping such as {accuracy: 1.5}")] = None
    table_layout: Annotated[Optional[Dict[str, Any]], _meta("table rendering options, e.g. "
                                                            "{datasets_per_block: 2}", "a mapping")] = None
    unavailable: Annotated[Optional[Dict[str, Any]], _meta("datasets known to be unavailable offline: "
                                                           "{name: reason}", "a mapping of name: reason")] = None
    cv: Annotated[Optional[CVSpec], _meta("batch mode: cross-validation for tune grids (max_rows: stratified "
                                          "subsample)", "a mapping like {folds: 3, max_rows: 5000}")] = None
    test_curve: Optional[Annotated[int, _meta(
        "batch mode: score the output on the test set at this many points of training -> test_curves.csv",
        ge=1, le=10_000)]] = None


# a tune/sweep grid of a kernel parameter: positive finite numbers
KernelGrid = Annotated[List[Annotated[float, _meta(expect="a positive number", gt=0, le=_FINITE)]],
                       _meta(expect="a non-empty list of candidate values", min_length=1)]


# ------------------------------------------------------------------------------------------------ conversion
def convert(raw, shape, where: str, top: bool = False):
    """``raw`` (as loaded from YAML) converted to ``shape`` (a Struct class or a type such as :data:`KernelGrid`),
    or a one-line ConfigError.  ``where`` names the value (``c.yaml: algorithms[0].kernel.gamma``), or the file
    when ``top`` (then keys are written after ``c.yaml: ``)."""
    try:
        return msgspec.convert(raw, shape, strict=False)
    except msgspec.ValidationError as e:
        raise ConfigError(_message(raw, shape, where, top, str(e))) from None
    except RecursionError:
        raise ConfigError(f"{where}: nested too deeply") from None


def show(v) -> str:
    """A value from the config for a message: its repr, at most ~60 characters, non-printables escaped."""
    return excerpt(repr(v), 60)[1:-1]


_AT = re.compile(r"^(?P<head>.*?)(?: - at `key` in `(?P<keypath>\$[^`]*)`| - at `(?P<path>\$[^`]*)`)?$", re.S)
_SEG = re.compile(r"\.([A-Za-z_]\w*)|\[(\d+)\]|\[\.\.\.\]")


def _message(raw, shape, where: str, top: bool, text: str) -> str:
    """olk's message for msgspec's ``text``: the location read back from it, the message written from the value
    found there and the type declared for it.  Anything unexpected: msgspec's own text after ``where``."""
    m: Any = _AT.match(text)        # the pattern matches every text (all its parts are optional)
    try:
        head = m.group("head")
        loc = m.group("keypath") or m.group("path") or "$"
        node, ann, keys = _locate(raw, shape, loc)
        here = _render(where, keys, top)
        if m.group("keypath") is not None:
            return _bad_key(node, ann, here)
        if head.startswith("Object contains unknown field"):
            return _unknown_key(node, ann, here, where, keys, top)
        if head.startswith("Object missing required field"):
            missing = [f for f in msgspec.structs.fields(_struct(ann)) if f.required and f.name not in node]
            f = missing[0]
            desc, _, _ = _notes(f.type)
            return f"{here}: missing key '{f.name}'" + (f" ({desc})" if desc else "")
        return f"{here}: {_problem(node, ann, head)}"
    except Exception:               # the message must never be the bug: fall back on msgspec's own words
        return f"{where}: {text}"


def _render(where: str, keys: list, top: bool) -> str:
    path = "".join(k if k.startswith("[") else f".{k}" for k in keys)
    if not path:
        return where
    if top:
        return f"{where}: {path.lstrip('.')}"
    return f"{where}{path}"


def _strip(ann):
    """Annotated[T, Meta...] -> T (the Metas dropped)."""
    while get_origin(ann) is Annotated:
        ann = get_args(ann)[0]
    return ann


def _members(ann) -> list:
    """The alternatives of a (possibly Annotated, Optional) union, each stripped; one for a non-union."""
    ann = _strip(ann)
    if get_origin(ann) is Union:
        return [m for a in get_args(ann) for m in _members(a)]
    return [ann]


def _is_struct(t) -> bool:
    return isinstance(t, type) and issubclass(t, Struct)


def _struct(ann):
    return next(m for m in _members(ann) if _is_struct(m))


def _container(ann, node):
    """The member of ``ann`` that a mapping or list ``node`` was converted as."""
    for m in _members(ann):
        if isinstance(node, dict) and (_is_struct(m) or get_origin(m) in (dict, Dict)):
            return m
        if isinstance(node, list) and get_origin(m) in (list, List):
            return m
    raise LookupError(ann)


def _locate(raw, shape, loc: str):
    """Follow msgspec's location (``$.datasets[0].holdout``) through the data and the declared types: the value
    there, its declared type and the keys leading to it (``['datasets', '[0]', 'holdout']``)."""
    node, ann, keys = raw, shape, list[str]()
    pos = 1
    while pos < len(loc):
        seg = _SEG.match(loc, pos)
        if seg is None:
            raise LookupError(loc)
        pos = seg.end()
        t = _container(ann, node)
        if seg.group(1) is not None:                    # a Struct field
            name = seg.group(1)
            ann = next(f.type for f in msgspec.structs.fields(t) if f.name == name)
            node, keys = node[name], keys + [name]
        elif seg.group(2) is not None:                  # a list item
            i = int(seg.group(2))
            ann, node, keys = get_args(t)[0], node[i], keys + [f"[{i}]"]
        else:                                           # a dict value: msgspec does not say which, find it
            vt = get_args(t)[1]
            k = next(k for k, v in node.items() if not _converts(v, vt))
            ann, node, keys = vt, node[k], keys + [str(k)]
    return node, ann, keys


def _converts(value, ann) -> bool:
    try:
        msgspec.convert(value, ann, strict=False)
        return True
    except msgspec.ValidationError:
        return False


def _notes(ann):
    """(description, expect, noun) declared on ``ann`` or, for a union, on its members (outermost first)."""
    desc = expect = noun = None
    stack = [ann]
    while stack:
        a = stack.pop(0)
        if get_origin(a) is Annotated:
            inner, *metas = get_args(a)
            for meta in metas:
                if isinstance(meta, Meta):
                    desc = desc or meta.description
                    extra = meta.extra or {}
                    expect = expect or extra.get("expect")
                    noun = noun or extra.get("noun")
            stack.append(inner)
        elif get_origin(a) is Union:
            stack.extend(x for x in get_args(a) if x is not type(None))
    return desc, expect, noun


def _bounds(ann) -> dict:
    """The numeric/length bounds declared anywhere on ``ann``'s (single) member chain."""
    out: dict = {}
    stack = [ann]
    while stack:
        a = stack.pop(0)
        if get_origin(a) is Annotated:
            inner, *metas = get_args(a)
            for meta in metas:
                for b in ("gt", "ge", "lt", "le", "min_length", "pattern"):
                    if isinstance(meta, Meta) and getattr(meta, b) is not None:
                        out.setdefault(b, getattr(meta, b))
            stack.append(inner)
    return out


_WORDS = {int: "an integer", float: "a number", bool: "true or false", str: "a string", type(None): "null"}


def _expect(ann) -> str:
    """What a value of type ``ann`` looks like, in words."""
    _, expect, _ = _notes(ann)
    if expect:
        return expect
    words = []
    for m in _members(ann):
        if m is type(None):
            continue
        if get_origin(m) is Literal:
            w = "one of " + ", ".join(map(str, get_args(m)))
        elif _is_struct(m) or get_origin(m) in (dict, Dict):
            w = "a mapping"
        elif get_origin(m) in (list, List):
            w = "a list"
        else:
            w = _WORDS.get(m, "a value")
        if w not in words:
            words.append(w)
    return " or ".join(words) or "a value"


def _problem(value, ann, head: str) -> str:
    """What is wrong with ``value`` (a bad type, a bad choice or a value out of range) and what to write."""
    if head.startswith("Invalid enum value"):
        choices = [str(c) for m in _members(ann) if get_origin(m) is Literal for c in get_args(m)]
        return f"{show(value)} is not one of {', '.join(choices)}{did_you_mean(value, choices)}"
    if ", got `" in head:
        return f"expected {_expect(ann)}, got {show(value)}"
    member = _member_for(value, ann)
    b = _bounds(member)
    kind = _strip(member)
    if kind in (int, float):
        try:
            x = msgspec.convert(value, kind, strict=False)
        except msgspec.ValidationError:
            x = value
        if isinstance(x, float) and not math.isfinite(x):
            return f"expected a finite number, got {show(value)}"
        _, _, noun = _notes(ann)
        return f"{noun + ' ' if noun else ''}{_range(x, b, kind)} (got {x})"
    return f"expected {_expect(ann)}, got {show(value)}"


def _member_for(value, ann):
    """The (still Annotated) member of ``ann`` a scalar ``value`` was checked against."""
    alts = []
    stack = [ann]
    while stack:
        a = stack.pop(0)
        inner = _strip(a)
        if get_origin(inner) is Union:
            # keep the Metas of the union itself on every member
            stack.extend(Annotated[(x, *get_args(a)[1:])] if get_origin(a) is Annotated else x
                         for x in get_args(inner))
        else:
            alts.append(a)
    kinds = [_strip(a) for a in alts]
    want = [bool] if isinstance(value, bool) else [int, float] if isinstance(value, int) else \
        [float, int] if isinstance(value, float) else [str, int, float] if isinstance(value, str) else \
        [list, List] if isinstance(value, list) else []
    for w in want:
        for a, k in zip(alts, kinds):
            if k is w or get_origin(k) is w:
                return a
    return alts[0]


def _range(x, b: dict, kind) -> str:
    """``must be >= 1`` / ``must be in (0, 1]``: the violated bound, or the interval of a bounded float."""
    lo: Any = ("gt", b["gt"]) if "gt" in b else ("ge", b["ge"]) if "ge" in b else None
    hi: Any = ("lt", b["lt"]) if "lt" in b else ("le", b["le"]) if "le" in b and b["le"] != _FINITE else None
    if kind is float and lo and hi:
        return f"must be in {'(' if lo[0] == 'gt' else '['}{lo[1]}, {hi[1]}{')' if hi[0] == 'lt' else ']'}"
    sign = {"gt": ">", "ge": ">=", "lt": "<", "le": "<="}
    below = lo and (x <= lo[1] if lo[0] == "gt" else x < lo[1])
    side = lo if below or not hi else hi
    return f"must be {sign[side[0]]} {side[1]}"


def _bad_key(node, ann, here: str) -> str:
    """A mapping key of the wrong type (e.g. ``1:`` where names are expected)."""
    t = _container(ann, node)
    k = next(k for k in node if not isinstance(k, str))
    if _is_struct(t):
        return _unknown(k, t, here)
    return f"{here}: expected names (strings) as keys, got {show(k)}"


def _unknown_key(node, ann, here: str, where: str, keys: list, top: bool) -> str:
    t = _container(ann, node)
    names = {f.name for f in msgspec.structs.fields(t)}
    k = next(k for k in node if k not in names)
    if k in t.removed:
        return f"{_render(where, keys + [str(k)], top)}: {t.removed[k]}"
    return _unknown(k, t, here)


def _unknown(k, t, here: str) -> str:
    names = sorted(f.name for f in msgspec.structs.fields(t))
    return f"{here}: unknown key {show(str(k))}{did_you_mean(k, names)}; allowed keys: {', '.join(names)}"

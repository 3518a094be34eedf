"""The one tolerance rule by which ``olk compare`` and ``olk report`` judge a cell against the paper.

A cell (dataset, algorithm, metric) is

* **within paper std** when |ours − paper| ≤ the paper's std (the paper printed one);
* **within tolerance** when |ours − paper| ≤ the paper's std + the metric's margin (:data:`RULE`: 1.5 points of
  accuracy or mistake rate, 10% of the paper's #SV or MSE, 0.05 of AMKL's efficiency ρ; a paper without a std
  counts it as 0);
* **off** otherwise, or when our runs gave no finite value (a diverged learner);
* **n/a** for a metric the rule does not judge (wall-clock time, measured on other hardware).

The rule is stated here once; :func:`describe_rule` words it for compare.md, REPRODUCTION.md and the docs (a
test checks docs/reproduction/reproducing.md holds the same sentence).  A table may deviate only for a reason
written in its config:
``compare: {n_sv: {tolerance: 25%, reason: "..."}}``.  A bare override (``compare: {n_sv: 0.25}``) that differs
from the rule is *not* applied by the comparison: it is listed as ignored, so no table passes on a tolerance
nobody justified.  ``olk compare --tol METRIC=VALUE`` still applies an explicit override on the command line (the
output says so); ``olk report`` never does.

``compare:`` may also hold ``datasets: {ours: paper's}`` (substitute data, see :mod:`olk.report.compare`) and
``variant: "what this reading changes"``: the results directory is a labelled variant of the table, shown with
its verdicts but not counted in the table's headline counts; and the keys that say how the run's reading of the
paper was chosen (:data:`READING_KEYS`, :class:`CompareSpec`): ``reading`` (literal | fitted |
literal_alternative), ``chosen_on``, ``choices``, ``contradiction``, ``designed`` and ``after_fit``.

>>> judge(1.9, 80.0, 0.5, RULE["accuracy"])
'within tolerance'
>>> judge(2.1, 80.0, 0.5, RULE["accuracy"])
'off'
>>> judge(-95.0, 1000.0, float("nan"), RULE["n_sv"])
'within tolerance'
"""
from __future__ import annotations

import datetime as _dt
import math
import re
from dataclasses import dataclass, field
from typing import Any, Iterable, Mapping

from olk.errors import ConfigError, did_you_mean

Tolerance = tuple[str, "float | None"]

#: The margin beyond the paper's std, per *paper* metric: (kind, value).  ``abs`` values are in the metric's unit
#: (percentage points for accuracy and mistake rate); ``rel`` values are fractions of the paper's value; ``None``
#: means "not judged" (verdict 'n/a').
RULE: dict[str, Tolerance] = {
    "accuracy": ("abs", 1.5),
    "mistake_rate": ("abs", 1.5),
    "mse": ("rel", 0.10),
    "efficiency": ("abs", 0.05),
    "n_sv": ("rel", 0.10),
    "time": ("rel", None),
}
#: The name the comparison has always used for the rule's margins.
DEFAULT_TOLERANCES = RULE

#: Our metric -> the paper metric it is compared with.
PAPER_METRIC = {"accuracy": "accuracy", "test_accuracy": "accuracy", "mistake_rate": "mistake_rate",
                "time_s": "time", "train_time_s": "time", "n_sv": "n_sv", "mse": "mse",
                "label_efficiency": "efficiency"}
#: What a metric is called in the rule's wording.
METRIC_WORDS = {"accuracy": "accuracy", "mistake_rate": "mistake rate", "mse": "MSE", "efficiency": "efficiency ρ",
                "n_sv": "#SV", "time": "time"}
#: Verdicts that judge a cell (the others say why it is not judged).
JUDGED = ("within paper std", "within tolerance", "off")
IN_TOLERANCE = ("within paper std", "within tolerance")
#: Keys of ``compare:`` that say how the run's reading of the paper was chosen (:func:`parse_compare`); results
#: computed before a key existed get it from ``readings:`` in results/annotations.yaml.
READING_KEYS = ("reading", "chosen_on", "choices", "contradiction", "designed", "after_fit")
#: Keys of ``compare:`` that are not tolerances.
NON_TOLERANCE_KEYS = ("datasets", "variant") + READING_KEYS
_EPS = 1e-12


def margin(tol: Tolerance, paper_mean: float) -> float:
    """The margin of ``tol`` in the metric's unit for a paper value (NaN when the metric is not judged)."""
    kind, val = tol
    if val is None:
        return math.nan
    return val if kind == "abs" else val * abs(paper_mean)


def judge(diff: float, paper_mean: float, paper_std: float, tol: Tolerance) -> str:
    """The verdict of a cell with a finite ``diff`` = ours − paper (see the module docstring)."""
    if tol[1] is None:
        return "n/a"
    std = 0.0 if math.isnan(paper_std) else paper_std
    if not math.isnan(paper_std) and abs(diff) <= paper_std + _EPS:
        return "within paper std"
    if abs(diff) <= std + margin(tol, paper_mean) + _EPS:
        return "within tolerance"
    return "off"


def describe_tol(metric: str, tol: Tolerance) -> str:
    """One metric's margin in words: 'accuracy ±1.5 points', '#SV ±10%', 'time: not judged'."""
    kind, val = tol
    word = METRIC_WORDS.get(metric, metric)
    if val is None:
        return f"{word}: not judged"
    if kind == "rel":
        return f"{word} ±{val * 100:g}%"
    return f"{word} ±{val:g}" + (" points" if metric in ("accuracy", "mistake_rate") else "")


def describe_rule() -> str:
    """The rule in one paragraph, as compare.md, REPRODUCTION.md and the docs state it."""
    margins = "; ".join(describe_tol(m, t) for m, t in RULE.items() if t[1] is not None)
    return ("A cell is *within paper std* when |ours − paper| ≤ the paper's std, *within tolerance* when "
            f"|ours − paper| ≤ the paper's std + a margin ({margins}; a paper that prints no std counts it as 0), "
            "and **off** otherwise; time is not judged (other hardware). A table deviates from the rule only for a "
            "reason written in its config (`compare: {n_sv: {tolerance: 25%, reason: ...}}`).")


# ----------------------------------------------------------------------------- parsing
@dataclass
class CompareSpec:
    """A config's / experiment.json's ``compare:`` key, parsed.

    ``tolerances``: the rule with the reasoned overrides applied; ``reasons``: metric -> the config's reason;
    ``ignored``: metric -> why an override was not applied (no reason given); ``aliases``: our dataset -> the
    paper's; ``variant``: '' for the table's main reading, else what this variant changes.

    ``reading`` says how the run's reading of the paper was chosen: ``literal`` (what the paper prints; where it
    is silent, a default fixed before looking at results), ``fitted`` (chosen, or proposed, because it matches
    published cells, or departing from the printed reading for another stated reason) or ``literal_alternative``
    (the reading the contradiction rule of docs/reproduction/contradictions.md does not pick, where the paper
    says two incompatible things: ``contradiction`` is the row of that page's table); '' when the config does not
    say.  ``chosen_on`` lists the datasets (our labels) whose published cells a fitted reading was chosen on (may be
    empty): the report judges its held-out score on the others.  ``choices`` names each departure of a fitted
    reading from the literal one with the datasets it was chosen on (``chosen_on`` is then their union), so one
    choice carries one label in every reading of a table.  ``designed`` (a date) and ``after_fit`` (a results
    directory) say that the reading's candidates were designed after that in-sample fit had run."""

    tolerances: dict[str, Tolerance] = field(default_factory=lambda: dict(RULE))
    reasons: dict[str, str] = field(default_factory=dict)
    ignored: dict[str, str] = field(default_factory=dict)
    aliases: dict[str, str] = field(default_factory=dict)
    variant: str = ""
    reading: str = ""
    chosen_on: tuple[str, ...] = ()
    choices: tuple[tuple[str, tuple[str, ...]], ...] = ()
    contradiction: int | None = None
    designed: str = ""
    after_fit: str = ""

    def label(self) -> str:
        """How the reading was chosen, in words: the one place every label of a reading comes from.

        >>> CompareSpec(reading="fitted", chosen_on=("w7a",)).label()
        'fitted on w7a'
        >>> CompareSpec(reading="literal_alternative", contradiction=1).label()
        'literal alternative (contradiction 1)'
        >>> CompareSpec(reading="fitted", chosen_on=("ijcnn1",), choices=(("beta = 10", ("ijcnn1",)),
        ...                                                                 ("y f <= 0", ()))).label()
        'fitted: beta = 10 (chosen on ijcnn1); y f <= 0 (chosen on no cell)'
        """
        if self.reading == FITTED and self.choices:
            return "fitted: " + "; ".join(f"{text} ({_chosen_words(on)})" for text, on in self.choices)
        return self.short_label()

    def short_label(self) -> str:
        """:meth:`label` without the choices: 'literal', 'fitted on w7a', 'fitted on no cell', 'literal alternative
        (contradiction 1)' or 'reading not labelled'."""
        if self.reading == LITERAL_ALTERNATIVE:
            return f"literal alternative (contradiction {self.contradiction})"
        if self.reading == FITTED:
            return "fitted " + (f"on {', '.join(self.chosen_on)}" if self.chosen_on else "on no cell")
        return LITERAL if self.reading == LITERAL else "reading not labelled"


def _chosen_words(datasets: tuple[str, ...]) -> str:
    return f"chosen on {', '.join(datasets)}" if datasets else "chosen on no cell"


def parse_compare(spec: Mapping[str, Any] | None, where: str = "compare", strict: bool = False) -> CompareSpec:
    """Parse a ``compare:`` mapping: tolerances (``metric: {tolerance: V, reason: TEXT}``; a bare ``metric: V``
    equal to the rule is accepted, a different one is recorded in ``ignored``, or refused with ``strict=True``,
    the check for a config about to run), ``datasets`` and ``variant``.

    >>> s = parse_compare({"n_sv": {"tolerance": "25%", "reason": "the paper rounds #SV"}, "accuracy": 0.5})
    >>> s.tolerances["n_sv"], s.reasons["n_sv"], sorted(s.ignored)
    (('rel', 0.25), 'the paper rounds #SV', ['accuracy'])
    """
    out = CompareSpec()
    if spec is None:
        return out
    if not isinstance(spec, Mapping):
        raise ConfigError(f"{where}: expected a mapping such as {{n_sv: {{tolerance: 25%, reason: ...}}}}, "
                          f"not {type(spec).__name__}")
    spec = dict(spec)
    aliases = spec.pop("datasets", None)
    if aliases is not None:
        if not isinstance(aliases, Mapping):
            raise ConfigError(f"{where}.datasets: expected a mapping of our dataset names to the paper's, "
                              'e.g. {"a9a-small": "a9a"}')
        out.aliases = {str(k): str(v) for k, v in aliases.items()}
    variant = spec.pop("variant", None)
    if variant is not None:
        if not isinstance(variant, str) or not variant.strip():
            raise ConfigError(f"{where}.variant: expected one line saying what this variant reads differently "
                              f"from the table's main config, e.g. variant: \"the raw data, sign(0) = +1\"")
        out.variant = " ".join(variant.split())
    _parse_reading(out, {k: spec.pop(k) for k in READING_KEYS if k in spec}, where)
    if isinstance(spec.get("tolerances"), Mapping):
        spec = dict(spec["tolerances"])
    for key, value in _items(spec, where):
        metric = _metric(key, where)
        if isinstance(value, Mapping):
            extra = sorted(set(value) - {"tolerance", "reason"})
            if extra or "tolerance" not in value:
                raise ConfigError(f"{where}.{key}: expected {{tolerance: VALUE, reason: TEXT}}"
                                  + (f", not the key(s) {', '.join(map(str, extra))}" if extra else ""))
            reason = value.get("reason")
            if not isinstance(reason, str) or not reason.strip():
                raise ConfigError(f"{where}.{key}.reason: say in one line why this table deviates from the "
                                  f"tolerance rule ({describe_tol(metric, RULE[metric])} beyond the paper's std)")
            out.tolerances[metric] = _parse_tol(value["tolerance"], RULE[metric][0], f"{where}.{key}.tolerance")
            out.reasons[metric] = " ".join(reason.split())
            continue
        tol = _parse_tol(value, RULE[metric][0], f"{where}.{key}")
        if tol != RULE[metric]:
            shown = "none" if tol[1] is None else f"{tol[1] * 100:g}%" if tol[0] == "rel" else f"{tol[1]:g}"
            if strict:
                raise ConfigError(f"{where}.{key}: {shown} differs from the tolerance rule "
                                  f"({describe_tol(metric, RULE[metric])} beyond the paper's std); delete it, or "
                                  f"give the table's reason: {key}: {{tolerance: {shown}, reason: \"...\"}}")
            out.ignored[metric] = (f"{key}: {shown} given without a reason, so the rule's "
                                   f"{describe_tol(metric, RULE[metric])} applies")
    return out


#: how a run's reading of the paper was chosen (``compare: {reading: ...}``)
READINGS = ("literal", "fitted", "literal_alternative")
LITERAL, FITTED, LITERAL_ALTERNATIVE = READINGS
#: the page that states the contradiction rule and numbers the contradictions a literal alternative names
CONTRADICTIONS_PAGE = "docs/reproduction/contradictions.md"
_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")


def _parse_reading(out: CompareSpec, keys: dict[str, Any], where: str) -> None:
    """The reading keys (:data:`READING_KEYS`) into ``out``: a fitted reading names the datasets it was chosen on
    (``chosen_on``, or per departure in ``choices``); a literal one names none; a literal alternative names the
    contradiction it runs the other side of.  Without ``reading`` (an entry of results/annotations.yaml that only
    adds keys to what experiment.json says) each key is checked on its own."""
    reading = keys.get("reading")
    if reading is not None and reading not in READINGS:
        raise ConfigError(f"{where}.reading: expected literal (what the paper prints), fitted (chosen because it "
                          f"matches published cells) or literal_alternative (the reading the contradiction rule "
                          f"does not pick, docs/reproduction/contradictions.md), not {reading!r}")
    out.reading = reading or ""
    chosen_on, choices = keys.get("chosen_on"), keys.get("choices")
    if (chosen_on is not None or choices is not None) and reading != FITTED:
        key = "chosen_on" if chosen_on is not None else "choices"
        raise ConfigError(f"{where}.{key}: only a fitted reading is chosen on cells; "
                          + ("delete it, or say reading: fitted" if reading else "add reading: fitted"))
    if reading == FITTED:
        out.choices = _choices(choices, where) if choices is not None else ()
        union = tuple(dict.fromkeys(d for _, on in out.choices for d in on))
        if chosen_on is None and choices is not None:
            out.chosen_on = union
        else:
            out.chosen_on = _datasets(chosen_on, f"{where}.chosen_on")
            if choices is not None and set(out.chosen_on) != set(union):
                raise ConfigError(f"{where}.chosen_on: {list(out.chosen_on)} is not the datasets its choices were "
                                  f"chosen on ({list(union)}); delete chosen_on (the choices say it)")
    contradiction = keys.get("contradiction")
    if reading == LITERAL_ALTERNATIVE or contradiction is not None:
        if reading not in (LITERAL_ALTERNATIVE, None):
            raise ConfigError(f"{where}.contradiction: only a literal alternative names a contradiction; say reading: "
                              "literal_alternative, or delete it")
        if isinstance(contradiction, bool) or not isinstance(contradiction, int) or contradiction < 1:
            raise ConfigError(f"{where}.contradiction: a literal alternative names the row of the table in "
                              f"docs/reproduction/contradictions.md it runs the other reading of, e.g. contradiction: "
                              f"1 (not {contradiction!r})")
        out.contradiction = contradiction
    designed, after_fit = keys.get("designed"), keys.get("after_fit")
    if designed is not None or after_fit is not None:
        if reading not in (FITTED, None):
            raise ConfigError(f"{where}.designed: only a fitted reading's candidates are designed after a fit")
        if designed is None or after_fit is None:
            raise ConfigError(f"{where}: designed and after_fit go together: the date the reading's candidates were "
                              "designed and the results directory of the in-sample fit that ran before, e.g. "
                              "{designed: 2026-11-26, after_fit: spa_table5_fitted}")
        text = designed.isoformat() if isinstance(designed, _dt.date) else designed
        if not isinstance(text, str) or not _DATE.fullmatch(text):
            raise ConfigError(f"{where}.designed: the date the reading's candidates were designed, YYYY-MM-DD, not "
                              f"{designed!r}")
        try:
            _dt.date.fromisoformat(text)
        except ValueError:
            raise ConfigError(f"{where}.designed: {text!r} is not a date") from None
        if not isinstance(after_fit, str) or not re.fullmatch(r"[\w.-]+", after_fit):
            raise ConfigError(f"{where}.after_fit: the name of the results directory of the in-sample fit (e.g. "
                              f"spa_table5_fitted), not {after_fit!r}")
        out.designed, out.after_fit = text, after_fit


def _datasets(value: Any, where: str) -> tuple[str, ...]:
    if (not isinstance(value, list)
            or not all(isinstance(d, (str, int)) and not isinstance(d, bool) and str(d).strip() for d in value)):
        raise ConfigError(f"{where}: a fitted reading lists the datasets whose published cells it was chosen on, "
                          f"e.g. chosen_on: [german, svmguide3] ([] for a reading that departs from the printed one "
                          f"without being chosen on any cell)")
    return tuple(str(d).strip() for d in value)


def _choices(value: Any, where: str) -> tuple[tuple[str, tuple[str, ...]], ...]:
    if not isinstance(value, Mapping) or not value:
        raise ConfigError(f"{where}.choices: a mapping of each departure from the literal reading to the datasets "
                          "it was chosen on, e.g. {\"beta = 10 on ijcnn1\": [ijcnn1], \"the Hedge test y f <= 0\": []}")
    out = []
    for text, on in value.items():
        if not isinstance(text, str) or not text.strip():
            raise ConfigError(f"{where}.choices: a choice is named by one line of text, not {text!r}")
        out.append((" ".join(text.split()), _datasets(on, f"{where}.choices.{text}")))
    return tuple(out)


def parse_tolerances(spec: Mapping[str, Any] | Iterable[str] | None, where: str = "--tol",
                     base: Mapping[str, Tolerance] | None = None) -> dict[str, Tolerance]:
    """Merge ``spec`` ({metric: value} or ['metric=value', ...], e.g. ``olk compare --tol``) into ``base``
    (default: :data:`RULE`), every override applied: the command line's explicit choice.  A config's
    ``compare:`` is read with :func:`parse_compare` instead, which applies only reasoned overrides; this function
    accepts the same mapping (``{tolerance, reason}`` values, ``datasets``, ``variant``), so a config checked
    with it is checked for typos.

    Metric names may be paper names (accuracy, time, n_sv, ...) or ours (time_s, test_accuracy...).
    """
    out = dict(RULE if base is None else base)
    if not spec:
        return out
    if isinstance(spec, Mapping):
        parse_compare(spec, where)                       # the whole key checked: reasons, datasets, variant
        spec = {k: v for k, v in spec.items() if k not in NON_TOLERANCE_KEYS}
        if isinstance(spec.get("tolerances"), Mapping):
            spec = dict(spec["tolerances"])
    for key, value in _items(spec, where):
        metric = _metric(key, where)
        if isinstance(value, Mapping):
            value = value.get("tolerance")
        out[metric] = _parse_tol(value, out.get(metric, ("abs", None))[0], f"{where}: {key}")
    return out


def _items(spec: Mapping[str, Any] | Iterable[str], where: str) -> list[tuple[str, Any]]:
    if isinstance(spec, Mapping):
        return [(str(k), v) for k, v in spec.items()]
    items = []
    for s in spec:
        if "=" not in str(s):
            raise ConfigError(f"{where}: '{s}' must look like METRIC=VALUE, e.g. accuracy=1.0 or n_sv=10%")
        k, v = str(s).split("=", 1)
        items.append((k.strip(), v.strip()))
    return items


def _metric(key: str, where: str) -> str:
    metric = PAPER_METRIC.get(key, key)
    if metric not in RULE:
        known = sorted(set(PAPER_METRIC) | set(RULE) | set(NON_TOLERANCE_KEYS))
        raise ConfigError(f"{where}: unknown metric '{key}'{did_you_mean(key, known)}; "
                          f"tolerances exist for {', '.join(sorted(RULE))}")
    return metric


def _parse_tol(value: Any, kind: str, where: str) -> Tolerance:
    if value is None or str(value).strip().lower() in ("none", "null", "off", ""):
        return kind, None
    text = str(value).strip().lower()
    try:
        if isinstance(value, bool):
            raise ValueError
        if isinstance(value, (int, float)):
            tol = (kind, float(value))
        elif text.endswith("%"):
            tol = ("rel", float(text[:-1]) / 100)
        elif text.startswith(("abs:", "rel:")):
            tol = (text[:3], float(text[4:]))
        else:
            tol = (kind, float(text))
    except ValueError:
        raise ConfigError(f"{where}: tolerance '{value}' is not a number; use e.g. 1.0, 10%, "
                          "abs:0.5, rel:0.2 or none") from None
    if not (tol[1] >= 0):  # also rejects NaN
        raise ConfigError(f"{where}: tolerance '{value}' must be >= 0")
    return tol

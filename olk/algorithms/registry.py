"""The algorithm registry: every learner registered by name with its parameters, defaults and checks.

``make("spa", beta=20)`` validates names and values and returns a ready learner; unknown names and
parameters get a did-you-mean, out-of-range values a one-line :class:`~olk.errors.ConfigError`.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Optional

from ..errors import ConfigError, did_you_mean


@dataclass(frozen=True)
class Param:
    """One hyper-parameter: name, type, default, a validity check and a one-line doc."""

    name: str
    default: Any
    doc: str = ""
    type: type = float
    check: Optional[Callable[[Any], bool]] = None
    requirement: str = ""          # human text of `check`, e.g. "> 0"
    choices: tuple = ()

    def coerce(self, value, where: str):
        if self.choices:
            if value not in self.choices:
                raise ConfigError(f"{where}: must be one of {', '.join(map(str, self.choices))} (got {value!r})"
                                  f"{did_you_mean(value, self.choices)}")
            return value
        try:
            if self.type is int:
                if isinstance(value, float) and not value.is_integer():
                    raise ValueError
                v = int(value)
            elif self.type is bool:
                if not isinstance(value, bool):
                    raise ValueError
                v = value
            else:
                v = self.type(value)
        except (TypeError, ValueError):
            raise ConfigError(f"{where}: expected {self.type.__name__}, got {value!r}") from None
        if self.check is not None and not self.check(v):
            raise ConfigError(f"{where}: must be {self.requirement} (got {v!r})")
        return v


REGISTRY: dict[str, type] = {}
ALIASES: dict[str, str] = {}


def register(cls):
    """Class decorator: add a learner class (with ``name``, ``display``, ``params``) to the registry."""
    if cls.name in REGISTRY:
        raise RuntimeError(f"algorithm {cls.name!r} registered twice")
    REGISTRY[cls.name] = cls
    for a in getattr(cls, "aliases", ()):
        ALIASES[a] = cls.name
    return cls


def resolve_name(name: str, where: str = "algorithm") -> str:
    key = str(name).lower().replace("-", "_")
    key = ALIASES.get(key, key)
    if key not in REGISTRY:
        raise ConfigError(f"{where}: unknown algorithm '{name}'{did_you_mean(key, list(REGISTRY) + list(ALIASES))}"
                          f"; run 'olk algorithms' to list them")
    return key


def get(name: str, where: str = "algorithm"):
    return REGISTRY[resolve_name(name, where)]


def validate_params(name: str, params: dict, where: str = "") -> dict:
    """Check `params` against algorithm `name`'s specs; return the full parameter dict with defaults filled."""
    cls = get(name, where or "algorithm")
    specs = {p.name: p for p in cls.params}
    out = {}
    for key, val in (params or {}).items():
        if key not in specs:
            raise ConfigError(f"{where or name}: unknown parameter '{key}' for {cls.name}"
                              f"{did_you_mean(key, specs)}; its parameters are: {', '.join(specs) or 'none'}")
        out[key] = specs[key].coerce(val, f"{where + '.' if where else ''}{key}")
    full = {p.name: out.get(p.name, p.default) for p in cls.params}
    cls.check_params(full, where or name)
    return full


def make(name: str, kernel=None, random_state=None, where: str = "", **params):
    """Instantiate a registered learner with validated parameters."""
    cls = get(name, where or "algorithm")
    full = validate_params(cls.name, params, where)
    return cls(kernel=kernel, random_state=random_state, **full)


def available() -> list[str]:
    """Import every algorithm module (registering them) and return the sorted names."""
    from . import _all  # noqa: F401
    return sorted(REGISTRY)

"""Kernel specifications (the math lives in the Cython core, :mod:`olk._core.svpool`)."""
from __future__ import annotations

from dataclasses import asdict, dataclass

from .errors import ConfigError, did_you_mean

KINDS = ("gaussian", "polynomial", "linear")
_ALIASES = {"rbf": "gaussian", "poly": "polynomial"}


@dataclass(frozen=True)
class Kernel:
    """A kernel k(x, x').

    * ``gaussian``:   exp(-gamma ||x - x'||^2)
    * ``polynomial``: (gamma <x, x'> + coef0) ** degree   (gamma=1, coef0=c gives the papers' (x.x' + c)^p)
    * ``linear``:     <x, x'>
    """

    kind: str = "gaussian"
    gamma: float = 1.0
    degree: float = 2.0
    coef0: float = 1.0

    def to_dict(self) -> dict:
        d = asdict(self)
        if self.kind == "gaussian":
            return {"kind": "gaussian", "gamma": self.gamma}
        if self.kind == "linear":
            return {"kind": "linear"}
        return d

    def label(self) -> str:
        if self.kind == "gaussian":
            return f"gaussian(gamma={self.gamma:g})"
        if self.kind == "polynomial":
            return f"poly(degree={self.degree:g}, coef0={self.coef0:g}, gamma={self.gamma:g})"
        return "linear"

    def pool_args(self) -> dict:
        """Arguments for :class:`olk._core.svpool.SVPool` describing this single kernel."""
        return {"kinds": [self.kind], "gammas": [self.gamma], "coef0s": [self.coef0], "degrees": [self.degree]}


def make_kernel(spec, where: str = "kernel") -> Kernel:
    """Build a Kernel from a Kernel, a dict like ``{type: gaussian, gamma: 0.4}`` or a kind name."""
    if isinstance(spec, Kernel):
        return spec
    if spec is None:
        return Kernel()
    if isinstance(spec, str):
        spec = {"type": spec}
    if not isinstance(spec, dict):
        raise ConfigError(f"{where}: expected a mapping like {{type: gaussian, gamma: 0.4}}, got {spec!r}")
    spec = dict(spec)
    kind = str(spec.pop("type", spec.pop("kind", "gaussian"))).lower()
    kind = _ALIASES.get(kind, kind)
    if kind not in KINDS:
        raise ConfigError(f"{where}.type: unknown kernel '{kind}'{did_you_mean(kind, KINDS)}; choose one of {', '.join(KINDS)}")
    allowed = {"gaussian": {"gamma"}, "polynomial": {"gamma", "degree", "coef0"}, "linear": set()}[kind]
    for key in spec:
        if key not in allowed:
            raise ConfigError(f"{where}.{key}: not a parameter of the {kind} kernel{did_you_mean(key, allowed)}"
                              f"; allowed: {', '.join(sorted(allowed)) or 'none'}")
    vals = {}
    for key, val in spec.items():
        try:
            vals[key] = float(val)
        except (TypeError, ValueError):
            raise ConfigError(f"{where}.{key}: expected a number, got {val!r}") from None
    if kind == "gaussian" and vals.get("gamma", 1.0) <= 0:
        raise ConfigError(f"{where}.gamma: must be > 0 (got {vals['gamma']:g})")
    if kind == "polynomial":
        return Kernel("polynomial", gamma=vals.get("gamma", 1.0), degree=vals.get("degree", 2.0), coef0=vals.get("coef0", 1.0))
    if kind == "linear":
        return Kernel("linear", gamma=1.0, degree=1.0, coef0=0.0)
    return Kernel("gaussian", gamma=vals.get("gamma", 1.0))

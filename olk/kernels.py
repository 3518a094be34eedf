"""Kernels: every kernel type is described here once (name, parameters, defaults, checks, the code of the
Cython branch that evaluates it); a :class:`Kernel` is one kernel, a :class:`KernelSet` m of them.

The arithmetic lives in one place too: ``SVPool._kval`` in :mod:`olk._core.svpool`, one branch per code,
each derived from the inner product <x, x'> and the squared norms that the pool computes once per SV.
Adding a kernel type = one :class:`KernelType` row below + one branch in ``_kval``.

>>> k = make_kernel({"type": "rbf", "gamma": 0.4})
>>> k, k.label()
(Kernel(kind='gaussian', gamma=0.4, degree=2.0, coef0=1.0), 'gaussian(gamma=0.4)')
>>> ks = KernelSet.of([{"type": "linear"}, {"type": "poly", "degree": 3}])
>>> len(ks), ks.pool_args()["codes"]
(2, [0, 2])
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Callable, Iterable

from .errors import ConfigError, did_you_mean


@dataclass(frozen=True)
class KernelType:
    """One kind of kernel: what a config may say about it and which Cython branch computes it."""

    name: str
    code: int                                   # the K_* branch of olk/_core/svpool.pyx's _kval
    formula: str
    params: dict = field(default_factory=dict)  # parameter -> default
    aliases: tuple = ()
    checks: dict = field(default_factory=dict)  # parameter -> (predicate, requirement text)
    fixed: dict = field(default_factory=dict)   # Kernel fields this kind pins (e.g. linear: degree 1)


KERNEL_TYPES: dict[str, KernelType] = {t.name: t for t in (
    KernelType("linear", 0, "<x, x'>", fixed={"gamma": 1.0, "degree": 1.0, "coef0": 0.0}),
    KernelType("gaussian", 1, "exp(-gamma ||x - x'||^2)", {"gamma": 1.0}, aliases=("rbf",),
               checks={"gamma": (lambda v: v > 0, "> 0")}),
    KernelType("polynomial", 2, "(gamma <x, x'> + coef0) ** degree  (gamma=1, coef0=c: the papers' (x.x' + c)^p)",
               {"gamma": 1.0, "degree": 2.0, "coef0": 1.0}, aliases=("poly",)),
)}
KINDS = tuple(KERNEL_TYPES)
_ALIASES = {a: t.name for t in KERNEL_TYPES.values() for a in t.aliases}


@dataclass(frozen=True)
class Kernel:
    """One kernel k(x, x') of a kind in :data:`KERNEL_TYPES` (see each type's ``formula``)."""

    kind: str = "gaussian"
    gamma: float = 1.0
    degree: float = 2.0
    coef0: float = 1.0

    @property
    def type(self) -> KernelType:
        return KERNEL_TYPES[self.kind]

    def params(self) -> dict:
        """The parameters this kind has, with their values."""
        return {p: getattr(self, p) for p in self.type.params}

    def to_dict(self) -> dict:
        return {"kind": self.kind, **self.params()}

    def label(self) -> str:
        ps = self.params()
        if self.kind == "polynomial":        # the order the papers write it in
            ps = {"degree": self.degree, "coef0": self.coef0, "gamma": self.gamma}
        short = {"polynomial": "poly"}.get(self.kind, self.kind)
        return short + (f"({', '.join(f'{k}={v:g}' for k, v in ps.items())})" if ps else "")

    def pool_args(self) -> dict:
        """Arguments for :class:`olk._core.svpool.SVPool` describing this single kernel."""
        return KernelSet((self,)).pool_args()


@dataclass(frozen=True)
class KernelSet:
    """m kernels evaluated together on one shared SV pool (a single kernel is a set of one)."""

    kernels: tuple

    @classmethod
    def of(cls, spec, where: str = "kernels") -> "KernelSet":
        """From a KernelSet, a Kernel, one spec, or a list of specs (each as :func:`make_kernel` reads it)."""
        if isinstance(spec, KernelSet):
            return spec
        if isinstance(spec, str) and spec.lower() in KERNEL_PRESETS:
            return kernel_preset(spec, where)
        if isinstance(spec, (list, tuple)):
            if not spec:
                raise ConfigError(f"{where}: needs at least one kernel")
            return cls(tuple(make_kernel(s, f"{where}[{i}]") for i, s in enumerate(spec)))
        return cls((make_kernel(spec, where),))

    def __len__(self) -> int:
        return len(self.kernels)

    def __iter__(self):
        return iter(self.kernels)

    def __getitem__(self, i) -> Kernel:
        return self.kernels[i]

    def label(self) -> str:
        return " + ".join(k.label() for k in self.kernels)

    @classmethod
    def preset(cls, name: str) -> "KernelSet":
        """A named kernel dictionary from :data:`KERNEL_PRESETS`, e.g. the SPA paper's 16 kernels:

        >>> ks = KernelSet.preset("spa16")
        >>> len(ks), [k.kind for k in ks].count("polynomial"), [k.kind for k in ks].count("gaussian")
        (16, 3, 13)
        >>> ks.label().split(" + ")[:4]
        ['poly(degree=1, coef0=0, gamma=1)', 'poly(degree=2, coef0=0, gamma=1)', 'poly(degree=3, coef0=0, gamma=1)', 'gaussian(gamma=2048)']
        """
        return kernel_preset(name)

    def pool_args(self) -> dict:
        """Codes and parameters for :class:`olk._core.svpool.SVPool`, one entry per kernel."""
        return {"codes": [k.type.code for k in self.kernels], "gammas": [k.gamma for k in self.kernels],
                "coef0s": [k.coef0 for k in self.kernels], "degrees": [k.degree for k in self.kernels]}


def _spa16() -> tuple:
    """The 16 kernels of the SPA paper's multiple-kernel experiments (Lu et al., TIST 2018, Section 6.2.2):
    (x.x')^p for p = 1, 2, 3 (olk's polynomial with gamma=1, coef0=0, degree=p), then
    exp(-||x - x'||^2 / (2 sigma^2)) for sigma = 2^-6, 2^-5, ..., 2^6 (olk's Gaussian with
    gamma = 1/(2 sigma^2) = 2^(-2j-1) for sigma = 2^j: 2048, 512, ..., 2^-13, exact powers of two)."""
    polys = tuple(Kernel("polynomial", gamma=1.0, degree=float(p), coef0=0.0) for p in (1, 2, 3))
    # ldexp, not 2.0 ** j: Python's float ** calls the C library's pow, whose last bit may differ between hosts
    gaussians = tuple(Kernel("gaussian", gamma=math.ldexp(1.0, -2 * j - 1)) for j in range(-6, 7))
    return polys + gaussians


#: named kernel dictionaries for multi-kernel learners: ``KernelSet.preset(name)``
KERNEL_PRESETS: dict[str, Callable[[], tuple]] = {"spa16": _spa16}


def kernel_preset(name: str, where: str = "kernels") -> "KernelSet":
    """The :class:`KernelSet` called ``name`` in :data:`KERNEL_PRESETS` (a one-line ConfigError otherwise).

    >>> ks = kernel_preset("spa16")
    >>> len(ks), ks[0].label(), ks[3].label(), ks[15].label()
    (16, 'poly(degree=1, coef0=0, gamma=1)', 'gaussian(gamma=2048)', 'gaussian(gamma=0.00012207)')
    >>> [k.gamma for k in ks][3:] == [2.0 ** (-2 * j - 1) for j in range(-6, 7)]
    True
    """
    key = str(name).lower()
    if key not in KERNEL_PRESETS:
        raise ConfigError(f"{where}: unknown kernel preset '{name}'{did_you_mean(key, KERNEL_PRESETS)}; "
                          f"choose one of {', '.join(KERNEL_PRESETS)}")
    return KernelSet(KERNEL_PRESETS[key]())


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
    if kind not in KERNEL_TYPES:
        raise ConfigError(f"{where}.type: unknown kernel '{kind}'{did_you_mean(kind, [*KINDS, *KERNEL_PRESETS])}; choose "
                          f"one of {', '.join(KINDS)}, or a kernel set for multi-kernel learners: {', '.join(KERNEL_PRESETS)}")
    kt = KERNEL_TYPES[kind]
    vals = dict(kt.params)
    for key, val in spec.items():
        if key not in kt.params:
            raise ConfigError(f"{where}.{key}: not a parameter of the {kind} kernel{did_you_mean(key, kt.params)}"
                              f"; allowed: {', '.join(sorted(kt.params)) or 'none'}")
        try:
            vals[key] = float(val)
        except (TypeError, ValueError):
            raise ConfigError(f"{where}.{key}: expected a number, got {val!r}") from None
        if vals[key] != vals[key] or vals[key] in (float("inf"), float("-inf")):
            raise ConfigError(f"{where}.{key}: must be a finite number (got {val!r})")
    for key, (ok, req) in kt.checks.items():
        if not ok(vals[key]):
            raise ConfigError(f"{where}.{key}: must be {req} (got {vals[key]:g})")
    return Kernel(kind, **{**vals, **kt.fixed})


def is_kernel_set(spec) -> bool:
    """Whether a kernel as a config gives it names several kernels: a list of them, or a preset name (``spa16``)."""
    return isinstance(spec, (list, tuple)) or (isinstance(spec, str) and spec.lower() in KERNEL_PRESETS)


def kernel_spec(spec, where: str = "kernel"):
    """The canonical, JSON-ready form of a kernel as a config gives it (what a run spec and its id hold): one
    kernel (a dict, or a type name such as ``gaussian``) -> ``Kernel.to_dict()``; several kernels (a list of
    them, or a preset name such as ``spa16``) -> a list of ``to_dict()`` s.  Invalid specs are a one-line
    ConfigError naming ``where``.

    >>> kernel_spec({"type": "gaussian", "gamma": 0.4})
    {'kind': 'gaussian', 'gamma': 0.4}
    >>> len(kernel_spec("spa16")), kernel_spec([{"type": "linear"}, "gaussian"])[1]["kind"]
    (16, 'gaussian')
    """
    if is_kernel_set(spec):
        return [k.to_dict() for k in KernelSet.of(spec, where)]
    return make_kernel(spec, where).to_dict()

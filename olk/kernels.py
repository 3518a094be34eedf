"""Kernels: every kernel type is described here once (name, parameters, defaults, checks, the code of the
Cython branch that evaluates it); a :class:`Kernel` is one kernel, a :class:`KernelSet` m of them.

The arithmetic lives in one place too: ``SVPool._kval`` in :mod:`olk._core.svpool`, one branch per code,
each derived from the inner product <x, x'> and the squared norms that the pool computes once per SV.
Adding a kernel type = one :class:`KernelType` row below + one branch in ``_kval``.

A kernel may read a *view* of the rows, a column range [lo, hi) (a multi-view dataset's feature block,
e.g. mfeat's ``fou``), and linear/polynomial kernels may be *normalised* to k(x, x) = 1.  A kernel set
can be written per view: ``{views: [fou, kar], each: [linear, chi2], normalize: true}`` is the 4 kernels
(fou: linear, chi2; kar: linear, chi2).  View names are resolved to columns with the dataset's views
(:func:`resolve_views`; the experiment planner does it per dataset).

>>> k = make_kernel({"type": "rbf", "gamma": 0.4})
>>> k, k.label()
(Kernel(kind='gaussian', gamma=0.4, degree=2.0, coef0=1.0, view=None, cols=None, normalize=False),
 'gaussian(gamma=0.4)')
>>> ks = KernelSet.of([{"type": "linear"}, {"type": "poly", "degree": 3}])
>>> len(ks), ks.pool_args()["codes"]
(2, [0, 2])
>>> ks = KernelSet.of(resolve_views({"views": ["a", "b"], "each": ["linear", "chi2"], "normalize": True},
...                                 {"a": (0, 3), "b": (3, 5)}))
>>> [k.label() for k in ks]
['linear[norm]@a', 'chi2(gamma=1)@a', 'linear[norm]@b', 'chi2(gamma=1)@b']
>>> ks.pool_args()["views"]
[(0, 3), (0, 3), (3, 5), (3, 5)]
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Callable

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
    unit_diagonal: bool = False                 # k(x, x) = 1 already: ``normalize`` is a no-op (pinned False)


KERNEL_TYPES: dict[str, KernelType] = {t.name: t for t in (
    KernelType("linear", 0, "<x, x'>", fixed={"gamma": 1.0, "degree": 1.0, "coef0": 0.0}),
    KernelType("gaussian", 1, "exp(-gamma ||x - x'||^2)", {"gamma": 1.0}, aliases=("rbf",),
               checks={"gamma": (lambda v: v > 0, "> 0")}, unit_diagonal=True),
    KernelType("polynomial", 2, "(gamma <x, x'> + coef0) ** degree  (gamma=1, coef0=c: the papers' (x.x' + c)^p)",
               {"gamma": 1.0, "degree": 2.0, "coef0": 1.0}, aliases=("poly",)),
    # Zhang, Marszalek, Lazebnik & Schmid, IJCV 2007 (the OKS paper's chi-square kernel): features >= 0
    KernelType("chi2", 3, "exp(-gamma sum_j (x_j - x'_j)^2 / (x_j + x'_j))  (x, x' >= 0; 0/0 terms are 0)",
               {"gamma": 1.0}, aliases=("chi-square", "chisquare", "chi_square"),
               checks={"gamma": (lambda v: v > 0, "> 0")}, unit_diagonal=True),
)}
#: the keys of a kernel besides its type's parameters
_KERNEL_FIELDS = ("view", "cols", "normalize")
KINDS = tuple(KERNEL_TYPES)
_ALIASES = {a: t.name for t in KERNEL_TYPES.values() for a in t.aliases}


@dataclass(frozen=True)
class Kernel:
    """One kernel k(x, x') of a kind in :data:`KERNEL_TYPES` (see each type's ``formula``)."""

    kind: str = "gaussian"
    gamma: float = 1.0
    degree: float = 2.0
    coef0: float = 1.0
    view: str | None = None         # the view's name (labels); None: all columns, or an unnamed range
    cols: tuple | None = None       # the columns [lo, hi) it reads (0-based); None: all (or `view` unresolved)
    normalize: bool = False         # k(x, x') / sqrt(k(x, x) k(x', x')) (linear, polynomial)

    @property
    def type(self) -> KernelType:
        return KERNEL_TYPES[self.kind]

    def params(self) -> dict:
        """The parameters this kind has, with their values."""
        return {p: getattr(self, p) for p in self.type.params}

    def to_dict(self) -> dict:
        """The canonical form a run spec holds (view, cols, normalize only when set, so the ids of
        whole-row kernels do not change)."""
        out = {"kind": self.kind, **self.params()}
        if self.view is not None:
            out["view"] = self.view
        if self.cols is not None:
            out["cols"] = list(self.cols)
        if self.normalize:
            out["normalize"] = True
        return out

    def label(self) -> str:
        ps = self.params()
        if self.kind == "polynomial":        # the order the papers write it in
            ps = {"degree": self.degree, "coef0": self.coef0, "gamma": self.gamma}
        short = {"polynomial": "poly"}.get(self.kind, self.kind)
        out = short + (f"({', '.join(f'{k}={v:g}' for k, v in ps.items())})" if ps else "")
        if self.normalize:
            out += "[norm]"
        if self.view is not None:
            out += f"@{self.view}"
        elif self.cols is not None:
            out += f"@[{self.cols[0]}:{self.cols[1]}]"
        return out

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
        if _is_per_view(spec):
            spec = expand_views(spec, where)
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
        ['poly(degree=1, coef0=0, gamma=1)', 'poly(degree=2, coef0=0, gamma=1)', 'poly(degree=3, coef0=0, gamma=1)',
         'gaussian(gamma=2048)']
        """
        return kernel_preset(name)

    def pool_args(self) -> dict:
        """Codes and parameters for :class:`olk._core.svpool.SVPool`, one entry per kernel."""
        for k in self.kernels:
            if k.view is not None and k.cols is None:
                raise ConfigError(f"kernel {k.label()}: view '{k.view}' is not resolved to columns; give "
                                  f"view: [lo, hi] (0-based column range), or use a dataset that declares its views")
        return {"codes": [k.type.code for k in self.kernels], "gammas": [k.gamma for k in self.kernels],
                "coef0s": [k.coef0 for k in self.kernels], "degrees": [k.degree for k in self.kernels],
                "views": [k.cols for k in self.kernels], "normalize": [k.normalize for k in self.kernels]}

    def gram(self, A, B=None):
        """The (m, n_A, n_B) kernel matrices k_k(a_i, b_j) of every kernel of the set (B = None: A itself),
        computed by the SV core (:meth:`olk._core.svpool.SVPool.kernel_values`: one product per (pair, measure)
        for all m kernels), so a batch learner's Gram matrices are the online learners' kernel values bit for
        bit.  A, B: dense arrays or CSR matrices of one layout.

        >>> import numpy as np
        >>> G = KernelSet.of([{"type": "linear"}, {"type": "chi2", "gamma": 1.0}]).gram(np.array([[1., 0.], [1., 1.]]))
        >>> G[0].tolist(), np.round(G[1], 4).tolist()
        ([[1.0, 1.0], [1.0, 2.0]], [[1.0, 0.3679], [0.3679, 1.0]])
        """
        import numpy as np

        from ._core.svpool import RowSource, SVPool
        from ._lazy import issparse  # no scipy import for dense data (NOGD's map: ~0.2 s of a short run)
        B = A if B is None else B
        self.check_data(A, "A")
        self.check_data(B, "B")
        sparse = issparse(A)
        if sparse != issparse(B):               # one of them is sparse: scipy is imported
            import scipy.sparse as sp
            A, B = sp.csr_matrix(A), sp.csr_matrix(B)
            sparse = True
        d = max(A.shape[1], B.shape[1])
        pool = SVPool(d, sparse, capacity=max(4, B.shape[0]), **self.pool_args())
        sb, sa = RowSource(B), RowSource(A)
        for j in range(B.shape[0]):
            pool.add(sb, j, [1.0])
        out = np.empty((len(self), A.shape[0], B.shape[0]))
        row = np.empty((len(self), max(1, B.shape[0])))
        for i in range(A.shape[0]):
            pool.kernel_values(sa, i, row)
            out[:, i, :] = row[:, :B.shape[0]]
        return out

    def check_data(self, X, where: str = "X") -> None:
        """The data a learner is given must fit the kernels: every view inside its columns, and the columns a
        chi2 kernel reads non-negative (a one-line DataError naming the kernel and the fix otherwise)."""
        from .errors import DataError
        n = X.shape[1]
        for k in self.kernels:
            lo, hi = k.cols if k.cols is not None else (0, n)
            if k.cols is not None and hi > n:
                raise DataError(f"{where}: kernel {k.label()} reads columns {lo}..{hi - 1}, but the data has {n}")
            if k.kind == "chi2":
                part = X[:, lo:hi]
                vals = part.data if hasattr(part, "tocsr") else part
                if vals.size and float(vals.min()) < 0.0:
                    raise DataError(f"{where}: the chi2 kernel {k.label()} needs non-negative features, and "
                                    f"columns {lo}..{hi - 1} have {float(vals.min()):g}; scale them first "
                                    f"(preprocess: {{scale: minmax01}})")


def _spa16() -> tuple:
    """The 16 kernels of the SPA paper's multiple-kernel experiments (Lu et al., TIST 2018, Section 6.2.2):
    (x.x')^p for p = 1, 2, 3 (olk's polynomial with gamma=1, coef0=0, degree=p), then
    exp(-||x - x'||^2 / (2 sigma^2)) for sigma = 2^-6, 2^-5, ..., 2^6 (olk's Gaussian with
    gamma = 1/(2 sigma^2) = 2^(-2j-1) for sigma = 2^j: 2048, 512, ..., 2^-13, exact powers of two)."""
    polys = tuple(Kernel("polynomial", gamma=1.0, degree=float(p), coef0=0.0) for p in (1, 2, 3))
    # ldexp, not 2.0 ** j: Python's float ** calls the C library's pow, whose last bit may differ between hosts
    gaussians = tuple(Kernel("gaussian", gamma=math.ldexp(1.0, -2 * j - 1)) for j in range(-6, 7))
    return polys + gaussians


def _amkl17() -> tuple:
    """The 17 Gaussian kernels of the AMKL paper's experiments (Hong & Chae, eq. (56); ../shared/spec/amkl_raker.md
    Section 1): exp(-||x - x'||^2 / (2 sigma_i^2)) with sigma_i = 10^((i - 9)/2), i = 1..17 (10^-4 ... 10^4), i.e.
    olk's Gaussian with gamma = 1 / (2 sigma_i^2) = 10^(9 - i) / 2.  The random-feature learners draw each
    kernel's frequencies with scale 1/sigma_i = sqrt(2 gamma); the exact-kernel baselines evaluate it directly."""
    return tuple(Kernel("gaussian", gamma=float(f"5e{8 - i}")) for i in range(1, 18))   # parsed: correctly rounded


def _amkl17_sigma2() -> tuple:
    """The other reading of the AMKL paper's eq. (56) (spec Section 1, INFERRED, a labelled alternative): the
    printed grid 10^((i - 9)/2) as sigma_i^2 instead of sigma_i, i.e. sigma_i = 10^((i - 9)/4), i = 1..17
    (10^-2 ... 10^2), olk's Gaussian with gamma = 1 / (2 sigma_i^2) = 10^((9 - i)/2) / 2.  No author code uses it;
    ``amkl17`` (sigma_i = 10^((i - 9)/2)) is the default reading."""
    from decimal import Decimal, getcontext
    getcontext().prec = 40
    return tuple(Kernel("gaussian", gamma=float(Decimal(10) ** (Decimal(9 - i) / 2) / 2)) for i in range(1, 18))


#: named kernel dictionaries for multi-kernel learners: ``KernelSet.preset(name)``
KERNEL_PRESETS: dict[str, Callable[[], tuple]] = {"spa16": _spa16, "amkl17": _amkl17,
                                                  "amkl17_sigma2": _amkl17_sigma2}


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
        raise ConfigError(f"{where}.type: unknown kernel '{kind}'{did_you_mean(kind, [*KINDS, *KERNEL_PRESETS])}; "
                          f"choose one of {', '.join(KINDS)}, or a kernel set for multi-kernel learners: "
                          f"{', '.join(KERNEL_PRESETS)}")
    kt = KERNEL_TYPES[kind]
    vals = dict(kt.params)
    extra = _kernel_fields(spec, where)
    for key, val in spec.items():
        if key in _KERNEL_FIELDS:
            continue
        if key not in kt.params:
            allowed = [*kt.params, *_KERNEL_FIELDS]
            raise ConfigError(f"{where}.{key}: not a parameter of the {kind} kernel{did_you_mean(key, allowed)}"
                              f"; allowed: {', '.join(sorted(allowed))}")
        try:
            vals[key] = float(val)
        except (TypeError, ValueError):
            raise ConfigError(f"{where}.{key}: expected a number, got {val!r}") from None
        if vals[key] != vals[key] or vals[key] in (float("inf"), float("-inf")):
            raise ConfigError(f"{where}.{key}: must be a finite number (got {val!r})")
    for key, (ok, req) in kt.checks.items():
        if not ok(vals[key]):
            raise ConfigError(f"{where}.{key}: must be {req} (got {vals[key]:g})")
    if kt.unit_diagonal:
        extra["normalize"] = False
    return Kernel(kind, **{**vals, **kt.fixed}, **extra)


#: ``gamma="scale"`` of the SVC-style arguments (:func:`svc_kernel`): scikit-learn SVC's data-dependent width
SCALE = "scale"
#: the SVC-style kernel arguments besides the kernel's name, each a parameter of some :data:`KERNEL_TYPES` entry
SVC_KERNEL_ARGS = ("gamma", "degree", "coef0")


def scale_gamma(X) -> float:
    """scikit-learn SVC's ``gamma="scale"``: 1 / (n_features Var(X)), the variance over every entry of X (a dense
    array or a scipy sparse matrix, whose zeros count), 1.0 when Var(X) = 0.

    >>> scale_gamma([[0.0, 2.0], [2.0, 0.0]])
    0.5
    """
    import numpy as np
    if hasattr(X, "tocsr"):                           # scipy sparse: E[x^2] - E[x]^2 over all n * d entries
        n = X.shape[0] * X.shape[1]
        data = np.asarray(X.data, dtype=np.float64)
        var = float(np.dot(data, data) / n - (data.sum() / n) ** 2) if n else 0.0
        d = X.shape[1]
    else:
        A = np.asarray(X, dtype=np.float64)
        var, d = (float(A.var()) if A.size else 0.0), (A.shape[1] if A.ndim > 1 else A.size)
    return 1.0 / (d * var) if var > 0.0 and d else 1.0


def svc_kernel(kernel, gamma=None, degree=None, coef0=None, *, where: str = "kernel", X=None, default=None):
    """The kernel of scikit-learn SVC-style arguments, as :meth:`KernelSet.of` reads it: ``kernel`` a type name
    or alias (``"rbf"``, ``"poly"``, ``"linear"``, ``"chi2"``) with ``gamma``, ``degree``, ``coef0`` as top-level
    values (None: the type's default above; a value the type does not have is ignored, as SVC ignores ``degree``
    for ``"rbf"``); ``gamma="scale"`` is :func:`scale_gamma` of ``X``.  ``kernel`` None is ``default`` (a learner's
    declared default kernel, e.g. a preset) or else ``"rbf"``.  Every other form of :meth:`KernelSet.of` (a dict, a
    list, a preset name, a Kernel) passes as it is and takes no top-level value; a top-level value given with one
    is a one-line ConfigError naming ``where``, as is ``gamma="scale"`` without ``X``.  It only builds the spec: the
    kernel's name and values are checked once, by the :meth:`KernelSet.of` that reads it (the generated classes'
    :func:`olk.algorithms.surface.surface_kernel`, with the same ``where``).

    >>> svc_kernel("rbf", gamma=0.5)
    {'type': 'rbf', 'gamma': 0.5}
    >>> svc_kernel("poly", gamma="scale", degree=3, X=[[0.0, 2.0], [2.0, 0.0]])
    {'type': 'poly', 'gamma': 0.5, 'degree': 3}
    >>> svc_kernel({"type": "gaussian", "gamma": 2.0})
    {'type': 'gaussian', 'gamma': 2.0}
    """
    given = {k: v for k, v in zip(SVC_KERNEL_ARGS, (gamma, degree, coef0)) if v is not None}
    if kernel is None:
        kernel = "rbf" if default is None else default
        if default is not None and given.get("gamma") == SCALE:
            del given["gamma"]                      # the default set keeps its own widths
    if not isinstance(kernel, str) or kernel.lower() in KERNEL_PRESETS:
        named = sorted(k for k, v in given.items() if not (k == "gamma" and v == SCALE))
        if named:
            raise ConfigError(f"{where}: {named[0]}={given[named[0]]!r} is a value of a kernel named by its type "
                              f"(kernel='rbf', 'poly', 'linear' or 'chi2'); this kernel ({kernel!r}) gives its own")
        return kernel
    kind = _ALIASES.get(kernel.lower(), kernel.lower())
    spec: dict[str, Any] = {"type": kernel}
    if kind not in KERNEL_TYPES:
        return spec                                     # KernelSet.of's one-line unknown-kernel error, did-you-mean
    for k, v in given.items():
        if k not in KERNEL_TYPES[kind].params:
            continue                                    # SVC's convention: a value the kernel has no use for
        if v == SCALE and k == "gamma":
            if X is None:
                raise ConfigError(f"{where}: gamma='scale' needs the data (scikit-learn's fit computes it); "
                                  f"give a number")
            v = scale_gamma(X)
        spec[k] = v
    return spec


def _kernel_fields(spec: dict, where: str) -> dict:
    """view / cols / normalize of a kernel spec, checked: ``view`` is a view name or a [lo, hi] column range
    (0-based, hi exclusive); ``cols`` the resolved range of a named view."""
    out: dict[str, Any] = {}
    if "normalize" in spec:
        if not isinstance(spec["normalize"], bool):
            raise ConfigError(f"{where}.normalize: expected true or false, got {spec['normalize']!r}")
        out["normalize"] = spec["normalize"]
    view, cols = spec.get("view"), spec.get("cols")
    if isinstance(view, (list, tuple)):
        view, cols = None, view
    elif view is not None and not isinstance(view, str):
        raise ConfigError(f"{where}.view: expected a view name (e.g. fou) or a column range [lo, hi], got {view!r}")
    if cols is not None:
        if (not isinstance(cols, (list, tuple)) or len(cols) != 2
                or not all(isinstance(c, int) and not isinstance(c, bool) for c in cols) or not 0 <= cols[0] < cols[1]):
            raise ConfigError(f"{where}.view: a column range is [lo, hi] with 0 <= lo < hi (0-based, hi excluded), "
                              f"got {cols!r}")
        out["cols"] = (int(cols[0]), int(cols[1]))
    if view is not None:
        out["view"] = str(view)
    return out


def _is_per_view(spec) -> bool:
    return isinstance(spec, dict) and "views" in spec


def expand_views(spec: dict, where: str = "kernel") -> list:
    """A per-view kernel set ``{views: [v1, v2, ...], each: [k1, k2, ...], normalize: bool}`` -> the list of
    kernel specs, view-major (v1:k1, v1:k2, ..., v2:k1, ...), each with ``view`` set and ``normalize`` from the
    outer key unless the kernel gives its own.  The kernel specs are copied as given (a data-dependent gamma
    stays for the planner to resolve).

    >>> [k["view"] + ":" + k["type"] for k in expand_views({"views": ["a", "b"], "each": ["linear", "chi2"]})]
    ['a:linear', 'a:chi2', 'b:linear', 'b:chi2']
    """
    unknown = set(spec) - {"views", "each", "normalize"}
    if unknown:
        key = sorted(unknown)[0]
        raise ConfigError(f"{where}.{key}: a per-view kernel set has keys views, each, normalize"
                          f"{did_you_mean(key, ['views', 'each', 'normalize'])}")
    views, each = spec.get("views"), spec.get("each")
    if not isinstance(views, (list, tuple)) or not views or not all(isinstance(v, (str, list, tuple)) for v in views):
        raise ConfigError(f"{where}.views: expected a list of view names (or [lo, hi] column ranges), got {views!r}")
    if not isinstance(each, (list, tuple)) or not each:
        raise ConfigError(f"{where}.each: expected the list of kernels to build on every view, got {each!r}")
    out = []
    for v in views:
        for i, k in enumerate(each):
            k = {"type": k} if isinstance(k, str) else k
            if not isinstance(k, dict):
                raise ConfigError(f"{where}.each[{i}]: expected a kernel like {{type: gaussian, gamma: 0.4}}, "
                                  f"got {k!r}")
            k = {**k, "view": list(v) if isinstance(v, (list, tuple)) else v}
            if "normalize" in spec and "normalize" not in k:
                k["normalize"] = spec["normalize"]
            out.append(k)
    return out


def resolve_views(spec, views: dict | None, where: str = "kernel"):
    """A kernel spec (one, a list, a per-view set) with every view *name* given its columns from ``views``
    ({name: (lo, hi)}, a dataset's ``meta['views']``): an unknown name is a one-line ConfigError with a
    did-you-mean.  Specs without views are returned unchanged (presets too)."""
    if _is_per_view(spec):
        spec = expand_views(spec, where)
    if isinstance(spec, (list, tuple)):
        return [resolve_views(k, views, f"{where}[{i}]") for i, k in enumerate(spec)]
    if not isinstance(spec, dict) or not isinstance(spec.get("view"), str) or spec.get("cols") is not None:
        return spec
    name = spec["view"]
    if not views or name not in views:
        have = f"its views: {', '.join(views)}" if views else "the dataset declares no views (give view: [lo, hi])"
        raise ConfigError(f"{where}.view: unknown view '{name}'{did_you_mean(name, list(views or ()))}; {have}")
    lo, hi = views[name]
    return {**spec, "cols": [int(lo), int(hi)]}


def kernel_count(spec) -> int:
    """How many kernels a kernel spec names (without validating its values: a gamma may still be a rule), or a
    built Kernel (1) / KernelSet holds."""
    if isinstance(spec, Kernel):
        return 1
    if isinstance(spec, KernelSet):
        return len(spec)
    if isinstance(spec, str) and spec.lower() in KERNEL_PRESETS:
        return len(KERNEL_PRESETS[spec.lower()]())
    if _is_per_view(spec):
        return len(spec.get("views") or ()) * len(spec.get("each") or ())
    return len(spec) if isinstance(spec, (list, tuple)) else 1


def is_kernel_set(spec) -> bool:
    """Whether a kernel as a config gives it names several kernels: a list of them, a per-view set
    (``{views: [...], each: [...]}``) or a preset name (``spa16``)."""
    return isinstance(spec, (list, tuple)) or _is_per_view(spec) or \
        (isinstance(spec, str) and spec.lower() in KERNEL_PRESETS)


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


def build_kernel(spec, where: str = "kernel") -> "Kernel | KernelSet":
    """The kernel a config gives, built once (the planner does it; a run spec carries the result and the learner
    takes it as it is): one kernel -> :class:`Kernel`, several (a list, a per-view set, a preset) ->
    :class:`KernelSet`.  Its canonical JSON is :func:`kernel_json` (= :func:`kernel_spec` of the same spec).

    >>> build_kernel({"type": "rbf", "gamma": 0.4})
    Kernel(kind='gaussian', gamma=0.4, degree=2.0, coef0=1.0, view=None, cols=None, normalize=False)
    >>> kernel_json(build_kernel("spa16")) == kernel_spec("spa16")
    True
    """
    if isinstance(spec, (Kernel, KernelSet)):
        return spec
    if is_kernel_set(spec):
        return KernelSet.of(spec, where)
    return make_kernel(spec, where)


def kernel_json(kernel: "Kernel | KernelSet"):
    """The canonical JSON form of a built kernel: ``Kernel.to_dict()``, or the list of them for a kernel set (what
    run records, run ids and model files hold)."""
    if isinstance(kernel, KernelSet):
        return [k.to_dict() for k in kernel]
    return kernel.to_dict()

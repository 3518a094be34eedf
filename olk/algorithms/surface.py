"""What the generated user surfaces share: :mod:`olk.estimators` (scikit-learn) and :mod:`olk.river` (River) make one
class per registered learner from its declarations, and both need the same three things, written here once:

* :func:`storing_init`: the class's ``__init__(self, kernel=None, <seed>=None, <every parameter with its registry
  default>)`` that stores its arguments under their names (what scikit-learn's ``get_params`` / ``clone`` and
  River's ``_get_params`` / ``clone`` read back), with a real ``__signature__``;
* :func:`parameters_doc`: the numpydoc "Parameters" section of its docstring;
* :func:`same_value`: parameter values compared without raising;
* :func:`surface_class_name`: the class name, the same in both modules (the one naming rule; ``olk algorithms``
  shows it for every learner).

The two surfaces differ only in what they declare: the seed's name (``random_state`` / ``seed``), the names a
parameter may not take, what the constructor does after storing (River builds the learner at once), and how an
unknown argument is worded.

>>> from olk.algorithms.registry import REGISTRY
>>> class Demo:
...     __init__ = storing_init(REGISTRY["pa1"], "Demo", seed="random_state")
>>> d = Demo(C=0.5)
>>> d.kernel, d.random_state, d.C
(None, None, 0.5)
>>> import inspect; str(inspect.signature(Demo))
'(kernel=None, random_state=None, gamma=None, degree=None, coef0=None, C=1.0)'
"""
from __future__ import annotations

import inspect
import keyword
from typing import Any, Callable, Optional

from ..kernels import SVC_KERNEL_ARGS, KernelSet, svc_kernel


def surface_class_name(learner_cls) -> str:
    """The name of the scikit-learn class (:mod:`olk.estimators`) and of the River class (:mod:`olk.river`) of
    learner class `learner_cls`, the one naming rule of olk's generated classes: the learner's class name followed
    by ``Classifier`` (tasks ``binary``, ``probabilistic``, ``multiclass``) or ``Regressor`` (task ``regression``;
    a learner name ending in ``Regression`` drops it).  River's own classes are named the same way
    (``PAClassifier``, ``PARegressor``).

    >>> from olk.algorithms.registry import REGISTRY
    >>> [surface_class_name(REGISTRY[n]) for n in ("perceptron", "klr_nc", "kogd_reg", "raker")]
    ['KernelPerceptronClassifier', 'NCClassifier', 'KernelOGDRegressor', 'RakerRegressor']
    """
    base = learner_cls.__name__
    if learner_cls.task == "regression":
        return base.removesuffix("Regression") + "Regressor"
    return base + "Classifier"


def _python_words(qualname: str, names: list, kwargs: dict, e: TypeError) -> str:
    return f"{qualname}.__init__() {e}"


def kernel_arg_names(learner_cls) -> dict[str, str]:
    """The SVC-style kernel arguments (``gamma``, ``degree``, ``coef0``: :func:`olk.kernels.svc_kernel`) -> their
    names on a generated class: the same, or ``kernel_<name>`` where the learner has a parameter of that name (the
    ``gamma`` of ``klr_aux`` and ``omkl_p2``)."""
    own = {p.name for p in learner_cls.params}
    return {a: f"kernel_{a}" if a in own else a for a in SVC_KERNEL_ARGS}


def surface_kernel(obj, learner_cls, where: str, X=None) -> KernelSet:
    """The kernels of a generated class's stored ``kernel`` and SVC-style arguments: the spec of
    :func:`svc_kernel` (with the learner's ``default_kernel``; ``gamma="scale"`` from ``X``) checked once, here, by
    :meth:`KernelSet.of` (a bad name or value is a one-line ConfigError naming `where`, the class's parameter).
    The learner takes the KernelSet as it is (``KernelSet.of`` of a KernelSet checks nothing again)."""
    vals = {a: getattr(obj, n) for a, n in kernel_arg_names(learner_cls).items()}
    return KernelSet.of(svc_kernel(obj.kernel, **vals, where=where, X=X, default=learner_cls.default_kernel), where)


def storing_init(learner_cls, qualname: str, *, seed: str, reserved: tuple = (),
                 refuse: Optional[Callable[[str], bool]] = None,
                 explain: Callable[[str, list, dict, TypeError], str] = _python_words,
                 then: Optional[Callable[[Any], None]] = None, module: str = "", doc: str = "",
                 gamma: Any = None, extra: tuple = ()):
    """``__init__(self, kernel=None, <seed>=None, gamma=<gamma>, degree=None, coef0=None, <params>, <extra>)`` for
    the class `qualname` over `learner_cls` (the kernel arguments under :func:`kernel_arg_names`; `extra`: the
    surface's own arguments after the learner's, (name, default) pairs, e.g. scikit-learn's ``shuffle``): one
    function body for every generated class; it stores each argument as an attribute of the same name and then
    calls ``then(self)`` if given.  Its ``__signature__`` names the learner's real parameters and defaults.  A
    parameter named like a keyword, ``self``, ``kernel``, the seed, one of `reserved`, an `extra` name or one
    `refuse` returns True for cannot be an argument: a RuntimeError when the class is made.  Arguments it cannot
    bind are the ``TypeError`` of ``explain(qualname, names, kwargs, error)`` (default: Python's own words)."""
    kargs = kernel_arg_names(learner_cls)
    own = tuple(n for n, _ in extra)
    for p in learner_cls.params:
        n = p.name
        if (not n.isidentifier() or keyword.iskeyword(n)
                or n in ("self", "kernel", seed, *reserved, *kargs.values(), *own)
                or (refuse is not None and refuse(n))):
            raise RuntimeError(f"{learner_cls.name}: parameter {n!r} cannot be an argument of {qualname}")
    P = inspect.Parameter
    signature = inspect.Signature(
        [P("self", P.POSITIONAL_OR_KEYWORD), P("kernel", P.POSITIONAL_OR_KEYWORD, default=None),
         P(seed, P.POSITIONAL_OR_KEYWORD, default=None)]
        + [P(kargs[a], P.POSITIONAL_OR_KEYWORD, default=gamma if a == "gamma" else None) for a in SVC_KERNEL_ARGS]
        + [P(p.name, P.POSITIONAL_OR_KEYWORD, default=p.default) for p in learner_cls.params]
        + [P(n, P.POSITIONAL_OR_KEYWORD, default=d) for n, d in extra])
    names = list(signature.parameters)[1:]

    def __init__(self, *args, **kwargs):
        try:
            bound = signature.bind(self, *args, **kwargs)
        except TypeError as e:                              # an unknown or doubled argument
            raise TypeError(explain(qualname, names, kwargs, e)) from None
        bound.apply_defaults()
        for n, v in list(bound.arguments.items())[1:]:
            setattr(self, n, v)
        if then is not None:
            then(self)

    __init__.__signature__ = signature                      # type: ignore[attr-defined]
    __init__.__qualname__ = f"{qualname}.__init__"
    __init__.__module__ = module or __name__
    __init__.__doc__ = doc or f"Store the parameters; see {qualname}."
    return __init__


def kernel_and_seed_docs(cls, seed: str, seed_type: str, gamma: Any = None) -> list[str]:
    """The numpydoc entries of the arguments every learner takes before its parameters: the kernel, the seed of its
    random draws under the name `seed` of the surface (``random_state`` for scikit-learn, ``seed`` for River), and
    the SVC-style kernel values (``gamma`` defaulting to `gamma`)."""
    default = cls.default_kernel
    names = kernel_arg_names(cls)
    gtype = "float, 'scale' or None" if gamma == "scale" else "float or None"
    scale = ("; 'scale' (the default): 1 / (n_features Var(X)) of the data of the first fit, as SVC"
             if gamma == "scale" else "")
    return [
        "kernel : str, dict, list or Kernel, default=None",
        "    The kernel: a type name 'rbf', 'poly', 'linear' or 'chi2' (with the values below), a dict such as "
        "``{'type': 'gaussian', 'gamma': 0.4}``"
        + (", or a kernel set (a list of kernels or a preset such as 'spa16')" if cls.max_kernels > 1 else "")
        + ("; None: 'rbf'" if default is None else f"; None: {default!r}, this learner's default") + ".",
        f"{seed} : {seed_type}, default=None",
        "    Seed of the learner's random draws"
        + (" (it is stochastic)" if cls.stochastic else " (unused: it is deterministic)") + ".",
        f"{names['gamma']} : {gtype}, default={gamma!r}",
        "    Width of a kernel named by its type ('rbf', 'poly', 'chi2'; None: the type's default in olk.kernels"
        + scale + ").",
        f"{names['degree']} : float or None, default=None",
        "    Degree of 'poly' (None: the type's default).",
        f"{names['coef0']} : float or None, default=None",
        "    Constant term of 'poly' (None: the type's default).",
    ]


def parameters_doc(cls, seed: str, seed_type: str, gamma: Any = None) -> list[str]:
    """The numpydoc "Parameters" section of a generated class over learner class `cls`."""
    return ["Parameters", "----------", *kernel_and_seed_docs(cls, seed, seed_type, gamma),
            *(p.numpydoc() for p in cls.params)]


def same_value(a, b) -> bool:
    """a == b for parameter values and labels (numbers, strings, None), False when they do not compare."""
    try:
        return a is b or bool(a == b)
    except (TypeError, ValueError):
        return False


__all__ = ["surface_class_name", "storing_init", "kernel_arg_names", "surface_kernel", "kernel_and_seed_docs",
           "parameters_doc", "same_value"]

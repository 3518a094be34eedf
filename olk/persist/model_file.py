"""``save`` and ``load``: a learner or a fitted estimator of :mod:`olk.estimators` <-> one model file
(:mod:`.format`), its state encoded by :mod:`.values`, the loaded model checked by :mod:`.checks`."""
from __future__ import annotations

import os
import platform
import re
import sys
from typing import Any

import numpy as np

from .._version import __version__
from ..errors import OlkError, excerpt
from .checks import check_types
from .format import ESTIMATOR_VERSION, FORMAT, FORMAT_VERSION, ModelFileError, read_archive, write_archive
from .values import Decoder, Encoder, set_state


def save(model, path) -> None:
    """Write `model` (a registered olk learner, trained or not, or a fitted scikit-learn estimator of
    :mod:`olk.estimators`) to `path` as one ``.npz`` file (:mod:`.format`).
    The file is written under a temporary name and renamed, so an existing file is replaced only by a complete
    one.  An attribute the format cannot hold is a one-line :class:`~olk.errors.OlkError` naming it; nothing is
    written then."""
    from ..algorithms.common.learner import KernelEstimator
    from ..algorithms.registry import REGISTRY

    estimator = _estimator_of(model)
    if estimator is not None:
        model = estimator.learner_
    if not isinstance(model, KernelEstimator):
        raise OlkError(f"save: expected an olk learner (e.g. olk.algorithms.make('spa')), got {type(model).__name__}")
    name = model.name            # a KernelEstimator: every learner declares its registry name
    if REGISTRY.get(name) is not type(model):
        raise OlkError(f"save: {type(model).__qualname__} is not a registered olk learner (registry name "
                       f"{name!r} is {'another class' if name in REGISTRY else 'unknown'}); only registered learners "
                       f"can be saved")
    enc = Encoder(name)
    state = enc.learner_state(model)
    params = model.get_params()
    kernel = params.pop("kernel")
    params_json = {"kernel": _kernel_json(kernel), **Encoder(name, enc.arrays).encode_params(params)}
    from .._lazy import scipy_version
    meta = {
        "format": FORMAT, "format_version": FORMAT_VERSION if estimator is None else ESTIMATOR_VERSION,
        "olk_version": __version__,
        "saved_with": {"python": platform.python_version(), "numpy": np.__version__, "scipy": scipy_version()},
        "algorithm": name,
        **_origin_meta(type(model)),
        "params": params_json,
        "state": state,
    }
    if estimator is not None:           # after `state`: its values continue the numbering (the learner is a ref)
        meta["estimator"] = {"class": type(estimator).__name__,
                             "state": enc.encode(_estimator_state(estimator), "estimator")}
    write_archive(path, meta, enc.arrays)


def _origin_meta(cls) -> dict:
    """A learner from outside olk records where it came from (its module and the plugin kind): loading the model
    where that module is not loaded then names it."""
    from ..algorithms import plugins
    org = plugins.origin_of(cls)
    return {} if org.kind == "built-in" else {"origin": {"kind": org.kind, "module": org.module}}


def _estimator_of(model):
    """`model` if it is a scikit-learn estimator of :mod:`olk.estimators` (checked: generated, fitted), else None."""
    est = sys.modules.get("olk.estimators")
    if est is None:             # nothing is one of its estimators before it is imported (it loads scikit-learn)
        return None
    OlkEstimator, by_class_name = est.OlkEstimator, est.by_class_name
    if not isinstance(model, OlkEstimator):
        return None
    cls = type(model)
    if by_class_name.get(cls.__name__) is not cls:
        raise OlkError(f"save: {cls.__qualname__} is not one of olk's estimator classes (olk.estimators); only "
                       f"those can be saved")
    if "learner_" not in model.__dict__:
        raise OlkError(f"save: this {cls.__name__} is not fitted; call fit or partial_fit before saving it")
    return model


def _estimator_state(est) -> dict:
    """The estimator's attributes (its parameters, ``learner_``, ``n_features_in_``, ``classes_``, ...).  An
    array of strings held as Python objects (``feature_names_in_``) is stored as a NumPy string array and listed
    under ``"__object_arrays__"``, so loading turns it back into objects."""
    state, objects = {}, []
    for k, v in est.__dict__.items():
        if isinstance(v, np.ndarray) and v.dtype.hasobject and all(isinstance(x, str) for x in v.flat):
            v = v.astype(str)
            objects.append(k)
        state[k] = v
    if objects:
        state["__object_arrays__"] = objects
    return state


def _kernel_json(kernel):
    from ..kernels import KernelSet
    if isinstance(kernel, KernelSet):
        return [k.to_dict() for k in kernel]
    return kernel.to_dict()


def load(path) -> Any:
    """Read a model written by :func:`save` (no pickle).  Returns the learner, ready to ``predict`` /
    ``decision_function`` and, for an online learner, to continue with ``partial_fit`` exactly where it stopped
    (its RNG included).  A file that is not an olk model, or one from an incompatible olk, is a one-line
    :class:`~olk.errors.OlkError` naming the file (and both olk versions when they differ)."""
    path = os.fspath(path)
    meta, arrays = read_archive(path)
    where = _where(path, meta)
    from ..algorithms.registry import REGISTRY
    name = meta.get("algorithm")
    if not isinstance(name, str) or name not in REGISTRY:
        org: dict = meta["origin"] if isinstance(meta.get("origin"), dict) else {}
        module = org.get("module") if isinstance(org.get("module"), str) else None
        how = (f"; it was trained with a learner from the {org.get('kind')} module '{module}': load it first with "
               f"--plugin {module} (olk.algorithms.registry.load_plugin) or install its package" if module else
               "; a learner of your own: load its module first with --plugin MODULE")
        raise ModelFileError(f"{where}: it is a model of algorithm {name!r}, which this olk does not have "
                             f"(run 'olk algorithms' to list them){how}")
    cls = REGISTRY[name]
    fresh, hyper = _fresh(cls, meta, where)
    _check_state_keys(meta.get("state"), fresh, meta["algorithm"], where)     # before any value is decoded
    model, dec = _build(cls, meta, arrays, where)
    check_compatible(model, cls, meta, where, (fresh, hyper))
    if "estimator" in meta:
        return _build_estimator(meta, dec, model, where)
    return model


def _where(path: str, meta: dict) -> str:
    """The file, with both olk versions when they differ (the start of every later error)."""
    written = meta.get("olk_version")
    if written == __version__:
        return f"{path} (olk {__version__} model)"
    return f"{path} (written by olk {written}, format version {meta['format_version']}; this is olk {__version__})"


def _build(cls, meta: dict, arrays: dict, where: str):
    state = meta.get("state")
    if not isinstance(state, dict):
        raise ModelFileError(f"{where}: corrupted olk model file (no learner state)")
    model = cls.__new__(cls)
    dec = Decoder(arrays, where)
    dec.memo.append(model)                              # shared-able value 0: the learner itself
    try:
        state = dec.decode(state)
        set_state(model, state)
    except ModelFileError:
        raise
    except Exception as e:          # the file is untrusted input: whatever building from it raises is corruption
        raise ModelFileError(f"{where}: corrupted or incompatible olk model file "
                             f"({type(e).__name__}: {' '.join(str(e).split())[:120]})") from None
    return model, dec


def _build_estimator(meta: dict, dec: "Decoder", learner, where: str):
    """The scikit-learn estimator of a version-2 file around its (already loaded) learner."""
    from ..estimators import ORDER_PARAMS_OF_OLD_FILES, by_class_name, order_params
    spec = meta["estimator"]
    name = spec.get("class") if isinstance(spec, dict) else None
    cls: Any = by_class_name.get(name) if isinstance(name, str) else None
    if cls is None or cls._learner_name != meta["algorithm"]:
        raise ModelFileError(f"{where}: it is a {name!r} estimator of algorithm {meta['algorithm']!r}, which this olk "
                             f"does not have (olk.estimators lists them)")
    try:
        state = dec.decode(spec.get("state"))
        if not isinstance(state, dict):
            raise TypeError("the estimator's state is not a dict")
        for k in state.pop("__object_arrays__", []):
            state[k] = np.asarray(state[k]).astype(object)
    except ModelFileError:
        raise
    except Exception as e:
        raise ModelFileError(f"{where}: corrupted or incompatible olk model file "
                             f"({type(e).__name__}: {' '.join(str(e).split())[:120]})") from None
    if state.get("learner_") is not learner:
        raise ModelFileError(f"{where}: corrupted olk model file (the estimator does not hold the file's learner)")
    from ..algorithms.surface import kernel_arg_names
    for arg in kernel_arg_names(cls.learner_class()).values():
        state.setdefault(arg, None)     # a file from before the SVC-style arguments: its kernel says it all
    for arg, _ in order_params(cls.learner_class()):
        state.setdefault(arg, ORDER_PARAMS_OF_OLD_FILES[arg])  # a file from before shuffle / n_epochs: the given order
    missing = sorted(set(cls().get_params()) - set(state))
    if missing:
        raise ModelFileError(f"{where}: its {name} lacks the parameter(s) {', '.join(missing[:5])}, which this olk's "
                             f"{name} has; refit it with this olk (or load it with the olk that wrote it)")
    est = cls.__new__(cls)
    est.__dict__.update(state)
    return est


def _fresh(cls, meta: dict, where: str):
    """A new learner of `cls` built from the file's saved parameters -- its kernel, random_state and every
    hyper-parameter checked as a constructor checks them (a kernel width of NaN, inf or -1, a random_state of NaN
    are refused as they would be by ``make``) -- and the checked hyper-parameters.  Built from the parameters
    alone (its own RNG: the model's is never touched)."""
    from ..algorithms.registry import check_params_of
    params = meta.get("params")
    if not isinstance(params, dict) or "kernel" not in params:
        raise ModelFileError(f"{where}: corrupted olk model file (no params)")
    hyper = {k: v for k, v in params.items() if k not in ("kernel", "random_state")}
    try:
        dec = Decoder({}, where)
        kernel, seed = dec.decode(params["kernel"]), dec.decode(params.get("random_state"))
        _check_seed(seed, "params.random_state", where)
        from ..kernels import KernelSet
        kernels = KernelSet.of(kernel, "params.kernel")
        hyper = check_params_of(cls, dec.decode(hyper), meta["algorithm"])
        fresh = cls(kernel=kernels, random_state=seed, **hyper)
    except ModelFileError:
        raise
    except OlkError as e:
        raise ModelFileError(f"{where}: its parameters do not fit this olk: {e}") from None
    except Exception as e:
        raise ModelFileError(f"{where}: corrupted or incompatible olk model file ({type(e).__name__}: "
                             f"{' '.join(str(e).split())[:120]})") from None
    return fresh, hyper


def _check_seed(seed, what: str, where: str) -> None:
    """A saved random_state is one a learner's constructor takes (``numpy.random.default_rng`` of it: None, a
    non-negative integer, a Generator; not NaN nor -1); else one line."""
    try:
        np.random.default_rng(seed)                 # a Generator is returned as it is: its state is not touched
    except (TypeError, ValueError):
        raise ModelFileError(f"{where}: corrupted olk model file ({what} is {excerpt(repr(seed), 30)}, not a seed: "
                             f"None or a non-negative integer)") from None


#: a fitted attribute a learner sets after its constructor, named as in scikit-learn (``n_features_in_``,
#: ``beta_``): the only names a saved state may hold beyond a new learner's; at most :data:`_MAX_FITTED` of them
_FITTED = re.compile(r"[a-z][a-z0-9_]{0,62}[a-z0-9]_")
_MAX_FITTED = 16


def _check_state_keys(state, fresh, name: str, where: str) -> None:
    """The saved state's attribute names, before any value is decoded: those a new learner has, and a few
    fitted attributes (:data:`_FITTED`); anything else (10^6 made-up keys) is one line."""
    if not isinstance(state, dict):
        raise ModelFileError(f"{where}: corrupted olk model file (no learner state)")
    known = set(fresh.__getstate__())
    extra = [k for k in state if k not in known]
    odd = [k for k in extra if not _FITTED.fullmatch(k)]
    if odd or len(extra) > _MAX_FITTED:
        bad = odd or extra
        shown = ", ".join(excerpt(k, 30) for k in bad[:3])
        raise ModelFileError(f"{where}: corrupted olk model file (its {name} state holds {len(bad):,} "
                             f"attribute{'s' if len(bad) > 1 else ''} a {name} of this olk does not have: {shown}"
                             f"{', ...' if len(bad) > 3 else ''})")


def check_compatible(model, cls, meta: dict, where: str, fresh=None) -> None:
    """The learner fits this olk: its parameters pass this olk's checks (a renamed or newly invalid one is the
    registry's one-line error; the kernel and random_state as a constructor checks them), the kernel its state
    holds is the one its parameters name, and its state has every attribute a new learner of this olk has.
    `fresh`: (:func:`_fresh`'s learner, hyper-parameters) when already made."""
    fresh, hyper = fresh or _fresh(cls, meta, where)
    params = meta["params"]
    _check_seed(model.random_state, "its state's random_state", where)
    if model.kernels != fresh.kernels:
        raise ModelFileError(f"{where}: corrupted olk model file (its state's kernel is not the kernel of its "
                             f"parameters)")
    # a hyper-parameter added to the learner after the file was written takes its registry default: olk adds a
    # parameter only with a default that keeps the old behaviour (e.g. OMKC's combine='vote'), so the model is
    # the one that was saved
    added = [p.name for p in cls.params if p.name not in params]
    for name in added:
        setattr(model, name, hyper[name])
        if isinstance(model.__dict__.get("hyperparams"), dict):
            model.hyperparams = {**model.hyperparams, name: hyper[name]}
    check_types(model, fresh, where)
    missing = sorted(set(fresh.__getstate__()) - set(model.__dict__))
    if missing:
        raise ModelFileError(f"{where}: its {meta['algorithm']} state lacks {', '.join(missing[:5])}"
                             f"{' ...' if len(missing) > 5 else ''}, which this olk's {meta['algorithm']} has; "
                             f"retrain the model with this olk (or load it with the olk that wrote it)")


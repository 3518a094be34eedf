"""Is a loaded state one this olk can use?  Every attribute a new learner sets is of the same kind in it, and an SV
pool's arrays fit its shape before the compiled core (which has no bounds checks) sees them.  Each failure is one
:class:`~olk.persist.format.ModelFileError` line."""
from __future__ import annotations

import numpy as np

from .format import ModelFileError


def check_pool_state(st, bad) -> None:
    """The saved state of an SV pool is consistent before the compiled core (which has no bounds checks) sees it:
    types, shapes, and every sparse feature index inside the pool's width.  `bad(why)` makes the one-line error."""
    def arr(key, kind, ndim):
        a = st.get(key)
        if not isinstance(a, np.ndarray) or a.dtype.kind not in kind or a.ndim != ndim:
            raise bad(f"the SV pool's {key!r} is not a {ndim}-d array of the expected type")
        return a
    if not isinstance(st, dict):
        raise bad("the SV pool's state is not a dict")
    nf, sparse = st.get("n_features"), st.get("sparse")
    if type(nf) is not int or not 0 <= nf < 2 ** 31 or type(sparse) is not bool:
        raise bad("the SV pool's width or layout is not valid")
    from .._core.svpool import N_KERNEL_CODES
    kind = arr("kind", "iu", 1)
    m = kind.shape[0]
    if m < 1 or int(kind.min()) < 0 or int(kind.max()) >= N_KERNEL_CODES:
        raise bad(f"the SV pool's kernel codes are not in 0..{N_KERNEL_CODES - 1}")
    for key in ("gamma", "coef0", "degree"):
        if arr(key, "f", 1).shape[0] != m:
            raise bad(f"the SV pool's {key!r} does not have one value per kernel")
    ck = arr("col_kernel", "iu", 1)
    if ck.size < 1 or int(ck.min()) < 0 or int(ck.max()) >= m:
        raise bad(f"the SV pool's coefficient columns name kernels outside 0..{m - 1}")
    coef = arr("coef", "f", 2)
    n = coef.shape[0]
    if coef.shape[1] != ck.shape[0]:
        raise bad("the SV pool's coefficients do not have one column per classifier")
    if arr("mnorm", "f", 2).shape[0] != n or arr("tag", "iu", 1).shape[0] != n:
        raise bad("the SV pool's arrays do not have one row per support vector")
    for key in ("views", "normalize"):
        v = st.get(key)
        if v is not None and (not isinstance(v, list) or len(v) != m):
            raise bad(f"the SV pool's {key!r} does not have one entry per kernel")
    for v in st.get("views") or ():
        if v is not None and not (isinstance(v, (list, tuple)) and len(v) == 2
                                  and all(type(c) is int for c in v) and 0 <= v[0] < v[1] <= max(nf, 1)):
            raise bad("the SV pool's kernel views are not column ranges inside its width")
    if sparse:
        lens, idx, val = arr("sp_len", "iu", 1), arr("sp_idx", "iu", 1), arr("sp_val", "f", 1)
        if lens.shape[0] != n or (lens < 0).any() or int(lens.sum()) != idx.shape[0] or idx.shape != val.shape:
            raise bad("the SV pool's sparse rows do not add up")
        if idx.size and (int(idx.min()) < 0 or int(idx.max()) >= nf):
            raise bad(f"a support vector has a feature index outside the pool's width {nf}")
    elif arr("dense", "f", 2).shape != (n, nf):
        raise bad("the SV pool's dense rows do not have its shape")
    for key in ("coef", "gamma", "coef0", "degree", "mnorm", "sp_val" if sparse else "dense"):
        if not finite(st[key]):
            raise bad(f"the SV pool's {key!r} holds NaN or infinite values, which no model learned from finite "
                      f"data has; retrain the model")


def finite(a: np.ndarray, block: int = 1 << 20) -> bool:
    """Whether every value of the float array `a` is finite, checked a block at a time (memory: one block)."""
    flat = a.reshape(-1)
    return all(np.isfinite(flat[i:i + block]).all() for i in range(0, flat.size, block))

#: what a value of a fresh learner's attribute says a loaded value of it must be (see :func:`check_types`)
_NUMBER = (int, float, np.integer, np.floating)


def check_types(model, fresh, where: str) -> None:
    """Each attribute a freshly built learner (same parameters) sets in its constructor holds a value of the same
    kind in the loaded model -- a number stays a number (an integer within 64 bits), a string a string, an array an
    array of the same dimension and kind, any other value the same type -- so a hand-edited or corrupted state is
    refused here in one line instead of failing with a TypeError or OverflowError when the model is used.
    Attributes that start as None (the SV pool before the first example, ``classes_``) are checked by their own
    decoder (:func:`check_pool_state`) or not at all."""
    from .._core.svpool import SVPool
    from ..tasks import TASKS
    # a binary classifier keeps its two labels; a multi-class one (its declared task) any K >= 1 of them
    multiclass = TASKS[type(model).task].labels == "classes"
    late = {"pool": lambda v: isinstance(v, SVPool),
            "classes_": lambda v: isinstance(v, np.ndarray) and v.ndim == 1 and (
                v.shape[0] >= 1 if multiclass else v.shape[0] == 2),
            "n_features_in_": lambda v: type(v) is int and 0 <= v < 2 ** 31}
    for key, valid in late.items():     # set by learning: None in a fresh learner
        v = model.__dict__.get(key)
        if v is not None and not valid(v):
            raise ModelFileError(f"{where}: corrupted olk model file (attribute {key!r} holds a "
                                 f"{type(v).__name__} that is not a valid {key})")
    if model.__dict__.get("src") is not None:
        raise ModelFileError(f"{where}: corrupted olk model file (a model never holds bound data 'src')")
    for key, v in model.__dict__.items():   # what it learned (weights_, alpha_, ...; the SV pool: above)
        if key.endswith("_") and isinstance(v, np.ndarray) and v.dtype.kind in "fc" and not finite(v):
            raise ModelFileError(f"{where}: corrupted olk model file (attribute {key!r} holds NaN or infinite "
                                 f"values, which no model learned from finite data has; retrain the model)")
    for key, ref in fresh.__getstate__().items():
        if ref is None or key not in model.__dict__:
            continue
        v = model.__dict__[key]
        if isinstance(ref, bool) or isinstance(ref, np.bool_):
            ok = isinstance(v, (bool, np.bool_))
        elif isinstance(ref, (int, np.integer)):          # a count stays an integer
            ok = isinstance(v, (int, np.integer)) and not isinstance(v, bool) and -2 ** 63 <= int(v) < 2 ** 63
        elif isinstance(ref, _NUMBER):
            ok = isinstance(v, _NUMBER) and not isinstance(v, bool) and (
                not isinstance(v, (int, np.integer)) or -2 ** 63 <= int(v) < 2 ** 63)
        elif isinstance(ref, np.ndarray):
            ok = isinstance(v, np.ndarray) and v.ndim == ref.ndim and v.dtype.kind == ref.dtype.kind
        else:
            ok = type(v) is type(ref)
        if not ok:
            if isinstance(v, (int, np.integer)) and not isinstance(v, bool) and not -2 ** 63 <= int(v) < 2 ** 63:
                shown = f"an integer of {len(str(abs(int(v))))} digits"
            elif not isinstance(v, (int, float, str)) or len(repr(v)) > 40:
                shown = f"a {type(v).__name__}"
            else:
                shown = repr(v)
            kept = "a 64-bit integer" if isinstance(ref, (int, np.integer)) else f"a {type(ref).__name__}"
            raise ModelFileError(f"{where}: corrupted olk model file (attribute {key!r} holds {shown}, but a "
                                 f"{type(model).__name__} keeps {kept} there)")

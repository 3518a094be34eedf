"""``olk train`` and ``olk predict``: the application logic behind the two LIBSVM-style commands (``svm-train`` /
``svm-predict``).  The CLI (:mod:`olk.cli`) only parses options and calls :func:`train` / :func:`predict`.

Labels.  A classifier learns any two labels of a file as they are (0/1, 2/4, -1/+1, strings): the model keeps
them (``classes_``, the negative one first) and ``olk predict`` prints them.  ``positive_label`` says which of the
two is the positive class (default: the larger); with more than two labels it is required and turns the file
into "L against the rest" (the model then predicts L or -1).  A file with one label trains, with a one-line
warning that the model predicts that label for every row.  A multi-class learner (task ``multiclass``) learns
all K labels of the file as they are (a registry dataset's original labels) and ``olk predict`` prints them;
``positive_label`` does not apply to it.

``olk predict MODEL -`` streams LIBSVM lines from standard input in chunks (bounded memory, predictions written
as they come), so an endless stream is predicted line by line.
"""
from __future__ import annotations

import math
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

from .errors import ConfigError, DataError, OlkError

#: rows per chunk of standard input ``olk predict MODEL -`` parses and predicts at a time
STDIN_CHUNK_ROWS = 20_000


# ============================================================================================== train
def train(data: str, algorithm: str, *, kernel=None, params: dict | None = None, seed: int = 0,
          shuffle: int | None = None, out: str, positive_label=None, quiet: bool = False, chunk: int | None = None,
          in_memory: bool = False, log=print) -> dict:
    """Train `algorithm` on DATA (a registry dataset, a LIBSVM file, or '-': LIBSVM lines on standard input) and
    save the model to `out`; returns a summary ({rows, features, n_sv, seconds, classes, streamed}).

    An online learner on a LIBSVM file (or standard input) in file order *streams* (:func:`train_streamed`: the
    rows are learned as they are parsed, `chunk` bytes of text at a time); a registry dataset, ``shuffle``, a
    batch learner and ``in_memory`` load the data whole first (the same model)."""
    from .algorithms import registry
    from .data import get_registry, load_dataset
    from .fileio import check_writable_dir
    from .persist import save
    from .tasks import TASKS
    cls = registry.get(algorithm, "--algorithm")
    model = registry.make(cls.name, kernel=kernel, random_state=seed, where=cls.name, **(params or {}))
    check_writable_dir(Path(out).absolute().parent, "-o")   # fail before training, not after (made when saving)
    task = TASKS[cls.task]
    if positive_label is not None and task.labels == "classes":
        raise ConfigError(f"--positive-label: {cls.name} ({cls.display}) is a multi-class learner: it learns all "
                          f"the labels of {data}; drop --positive-label (or pick a binary learner)")
    if data == "-" or (not in_memory and shuffle is None and not cls.batch and data not in get_registry()
                       and Path(data).is_file()):
        if data == "-" and (shuffle is not None or cls.batch or in_memory):
            what = ("--shuffle" if shuffle is not None else "--in-memory" if in_memory else
                    f"{cls.name} is a batch learner: it")
            raise ConfigError(f"olk train -: standard input is read once, in its order; {what} needs a file (write "
                              f"the lines to one and give its path)")
        return train_streamed(lambda: registry.make(cls.name, kernel=kernel, random_state=seed, where=cls.name,
                                                    **(params or {})),
                              data, positive_label=positive_label, quiet=quiet, chunk=chunk, out=out, log=log)
    own_file = data not in get_registry()
    # an own file is read with its labels (or targets) as they are -- a classifier keeps them (encode_labels) --;
    # a registry dataset as the registry prepares it
    d = load_dataset(data, preprocess={"task": "regression"} if own_file else None)
    X, y = d.X, d.y
    classes = None
    if not task.classifier:
        task.check_labels(y, f"dataset {data}", kind=d.task)
    elif task.labels == "classes":              # every label, as the file has it; the learner keeps them (classes_)
        if not own_file:
            task.check_labels(y, f"dataset {data}", kind=d.task)
        y = file_labels(d)
    else:
        y, classes = encode_labels(y, positive_label, f"dataset {data}", log)
    if shuffle is not None:
        from .experiment.seeds import permutation
        order = permutation(d.n_samples, shuffle, data, 0)
        X, y = X[order], y[order]
    t0 = time.perf_counter()
    if cls.batch:
        model.fit(X, y)
    else:
        model = train_online(model, X, y, desc=f"olk train {cls.name}", quiet=quiet)
    if classes is not None:
        model.classes_ = classes            # the file's own labels: olk predict prints them
    elapsed = time.perf_counter() - t0
    save(model, out)
    if not quiet:
        svs = f", {model.n_sv:,} support vector{'' if model.n_sv == 1 else 's'}" if model.n_sv else ""
        log(f"olk: trained {cls.name} on {d.n_samples:,} rows of {data} ({d.n_features} features{svs}) in "
            f"{elapsed:.1f} s; model saved to {out}")
    kept = classes if classes is not None else model.classes_ if task.classifier else None
    return {"rows": d.n_samples, "features": d.n_features, "n_sv": model.n_sv, "seconds": elapsed,
            "classes": None if kept is None else kept.tolist(), "streamed": False}


def train_streamed(make_model, data: str, *, positive_label=None, quiet: bool = False, chunk: int | None = None,
                   out: str, log=print) -> dict:
    """One online pass of the learner `make_model()` builds over the LIBSVM file DATA (or standard input, '-') in
    file order, learning the rows as they are parsed, then save it to `out`: the model of the in-memory path
    (:func:`train` on the loaded dataset, :func:`train_online`) bit for bit, in memory bounded by one chunk of text
    and the model (:mod:`olk.data.stream`, `chunk` bytes of text at a time, :data:`~olk.data.stream.BLOCK_BYTES` by
    default).

    What the pass must know before its first row is the whole file's: the storage (dense or sparse, by the loader's
    rule, :func:`olk.data.loader.auto_sparse`), the classes (:func:`label_code`) and, for a step size 1/sqrt(T)
    without a horizon, the rows.  **One read** where the first chunk tells (:func:`_train_one_read`: a binary
    classifier or a regressor that needs no T, on a file): its density and labels decide, the rows are learned as
    they come (the pool widens to each chunk's width: exact, ``SVPool.widen``), and at the end the decisions are
    checked against the whole file's; should one differ (a density near the threshold, a label that changes which
    is the larger), the learner is made anew and the file read twice.  **Two reads** otherwise: the first keeps
    none of the rows, only their count, stored non-zeros, widest index and labels (:func:`olk.data.stream.scan`,
    every line checked); the second learns them.  Standard input is read twice, copied to a temporary file (disk,
    not memory) during the first read.  On a terminal (and not `quiet`) each read shows a bar of the bytes read of
    the file's size, the rows and their rate."""
    import os
    import tempfile

    from .data.dataset import canonical_X
    from .data.loader import auto_sparse
    from .data.stream import BLOCK_BYTES, ReadBar, Source, iter_blocks, scan
    from .tasks import TASKS
    model = make_model()
    task = TASKS[model.task]
    chunk = chunk or BLOCK_BYTES
    name = "<stdin>" if data == "-" else data
    desc = f"olk train {model.name}"
    spool = None
    t_scan = 0.0
    t0 = time.perf_counter()
    done = _train_one_read(model, data, positive_label=positive_label, chunk=chunk, quiet=quiet, desc=desc, log=log)
    try:
        if done is None:                        # two reads
            model = make_model()
            t0 = time.perf_counter()
            with Source(data) as source, ReadBar(f"{desc}: first read", source.size, not quiet) as bar:
                if data == "-":
                    spool = tempfile.NamedTemporaryFile(prefix="olk-train-stdin-", suffix=".libsvm", delete=False)
                summary = scan(source, labels=task.classifier, block_bytes=chunk,
                               tee=None if spool is None else spool.write, progress=bar)
                if spool is not None:
                    spool.close()
            t_scan = time.perf_counter() - t0
            n, width = summary.rows, summary.columns
            if n == 0:
                raise DataError(f"{name}: empty file (no data lines): expected '<label> <index>:<value> ...' per "
                                f"line")
            code, classes = None, None
            if task.classifier:
                if summary.labels is None:
                    from .data.stream import MAX_LABELS
                    raise DataError(f"{name}: more than {MAX_LABELS:,} distinct labels, but {model.name} is a "
                                    f"classifier: give it a file of class labels")
                if task.labels == "classes":    # every label as the file has it (the learner keeps them)
                    first = {"classes": summary.labels}
                else:
                    code, classes = label_code(summary.labels, positive_label, f"dataset {data}", log)
                    first = {"classes": np.unique(np.where(summary.labels == code, 1.0, -1.0))}
            else:
                first = {}
            sparse = auto_sparse(summary.nnz, n, width)
            set_horizon(model, n)
            t0 = time.perf_counter()
            rows = 0
            with Source(data if spool is None else spool.name, name) as source, \
                    ReadBar(desc, source.size, not quiet) as bar:
                for X, y in iter_blocks(source, block_bytes=chunk, width=width, progress=bar):
                    if code is not None:
                        y = np.where(y == code, 1.0, -1.0)
                    model.partial_fit(canonical_X(X, sparse=sparse), y, **first)
                    first = {}
                    rows += y.shape[0]
            if rows != n:
                raise DataError(f"{name}: {rows:,} rows where the first read found {n:,}: the file changed while it "
                                f"was read; run the command again")
            done = {"rows": n, "width": width, "classes": classes}
        elapsed = time.perf_counter() - t0
    finally:
        if spool is not None:
            spool.close()
            os.unlink(spool.name)
    n, width = done["rows"], done["width"]
    if done["classes"] is not None:
        model.classes_ = done["classes"]
    from .persist import save
    save(model, out)
    if not quiet:
        svs = f", {model.n_sv:,} support vector{'' if model.n_sv == 1 else 's'}" if model.n_sv else ""
        how = (f"streamed (+ {t_scan:.1f} s for a first read of its rows and labels)" if t_scan
               else "streamed in one read")
        log(f"olk: trained {model.name} on {n:,} rows of {name} ({width} features{svs}) in {elapsed:.1f} s, {how}; "
            f"model saved to {out}")
    kept = model.classes_ if task.classifier else None
    return {"rows": n, "features": width, "n_sv": model.n_sv, "seconds": elapsed,
            "classes": None if kept is None else kept.tolist(), "streamed": True, "reads": 2 if t_scan else 1}


def _train_one_read(model, data: str, *, positive_label, chunk: int, quiet: bool, desc: str, log) -> dict | None:
    """The pass of :func:`train_streamed` in one read of the file, where the first chunk decides what the pass
    must know first; {rows, width, classes} if the whole file's decisions turn out the same, else None (the model
    is then spoiled: the caller makes another).  None at once (nothing learned) for standard input, a multi-class
    learner, a learner that cannot widen, a step 1/sqrt(T) without a horizon (T = the rows), and a first chunk
    whose labels do not tell which is the positive class (one label other than -1/+1)."""
    from .data.dataset import CSRArrays, canonical_X
    from .data.loader import auto_sparse
    from .data.stream import MAX_LABELS, ReadBar, Source, iter_blocks
    from .tasks import TASKS
    task = TASKS[model.task]
    horizon = model.hyperparams.get("horizon") == 0 and model.hyperparams.get("step_size", "sqrt_T") == "sqrt_T"
    if data == "-" or task.labels == "classes" or not model.widens or horizon:
        return None
    name = data
    found = np.empty(0)
    rows = nnz = width = 0
    pos: Any = None
    sparse = False
    with Source(data) as source, ReadBar(desc, source.size, not quiet) as bar:
        for X, y in iter_blocks(source, block_bytes=chunk, progress=bar):
            first = rows == 0
            rows += y.shape[0]
            nnz += int(np.count_nonzero(X.data))
            width = max(width, X.shape[1])
            if task.classifier:
                found = np.union1d(found, y)
                if found.shape[0] > MAX_LABELS:
                    return None
            if first:
                sparse = auto_sparse(nnz, rows, width)
                if task.classifier:
                    if positive_label is not None:
                        pos = _as_label(positive_label, found)
                    elif found.shape[0] == 2:
                        pos = found[1]
                    elif found.shape[0] == 1 and found[0] in (-1, 1):
                        pos = found.dtype.type(1)
                    else:
                        return None
            X = canonical_X(CSRArrays(X.data, X.indices, X.indptr, (X.shape[0], width)), sparse=sparse)
            model.partial_fit(X, np.where(y == pos, 1.0, -1.0) if task.classifier else y,
                              **({"classes": np.array([-1.0, 1.0])} if first and task.classifier else {}))
    if rows == 0:
        raise DataError(f"{name}: empty file (no data lines): expected '<label> <index>:<value> ...' per line")
    width = max(width, 1)
    classes = None
    if task.classifier:
        code, classes = label_code(found, positive_label, f"dataset {data}", log=lambda m: None)
        if code != pos:
            return None
    if auto_sparse(nnz, rows, width) != sparse:
        return None
    if task.classifier:
        label_code(found, positive_label, f"dataset {data}", log)      # its warning (one label), once
    model.n_features_in_ = width
    return {"rows": rows, "width": width, "classes": classes}


def file_labels(d) -> np.ndarray:
    """The labels of dataset `d` as its file has them: a registry multiclass dataset's class indices 0..K-1 mapped
    back to its original labels (the loader's ``meta['classes']``); any other dataset's as loaded."""
    classes = d.meta.get("classes") if d.task == "multiclass" else None
    if classes:
        return np.asarray(classes)[d.y.astype(np.intp)]
    return d.y


def encode_labels(y, positive_label, where: str, log=print) -> tuple[np.ndarray, np.ndarray]:
    """Labels -> (float64 ±1, classes_ = [negative label, positive label]): any two labels as they are (the
    positive one: `positive_label`, else the larger); more than two need `positive_label` (L against the rest:
    classes_ = [-1, L]); one label: a one-line warning (the model predicts it for every row)."""
    y = np.asarray(y)
    pos, classes = label_code(np.unique(y), positive_label, where, log)
    return np.where(y == pos, 1.0, -1.0), classes


def label_code(found: np.ndarray, positive_label, where: str, log=print) -> tuple[Any, np.ndarray]:
    """(pos, classes_) for a file whose distinct labels are `found` (sorted): a row is +1 where its label equals
    pos, else -1 (:func:`encode_labels` on every row; a streamed train codes each chunk so); the rules, errors
    and warning of :func:`encode_labels`."""
    if positive_label is not None:
        pos = _as_label(positive_label, found)
        if not np.any(found == pos):
            raise DataError(f"{where}: --positive-label {positive_label!r} is not one of its labels "
                            f"({', '.join(_text(v) for v in found[:10])}{', ...' if found.size > 10 else ''})")
    if found.size > 2:
        if positive_label is None:
            raise DataError(f"{where} has {found.size} labels ({', '.join(_text(v) for v in found[:6])}"
                            f"{', ...' if found.size > 6 else ''}); a binary classifier needs two: give "
                            f"--positive-label L to learn L against the rest, or train a multi-class learner "
                            f"(e.g. -a mc_pa1)")
        neg = np.asarray(-1, dtype=found.dtype) if found.dtype.kind in "iuf" else np.asarray("rest")
        return pos, np.array([neg.item(), pos.item()], dtype=found.dtype if found.dtype.kind in "iuf" else object)
    if found.size == 1:
        only = found[0]
        log(f"olk: warning: {where} has one label only ({_text(only)}): the model predicts {_text(only)} for "
            f"every row")
        if only in (-1, 1) and found.dtype.kind in "iuf":
            return found.dtype.type(1), np.array([-1, 1], dtype=found.dtype)
        return only, np.array([only, only], dtype=found.dtype)
    if positive_label is None:
        neg, pos = found[0], found[1]
    else:
        neg = found[0] if found[1] == pos else found[1]
    return pos, np.array([neg, pos], dtype=found.dtype)


def _as_label(value, found: np.ndarray):
    """--positive-label text as a label of the file's type (1 for numeric labels, 'yes' for strings)."""
    if found.dtype.kind in "iuf":
        try:
            return found.dtype.type(float(value))
        except (TypeError, ValueError):
            raise ConfigError(f"--positive-label {value!r}: the labels are numbers; give one of them") from None
    return value


def train_online(model, X, y, desc: str, quiet: bool, chunks: int = 100):
    """One online pass of `model` over (X, y) in file order, as ``partial_fit`` on about `chunks` consecutive
    chunks (the same model as one pass: the streaming property), with a tqdm bar on stderr (rows done / total,
    elapsed, ETA) when stderr is a terminal and not `quiet`.  A step size 1/sqrt(T) whose T is "the rows of the
    bound data" (``horizon`` = 0) is given T = all rows first, or each chunk would count as the stream; a regressor's
    anytime step (``step_size='auto'`` without a horizon) needs no T and is left as it is."""
    from .tasks import TASKS
    n = int(y.shape[0])
    set_horizon(model, n)
    size = max(1000, math.ceil(n / chunks))
    kw = {"classes": np.unique(y)} if TASKS[model.task].classifier else {}
    bar = None
    if not quiet and sys.stderr.isatty():   # tqdm only for a bar that is shown (no start-up tax otherwise)
        from tqdm.auto import tqdm
        bar = tqdm(total=n, desc=desc, unit="row", file=sys.stderr, leave=False, mininterval=0.2)
    try:
        for a in range(0, n, size):
            model.partial_fit(X[a:a + size], y[a:a + size], **kw)
            kw = {}
            if bar is not None:
                bar.update(min(size, n - a))
    finally:
        if bar is not None:
            bar.close()
    return model


def set_horizon(model, n: int) -> None:
    """A step size 1/sqrt(T) whose T is "the rows of the bound data" (``horizon`` = 0) is given T = `n`, the rows
    of the whole pass, before a pass made of several ``partial_fit`` calls."""
    if model.hyperparams.get("horizon") == 0 and model.hyperparams.get("step_size", "sqrt_T") == "sqrt_T":
        model.set_params(horizon=n)


# ============================================================================================== predict
def predict(model_path: str, data: str, *, out: str | None = None, proba: bool = False, write=None,
            quiet: bool = False, chunk: int | None = None, log=print) -> dict:
    """Predict every row of DATA (a LIBSVM file, streamed `chunk` bytes of text at a time; '-': LIBSVM lines on
    standard input, streamed in chunks of lines; a registry dataset, loaded) with a saved model; write one line
    per row (the label, or the value of a regressor; with `proba` then P(class) of each class) to `out` (default:
    `write`, i.e. standard output) as the rows are predicted; log the accuracy / MSE (not when `quiet`, which
    also hides the progress bar a file's read shows on a terminal).  Returns {rows, correct, sq_error}."""
    from .persist import load
    m: Any = load(model_path)
    est = sys.modules.get("olk.estimators")     # loaded by load() for a saved estimator (it imports scikit-learn)
    estimator_class: Any = None if est is None else est.OlkEstimator
    if estimator_class is not None and isinstance(m, estimator_class):   # a saved scikit-learn estimator: predict
        m = m.learner_                      # with its learner (the same predictions; the command handles wider files)
    if proba and m.task != "probabilistic":
        from .algorithms import registry
        have = [n for n in registry.available() if registry.REGISTRY[n].task == "probabilistic"]
        raise ConfigError(f"--proba: {m.name} ({m.display}) gives no probabilities; the learners that do are "
                          f"{', '.join(have)}")
    classes = m.classes_ if m.classes_ is not None else np.array([-1.0, 1.0])
    regression = m.task == "regression"
    sink, close = _sink(out, write)
    stats = {"rows": 0, "correct": 0, "sq_error": 0.0, "comparable": True}
    try:
        for X, y, _src in _chunks(data, chunk, show=not quiet):
            pred = m.predict(X)
            lines = [repr(float(v)) for v in pred] if regression else [_text(v) for v in pred]
            if proba:
                P = m.predict_proba(X)
                lines = [f"{a} {float(p0)!r} {float(p1)!r}" for a, (p0, p1) in zip(lines, P)]
            sink("".join(line + "\n" for line in lines))
            stats["rows"] += len(pred)
            if regression:
                stats["sq_error"] += float(np.sum((np.asarray(pred, dtype=np.float64) - y) ** 2))
            elif stats["comparable"] and _all_in(y, classes):
                stats["correct"] += int(np.sum(pred == y))
            else:
                stats["comparable"] = False
    finally:
        close()
    if proba and not quiet:
        log(f"olk: columns: predicted label, P({_text(classes[0])}), P({_text(classes[1])})")
    n = stats["rows"]
    if n and not quiet:
        if regression:
            log(f"mean squared error = {stats['sq_error'] / n:.6g} ({n} rows)")
        elif stats["comparable"]:
            log(f"accuracy = {100.0 * stats['correct'] / n:.2f}% ({stats['correct']}/{n})")
        else:
            shown = ", ".join(_text(c) for c in classes[:10]) + (", ..." if len(classes) > 10 else "")
            log(f"olk: the labels of {data if data != '-' else '<stdin>'} are not the model's classes "
                f"({shown}): no accuracy")
    return stats


#: the end of a write error of ``olk predict -o``: predict has no --resume; it starts over
RERUN_PREDICT = "then rerun olk predict (it starts over), or give another -o"


def _sink(out, write):
    from .fileio import write_error
    if out is None:
        return (write or (lambda text: sys.stdout.write(text))), (lambda: None)
    try:
        f = open(out, "w", encoding="utf-8")
    except OSError as e:
        raise write_error(out, e, then=RERUN_PREDICT) from None

    def put(text):
        try:
            f.write(text)
        except OSError as e:
            raise write_error(out, e, then=RERUN_PREDICT) from None

    def close():
        try:
            f.close()
        except OSError as e:
            raise write_error(out, e, then=RERUN_PREDICT) from None
    return put, close


def _chunks(data: str, chunk: int | None = None, show: bool = False):
    """(X, y, name) blocks of DATA: standard input in chunks of :data:`STDIN_CHUNK_ROWS` lines (line numbers in
    errors counted over the whole stream), a file in chunks of `chunk` bytes of text (:mod:`olk.data.stream`; X as
    the whole file's read gives its rows: a CSR matrix of the parsed values, as wide as the chunk's largest index,
    which changes no score: SVPool.widen), or a registry dataset at once."""
    from .data import get_registry, load_dataset
    from .data.libsvm import iter_libsvm_blocks
    if data == "-":
        any_rows = False
        for X, y in iter_libsvm_blocks(sys.stdin.buffer, "<stdin>", lines=STDIN_CHUNK_ROWS):
            any_rows = True
            yield X, y, "<stdin>"
        if not any_rows:
            raise DataError("<stdin>: no data lines: expected '<label> <index>:<value> ...' per line")
        return
    if data in get_registry() or not Path(data).is_file():
        d = load_dataset(data)              # a registry dataset, or the loader's one-line error for a bad path
        yield _without_trailing_zero_columns(d.X), file_labels(d), data
        return
    from .data.stream import BLOCK_BYTES, ReadBar, Source, iter_blocks
    any_rows = False
    with Source(data) as source, ReadBar("olk predict", source.size, show) as bar:
        for X, y in iter_blocks(source, block_bytes=chunk or BLOCK_BYTES, progress=bar):
            any_rows = True
            yield X.tocsr(), y, data
    if not any_rows:
        raise DataError(f"{data}: no data lines: expected '<label> <index>:<value> ...' per line")


def _without_trailing_zero_columns(X):
    """X without its trailing all-zero columns (a registry dataset declares its full width, a model trained on a
    LIBSVM file has the width of its largest index): exact, since a zero feature adds nothing to any kernel
    value, and a model accepts data narrower than it was trained on."""
    from ._lazy import issparse
    if issparse(X):                         # scipy is imported only if X is sparse (then it is loaded already)
        import scipy.sparse as sp
        X = sp.csr_matrix(X)
        used = int(X.indices.max()) + 1 if X.nnz else 0
    else:
        cols = np.flatnonzero(np.any(X != 0, axis=0))
        used = int(cols[-1]) + 1 if cols.size else 0
    used = max(used, min(1, X.shape[1]))
    return X[:, :used] if used < X.shape[1] else X


def _all_in(y, classes) -> bool:
    """Every label of y is one of the model's classes (labels of another type never are)."""
    try:
        return bool(np.isin(y, classes).all())
    except (TypeError, ValueError):
        return False


def _text(v) -> str:
    """A label as LIBSVM writes it: 1, -1, 2.5, or the label's own text."""
    v = v.item() if isinstance(v, np.generic) else v
    if isinstance(v, float) and v.is_integer() and abs(v) < 2 ** 53:
        return str(int(v))
    return str(v)


__all__ = ["train", "predict", "encode_labels", "file_labels", "train_online", "STDIN_CHUNK_ROWS", "OlkError"]

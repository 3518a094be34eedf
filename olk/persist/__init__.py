"""Saving and loading olk models without pickle: ``olk.save(model, path)`` / ``olk.load(path)`` (this package's
``save`` / ``load``), for a learner or a fitted scikit-learn estimator of :mod:`olk.estimators`.  Models do not
know about files: nothing below this package imports it.

A saved model is ONE file: a NumPy ``.npz`` archive (a zip of ``.npy`` files, written by
``numpy.savez_compressed``) holding every array of the model plus one JSON document that describes the rest.
Reading it never unpickles anything (``numpy.load(path, allow_pickle=False)``) and never runs code named by the
file: the only classes it builds are olk's own and a short allow-list (:mod:`.allowlist`).  The file name is yours to
choose; ``.olk`` is the convention of the command line (``olk train ... -o model.olk``).

>>> import numpy as np, json, tempfile, os
>>> from olk.algorithms import make
>>> from olk.persist import load, save
>>> rng = np.random.default_rng(0); X = rng.random((50, 4)); y = np.where(X[:, 0] > 0.5, 1, -1)
>>> model = make("spa", kernel={"type": "gaussian", "gamma": 2.0}, beta=5, random_state=0).fit(X, y)
>>> path = os.path.join(tempfile.mkdtemp(), "spa.olk")
>>> save(model, path)
>>> again = load(path)
>>> bool((again.decision_function(X) == model.decision_function(X)).all()), again.n_sv == model.n_sv
(True, True)
>>> meta = json.loads(np.load(path)["__meta__"].tobytes())    # the metadata, with numpy alone
>>> meta["format"], meta["format_version"], meta["algorithm"], meta["params"]["kernel"]
('olk-model', 1, 'spa', {'kind': 'gaussian', 'gamma': 2.0})
>>> from olk.estimators import SPAClassifier                  # a scikit-learn estimator: format version 2
>>> est = SPAClassifier(kernel={"type": "gaussian", "gamma": 2.0}, beta=5, random_state=0).fit(X, y)
>>> save(est, path)
>>> again = load(path)
>>> type(again).__name__, again.get_params() == est.get_params(), bool((again.predict(X) == est.predict(X)).all())
('SPAClassifier', True, True)

One module per concern: :mod:`.model_file` (``save`` / ``load``), :mod:`.format` (the archive and its JSON
document), :mod:`.values` (the JSON values of a state), :mod:`.allowlist` (the classes a file may name, with the
old module paths of :mod:`.legacy_paths`) and :mod:`.checks` (does a loaded model fit this olk).
"""
from __future__ import annotations

from .allowlist import allowed_classes
from .format import FORMAT, FORMAT_VERSION, ModelFileError
from .model_file import load, save

__all__ = ["save", "load", "FORMAT", "FORMAT_VERSION", "ModelFileError", "allowed_classes"]

"""Model persistence without pickle (olk.persist: one .npz file, JSON metadata) and the LIBSVM-style one-off
commands ``olk train`` / ``olk predict``.

Every registered learner, dense and sparse, comes back from a file with identical scores, #SV and (online
learners) identical continued learning, its RNG included; files from another format or olk version, and files
that are not olk models, are one-line errors.
"""
import json
import lzma
import zipfile
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp
from _cli import run_cli
from click.testing import CliRunner

import olk
from olk import persist
from olk.algorithms import REGISTRY, available, make
from olk.cli import cli
from olk.errors import OlkError

ALL = available()
ROOT = Path(__file__).resolve().parents[1]
SAMPLE = ROOT / "datasets" / "samples" / "a9a-small.libsvm.xz"


def _kw(name):
    specs = {p.name for p in REGISTRY[name].params}
    kw = {"budget": 5} if "budget" in specs else {}   # small budgets: removal/projection code has run
    if REGISTRY[name].task == "regression":          # step 1/sqrt(T): T fixed, so continuing is comparable
        kw["horizon"] = 60
    if "eta_cap" in specs:
        kw["eta_cap"] = 0.01                          # random features: tiny T diverges uncapped (raker.py)
    return kw


def _data(sparse, n=60, d=6, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.random((n, d))
    X[X < 0.4] = 0.0
    y = np.where(X[:, 0] + 0.3 * rng.random(n) > 0.5, 1.0, -1.0)
    return (sp.csr_matrix(X) if sparse else X), y


def _meta(path):
    with np.load(path, allow_pickle=False) as z:
        return json.loads(z["__meta__"].tobytes().decode("utf-8"))


def _rewrite(path, out, edit=None, drop=()):
    """Copy a model file with its metadata changed by `edit(meta)` and the entries `drop` left out."""
    with np.load(path, allow_pickle=False) as z:
        arrays = {k: z[k] for k in z.files if k not in drop}
    meta = json.loads(arrays.pop("__meta__").tobytes())
    if edit is not None:
        edit(meta)
    arrays["__meta__"] = np.frombuffer(json.dumps(meta).encode(), dtype=np.uint8)
    with open(out, "wb") as f:
        np.savez_compressed(f, **arrays)
    return out


def _one_line_error(call, *needles):
    with pytest.raises(OlkError) as e:
        call()
    msg = str(e.value)
    assert "\n" not in msg
    for n in needles:
        assert n in msg, msg
    return msg


# ------------------------------------------------------------------------------------ every learner
@pytest.mark.parametrize("sparse", [False, True])
@pytest.mark.parametrize("name", ALL)
def test_every_learner_comes_back_identical_from_its_file(name, sparse, tmp_path):
    X, y = _data(sparse)
    m = make(name, kernel={"type": "gaussian", "gamma": 0.5}, random_state=3, **_kw(name))
    m.fit(X[:40], y[:40])
    path = tmp_path / f"{name}.olk"
    olk.save(m, path)
    clone = olk.load(path)
    assert type(clone) is type(m) and clone is not m
    np.testing.assert_array_equal(clone.decision_function(X[40:]), m.decision_function(X[40:]))
    np.testing.assert_array_equal(clone.predict(X[40:]), m.predict(X[40:]))
    assert clone.n_sv == m.n_sv
    assert clone.get_params() == m.get_params()
    np.testing.assert_array_equal(clone.classes_, m.classes_)
    if not REGISTRY[name].batch:        # learning goes on identically: SVs, counters, RNG position
        m.partial_fit(X[40:], y[40:])
        clone.partial_fit(X[40:], y[40:])
        np.testing.assert_array_equal(clone.decision_function(X), m.decision_function(X))
        assert clone.n_sv == m.n_sv and clone.t == m.t == 60
        if REGISTRY[name].stochastic:
            assert clone.rng.random() == m.rng.random()
    meta = _meta(path)
    assert (meta["format"], meta["format_version"], meta["olk_version"]) == ("olk-model", 1, olk.__version__)
    assert meta["algorithm"] == name
    assert meta["params"]["kernel"] == {"kind": "gaussian", "gamma": 0.5}
    assert meta["params"]["random_state"] == 3
    assert meta["state"].get("src") is None                                     # never the bound data


@pytest.mark.parametrize("name", ALL)
def test_an_untrained_learner_roundtrips(name, tmp_path):
    m = make(name, random_state=0)
    persist.save(m, tmp_path / "m.olk")
    clone = persist.load(tmp_path / "m.olk")
    X, _ = _data(False, n=5)
    np.testing.assert_array_equal(clone.decision_function(X), m.decision_function(X))
    assert clone.n_sv == 0


def test_a_kernel_set_model_keeps_its_kernels_and_continues(tmp_path):
    X, y = _data(True)
    m = make("omkc_sd", kernel=[{"type": "gaussian", "gamma": 0.5}, {"type": "polynomial", "degree": 2},
                                {"type": "linear", "view": [0, 3]}], random_state=1)
    m.partial_fit(X[:30], y[:30])
    olk.save(m, tmp_path / "k.olk")
    clone = olk.load(tmp_path / "k.olk")
    assert clone.kernels == m.kernels and clone.kernels[2].cols == (0, 3)
    assert _meta(tmp_path / "k.olk")["params"]["kernel"][2] == {"kind": "linear", "cols": [0, 3]}
    m.partial_fit(X[30:], y[30:])
    clone.partial_fit(X[30:], y[30:])
    np.testing.assert_array_equal(clone.decision_function(X), m.decision_function(X))


def test_string_labels_and_shared_objects_survive(tmp_path):
    X, y = _data(False)
    m = make("perceptron").fit(X, np.where(y > 0, "pos", "neg"))
    olk.save(m, tmp_path / "p.olk")
    clone = olk.load(tmp_path / "p.olk")
    assert list(clone.classes_) == ["neg", "pos"] and list(clone.predict(X[:8])) == list(m.predict(X[:8]))
    s = make("simplemkl").fit(X, y)      # its kernel weights are one array held by two attributes
    assert s._weights is s.mkl_.d
    olk.save(s, tmp_path / "s.olk")
    s2 = olk.load(tmp_path / "s.olk")
    assert s2._weights is s2.mkl_.d and not s2._weights.flags.writeable
    np.testing.assert_array_equal(s2.decision_function(X), s.decision_function(X))


def test_the_file_is_an_npz_of_plain_arrays_readable_without_pickle(tmp_path):
    X, y = _data(True)
    olk.save(make("spa", kernel={"type": "gaussian", "gamma": 0.5}, random_state=0).fit(X, y), tmp_path / "m.olk")
    assert not (tmp_path / "m.olk.npz").exists()            # the name given, no suffix added
    with zipfile.ZipFile(tmp_path / "m.olk") as z:
        assert "__meta__.npy" in z.namelist() and "pool.coef.npy" in z.namelist()
    with np.load(tmp_path / "m.olk", allow_pickle=False) as z:
        assert all(z[k].dtype != object for k in z.files)
    assert _meta(tmp_path / "m.olk")["state"]["pool"]["__olk__"] == "svpool"


def test_an_attribute_the_format_cannot_hold_is_a_one_line_error_naming_it(tmp_path):
    m = make("perceptron").fit(*_data(False))
    m.callback = lambda x: x
    _one_line_error(lambda: olk.save(m, tmp_path / "m.olk"), "perceptron", "'callback'", "function", "pickle")
    assert not (tmp_path / "m.olk").exists() and not list(tmp_path.iterdir())
    m.callback = None
    m.extra = {"nested": [1, np.array([object()], dtype=object)]}
    _one_line_error(lambda: olk.save(m, tmp_path / "m.olk"), "'extra.nested[1]'", "Python objects")
    _one_line_error(lambda: persist.save(object(), tmp_path / "m.olk"), "expected an olk learner")


# ----------------------------------------------------------------------------------------- versions
def test_another_olk_version_loads_when_compatible(tmp_path):
    X, y = _data(False)
    m = make("bogd", kernel={"type": "gaussian", "gamma": 0.5}, random_state=2, budget=5).fit(X[:40], y[:40])
    olk.save(m, tmp_path / "m.olk")
    old = _rewrite(tmp_path / "m.olk", tmp_path / "old.olk", lambda meta: meta.update(olk_version="0.0.9"))
    clone = olk.load(old)
    np.testing.assert_array_equal(clone.decision_function(X), m.decision_function(X))


def test_an_incompatible_file_names_both_versions_in_one_line(tmp_path):
    m = make("spa", random_state=0).fit(*_data(False))
    olk.save(m, tmp_path / "m.olk")
    here = f"olk {olk.__version__}"

    newer = _rewrite(tmp_path / "m.olk", tmp_path / "v3.olk",
                     lambda meta: meta.update(format_version=3, olk_version="9.0.0"))
    _one_line_error(lambda: olk.load(newer), "v3.olk", "olk 9.0.0", here, "format version 3")

    def drop_attr(meta):
        meta.update(olk_version="0.0.1")
        del meta["state"]["n_updates"]
    lacking = _rewrite(tmp_path / "m.olk", tmp_path / "old.olk", drop_attr)
    _one_line_error(lambda: olk.load(lacking), "old.olk", "olk 0.0.1", here, "n_updates")

    def renamed(meta):            # SPA's 'output' was called 'predict' up to olk 0.1.0
        meta.update(olk_version="0.0.5")
        meta["params"]["predict"] = meta["params"].pop("output")
    _one_line_error(lambda: olk.load(_rewrite(tmp_path / "m.olk", tmp_path / "r.olk", renamed)),
                    "r.olk", "olk 0.0.5", here, "renamed to 'output'")

    gone = _rewrite(tmp_path / "m.olk", tmp_path / "g.olk",
                    lambda meta: meta.update(olk_version="2.0.0", algorithm="spa2"))
    _one_line_error(lambda: olk.load(gone), "g.olk", "olk 2.0.0", here, "'spa2'")


def test_a_corrupted_or_foreign_file_is_a_one_line_error_naming_it(tmp_path):
    m = make("perceptron").fit(*_data(False))
    olk.save(m, tmp_path / "m.olk")
    good = (tmp_path / "m.olk").read_bytes()
    cases = {
        "text.olk": b"+1 1:0.5 3:1\n-1 2:1\n",
        "truncated.olk": good[: len(good) // 2],
        "empty.olk": b"",
    }
    for name, content in cases.items():
        (tmp_path / name).write_bytes(content)
        _one_line_error(lambda name=name: olk.load(tmp_path / name), name, "not an olk model file")
    np.save(tmp_path / "array.npy", np.arange(3))
    _one_line_error(lambda: olk.load(tmp_path / "array.npy"), "array.npy", "not an olk model file")
    np.savez(tmp_path / "plain.npz", x=np.arange(3))
    _one_line_error(lambda: olk.load(tmp_path / "plain.npz"), "plain.npz", "__meta__")
    with open(tmp_path / "badjson.olk", "wb") as f:
        np.savez(f, __meta__=np.frombuffer(b'{"format": "olk-model", ', dtype=np.uint8))
    _one_line_error(lambda: olk.load(tmp_path / "badjson.olk"), "badjson.olk", "JSON")
    with open(tmp_path / "pickled.olk", "wb") as f:        # an object array would need pickle: never loaded
        np.savez(f, __meta__=np.array([{"format": "olk-model"}], dtype=object))
    _one_line_error(lambda: olk.load(tmp_path / "pickled.olk"), "pickled.olk")
    other = _rewrite(tmp_path / "m.olk", tmp_path / "other.olk", lambda meta: meta.update(format="something"))
    _one_line_error(lambda: olk.load(other), "other.olk", "not an olk model file")
    missing = _rewrite(tmp_path / "m.olk", tmp_path / "missing.olk", drop=("pool.coef",))
    _one_line_error(lambda: olk.load(missing), "missing.olk", "pool.coef")
    _one_line_error(lambda: olk.load(tmp_path / "nothere.olk"), "nothere.olk", "no such")


# ---------------------------------------------------------------------------------- olk train / predict
def _invoke(*args, input=None):
    return CliRunner().invoke(cli, [str(a) for a in args], input=input)


_main = run_cli


def test_train_then_predict_like_svm_train_and_svm_predict(tmp_path):
    model = tmp_path / "spa.olk"
    r = _invoke("train", SAMPLE, "--algorithm", "spa", "--kernel", '{"type": "gaussian", "gamma": 0.4}',
                "--set", "beta=20", "--set", "eta=0.1", "--seed", 1, "-o", model)
    assert r.exit_code == 0, r.output
    assert model.is_file() and "model saved to" in r.stderr
    m = olk.load(model)
    assert (m.name, m.beta, m.eta, m.random_state, m.t) == ("spa", 20.0, 0.1, 1, 2000)
    assert m.kernel.gamma == 0.4

    r = _invoke("predict", model, SAMPLE)
    assert r.exit_code == 0, r.output
    lines = r.stdout.splitlines()
    assert len(lines) == 2000 and set(lines) <= {"1", "-1"}
    from olk.data import load_dataset
    d = load_dataset(SAMPLE)
    expect = m.predict(d.X)
    assert lines == [str(int(v)) for v in expect]
    k = int(np.sum(expect == d.y))
    assert f"accuracy = {100 * k / 2000:.2f}% ({k}/2000)" in r.stderr

    out = tmp_path / "pred.txt"                              # -o, and a registry dataset by name
    r = _invoke("predict", model, "a9a-small", "-o", out)
    assert r.exit_code == 0 and r.stdout == ""
    assert out.read_text().splitlines() == lines and "accuracy = " in r.stderr

    text = lzma.decompress(SAMPLE.read_bytes()).decode()    # stdin: LIBSVM lines
    first = "".join(text.splitlines(keepends=True)[:25])
    r = _invoke("predict", model, "-", input=first)
    assert r.exit_code == 0, r.output
    assert r.stdout.splitlines() == lines[:25]
    assert "/25)" in r.stderr and "accuracy = " in r.stderr


def test_train_shuffle_is_one_pass_in_the_engine_order(tmp_path):
    from olk.algorithms import make
    from olk.data import load_dataset
    from olk.experiment.seeds import permutation
    r = _invoke("train", "codrna-small", "-a", "perceptron", "--kernel", '{"type": "gaussian", "gamma": 0.4}',
                "--shuffle", 3, "-o", tmp_path / "s.olk")
    assert r.exit_code == 0, r.output
    d = load_dataset("codrna-small")
    o = permutation(d.n_samples, 3, "codrna-small", 0)     # permutation 0 of `olk run` with seed 3
    ref = make("perceptron", kernel={"type": "gaussian", "gamma": 0.4}).fit(d.X[o], d.y[o])
    m = olk.load(tmp_path / "s.olk")
    assert (m.t, m.n_sv) == (ref.t, ref.n_sv)
    assert np.array_equal(m.decision_function(d.X), ref.decision_function(d.X))
    plain = make("perceptron", kernel={"type": "gaussian", "gamma": 0.4}).fit(d.X, d.y)
    assert plain.n_sv != m.n_sv                             # the order matters (file order is the default)


def test_batch_proba_and_regression_models(tmp_path):
    r = _invoke("train", "a9a-small", "-a", "klr_nc", "--set", "R=10", "-o", tmp_path / "k.olk")
    assert r.exit_code == 0, r.output
    r = _invoke("predict", tmp_path / "k.olk", "a9a-small", "--proba")
    assert r.exit_code == 0, r.output
    rows = [ln.split() for ln in r.stdout.splitlines()]
    assert len(rows) == 2000 and all(len(x) == 3 and x[0] in ("1", "-1") for x in rows)
    p = np.array([[float(a), float(b)] for _, a, b in rows])
    np.testing.assert_allclose(p.sum(axis=1), 1.0)
    assert all((lab == "1") == (b >= 0.5) for (lab, _, _), (_, b) in zip(rows, p))
    assert "P(-1), P(1)" in r.stderr

    r = _invoke("train", SAMPLE, "-a", "pegasos", "--set", "lam=0.001", "-o", tmp_path / "b.olk")
    assert r.exit_code == 0, r.output
    r = _invoke("predict", tmp_path / "b.olk", SAMPLE)
    assert r.exit_code == 0 and len(r.stdout.splitlines()) == 2000 and "accuracy = " in r.stderr

    r = _invoke("train", SAMPLE, "-a", "kogd_reg", "-o", tmp_path / "r.olk")
    assert r.exit_code == 0, r.output
    r = _invoke("predict", tmp_path / "r.olk", SAMPLE)
    assert r.exit_code == 0, r.output
    vals = [float(v) for v in r.stdout.splitlines()]
    assert len(vals) == 2000 and len(set(vals)) > 2 and "mean squared error = " in r.stderr


def test_train_and_predict_errors_are_one_line(tmp_path, capsys):
    model = tmp_path / "m.olk"
    bad = [
        (["train", "a9a-small", "-a", "spaa", "-o", model], "did you mean 'spa'"),
        (["train", "a9a-small", "-a", "spa", "--set", "bta=2", "-o", model], "did you mean 'beta'"),
        (["train", "a9a-small", "-a", "spa", "--set", "beta=-1", "-o", model], "--set beta: must be > 0"),
        (["train", "a9a-small", "-a", "spa", "--set", "beta=1,2", "-o", model], "takes one value"),
        (["train", "a9a-small", "-a", "spa", "--kernel", "gausian", "-o", model], "did you mean 'gaussian'"),
        (["train", "a9a-small", "-a", "spa", "--kernel", "{type: gaussian, gamma: 0}", "-o", model], "gamma"),
        (["train", tmp_path / "none.libsvm", "-a", "spa", "-o", model], "none.libsvm"),
        (["predict", tmp_path / "none.olk", "a9a-small"], "none.olk"),
    ]
    for argv, needle in bad:
        code, out, err = _main(argv, capsys)
        assert code == 2 and err.startswith("olk: error: ") and len(err.strip().splitlines()) == 1, (argv, err)
        assert needle in err, (argv, err)
    assert not model.exists()

    code, _, err = _main(["train", "a9a-small", "-a", "perceptron", "-o", model], capsys)
    assert code == 0, err
    code, out, err = _main(["predict", model, "a9a-small", "--proba"], capsys)
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1
    assert "--proba" in err and "perceptron" in err and "klr_nc" in err
    (tmp_path / "junk.olk").write_text("not a model\n")
    code, out, err = _main(["predict", tmp_path / "junk.olk", "a9a-small"], capsys)
    assert code == 2 and "junk.olk" in err and len(err.strip().splitlines()) == 1

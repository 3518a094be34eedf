"""``olk train``: one online pass in chunks of ``partial_fit`` (the same model as one ``fit``: the streaming
property), with a tqdm bar on stderr only when stderr is a terminal and ``--quiet`` is not given; never on stdout.
``olk predict`` also reads a saved scikit-learn estimator.  ``make reproduce-all`` shows each config's bar."""
from __future__ import annotations

import io
import sys
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

import olk
from olk.algorithms import make
from olk.application import train_online as _train_online
from olk.cli import cli
from olk.data import load_dataset

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = ROOT / "datasets" / "samples" / "a9a-small.libsvm.xz"
RBF = {"type": "gaussian", "gamma": 0.4}


class _Terminal(io.StringIO):
    def isatty(self):
        return True


@pytest.mark.parametrize("name, kw", [
    ("spa", {"beta": 5}), ("bogd", {"budget": 40}), ("klr_nc", {}), ("oks", {}),
    ("kogd_reg", {}),                               # the anytime step: chunks need no T
    ("kogd_reg", {"step_size": "sqrt_T"}),          # horizon 0: T = the rows of the whole file, not of a chunk
    ("raker", {"eta_cap": 0.01}),
    ("raker", {"eta_cap": 0.01, "step_size": "sqrt_T"}),
])
def test_chunked_training_is_the_model_of_one_pass(name, kw):
    d = load_dataset(SAMPLE)
    y = d.y if make(name).task != "regression" else d.X[:, 0].toarray().ravel() + 0.5 * d.y
    kernel = [RBF, {"type": "linear"}] if name == "oks" else RBF
    one = make(name, kernel=kernel, random_state=2, **kw).fit(d.X, y)
    chunked = _train_online(make(name, kernel=kernel, random_state=2, **kw), d.X, y, desc="t", quiet=True, chunks=7)
    np.testing.assert_array_equal(chunked.decision_function(d.X), one.decision_function(d.X))
    assert chunked.t == one.t == 2000 and chunked.n_sv == one.n_sv


def test_the_bar_shows_rows_elapsed_and_eta_on_a_terminal_only(monkeypatch, capsys):
    d = load_dataset(SAMPLE)
    term = _Terminal()
    monkeypatch.setattr(sys, "stderr", term)
    _train_online(make("pa1", kernel=RBF), d.X, d.y, desc="olk train pa1", quiet=False, chunks=4)
    text = term.getvalue()
    # rows done / total, [elapsed<ETA], rate; cleared at the end (leave=False)
    assert "olk train pa1" in text and "/2000 [00:00<" in text and "row/s" in text
    assert capsys.readouterr().out == ""
    for quiet, stderr in ((True, _Terminal()), (False, io.StringIO())):     # --quiet, or not a terminal
        monkeypatch.setattr(sys, "stderr", stderr)
        _train_online(make("pa1", kernel=RBF), d.X, d.y, desc="olk train pa1", quiet=quiet)
        assert stderr.getvalue() == ""


def test_olk_train_quiet_and_predict_reads_an_estimator_file(tmp_path):
    runner = CliRunner()
    r = runner.invoke(cli, ["train", str(SAMPLE), "-a", "spa", "--kernel", "gaussian", "-q", "-o",
                            str(tmp_path / "m.olk")])
    assert r.exit_code == 0 and r.stdout == "" and r.stderr == "", r.output
    d = load_dataset(SAMPLE)
    est = olk.estimator("spa", kernel=RBF, random_state=0).fit(d.X, d.y)
    olk.save(est, tmp_path / "e.olk")
    r = runner.invoke(cli, ["predict", str(tmp_path / "e.olk"), str(SAMPLE)])
    assert r.exit_code == 0, r.output
    assert [float(v) for v in r.stdout.split()] == est.predict(d.X).tolist()
    assert "accuracy = " in r.stderr


def test_make_reproduce_all_shows_each_configs_progress():
    """The recipe is `olk reproduce`, which announces each config and runs it without --quiet (its bar shows)."""
    from olk.experiment import reproduce
    text = (ROOT / "Makefile").read_text()
    recipe = text[text.index("reproduce-all:"):]
    recipe = recipe[:recipe.index("\n\n")]
    assert "olk reproduce" in recipe.replace("$(OLK)", "olk")
    src = Path(reproduce.__file__).read_text()
    assert "--quiet" not in src and "== config {i}/{len(configs)}" in src

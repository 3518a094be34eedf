"""The learner contract as a function (olk.testing.check_learner) and a command (olk check-learner): it passes olk's
own learners and the example plugin, and a deliberately broken copy fails with the line that names what broke."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from olk.testing import CHECKS, check_learner, run_checks

pytestmark = pytest.mark.usefixtures("registry_sandbox")      # what a test registers here is gone after it

EXAMPLE = Path(__file__).resolve().parent / "plugin_example" / "mylearner.py"
OLK = [sys.executable, "-m", "olk.cli"]
FAST = ("sklearn", "river")          # scikit-learn's and River's suites: once per kind below, not for every case


def _copy(tmp_path, name: str, edit) -> Path:
    text = edit(EXAMPLE.read_text().replace('name = "margin_random_budget"', f'name = "{name}"'))
    (tmp_path / f"{name}.py").write_text(text)
    return tmp_path


@pytest.mark.parametrize("name", ["perceptron", "spa", "bogd", "forgetron", "klr_nc", "mc_pa1", "kogd_reg", "libsvm"])
def test_olks_own_learners_pass(name):
    report = check_learner(name, skip=FAST)
    assert report.ok and [c for c, _, _ in report.results] == [c for c in CHECKS if c not in FAST]


def test_the_example_plugin_passes_every_check_with_both_ecosystems():
    report = run_checks("mylearner:MarginRandomBudget")
    assert report.ok, report.failures
    lines = dict((c, line) for c, _, line in report.results)
    assert "of scikit-learn's checks passed" in lines["sklearn"] and "of River's checks passed" in lines["river"]


BROKEN = {
    # draws from numpy's global state instead of self.rng: two runs with one random_state differ
    "nondet_mrb": (lambda t: t.replace("int(self.rng.integers(pool.n_sv))", "int(np.random.randint(pool.n_sv))")
                   .replace("from olk.algorithms import", "import numpy as np\nfrom olk.algorithms import"),
                   "FAIL determinism: the scores of two runs with the same random_state (and different global "
                   "numpy/random states) differ: first at"),
    # a compiled-loop stand-in whose stretches skip the last row's update
    "stretchy_mrb": (lambda t: t + '''
    def step_rows(self, rows, ys, out):
        for k in range(len(rows)):
            out[k] = self.step(int(rows[k]), float(ys[k])) if k + 1 < len(rows) or len(rows) == 1 else 0.0
''', "FAIL stretches: the scores of step_rows (stretches of 1, 7, 40, 3, rest) and of step row by row differ: "
     "first at 7"),
    # a parameter named like a method: model.predict would be the number
    "shadow_mrb": (lambda t: t.replace('Param("margin", 0.0', 'Param("predict", 0.0').replace("self.margin",
                                                                                               "self.predict"),
                   "FAIL declarations: parameter name(s) predict shadow a member of the learner"),
    # a style the figures cannot draw
    "style_mrb": (lambda t: t.replace('style = ("#17becf", "x", "-")', 'style = ("#17becf", "x")'),
                  "FAIL declarations: style must be None or (colour, marker, line style)"),
}


@pytest.mark.parametrize("name", sorted(BROKEN))
def test_a_broken_copy_fails_with_the_right_line(tmp_path, name):
    edit, line = BROKEN[name]
    folder = _copy(tmp_path, name, edit)
    r = subprocess.run([*OLK, "check-learner", f"{name}:MarginRandomBudget", "--skip", ",".join(FAST)],
                       capture_output=True, text=True, cwd=folder, timeout=300)
    assert r.returncode == 2, r.stdout + r.stderr
    fails = [ln for ln in r.stdout.splitlines() if ln.startswith("FAIL")]
    assert fails and any(ln.startswith(line) for ln in fails), r.stdout
    assert r.stderr == (f"olk: error: {name} fails {len(fails)} of the 6 checks of the learner contract "
                        f"(the FAIL lines above)\n")


def test_check_learner_raises_with_one_line_per_failure(tmp_path, monkeypatch):
    edit, _ = BROKEN["nondet_mrb"]
    _copy(tmp_path, "nondet_two", edit)
    monkeypatch.syspath_prepend(str(tmp_path))
    import nondet_two
    with pytest.raises(AssertionError) as e:
        check_learner(nondet_two.MarginRandomBudget, skip=FAST)
    head, *fails = str(e.value).splitlines()
    assert head.startswith("nondet_two fails") and fails and all(f.startswith("FAIL ") for f in fails)
    assert any(f.startswith("FAIL determinism:") for f in fails)


def test_bad_targets_are_one_line(tmp_path):
    r = subprocess.run([*OLK, "check-learner", "nosuch_module:X"], capture_output=True, text=True, cwd=tmp_path)
    assert r.returncode == 2 and r.stderr.count("\n") == 1 and "plugin 'nosuch_module' not found" in r.stderr
    r = subprocess.run([*OLK, "check-learner", "spa", "--skip", "speed"], capture_output=True, text=True)
    assert r.returncode == 2 and "--skip speed: not a check" in r.stderr

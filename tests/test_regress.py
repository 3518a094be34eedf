"""Regression CI: committed baselines hold, and a small change to an update rule is caught."""

from olk.algorithms.common.losses import hinge
from olk.algorithms.single import pa1
from olk.experiment.regress import regress
from olk.paths import project_dir

CI = project_dir() / "configs" / "ci"
BASE = project_dir() / "tests" / "baselines"


def test_committed_baselines_hold():
    reports = regress(CI, BASE, log=lambda m: None)
    assert reports and all(r.checked > 0 for r in reports)
    failures = [f for r in reports for f in r.failures]
    assert not failures, "\n".join(failures)


def test_perturbed_update_rule_fails_regression(monkeypatch):
    def perturbed_step(self, i, y):          # PA-I with tau 2% larger: a 'small' change
        self.t += 1
        f = self.pool.decision1(self.src, i)
        loss = hinge(y, f)
        if loss > 0.0:
            tau = 1.02 * min(self.C, loss / self.pool.self_kernel(self.src, i))
            self.pool.add(self.src, i, tau * y, self.t)
        return f

    monkeypatch.setattr(pa1.KernelPA1, "step", perturbed_step)
    reports = regress(CI, BASE, log=lambda m: None)
    failures = [f for r in reports for f in r.failures]
    assert any("/pa1" in f or "|pa1|" in f for f in failures), failures
    assert all("pa1" in f for f in failures)      # only the perturbed learner is flagged


def test_update_then_check_roundtrip(tmp_path):
    regress(CI, tmp_path, update=True, log=lambda m: None)
    assert list(tmp_path.glob("*.json"))
    assert all(r.ok for r in regress(CI, tmp_path, log=lambda m: None))


def test_a_parameter_added_after_a_baseline_counts_at_the_value_that_keeps_the_old_behaviour():
    """kogd_reg's baselines predate step_size's 'auto' default and standardize_y: a run that states the old
    behaviour (sqrt_T, False) matches them, olk's new defaults do not."""
    from olk.experiment.identity import same_params as _same_params
    base = {"lam": 0.01, "horizon": 0, "step_size": "sqrt_T"}
    assert _same_params("kogd_reg", {**base, "standardize_y": False}, base)
    assert not _same_params("kogd_reg", {**base, "standardize_y": True}, base)
    assert not _same_params("kogd_reg", {**base, "step_size": "auto", "standardize_y": False}, base)

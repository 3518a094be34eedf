"""Learners from outside olk (olk.algorithms.plugins): an installed package's entry point, a config's ``plugins:``
and ``--plugin`` register through the one registry; ``olk algorithms`` lists them with their origin; experiments
run them with joblib (-j 2) and Dask, whose workers import them (or fail in one line naming the module); a name
clash with a built-in and every broken plugin are one line.

The installed package is tests/plugin_example (``make test`` installs it editable): its learner
``margin_random_budget`` (module ``mylearner``) is an entry point of the group ``olk.learners``."""
from __future__ import annotations

import json
import pickle
import shutil
import subprocess
import sys
import textwrap
import uuid
from pathlib import Path

import pandas as pd
import pytest

from olk.algorithms import registry
from olk.errors import ConfigError

pytestmark = pytest.mark.usefixtures("registry_sandbox")      # what a test registers here is gone after it

HERE = Path(__file__).resolve().parent
EXAMPLE = HERE / "plugin_example" / "mylearner.py"
OLK = [sys.executable, "-m", "olk.cli"]


def _olk(*args, cwd=None, timeout=300):
    return subprocess.run([*OLK, *map(str, args)], capture_output=True, text=True, cwd=cwd, timeout=timeout)


def _local_copy(folder: Path, module: str, name: str) -> Path:
    """The example learner as a local module `module` registering learner `name` (its own class name too)."""
    text = EXAMPLE.read_text().replace('name = "margin_random_budget"', f'name = "{name}"') \
        .replace("MarginRandomBudget", "LocalMRB").replace('display = "MRB"', f'display = "{name.upper()}"') \
        .replace("make(\"margin_random_budget\"", f"make(\"{name}\"")
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{module}.py"
    path.write_text(text)
    return path


CONFIG = """
name: plug
seed: 2018
repeats: 2
plugins: [{module}]
kernel: {{type: gaussian, gamma: 0.4}}
datasets: [a9a-small]
algorithms:
  - name: spa
    params: {{alpha: 1, beta: 5, eta: 0.1}}
  - name: {name}
    params: {{budget: {{match: spa, stat: n_sv}}, margin: 0.2}}
"""


# --------------------------------------------------------------------------------------------- the installed one
def test_the_installed_example_is_listed_with_its_origin():
    r = _olk("algorithms", "margin_random_budget")
    assert r.returncode == 0, r.stderr
    assert "origin: entry point mylearner (olk-example-plugin 0.1.0)" in r.stdout
    assert "olk.estimators.MarginRandomBudgetClassifier" in r.stdout and "olk.river.MarginRandomBudgetClassifier" \
        in r.stdout
    full = _olk("algorithms").stdout
    assert "margin_random_budget" in full and "origin: built-in" in full


def test_the_registry_holds_the_entry_point_learner_beside_the_builtins():
    names = registry.available()
    assert "margin_random_budget" in names and "spa" in names
    assert registry.origin("margin_random_budget").kind == "entry point"
    assert registry.origin("spa").text() == "built-in"
    import olk.estimators as est
    assert est.estimator("margin_random_budget", budget=5).get_params()["budget"] == 5


def test_the_index_of_builtins_never_lists_a_plugin():
    registry.available()
    index = json.loads(registry._INDEX.read_text())["learners"]
    assert "spa" in index and "margin_random_budget" not in index


# ---------------------------------------------------------------------------------------------- local modules
def test_a_configs_plugin_runs_with_two_jobs_and_is_recorded(tmp_path):
    _local_copy(tmp_path / "cfg", "localmrb", "local_mrb")
    (tmp_path / "cfg" / "exp.yaml").write_text(CONFIG.format(module="localmrb", name="local_mrb"))
    out = tmp_path / "out"
    r = _olk("run", tmp_path / "cfg" / "exp.yaml", "--out", out, "-j", "2", "-q", cwd=tmp_path)  # not the config's dir
    assert r.returncode == 0, r.stderr
    runs = pd.read_csv(out / "runs.csv").query("phase == 'main'")
    assert sorted(set(runs.algorithm)) == ["local_mrb", "spa"] and len(runs) == 4
    meta = json.loads((out / "experiment.json").read_text())
    assert meta["plugins"]["local_mrb"]["kind"] == "plugin" and meta["plugins"]["local_mrb"]["module"] == "localmrb"
    spa_sv = runs.query("algorithm == 'spa'").n_sv.mean()
    assert set(runs.query("algorithm == 'local_mrb'").n_sv) == {round(spa_sv)}      # the matched budget, filled


def test_a_plugin_option_and_the_dask_backend_give_the_local_backends_results(tmp_path):
    _local_copy(tmp_path, "dmrb", "dask_mrb")
    (tmp_path / "exp.yaml").write_text(CONFIG.format(module="dmrb", name="dask_mrb").replace("plugins: [dmrb]\n", ""))
    one = _olk("--plugin", "dmrb", "run", "exp.yaml", "--out", "one", "-q", cwd=tmp_path)
    assert one.returncode == 0, one.stderr
    dask = _olk("run", "exp.yaml", "--plugin", "dmrb", "--backend", "dask", "-j", "2", "--out", "dask", "-q",
                cwd=tmp_path)
    assert dask.returncode == 0, dask.stderr
    cols = ["run_id", "accuracy", "n_sv", "mistakes", "kernel_evals"]
    a = pd.read_csv(tmp_path / "one" / "runs.csv")[cols].sort_values("run_id").reset_index(drop=True)
    b = pd.read_csv(tmp_path / "dask" / "runs.csv")[cols].sort_values("run_id").reset_index(drop=True)
    pd.testing.assert_frame_equal(a, b)


def test_dask_workers_get_the_plugin_shipped(tmp_path, monkeypatch):
    """The workers are told the plugin's folder is one they do not have (as on another machine): they import the
    copy olk uploaded to them."""
    import dataclasses

    from olk.algorithms import plugins
    from olk.experiment import Runner, load_config
    module = f"ship_{uuid.uuid4().hex[:8]}"
    _local_copy(tmp_path / "plug", module, module)
    (tmp_path / "exp.yaml").write_text(CONFIG.format(module=f"plug/{module}.py", name=module))
    cfg = load_config(tmp_path / "exp.yaml")
    elsewhere = dataclasses.replace(plugins._ORIGINS[module], path=str(tmp_path / "not-on-the-workers"))
    monkeypatch.setitem(plugins._ORIGINS, module, elsewhere)
    monkeypatch.setattr(sys, "path", [p for p in sys.path if p != str((tmp_path / "plug").resolve())])
    out = Runner(cfg, tmp_path / "out", n_jobs=1, backend="dask", progress=False, log=lambda m: None).run()
    runs = pd.read_csv(out / "runs.csv").query("phase == 'main'")
    assert (runs.algorithm == module).sum() == 2


def test_a_worker_that_cannot_import_the_plugin_fails_in_one_line(tmp_path):
    from olk.experiment import Runner, load_config
    module = f"gone_{uuid.uuid4().hex[:8]}"
    _local_copy(tmp_path / "plug", module, module)
    (tmp_path / "exp.yaml").write_text(CONFIG.format(module=f"plug/{module}.py", name=module))
    cfg = load_config(tmp_path / "exp.yaml")
    shutil.rmtree(tmp_path / "plug")            # fresh joblib workers (a new module name) cannot import it
    with pytest.raises(ConfigError) as e:
        Runner(cfg, tmp_path / "out", n_jobs=2, progress=False, log=lambda m: None).run()
    msg = str(e.value)
    assert "\n" not in msg and f"cannot import its plugin module '{module}'" in msg
    assert "memory-and-clusters.md" in msg


def test_parameters_pickle_by_name_and_origin_for_a_worker(tmp_path):
    module = f"pk_{uuid.uuid4().hex[:8]}"
    _local_copy(tmp_path, module, module)
    registry.load_plugin(module, tmp_path)
    checked = registry.validate_params(module, {"budget": 3})
    code = textwrap.dedent("""
        import pickle, sys
        from olk.algorithms.registry import build
        c = pickle.loads(sys.stdin.buffer.read())
        try:
            build(c)
            print("built", type(build(c)).__name__)
        except Exception as e:
            print(type(e).__name__, e)
    """)
    ok = subprocess.run([sys.executable, "-c", code], input=pickle.dumps(checked), capture_output=True, cwd="/")
    assert ok.stdout.decode().strip() == "built LocalMRB", ok.stderr
    (tmp_path / f"{module}.py").unlink()
    gone = subprocess.run([sys.executable, "-c", code], input=pickle.dumps(checked), capture_output=True, cwd="/")
    out = gone.stdout.decode().strip()
    assert out.startswith("ConfigError learner") and f"module '{module}'" in out and "\n" not in out


# ------------------------------------------------------------------------------------------------ refusals
def test_a_name_clash_with_a_builtin_is_one_line(tmp_path):
    (tmp_path / "clash.py").write_text(EXAMPLE.read_text().replace('name = "margin_random_budget"', 'name = "spa"'))
    r = _olk("--plugin", "clash", "algorithms", cwd=tmp_path)
    assert r.returncode == 2 and r.stderr.count("\n") == 1, r.stderr
    assert "the name 'spa' is olk's built-in learner 'spa' (olk.algorithms.single.spa)" in r.stderr


@pytest.mark.parametrize("body,expect", [
    ("import nosuchthing\n", "plugin 'bad' failed to import: ModuleNotFoundError: No module named 'nosuchthing'"),
    ("x = (\n", "plugin 'bad' failed to import: SyntaxError"),
    ("raise RuntimeError('boom')\n", "failed to import: RuntimeError: boom (bad.py line 1)"),
    ("VALUE = 1\n", "plugin bad registered no learner; decorate its class with @olk.algorithms.register"),
])
def test_a_broken_plugin_is_one_line(tmp_path, body, expect):
    (tmp_path / "bad.py").write_text(body)
    r = _olk("--plugin", "bad", "algorithms", cwd=tmp_path)
    assert r.returncode == 2 and r.stderr.count("\n") == 1 and expect in r.stderr, r.stderr


def test_a_missing_plugin_names_where_it_looked(tmp_path):
    (tmp_path / "c.yaml").write_text(CONFIG.format(module="nowhere", name="spa"))
    r = _olk("run", tmp_path / "c.yaml", "--out", tmp_path / "o")
    assert r.returncode == 2 and r.stderr.count("\n") == 1, r.stderr
    assert "plugins[0]: plugin 'nowhere' not found (no nowhere.py or nowhere/ in" in r.stderr
    r = _olk("--plugin", "a b", "algorithms")
    assert r.returncode == 2 and "not a module name" in r.stderr


def test_module_colon_class_registers_an_undecorated_class(tmp_path):
    text = EXAMPLE.read_text().replace("@register\n", "").replace('"margin_random_budget"', '"undecorated_mrb"')
    (tmp_path / "undec.py").write_text(text)
    r = _olk("--plugin", "undec:MarginRandomBudget", "algorithms", "undecorated_mrb", cwd=tmp_path)
    assert r.returncode == 0 and "origin: plugin undec" in r.stdout, r.stderr
    r = _olk("--plugin", "undec:Nope", "algorithms", cwd=tmp_path)
    assert r.returncode == 2 and "module 'undec' has no 'Nope'; its classes: MarginRandomBudget" in r.stderr


# ------------------------------------------------------------------------------------- the example, end to end
def test_the_example_package_runs_through_run_stats_and_plot(tmp_path):
    """The guide's commands: the installed example against olk's budget baselines, then olk stats and olk plot."""
    cfg = HERE / "plugin_example" / "mrb_vs_budget_baselines.yaml"
    out = tmp_path / "mrb"
    r = _olk("run", cfg, "--out", out, "-j", "2", "-q", "--repeats", "5")
    assert r.returncode == 0, r.stderr
    table = (out / "table.md").read_text()
    assert table.startswith("# olk results of experiment mrb_vs_budget_baselines: MRB beside the learners of "
                            "spa_tist2018 Table 2, on its protocol")
    assert "| MRB |" in table and "**" in table
    s = _olk("stats", out)
    assert s.returncode == 0, s.stderr
    assert "| MRB |" in s.stdout and "Friedman test over 2 blocks" in s.stdout
    assert "smallest two-sided exact Wilcoxon p is 0.0625 > alpha 0.05" in s.stderr       # 5 permutations
    p = _olk("plot", out)
    assert p.returncode == 0, p.stderr
    figs = {Path(line).name for line in p.stdout.split()}
    assert {"learning_curves.png", "cd_accuracy.png"} <= figs | {f.name for f in (out / "figures").iterdir()}


def test_a_plugin_model_saved_and_loaded_names_its_module_when_it_is_missing(tmp_path):
    _local_copy(tmp_path, "pmodel", "pmodel_mrb")
    model = tmp_path / "m.olk"
    r = _olk("--plugin", "pmodel", "train", "a9a-small", "-a", "pmodel_mrb", "-o", model, "-q", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    with_it = _olk("--plugin", "pmodel", "predict", model, "a9a-small", "-o", tmp_path / "p.txt", cwd=tmp_path)
    assert with_it.returncode == 0 and with_it.stderr.startswith("accuracy = "), with_it.stderr
    without = _olk("predict", model, "a9a-small", cwd=tmp_path)
    assert without.returncode == 2 and without.stderr.count("\n") == 1
    assert "a learner from the plugin module 'pmodel': load it first with --plugin pmodel" in without.stderr


def test_the_installed_example_runs_on_dask_as_on_joblib(tmp_path):
    cfg = HERE / "plugin_example" / "mrb_vs_budget_baselines.yaml"
    cols = ["run_id", "accuracy", "n_sv", "mistakes", "kernel_evals"]
    frames = []
    for name, extra in (("joblib", ["-j", "2"]), ("dask", ["--backend", "dask", "-j", "2"])):
        r = _olk("run", cfg, "--out", tmp_path / name, "-q", "--repeats", "2", "-a", "margin_random_budget", *extra)
        assert r.returncode == 0, r.stderr
        df = pd.read_csv(tmp_path / name / "runs.csv")
        assert (df.algorithm == "margin_random_budget").sum() == 4
        frames.append(df[cols].sort_values("run_id").reset_index(drop=True))
    pd.testing.assert_frame_equal(*frames)

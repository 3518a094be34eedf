"""The CLI end to end on bundled data, and one clear line for every kind of bad input."""
import pytest
from _cli import run_cli

GOOD = """
name: g
repeats: 2
kernel: {type: gaussian, gamma: 0.4}
datasets: [a9a-small]
algorithms:
  - perceptron
  - {name: spa, params: {beta: 5}}
"""


_run = run_cli


def test_run_table_and_sweep(tmp_path, capsys):
    cfg = tmp_path / "g.yaml"
    cfg.write_text(GOOD)
    code, out, err = _run(["run", str(cfg), "--out", str(tmp_path / "r"), "--no-progress"], capsys)
    assert code == 0, err
    assert "Perceptron" in out and "SPA" in out and "±" in out
    assert (tmp_path / "r" / "runs.csv").is_file() and (tmp_path / "r" / "table.md").is_file()
    code, out, err = _run(["table", str(tmp_path / "r"), "--format", "latex"], capsys)
    assert code == 0 and "\\begin{tabular}" in out
    code, out, err = _run(["sweep", str(cfg), "--beta", "5,10", "--out", str(tmp_path / "s"), "--no-progress", "-q"],
                          capsys)
    assert code == 0, err
    import pandas as pd
    df = pd.read_csv(tmp_path / "s" / "runs.csv")
    assert set(df.label) == {"perceptron", "spa"}                 # one sweep mechanism: spa at two settings
    assert set(df[df.label == "spa"].setting) == {"beta=5", "beta=10"}
    assert set(df[df.setting == "beta=10"].param_beta) == {10.0}
    code, out, err = _run(["algorithms"], capsys)
    assert code == 0 and "spa" in out and "beta" in out


BAD_CONFIGS = [
    ("algorithms: [perceptorn]\ndatasets: [a9a-small]", "did you mean 'perceptron'"),
    ("algorithms: [{name: spa, params: {bta: 2}}]\ndatasets: [a9a-small]", "did you mean 'beta'"),
    ("algorithms: [{name: spa, params: {alpha: 2, beta: 1}}]\ndatasets: [a9a-small]", "beta >= alpha"),
    ("algorithms: [{name: pa1, params: {C: 0}}]\ndatasets: [a9a-small]", "C: must be > 0"),
    ("algorithms: [{name: pa1, tune: {C: [1, -2]}}]\ndatasets: [a9a-small]", "C: must be > 0"),
    ("algoritms: [pa1]\ndatasets: [a9a-small]", "did you mean 'algorithms'"),
    ("algorithms: [pa1]\ndatasets: [a9a-smal]", "did you mean"),
    ("algorithms: [pa1]\ndatasets: [no_such_set]", "unknown dataset"),
    ("algorithms: [pa1]\ndatasets: [a9a-small]\nkernel: {type: gausian}", "did you mean 'gaussian'"),
    ("algorithms: [pa1]\ndatasets: [a9a-small]\nrepeats: 0", "repeats: must be >= 1"),
    ("algorithms: [pa1\ndatasets: [a9a-small]", "invalid YAML"),
]


@pytest.mark.parametrize("text,msg", BAD_CONFIGS)
def test_bad_config_gives_one_line_and_exit_2(tmp_path, capsys, text, msg):
    cfg = tmp_path / "bad.yaml"
    cfg.write_text(text)
    code, out, err = _run(["run", str(cfg), "--out", str(tmp_path / "o"), "--no-progress"], capsys)
    assert code == 2
    lines = [line for line in err.strip().splitlines() if line]
    assert len(lines) == 1 and lines[0].startswith("olk: error:"), err
    assert msg in lines[0]
    assert "bad.yaml" in lines[0] or "dataset" in lines[0]
    assert not (tmp_path / "o" / "runs.csv").exists()


def test_bad_data_files_give_one_line(tmp_path, capsys):
    cases = [
        ("1 1:0.5 2:x\n", "malformed"),
        ("", "empty"),
        ("1 1:1\n2 1:0\n3 2:1\n", "label"),
    ]
    for text, msg in cases:
        f = tmp_path / "d.svm"
        f.write_text(text)
        cfg = tmp_path / "c.yaml"
        cfg.write_text(f"algorithms: [perceptron]\ndatasets: ['{f}']\n")
        code, out, err = _run(["run", str(cfg), "--out", str(tmp_path / "o"), "--no-progress", "--force"], capsys)
        assert code == 2, (text, err)
        lines = err.strip().splitlines()
        assert len(lines) == 1 and msg in lines[0].lower(), (text, err)


def test_cli_option_errors(tmp_path, capsys):
    cfg = tmp_path / "g.yaml"
    cfg.write_text(GOOD)
    for argv, msg in [
        (["run", str(cfg), "--datasets", "a9a-smal"], "did you mean 'a9a-small'"),
        (["run", str(cfg), "--scale", "2"], "--scale"),
        (["run", str(cfg), "--set", "bta=3"], "did you mean 'beta'"),
        (["sweep", str(cfg)], "nothing to sweep"),
        (["run", str(tmp_path / "missing.yaml")], "not found"),
        (["nosuchcmd"], "No such command"),
    ]:
        code, out, err = _run(argv + ["--out", str(tmp_path / "o")] if argv[0] in ("run", "sweep") else argv, capsys)
        assert code == 2, (argv, err)
        assert msg in err and len(err.strip().splitlines()) == 1, (argv, err)


def test_a_mistyped_sweep_option_is_named_as_typed(tmp_path, capsys):
    cfg = tmp_path / "g.yaml"
    cfg.write_text(GOOD)
    code, out, err = _run(["sweep", str(cfg), "--bta", "5,10", "--out", str(tmp_path / "s")], capsys)
    assert code == 2 and err.count("\n") == 1
    assert err.startswith("olk: error: --bta: ") and "did you mean 'beta'" in err
    code, out, err = _run(["sweep", str(cfg), "--set", "bta=5", "--out", str(tmp_path / "s")], capsys)
    assert code == 2 and err.startswith("olk: error: --set bta: ")


def test_the_command_skips_the_exit_collection_a_caller_keeps_its_gc():
    """The ``olk`` command (main() with no argv) freezes the garbage collector once its work is done, so the
    interpreter's shutdown does not traverse every imported object; main(argv) called from a program leaves the
    caller's collector alone."""
    import subprocess
    import sys
    probe = ("import gc, sys; from olk.cli import main; sys.argv = ['olk', 'algorithms', 'spa']; main(); "
             "a = gc.get_freeze_count(); gc.unfreeze(); main(['algorithms', 'spa']); "
             "print('FROZEN', a > 0, gc.get_freeze_count())")
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True).stdout
    assert out.strip().splitlines()[-1] == "FROZEN True 0"

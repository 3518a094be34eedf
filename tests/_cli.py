"""Running the olk CLI inside a test process (shared by the CLI-level test modules)."""
from pathlib import Path

import pytest

from olk.cli import main


def run_cli(argv, capsys):
    """Run ``olk ARGV`` in this process: (exit status, stdout, stderr).  A command that returns normally is 0."""
    with pytest.raises(SystemExit) as e:
        main([str(a) for a in argv])
        raise SystemExit(0)
    cap = capsys.readouterr()
    return e.value.code, cap.out, cap.err


REPO = Path(__file__).resolve().parents[1]


def use_bundled_data(monkeypatch):
    """Point olk at the repository's bundled samples (datasets/) and no extra dataset registry."""
    monkeypatch.setenv("OLK_DATA", str(REPO / "datasets"))
    monkeypatch.delenv("OLK_REGISTRY", raising=False)


def one_error_line(code: int, err: list[str], *expected: str) -> str:
    """The one ``olk: error:`` line (exit status 2, no traceback) that stderr `err` (its lines) must be, holding each
    of `expected`; returns it."""
    assert code == 2, err
    assert len(err) == 1, err
    line = err[0]
    assert line.startswith("olk: error: ") and "Traceback" not in line, line
    for e in expected:
        assert e in line, line
    return line

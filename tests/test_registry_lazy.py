"""The registry imports a learner's module when its name is first looked up (the index of name -> module beside
the bytecode), and every learner module when it is listed, iterated or asked for a name the index does not know:
it answers as if everything had been imported, and a stale, damaged or missing index only costs time."""
from __future__ import annotations

import json
import subprocess
import sys

PROBE = """
import json, sys
import olk.algorithms.registry as r
{setup}
from olk.algorithms import REGISTRY, make
make({name!r}, kernel={{"type": "gaussian", "gamma": 0.5}})
before = sorted(m for m in sys.modules if m.startswith("olk.algorithms."))
names = list(REGISTRY)
print(json.dumps({{"before": before, "names": names, "complete": REGISTRY.complete}}))
"""


def _probe(name, setup=""):
    out = subprocess.run([sys.executable, "-c", PROBE.format(name=name, setup=setup)], capture_output=True,
                         text=True, check=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def test_one_name_imports_one_learner_and_listing_imports_all():
    full = _probe("perceptron")                     # whatever the index's state, this run leaves it current
    lazy = _probe("forgetron")
    assert "olk.algorithms.budget.forgetron" in lazy["before"]
    assert "olk.algorithms.klr.klr_nc" not in lazy["before"]      # another family's learner: not imported
    assert "olk.algorithms.budget.projectronpp" not in lazy["before"]
    assert lazy["complete"] and lazy["names"] == full["names"] == sorted(full["names"]) and len(full["names"]) >= 59


def test_an_alias_resolves_through_the_index():
    got = _probe("projectron++")
    assert "olk.algorithms.budget.projectronpp" in got["before"]


def test_a_stale_or_damaged_index_falls_back_to_importing_everything(tmp_path):
    idx = tmp_path / "index.json"
    for content in ('{"sources": [["x.py", 1, 1]], "learners": {"forgetron": ["forgetron", "nowhere"]}}',
                    "{not json", '{"sources": [], "learners": []}'):
        idx.write_text(content)
        got = _probe("forgetron", setup=f"r._INDEX = __import__('pathlib').Path({str(idx)!r})")
        assert "olk.algorithms.klr.klr_nc" in got["before"]         # everything imported, then the lookup
        assert json.loads(idx.read_text())["learners"]["forgetron"] == ["forgetron",
                                                                       "olk.algorithms.budget.forgetron"]


def test_a_name_missing_from_the_index_is_found_by_importing_everything(tmp_path):
    """A new learner module the index does not know yet (here: an index without NOGD) is still found."""
    import olk.algorithms.registry as r
    r.load_all()
    idx = tmp_path / "index.json"
    learners = {n: [n, c.__module__] for n, c in r.REGISTRY.items() if n != "nogd"}
    idx.write_text(json.dumps({"sources": r._sources(), "learners": learners}))
    got = _probe("nogd", setup=f"r._INDEX = __import__('pathlib').Path({str(idx)!r})")
    assert "olk.algorithms.approximation.nogd" in got["before"] and "olk.algorithms.klr.klr_nc" in got["before"]

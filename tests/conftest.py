import pytest


@pytest.fixture(autouse=True)
def _isolated_cache(tmp_path_factory, monkeypatch):
    """Keep the parsed-dataset cache of tests out of the user's ~/.cache."""
    cache = tmp_path_factory.getbasetemp() / "olk-cache"
    monkeypatch.setenv("OLK_CACHE", str(cache))
    monkeypatch.setenv("OLK_CACHE_MIN", "0")       # tests cache their small files too (the default: test_data_cache)
    yield


@pytest.fixture
def no_width_limit(monkeypatch):
    """No dense_row_bytes limit (olk.limits): for the tests comparing olk's LIBSVM reader with the reference reader,
    which has none (mutated indices easily pass it); tests/test_hostile_inputs.py holds the limit."""
    monkeypatch.setenv("OLK_LIMIT_DENSE_ROW_BYTES", "0")


def write_yaml(path, text):
    path.write_text(text)
    return str(path)

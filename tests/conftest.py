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


@pytest.fixture
def registry_sandbox():
    """Learners a test registers in this process (a plugin it loads, a class it checks) are gone after it, with
    the surface classes made for them: a later test in the same worker sees olk's registry as it was."""
    import sys

    from olk.algorithms import plugins, registry
    classes, aliases, origins = dict(registry.REGISTRY._classes), dict(registry.ALIASES), dict(plugins._ORIGINS)
    surfaces = {m: (dict(mod.by_name), dict(mod.by_class_name)) for m in ("olk.estimators", "olk.river")
                if (mod := sys.modules.get(m)) is not None}
    yield
    registry.REGISTRY._classes.clear()
    registry.REGISTRY._classes.update(classes)
    registry.ALIASES.clear()
    registry.ALIASES.update(aliases)
    plugins._ORIGINS.clear()
    plugins._ORIGINS.update(origins)
    for m, (by_name, by_class) in surfaces.items():
        mod = sys.modules[m]
        for name in set(mod.by_class_name) - set(by_class):
            vars(mod).pop(name, None)
        mod.by_name.clear()
        mod.by_name.update(by_name)
        mod.by_class_name.clear()
        mod.by_class_name.update(by_class)

"""olk's portable sin/cos (olk/_core/olk_sincos.h) and the approximation learners' loops (olk/_core/olk_proj.h):
accuracy against the C library, the same bits on every SIMD level, and the blocked sums' order (issue 38)."""
import math

import numpy as np
import pytest

from olk._core import approx
from olk.algorithms import make

LEVELS = ("scalar", "avx2", "avx512")


@pytest.fixture
def each_level():
    """Yields a function that switches the module's vector loops to a level (capped by the CPU); restores after."""
    best = approx.simd()
    try:
        yield approx.simd
    finally:
        approx.simd(best)


def _ulps(ours, ref):
    return np.abs(ours - ref) / np.spacing(np.abs(ref))


def test_within_one_ulp_of_the_c_library():
    rng = np.random.default_rng(3)
    x = np.concatenate([np.linspace(-60, 60, 600_001), rng.uniform(-2.0 ** 20, 2.0 ** 20, 100_000),
                        rng.normal(0, 5, 100_000), [0.0, -0.0, 1e-300, 5e-324, math.pi / 4, math.pi / 2, math.pi]])
    s, c = approx.sincos_array(x)
    assert _ulps(s, np.sin(x)).max() <= 1.0 and _ulps(c, np.cos(x)).max() <= 1.0
    big = np.concatenate([rng.uniform(2.0 ** 20, 2.0 ** 60, 20_000), -rng.uniform(2.0 ** 20, 2.0 ** 40, 20_000)])
    s, c = approx.sincos_array(big)                     # the slow path (multi-step reduction)
    assert _ulps(s, np.sin(big)).max() <= 1.0 and _ulps(c, np.cos(big)).max() <= 1.0
    s, c = approx.sincos_array(np.array([np.inf, -np.inf, np.nan]))
    assert np.isnan(s).all() and np.isnan(c).all()
    s, c = approx.sincos_array(np.array([1e300, -1e308]))           # meaningless but finite and in [-1, 1]
    assert np.all(np.abs(s) <= 1.0) and np.all(np.abs(c) <= 1.0)


def test_every_simd_level_gives_the_scalar_bits(each_level):
    rng = np.random.default_rng(4)
    x = np.concatenate([rng.uniform(-100, 100, 50_000), rng.uniform(-2.0 ** 21, 2.0 ** 21, 5_000),
                        [np.nan, np.inf, -np.inf, 0.0, -0.0, 2.0 ** 20, -2.0 ** 20, 1e300]])
    rng.shuffle(x)                                      # out-of-range values among in-range ones
    want = [a.view(np.uint64) for a in approx.sincos_array_scalar(x)]
    for level in LEVELS:
        each_level(level)
        for n in (len(x), 1, 3, 7, 8, 9, 17):
            got = approx.sincos_array(x[:n])
            assert np.array_equal(got[0].view(np.uint64), want[0][:n]), (level, n)
            assert np.array_equal(got[1].view(np.uint64), want[1][:n]), (level, n)


def _project_in_order(UT, x):
    """U x summed as the definition says: each entry from 0.0 over the non-zeros of x in column order."""
    out = []
    for r in range(UT.shape[1]):
        acc = 0.0
        for j in range(UT.shape[0]):
            if x[j] != 0.0:
                acc += float(x[j]) * float(UT[j, r])
        out.append(acc)
    return np.array(out)


@pytest.mark.parametrize("D", [1, 7, 8, 33, 100, 130])
def test_blocked_projection_and_dot8_keep_their_order(each_level, D):
    rng = np.random.default_rng(D)
    UT = rng.normal(size=(23, D))
    x = rng.normal(size=23) * (rng.random(23) < 0.5)
    want = _project_in_order(UT, x).view(np.uint64)
    a, b = rng.normal(size=3 * D + 5), rng.normal(size=3 * D + 5)
    parts = [0.0] * 8
    for i in range(len(a)):
        parts[i % 8] += float(a[i]) * float(b[i])
    want_dot = ((parts[0] + parts[1]) + (parts[2] + parts[3])) + ((parts[4] + parts[5]) + (parts[6] + parts[7]))
    for level in LEVELS:
        each_level(level)
        out = np.empty(D)
        approx.project(UT, x, out)
        assert np.array_equal(out.view(np.uint64), want), level
        assert approx.dot8(a, b) == want_dot
        y = b.copy()
        approx.axpy(y, 0.3, a)
        assert np.array_equal(y, b + 0.3 * a)            # numpy's y + (a x), bit for bit


def test_fogd_scores_are_the_same_bits_on_every_level(each_level):
    rng = np.random.default_rng(5)
    X = rng.random((120, 9))
    X[X < 0.3] = 0.0
    y = np.where(X[:, 0] > X[:, 1], 1, -1)
    runs = []
    for level in LEVELS:
        each_level(level)
        m = make("fogd", kernel={"type": "gaussian", "gamma": 2.0}, n_rf=37, eta=0.5, random_state=1).fit(X, y)
        runs.append((m.decision_function(X).view(np.uint64), m.n_updates))
    assert all(np.array_equal(r[0], runs[0][0]) and r[1] == runs[0][1] for r in runs)


def test_one_cosine_map():
    rng = np.random.default_rng(6)
    X = rng.random((6, 4))
    kw = dict(kernel={"type": "gaussian", "gamma": 0.3}, n_rf=20000, random_state=7)
    m, paper = make("fogd", map="cos", **kw), make("fogd", **kw)
    m.bind(X)
    paper.bind(X)
    np.testing.assert_array_equal(m.frequencies_, paper.frequencies_)       # the same V for both maps
    assert m._phase.shape == (20000,) and 0.0 <= m._phase.min() and m._phase.max() < 2 * math.pi
    z = np.empty((2, 20000))
    for r in range(2):
        approx.fourier_map(np.ascontiguousarray(m.frequencies_.T), X[r], math.sqrt(2.0 / 20000), z[r], m._phase)
    assert float(z[0] @ z[1]) == pytest.approx(math.exp(-0.3 * np.sum((X[0] - X[1]) ** 2)), abs=0.03)
    y = np.array([1, -1, 1, -1, 1, -1])
    fitted = make("fogd", map="cos", **{**kw, "n_rf": 16}).fit(X, y)
    assert fitted.fitted_attributes()["coef_"].shape == (1, 16)
    again = make("fogd", map="cos", **{**kw, "n_rf": 16}).fit(X, y)              # seeded: the same phases
    np.testing.assert_array_equal(fitted.decision_function(X), again.decision_function(X))

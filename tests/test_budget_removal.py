"""RBP, Forgetron, BPA-S and BOGD (olk/algorithms/{rbp,forgetron,bpas,bogd}.py): hand-computed runs, the budget,
and each algorithm's own invariant (uniform removal, Forgetron's Q bookkeeping, BPA-S's optimal removal,
BOGD's unbiased removal)."""
import math

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.optimize import minimize_scalar

from olk.algorithms import available, make
from olk.errors import ConfigError

LIN = {"type": "linear"}
G_LN2 = {"type": "gaussian", "gamma": math.log(2.0)}     # on 1-d points: k(a, b) = 2^-(a-b)^2
NAMES = ("rbp", "forgetron", "bpas", "bogd")


class FixedDraw:
    """Stands in for the learner's numpy Generator: integers(n) always returns r (and checks r < n)."""

    def __init__(self, r):
        self.r, self.calls = r, []

    def integers(self, n):
        self.calls.append(n)
        assert 0 <= self.r < n
        return self.r


def _steps(model, X, y):
    model.bind(np.asarray(X, dtype=float))
    return [model.step(i, float(v)) for i, v in enumerate(y)]


def _stream(n=300, d=4, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    y = np.where(X[:, 0] + X[:, 1] + 0.8 * rng.normal(size=n) > 0, 1.0, -1.0)
    return X, y


def test_registered():
    assert set(NAMES) <= set(available())


# ------------------------------------------------------------------------------------------- RBP
@pytest.mark.parametrize("r,last_score,kept", [(0, 2.0, [2, 3]), (1, 3.0, [1, 3])])
def test_rbp_hand_computed(r, last_score, kept):
    # B=2, linear kernel.  t1 x1=(1,0)+: f=0 -> add +x1 ; t2 x2=(0,1)-: f=0 -> add -x2 (full)
    # t3 x3=(1,1)+: f=1-1=0 -> mistake, budget full: drop slot r, add +x3
    #   r=0 (x1 dropped): f = -x2 + x3 ; t4 x4=(2,-1)+: f = 1 + 1 = 2 -> no update
    #   r=1 (x2 dropped): f =  x1 + x3 ; t4: f = 2 + 1 = 3 -> no update
    m = make("rbp", kernel=LIN, budget=2)
    m.rng = FixedDraw(r)
    scores = _steps(m, [[1, 0], [0, 1], [1, 1], [2, -1]], [1, -1, 1, 1])
    assert scores == [0.0, 0.0, 0.0, last_score]
    assert m.rng.calls == [2]                      # drawn uniformly among the 2 current SVs
    assert sorted(m.pool.tags) == kept
    assert m.n_updates == 3


def test_rbp_removes_uniformly_at_random():
    # 5 orthogonal unit vectors, all +1: f=0 at every step so every step adds; B=4 -> step 5 drops one
    # of the 4 SVs.  Over 400 seeds each should be dropped ~100 times.
    X = np.eye(5)
    counts = np.zeros(5, int)
    for seed in range(400):
        m = make("rbp", kernel=LIN, budget=4, random_state=seed)
        _steps(m, X, np.ones(5))
        dropped = set(range(1, 6)) - set(m.pool.tags)
        assert len(dropped) == 1
        counts[dropped.pop() - 1] += 1
    assert counts[4] == 0
    assert all(55 <= c <= 145 for c in counts[:4]), counts


# ------------------------------------------------------------------------------------- Forgetron
def test_forgetron_hand_computed_budget_1():
    # B=1, linear kernel, orthogonal e1, e2.  Psi(l, m) = l^2 + 2l - 2lm.
    # t1 e1 +1: f=0, M=1, add sigma=1 (|I'|=1 <= B).
    # t2 e2 -1: f=0, M=2, add -1 -> |I'|=2 > B: r=e1, y_r=+1, delta=1,
    #   f'(e1) = 1*1 + (-1)*0 = 1 -> mu'=1 ; a = 1 - 2 = -1, b = 2, c = 0 - 15/32*2 = -0.9375
    #   h(1) = -1 + 2 - 0.9375 = 0.0625 > 0 -> phi = smallest root of -p^2 + 2p - 0.9375 = 0.75 (other: 1.25)
    #   coefficient of e2: -0.75 ; Q = Psi(0.75, 0.75) = 0.5625 + 1.5 - 1.125 = 0.9375 (= 15/32 M)
    m = make("forgetron", kernel=LIN, budget=1)
    scores = _steps(m, [[1, 0], [0, 1]], [1, -1])
    assert scores == [0.0, 0.0]
    assert m.phi_last == pytest.approx(0.75)
    assert m.Q == pytest.approx(0.9375)
    assert list(m.pool.tags) == [2]
    np.testing.assert_allclose(m.pool.coefs[:, 0], [-0.75])
    np.testing.assert_allclose(m.decision_function(np.array([[0.0, 2.0]])), [-1.5])


def test_forgetron_hand_computed_budget_2_phi_one_then_shrink():
    # B=2, linear kernel, orthogonal e1..e4, all labels +1 (f=0 at every step: 4 mistakes).
    # t3: M=3, r=e1, delta=1, f'(e1)=1 -> mu'=1 ; a=-1, b=2, c = 0 - 45/32 = -1.40625
    #     h(1) = -1 + 2 - 1.40625 = -0.40625 <= 0 -> phi = 1 (no shrinking); Q = Psi(1, 1) = 1
    # t4: M=4, r=e2, delta=1, mu'=1 ; a=-1, b=2, c = 1 - 60/32 = -0.875 ; h(1) = 0.125 > 0
    #     -p^2 + 2p - 0.875 = 0 -> phi = 1 - sqrt(1/8) ; Q = 15/32 * 4 = 1.875 (phi is a root)
    m = make("forgetron", kernel=LIN, budget=2)
    m.bind(np.eye(4))
    m.step(0, 1.0), m.step(1, 1.0), m.step(2, 1.0)
    assert m.phi_last == 1.0 and m.Q == pytest.approx(1.0)
    assert sorted(m.pool.tags) == [2, 3]
    np.testing.assert_allclose(m.pool.coefs[:, 0], [1.0, 1.0])
    m.step(3, 1.0)
    phi = 1.0 - math.sqrt(1.0 / 8.0)
    assert m.phi_last == pytest.approx(phi)
    assert m.Q == pytest.approx(1.875)
    assert m.M == 4 and m.n_updates == 4
    order = np.argsort(m.pool.tags)
    assert list(m.pool.tags[order]) == [3, 4]
    np.testing.assert_allclose(m.pool.coefs[order, 0], [phi, phi])


def test_forgetron_q_bookkeeping_on_a_random_stream():
    # Q_{t+1} <= 15/32 M_t always, with equality whenever phi_t < 1; phi_t in (0, 1]; the SVs kept
    # are the B most recent mistakes.
    X, y = _stream(400, seed=1)
    B = 8
    m = make("forgetron", kernel={"type": "gaussian", "gamma": 0.5}, budget=B)
    m.bind(X)
    mistake_times, shrunk = [], 0
    for i in range(len(y)):
        n_before, m_before = m.n_sv, m.M
        m.step(i, y[i])
        assert m.n_sv <= B
        assert m.Q <= 15 / 32 * m.M + 1e-9
        if m.M > m_before:
            mistake_times.append(m.t)
            if n_before == B:                        # this mistake removed the oldest SV
                assert 0.0 < m.phi_last <= 1.0
                if m.phi_last < 1.0:
                    shrunk += 1
                    assert m.Q == pytest.approx(15 / 32 * m.M)
        assert sorted(m.pool.tags) == mistake_times[-B:]
    assert shrunk > 5                               # the self-tuned shrinking really happens


def test_forgetron_chunked_partial_fit_and_sparse_equal_one_pass():
    X, y = _stream(250, seed=2)
    kern = {"type": "gaussian", "gamma": 0.3}
    one = make("forgetron", kernel=kern, budget=12).partial_fit(X, y)
    chunked = make("forgetron", kernel=kern, budget=12)
    for a in range(0, 250, 7):                     # re-binds: the oldest SV's row is in an older chunk
        chunked.partial_fit(X[a:a + 7], y[a:a + 7])
    sparse = make("forgetron", kernel=kern, budget=12).partial_fit(sp.csr_matrix(X), y)
    q = np.random.default_rng(9).normal(size=(6, 4))
    for other, Q in ((chunked, q), (sparse, sp.csr_matrix(q))):
        np.testing.assert_allclose(other.decision_function(Q), one.decision_function(q), rtol=1e-10, atol=1e-12)
        assert other.Q == pytest.approx(one.Q) and other.M == one.M


# ------------------------------------------------------------------------------------------ BPA-S
def test_bpas_hand_computed():
    # B=2, C=1, Gaussian gamma=ln2 on 1-d points: k(0,1)=k(1,2)=1/2, k(0,3)=2^-9, k(1,3)=1/16, k_tt=1.
    # t1 x=0 +1: f=0, l=1, tau=1 -> add +1 (x=0)
    # t2 x=3 -1: f=2^-9, l=1+2^-9, tau=min(1, l)=1 -> add -1 (x=3)  [full]
    # t3 x=1 +1: f = 1/2 - 1/16 = 0.4375, l=0.5625, tau=0.5625
    #    scores a_r^2 (1 - k_rt^2): x=0: 1 - 1/4 = 0.75 ; x=3: 1 - 1/256 -> drop x=0
    #    beta = 1 * 1/2 + 0.5625 = 1.0625 ; f_{t+1}(1) = -1/16 + 1.0625 = 1 (PA-I's margin step)
    # t4 x=0 +1: f = -2^-9 + 1.0625/2 = 0.529296875, l = 0.470703125
    #    scores: x=3: 1 - 2^-18 ; x=1: 1.0625^2 * 0.75 = 0.8466796875 -> drop x=1
    #    beta = 1.0625 * 1/2 + 0.470703125 = 1.001953125
    m = make("bpas", kernel=G_LN2, budget=2, C=1.0)
    scores = _steps(m, [[0.0], [3.0], [1.0], [0.0]], [1, -1, 1, 1])
    np.testing.assert_allclose(scores, [0.0, 2.0 ** -9, 0.4375, 0.529296875])
    order = np.argsort(m.pool.tags)
    assert list(m.pool.tags[order]) == [2, 4]
    np.testing.assert_allclose(m.pool.coefs[order, 0], [-1.0, 1.001953125])
    np.testing.assert_allclose(m.decision_function(np.array([[0.0]])), [1.0])


def test_bpas_below_budget_is_pa1():
    X, y = _stream(120, seed=3)
    kern = {"type": "gaussian", "gamma": 0.5}
    a = make("bpas", kernel=kern, budget=10_000, C=0.5).partial_fit(X, y)
    b = make("pa1", kernel=kern, C=0.5).partial_fit(X, y)
    np.testing.assert_allclose(a.pool.coefs, b.pool.coefs)


def test_bpas_removal_minimises_the_pa_objective_by_brute_force():
    # At every full-budget update, the kept model must be the best over r of
    #   min_beta 1/2 ||f_t - a_r k(x_r,.) + beta k(x_t,.) - f_t||^2 + C [1 - y_t w(x_t)]_+
    # (solved numerically here), and the new coefficient its minimiser.
    X, y = _stream(80, d=3, seed=4)
    gamma, C, B = 0.7, 0.8, 5
    K = lambda A, Bm: np.exp(-gamma * ((A[:, None, :] - Bm[None, :, :]) ** 2).sum(-1))  # noqa: E731
    m = make("bpas", kernel={"type": "gaussian", "gamma": gamma}, budget=B, C=C)
    m.bind(X)
    checked = 0
    for i in range(len(y)):
        rows, alpha = m.pool.tags - 1, m.pool.coefs[:, 0]
        f = m.step(i, y[i])
        if len(rows) < B or 1 - y[i] * f <= 0:
            continue
        kt = K(X[rows], X[i:i + 1])[:, 0]
        best = []
        for r in range(B):
            def obj(beta, r=r, alpha=alpha, kt=kt, i=i, f=f):
                dist = alpha[r] ** 2 + beta ** 2 - 2 * alpha[r] * beta * kt[r]
                return 0.5 * dist + C * max(0.0, 1 - y[i] * (f - alpha[r] * kt[r] + beta))
            res = minimize_scalar(obj, bounds=(-20, 20), method="bounded", options={"xatol": 1e-12})
            best.append((res.fun, res.x, rows[r]))
        fun, beta, dropped = min(best)
        assert dropped not in set(m.pool.tags - 1)
        new = m.pool.coefs[list(m.pool.tags).index(i + 1), 0]
        assert new == pytest.approx(beta, abs=1e-5)
        checked += 1
    assert checked > 20



def _bpas_python_step(m, i, y):
    """BPA-S's step as the Python reading writes it (kernel_values, coef_dot, hinge, bpas_choice, purge, add):
    the reference olk._core.bpas.bpas_step must match bit for bit."""
    from olk.algorithms.budget.core import bpas_choice, purge
    from olk.algorithms.common.losses import hinge
    m.t += 1
    pool, src = m.pool, m.src
    n = pool.n_sv
    full = n >= m.budget
    if full:
        kv = np.zeros((1, n + 1))
        pool.kernel_values(src, i, kv)
        f = pool.coef_dot(0, kv[0, :n])
    else:
        f = pool.decision1(src, i)
    loss = hinge(y, f)
    if loss > 0.0:
        ktt = pool.self_kernel(src, i)
        coef = (min(m.C, loss / ktt) if ktt > 0.0 else m.C) * y
        if full:
            r, carry = bpas_choice(pool, 0, 0, kv[0], ktt)
            coef += carry
            purge(pool, [r])
        pool.add(src, i, coef, m.t)
        m.n_updates += 1
    return f


@pytest.mark.parametrize("kernel, sparse, dup", [
    ({"type": "gaussian", "gamma": 0.4}, True, False),
    ({"type": "gaussian", "gamma": 0.7}, False, True),       # duplicated rows: tied scores, the lowest slot wins
    ({"type": "polynomial", "gamma": 0.3, "degree": 2}, False, False),
    ({"type": "linear"}, False, True),
])
def test_bpas_core_step_is_the_python_reading_bit_for_bit(kernel, sparse, dup):
    X, y = _stream(400, d=6, seed=11)
    if dup:
        X[1::7] = X[0]                                        # many copies of one row
    if sparse:
        X = sp.csr_matrix(np.where(np.abs(X) > 0.7, np.round(X), 0.0))
    a = make("bpas", kernel=kernel, budget=17, C=0.8)
    b = make("bpas", kernel=kernel, budget=17, C=0.8)
    a.bind(X)
    b.bind(X)
    fa = [a.step(i, float(v)) for i, v in enumerate(y)]
    fb = [_bpas_python_step(b, i, float(v)) for i, v in enumerate(y)]
    assert np.array_equal(np.array(fa), np.array(fb))
    assert np.array_equal(a.pool.coefs, b.pool.coefs) and np.array_equal(a.pool.tags, b.pool.tags)
    assert (a.n_updates, a.kernel_evals) == (b.n_updates, b.kernel_evals)


def test_bpas_core_argmin_is_numpys():
    """The C argmin of the removal scores is numpy's: the first minimum, or the first NaN."""
    from olk._core.bpas import _argmin_for_tests
    cases = [[3.0, 1.0, 1.0, 2.0], [1.0], [2.0, np.nan, 0.0, np.nan], [np.nan, 0.0], [0.0, -0.0, -1.0, -1.0],
             [np.inf, np.inf], [-np.inf, 5.0, -np.inf], [1.0] * 9, [0.0] * 5 + [-0.0] * 6]
    rng = np.random.default_rng(3)
    for n in (8, 9, 10, 11, 12, 13, 37, 1350):              # the four-lane scan and its tail
        for _ in range(20):
            v = rng.integers(0, 4, size=n).astype(float)    # many ties
            if rng.random() < 0.3:
                v[rng.integers(n)] = np.nan
            if rng.random() < 0.3:
                v[rng.integers(n, size=3)] = -0.0
            cases.append(v)
    for v in cases:
        assert _argmin_for_tests(np.array(v)) == int(np.argmin(np.array(v))), v

# ------------------------------------------------------------------------------------------- BOGD
@pytest.mark.parametrize("r,expected", [(0, {2: -0.9, 3: 0.5}), (1, {1: 0.81, 3: 0.5})])
def test_bogd_hand_computed(r, expected):
    # B=2, eta=0.5, lam=0.2 (shrink 1 - eta*lam = 0.9), linear kernel on 1-d points.
    # t1 x=1 +1: f=0, loss 1 -> add 0.5                                  coefs [0.5]
    # t2 x=2 -1: f=1, loss 2  -> shrink: 0.45, add -0.5                   [0.45, -0.5]
    # t3 x=1 +1: f=0.45-1=-0.55, loss 1.55, full -> drop slot r, the other x 0.9 * B/(B-1) = 1.8, add 0.5
    #    r=0: {x=2: -0.9, x=1: 0.5} ;  r=1: {x=1: 0.81, x=1: 0.5}
    m = make("bogd", kernel=LIN, budget=2, eta=0.5, lam=0.2)
    m.rng = FixedDraw(r)
    scores = _steps(m, [[1.0], [2.0], [1.0]], [1, -1, 1])
    np.testing.assert_allclose(scores, [0.0, 1.0, -0.55])
    got = dict(zip(m.pool.tags.tolist(), m.pool.coefs[:, 0].tolist()))
    assert got.keys() == expected.keys()
    for k, v in expected.items():
        assert got[k] == pytest.approx(v)


def test_bogd_zero_loss_step_only_shrinks():
    # t1 x=1 +1 adds eta=1 ; t2 x=2 +1: f=2 -> loss 0: coefficients times (1 - eta*lam) = 0.9
    m = make("bogd", kernel=LIN, budget=5, eta=1.0, lam=0.1)
    assert _steps(m, [[1.0], [2.0]], [1, 1]) == [0.0, 2.0]
    np.testing.assert_allclose(m.pool.coefs[:, 0], [0.9])
    assert m.n_updates == 1


def test_bogd_removal_is_unbiased():
    # B=3: steps 1-3 fill the budget, step 4 removes one SV.  Averaged over the 3 equally likely
    # removals, the model equals kernel OGD's after the same 4 steps (same eta, lam).
    X = np.array([[0.0], [0.7], [1.5], [0.2]])
    y = [1.0, -1.0, 1.0, -1.0]
    kern = {"type": "gaussian", "gamma": 0.5}
    q = np.linspace(-1, 2, 7)[:, None]
    outs = []
    for r in range(3):
        m = make("bogd", kernel=kern, budget=3, eta=0.1, lam=0.5)
        m.rng = FixedDraw(r)
        _steps(m, X, y)
        assert m.rng.calls == [3] and m.n_sv == 3
        outs.append(m.decision_function(q))
    ogd = make("ogd", kernel=kern, eta=0.1, lam=0.5)
    _steps(ogd, X, y)
    assert ogd.n_sv == 4
    np.testing.assert_allclose(np.mean(outs, axis=0), ogd.decision_function(q), rtol=1e-12, atol=1e-14)


# --------------------------------------------------------------------------------------- common
@pytest.mark.parametrize("name", NAMES)
def test_budget_never_exceeded_and_reached(name):
    X, y = _stream(300, seed=5)
    B = 10
    m = make(name, kernel={"type": "gaussian", "gamma": 0.4}, budget=B, random_state=3)
    m.bind(X)
    for i in range(len(y)):
        m.step(i, y[i])
        assert m.n_sv <= B
    assert m.n_sv == B
    assert m.n_updates > B                          # removals happened
    assert len(set(m.pool.tags)) == B


@pytest.mark.parametrize("name", NAMES)
def test_sparse_equals_dense(name):
    X, y = _stream(150, seed=6)
    kern = {"type": "gaussian", "gamma": 0.4}
    a = make(name, kernel=kern, budget=9, random_state=11)
    b = make(name, kernel=kern, budget=9, random_state=11)
    sa = _steps(a, X, y)
    b.bind(sp.csr_matrix(X))
    sb = [b.step(i, y[i]) for i in range(len(y))]
    np.testing.assert_allclose(sa, sb, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("name", ["forgetron", "bpas"])
def test_deterministic_algorithms_ignore_the_seed(name):
    X, y = _stream(150, seed=7)
    kern = {"type": "gaussian", "gamma": 0.4}
    s = [make(name, kernel=kern, budget=7, random_state=seed).partial_fit(X, y).decision_function(X[:5])
         for seed in (0, 1)]
    np.testing.assert_array_equal(s[0], s[1])


@pytest.mark.parametrize("name,params,msg", [
    ("bogd", {"budget": 1}, "must be >= 2"),
    ("bogd", {"eta": 10, "lam": 0.1}, "eta*lam < 1"),
    ("rbp", {"budget": 0}, "must be >= 1"),
    ("forgetron", {"budget": 2.5}, "expected int"),
    ("bpas", {"C": 0}, "must be > 0"),
    ("bpas", {"budgt": 3}, "did you mean 'budget'"),
])
def test_bad_parameters(name, params, msg):
    with pytest.raises(ConfigError) as e:
        make(name, **params)
    assert msg in str(e.value) and "\n" not in str(e.value)

"""The budget maintenance inside bounded OMKC (olk/algorithms/multikernel/bomkc_dd.py, bomkc_sd.py: SPA TIST 2018
Algorithms 3 and 4) by hand: Forgetron, BOGD and BPA-S on a tiny 1-d stream with two kernels, k_0(x, x') = x x' and
k_1(x, x') = (x x' + 1)^2 (tests/test_omkc_dd.py's TWO), for bomkc_dd (B/m each) and bomkc_sd (one total B, with
delta = 1 so that every classifier is sampled); and bomkc_sd with one kernel against the single-kernel budget
learner.  (RBP by hand, the budget property over seeds and bomkc_dd with one kernel: tests/test_bomkc_bounded.py.)

Stream (x_t, y_t): (1, +1), (2, -1), (-1, +1), (0, +1) [X4], or (0.5, -1) as the 4th example for BOGD.
Hedge discount 0.99 (the default) throughout: a classifier that errs alone at a step gets theta_i = .495/.995.
"""
import math

import numpy as np
import pytest
from test_omkc_dd import TWO, X4, Y4, run

from olk.algorithms import make
from olk.data import load_dataset

T1 = 0.495 / 0.995          # theta of the classifier that erred alone once, the other one never alone
GAUSS = {"type": "gaussian", "gamma": 0.4}


class Ints:
    """Stands in for a learner's RNG: scripted rng.integers(n) (RBP/BOGD's removal draw, checked < n) and
    rng.random(n) = 0 (bomkc_sd's Bernoulli draws: with delta = 1, p_i = 1, every classifier sampled)."""

    def __init__(self, ints):
        self.ints = list(ints)

    def integers(self, n):
        r = self.ints.pop(0)
        assert 0 <= r < n, (r, n)
        return r

    def random(self, n=None):
        return 0.0 if n is None else np.zeros(n)


class SplitRNG:
    """bomkc_sd's Bernoulli uniforms from one generator, the removal draws (integers) from another."""

    def __init__(self, bernoulli_seed, removal_seed):
        self.b = np.random.default_rng(bernoulli_seed)
        self.r = np.random.default_rng(removal_seed)

    def random(self, n=None):
        return self.b.random(n)

    def integers(self, n):
        return self.r.integers(n)


X_BOGD = np.array([[1.0], [2.0], [-1.0], [0.5]])
Y_BOGD = np.array([1.0, -1.0, 1.0, -1.0])


# ------------------------------------------------------------------------------------------------ BOGD
def test_dd_bogd_by_hand():
    # eta .5, lam .2: shrink s = 1 - eta lam = .9 on every step; coefficient eta y = +-.5 on a margin error;
    # B = 4, m = 2: each classifier at most 2 SVs; removal draws scripted 0, 1, 0
    m = make("bomkc_dd", kernel=TWO, maintenance="bogd", budget=4, eta=0.5, lam=0.2)
    m.rng = Ints([0, 1, 0])
    scores = run(m, X_BOGD, Y_BOGD)
    # t=1 x=1 y=+1: f=(0,0), vote 0; both l=1: row x=1 (.5, .5)                     f0 = .5x, f1 = .5(x+1)^2
    # t=2 x=2 y=-1: f=(1, 4.5), vote 1; both l>0, below the cap: x=1 scaled by .9 -> (.45, .45); row x=2 (-.5,-.5)
    # t=3 x=-1 y=+1: f0 = .45(-1) - .5(-2) = .55 (l=.45), f1 = 0 - .5(1) = -.5 (l=1.5): both at the cap 2.
    #     classifier 0 draws 0 -> forgets x=1; classifier 1 draws 1 -> forgets x=2 (no row empty);
    #     each column scaled by .9 * 2/(2-1) = 1.8: x=2 col 0 -> -.9, x=1 col 1 -> .81; row x=-1 (.5, .5)
    #     vote .5 - .5 = 0; classifier 1 erred: theta (.5, .495)/.995
    # t=4 x=.5 y=-1: f0 = -.9(1) + .5(-.5) = -1.15 (l = -.15: no update), f1 = .81(2.25) + .5(.25) = 1.9475
    #     (l = 2.9475): classifier 1 at the cap draws 0 among its rows (x=1, x=-1) -> forgets x=1, now owned by
    #     nobody: purged, x=-1 moves into slot 0.  col 0 scaled by .9 (every DD classifier steps), col 1 by 1.8;
    #     row x=.5 (0, -.5).  vote: theta0 (-1) + theta1 (+1) = -.005/.995; classifier 1 erred again
    assert scores == pytest.approx([0.0, 1.0, 0.0, -0.005 / 0.995], abs=1e-15)
    assert m.pool.tags.tolist() == [3, 2, 4]
    np.testing.assert_allclose(m.pool.coefs, [[0.45, 0.9], [-0.81, 0.0], [0.0, -0.5]], rtol=1e-14)
    assert m.sv_per_kernel_.tolist() == [2, 2] and m.n_sv == 3
    assert m.mistakes_per_kernel_.tolist() == [2, 4] and m.n_updates == 4
    np.testing.assert_allclose(m.weights_, np.array([0.5, 0.495 * 0.99]) / (0.5 + 0.495 * 0.99), rtol=1e-14)


def test_sd_bogd_by_hand():
    # the same stream and parameters, bomkc_sd with ONE budget B = 3 over both classifiers (not 3 // 2 each);
    # removal draws scripted 0, 1, 0, 0, 0
    m = make("bomkc_sd", kernel=TWO, maintenance="bogd", budget=3, eta=0.5, lam=0.2, delta=1.0)
    m.rng = Ints([0, 1, 0, 0, 0])
    scores = run(m, X_BOGD, Y_BOGD)
    # t=1: row x=1 (.5, .5): total 2
    # t=2 x=2 y=-1: f=(1, 4.5), both l>0; classifier 0 takes the 3rd place; classifier 1 finds the total at B
    #     and pays with its own only SV x=1 (draw 0 of 1; no n/(n-1) rescaling of an emptied classifier);
    #     col 0 scaled by .9: x=1 (.45, 0); row x=2 (-.5, -.5).       f0 = -.55x, f1 = -.5(2x+1)^2
    # t=3 x=-1 y=+1: f = (.55, -.5), both l>0, total at B: classifier 0 draws 1 -> forgets x=2 (scale 1.8:
    #     x=1 -> .81), classifier 1 draws 0 -> forgets x=2 (its only SV): row x=2 purged; row x=-1 (.5, .5);
    #     vote 0; classifier 1 erred: theta (.5, .495)/.995
    # t=4 x=.5 y=-1: f0 = .81(.5) + .5(-.5) = .155, f1 = .5(.25) = .125: both err; classifier 0 draws 0 ->
    #     forgets x=1 (purged; x=-1 moves to slot 0, scaled 1.8 -> .9), classifier 1 forgets x=-1 (its only);
    #     row x=.5 (-.5, -.5).  vote theta0 + theta1 = 1; both erred: theta unchanged
    assert scores == pytest.approx([0.0, 1.0, 0.0, 1.0], abs=1e-15)
    assert m.pool.tags.tolist() == [3, 4]
    np.testing.assert_allclose(m.pool.coefs, [[0.9, 0.0], [-0.5, -0.5]], rtol=1e-14)
    assert m.sv_per_kernel_.tolist() == [2, 1] and m.n_sv_output == 3          # shared: 2 + 1 of B = 3
    np.testing.assert_allclose(m.weights_, [0.5 / 0.995, T1], rtol=1e-14)


# ------------------------------------------------------------------------------------------------ Forgetron
def _phi(a, b, c):
    """The self-tuned Forgetron's shrink: 1 if a + b + c <= 0, else the smallest positive root of a p^2 + b p + c."""
    return 1.0 if a + b + c <= 0 else -2.0 * c / (b + math.sqrt(b * b - 4.0 * a * c))


def test_dd_forgetron_by_hand():
    # B = 2, m = 2: each Perceptron keeps at most 1 SV; Forgetron: store x_t, then (over the cap) shrink the
    # classifier by phi and forget its oldest SV.  Q_0 = 0, c = Q - 15/32 M
    m = make("bomkc_dd", kernel=TWO, maintenance="forgetron", budget=2)
    src = m.bind(X4)
    scores = [m.step(0, 1.0), m.step(1, -1.0)]
    # t=1: both err, row x=1 (1, 1).  t=2 x=2 y=-1: f = (2, 9), both err, x=2 stored (-1, -1); M = 2 each.
    #   classifier 0: oldest x=1, sigma 1, f'_0(1) = 1 - 2 = -1, mu = -1: a = 1 + 2 = 3, b = 2, c = -30/32
    #   classifier 1: f'_1(1) = (1+1)^2 - (2+1)^2 = -5, mu = -5:     a = 1 + 10 = 11, b = 2, c = -30/32
    phi0, phi1 = _phi(3.0, 2.0, -30 / 32), _phi(11.0, 2.0, -30 / 32)
    assert 0 < phi0 < 1 and 0 < phi1 < 1
    # both forget x=1 (purged): the pool is x=2 with each column shrunk by its phi
    np.testing.assert_allclose(m.pool.coefs, [[-phi0, -phi1]], rtol=1e-14)
    assert m.pool.tags.tolist() == [2]
    # phi is the root of Q + Psi = 15/32 M: each Q is now 15/16
    assert [s.Q for s in m._forgetron] == pytest.approx([15 / 16, 15 / 16], rel=1e-12)
    scores += [m.step(2, 1.0), m.step(3, 1.0)]
    # t=3 x=-1 y=+1: f0 = -phi0(-2) > 0 right, f1 = -phi1 (-1+1... = 1) = -phi1 wrong: vote 0; classifier 1 stores
    #   x=-1 (0, 1), M = 3, over the cap: oldest x=2 (y=-1, sigma phi1), f'_1(2) = -25 phi1 + 1, mu = 25 phi1 - 1,
    #   a = phi1^2 - 2 phi1 mu, b = 2 phi1, c = 15/16 - 45/32 < 0 and a + b + c < 0: phi = 1, x=2 forgotten by 1
    a1 = phi1 ** 2 - 2 * phi1 * (25 * phi1 - 1)
    assert a1 + 2 * phi1 + (15 / 16 - 45 / 32) <= 0
    # t=4 x=0 y=+1: f0 = 0 wrong (abstains), f1 = 1 right: vote theta1 = T1; classifier 0 stores x=0 (1, 0),
    #   oldest x=2 (sigma phi0), f'_0(2) = -4 phi0, mu = 4 phi0: a = -7 phi0^2, a + b + c < 0: phi = 1; x=2 purged
    assert -7 * phi0 ** 2 + 2 * phi0 + (15 / 16 - 45 / 32) <= 0
    assert scores == pytest.approx([0.0, 1.0, 0.0, T1], abs=1e-15)
    assert m.pool.tags.tolist() == [4, 3]
    np.testing.assert_array_equal(m.pool.coefs, [[1.0, 0.0], [0.0, 1.0]])
    assert [s.phi_last for s in m._forgetron] == [1.0, 1.0]
    assert m.sv_per_kernel_.tolist() == [1, 1] and m.mistakes_per_kernel_.tolist() == [3, 3]
    np.testing.assert_allclose(m.weights_, [0.5, 0.5], rtol=1e-14)
    assert src is not None


def test_sd_forgetron_by_hand():
    # one total budget B = 3 (delta = 1: every classifier sampled): classifier 1 may hold 2 SVs
    m = make("bomkc_sd", kernel=TWO, maintenance="forgetron", budget=3, delta=1.0, random_state=0)
    scores = run(m, X4, Y4)
    # t=2: both store x=2 (total 4 > 3): classifier 0 pays (phi0 as in the DD test, forgets x=1); the total is
    #   then 3, so classifier 1 keeps x=1 (1) and x=2 (-1) unshrunk.
    phi0 = _phi(3.0, 2.0, -30 / 32)
    # t=3 x=-1 y=+1: f1 = (-1+1)^2 - (-2+1)^2 = -1 wrong: stores x=-1, total 4: classifier 1 pays: oldest x=1
    #   (sigma 1, M = 3, Q = 0), f'_1(1) = 4 - 9 + 0 = -5, mu = -5: a = 11, b = 2, c = -45/32; x=1 purged
    psi = _phi(11.0, 2.0, -45 / 32)
    # t=4 x=0 y=+1: f0 = 0, f1 = psi - psi = 0: both err, vote 0; both store x=0 (total 5): classifier 0 pays
    #   (oldest x=2, mu = 4 phi0: phi = 1), then classifier 1 (oldest x=2, sigma psi, f'_1(2) = psi - 25 psi + 1,
    #   Q = 45/32, c = 45/32 - 60/32, a + b + c < 0: phi = 1): x=2 purged, x=0 moves into its slot
    assert -47 * psi ** 2 + 4 * psi + (45 / 32 - 60 / 32) <= 0
    assert scores == pytest.approx([0.0, 1.0, 0.0, 0.0], abs=1e-15)
    assert m.pool.tags.tolist() == [3, 4]
    np.testing.assert_allclose(m.pool.coefs, [[0.0, psi], [1.0, 1.0]], rtol=1e-14)
    assert m.sv_per_kernel_.tolist() == [1, 2] and m.n_sv_output == 3
    assert [s.M for s in m._forgetron] == [3, 4]
    np.testing.assert_allclose(m.weights_, [0.5 / 0.995, T1], rtol=1e-14)
    assert 0 < phi0 < 1


# ------------------------------------------------------------------------------------------------ BPA-S
def test_dd_bpas_by_hand():
    # C = 1; B = 4, m = 2: each PA-I classifier at most 2 SVs.  tau = min(C, l / k(x, x)) (C when k(x, x) = 0);
    # at the cap BPA-S forgets r = argmin alpha_r^2 (k_rr - k_rt^2 / k_tt) and adds alpha_r k_rt / k_tt to x_t's coef
    m = make("bomkc_dd", kernel=TWO, maintenance="bpas", budget=4, C=1.0)
    scores = run(m, X4, Y4)
    # t=1 x=1: l = (1, 1), k(x,x) = (1, 4): row x=1 (1, .25)                              f0 = x, f1 = .25(x+1)^2
    # t=2 x=2 y=-1: f = (2, 2.25), l = (3, 3.25), k = (4, 25): row x=2 (-.75, -.13)    f0 = -.5x
    # t=3 x=-1 y=+1: f = (.5, -.13), l = (.5, 1.13), k = (1, 4): tau = (.5, .2825); both at the cap.
    #   classifier 0 (linear, 1-d): every score 0 (k_rr = k_rt^2/k_tt), tie -> slot 0 (x=1), carry 1(-1)/1 = -1:
    #     coef .5 - 1 = -.5 (f0 = -x: PA's step exactly, as a 1-d linear projection must be)
    #   classifier 1: k_rt = (0, 1): scores .25^2 (4 - 0) = .25, .13^2 (25 - 1/4) = .418...: x=1, carry 0
    #   x=1 purged (x=2 moves to slot 0); row x=-1 (-.5, .2825); vote 0; classifier 1 erred: theta (.5,.495)/.995
    # t=4 x=0 y=+1: f0 = 0 (l = 1, k_0(0,0) = 0: tau = C = 1), f1 = -.13 + .2825 = .1525 (l = .8475, k = 1)
    #   classifier 0: k_tt = 0, scores alpha^2 k_rr = (.5625 * 4, .25 * 1): x=-1, no carry
    #   classifier 1: k_rt = (1, 1): scores .0169 * 24, .2825^2 * 3 = .239...: x=-1, carry .2825: coef 1.13
    #   x=-1 purged; row x=0 (1, 1.13); vote theta1 = T1; classifier 0 erred: theta (.5, .5)
    assert scores == pytest.approx([0.0, 1.0, 0.0, T1], abs=1e-15)
    assert m.pool.tags.tolist() == [2, 4]
    np.testing.assert_allclose(m.pool.coefs, [[-0.75, -0.13], [1.0, 1.13]], rtol=1e-14)
    assert m.sv_per_kernel_.tolist() == [2, 2] and m.mistakes_per_kernel_.tolist() == [3, 3]
    np.testing.assert_allclose(m.weights_, [0.5, 0.5], rtol=1e-14)


def test_sd_bpas_by_hand():
    # one total budget B = 3, delta = 1, C = 1
    m = make("bomkc_sd", kernel=TWO, maintenance="bpas", budget=3, C=1.0, delta=1.0, random_state=0)
    scores = run(m, X4, Y4)
    # t=2 x=2 y=-1: classifier 0 takes the 3rd place (-.75); classifier 1 pays with its only SV x=1:
    #   carry .25 k_1(1,2)/k_1(2,2) = .25 * 9/25 = .09: coef -.13 + .09 = -.04        f1 = -.04(2x+1)^2
    # t=3 x=-1 y=+1: f = (.5, -.04), tau = (.5, min(1, 1.04/4) = .26); classifier 0 pays as in the DD test (x=1,
    #   carry -1: -.5); classifier 1 pays with x=2: carry -.04 k_1(2,-1)/4 = -.01: .25.  x=1 purged
    # t=4 x=0 y=+1: f = (0, .25): tau = (C = 1, .75); classifier 0 forgets x=-1 (alpha^2 k_rr: 2.25 vs .25, no
    #   carry), classifier 1 its only SV x=-1 (carry .25 * 1/1): coef 1.  x=-1 purged; row x=0 (1, 1)
    assert scores == pytest.approx([0.0, 1.0, 0.0, T1], abs=1e-15)
    assert m.pool.tags.tolist() == [2, 4]
    np.testing.assert_allclose(m.pool.coefs, [[-0.75, 0.0], [1.0, 1.0]], rtol=1e-14)
    assert m.sv_per_kernel_.tolist() == [2, 1] and m.n_sv_output == 3
    np.testing.assert_allclose(m.weights_, [0.5, 0.5], rtol=1e-14)


# ------------------------------------------------------------------------------------------------ one kernel
@pytest.fixture(scope="module")
def small():
    d = load_dataset("a9a-small")
    return d.X[:600], d.y[:600], d.X[1000:1300]


@pytest.mark.parametrize("maintenance", ["forgetron", "bpas"])
def test_sd_one_kernel_is_the_single_kernel_budget_learner(small, maintenance):
    """bomkc_sd with m = 1 is the single-kernel learner bit for bit (same seed) where the learner draws nothing
    itself (Forgetron, BPA-S): p_1 = (1 - delta) theta_1 / max theta + delta = 1, so the one classifier is
    sampled every step; its Hedge weight stays 1; the total budget B is its budget."""
    X, y, Xt = small
    kw = {"C": 0.1} if maintenance == "bpas" else {}
    a = make(maintenance, kernel=GAUSS, budget=40, random_state=3, **kw).partial_fit(X, y)
    b = make("bomkc_sd", kernel=[GAUSS], maintenance=maintenance, budget=40, random_state=3, **kw).partial_fit(X, y)
    np.testing.assert_array_equal(a.pool.coefs, b.pool.coefs)
    np.testing.assert_array_equal(a.pool.tags, b.pool.tags)
    np.testing.assert_array_equal(a.decision_function(Xt), b.classifier_scores(Xt)[:, 0])
    assert a.n_updates == b.n_updates and b.weights_.tolist() == [1.0]


@pytest.mark.parametrize("maintenance", ["rbp", "bogd"])
def test_sd_one_kernel_randomised_maintenance(small, maintenance):
    """RBP and BOGD draw their removals from the learner's RNG, and bomkc_sd draws one Bernoulli uniform per
    step from the SAME RNG first (Algorithm 4's Z_i; with one kernel p_1 = 1, so the draw never changes what
    happens but still advances the stream): with the same seed the removals differ, so bit-for-bit equality
    with the single-kernel learner cannot hold.  It holds once the Bernoulli uniforms come from elsewhere and
    the removal draws from a generator seeded as the single learner's."""
    X, y, Xt = small
    kw = {"eta": 0.1, "lam": 0.01} if maintenance == "bogd" else {}
    a = make(maintenance, kernel=GAUSS, budget=40, random_state=3, **kw).partial_fit(X, y)
    b = make("bomkc_sd", kernel=[GAUSS], maintenance=maintenance, budget=40, **kw)
    b.rng = SplitRNG(99, 3)
    b.partial_fit(X, y)
    np.testing.assert_array_equal(a.pool.coefs, b.pool.coefs)
    np.testing.assert_array_equal(a.pool.tags, b.pool.tags)
    np.testing.assert_array_equal(a.decision_function(Xt), b.classifier_scores(Xt)[:, 0])
    assert a.n_updates == b.n_updates


def test_pooled_bpas_choice_equals_one_column_at_a_time():
    """olk._core.bpas.bpas_choose (every distinct victim in one pass) picks, for each column, the slot and carry that
    budget.bpas_choice picks from that column's own kernel_row: bit for bit, ties to the lowest slot."""
    import numpy as np

    from olk._core.bpas import bpas_choose
    from olk._core.svpool import RowSource, SVPool
    from olk.algorithms.budget.core import bpas_choice
    from olk.kernels import KernelSet
    rng = np.random.default_rng(5)
    X = rng.normal(size=(60, 5))
    X[7] = X[3]                                            # a duplicated row: equal scores, the tie rule
    ks = KernelSet.of([{"type": "gaussian", "gamma": g} for g in (0.1, 0.5, 2.0)]
                      + [{"type": "polynomial", "degree": 2}])
    src = RowSource(X)
    for trial in range(3):
        pool = SVPool(5, False, col_kernel=[0, 1, 2, 3], **ks.pool_args())
        for s in range(50):
            c = rng.normal(size=4) * (rng.random(4) < 0.6)    # each column owns about 60% of the rows
            pool.add(src, s, c, s)
        pool.set_coef(7, 0, pool.get_coef(3, 0))               # the tie in column 0 (if both are owned)
        cols = np.array([2, 0, 3], dtype=np.intp)
        q = 50 + trial
        ktt = np.array([pool.self_kernel(src, q, int(c)) for c in cols])
        slots, carries = bpas_choose(pool, src, q, cols, ktt)
        for j, c in enumerate(cols):
            c = int(c)
            owned = pool.owned(c)
            krt = pool.kernel_row(src, q, c, owned)
            # bpas_choice forgets its pick: run it on a copy of the pool
            import pickle
            p2 = pickle.loads(pickle.dumps(pool))
            r, carry = bpas_choice(p2, c, c, krt, ktt[j], owned)
            assert (int(slots[j]), carries[j]) == (r, carry), (trial, c)

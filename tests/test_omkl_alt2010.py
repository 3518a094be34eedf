"""The six ALT 2010 learners (olk/algorithms/omkl_*.py; Jin, Hoi & Yang, "Online multiple kernel learning:
algorithms and mistake bounds") by hand on a 4-step stream, their coincidences with omkc_dd / omkc_sd, the
doubling schedule of eq. (5), OMKL-O's projection onto ||f_i|| <= R (norms recomputed from the pool's SVs), and
the mistake bounds of olk/algorithms/omkl/bounds.py: by hand on a toy comparator, and >= the observed mistakes on
runs over the bundled samples."""
import math
import pickle

import numpy as np
import pytest
from test_omkc_dd import TWO, X4, Y4, Draws, run

from olk.algorithms import make
from olk.algorithms.omkl import bounds as B
from olk.algorithms.omkl.core import doubling_beta
from olk.algorithms.omkl.omkl_o_sua import theorem10_ab
from olk.data import load_dataset
from olk.kernels import KernelSet
from olk.tasks import online_pass

GAUSS3 = [{"type": "gaussian", "gamma": g} for g in (0.5, 0.125, 0.03125)]
ALT = ["omkl_p1", "omkl_p2", "omkl_sua", "omkl_mua", "omkl_o", "omkl_o_sua"]


# ----------------------------------------------------------------------------- OMKL-P by hand
def test_p1_by_hand():
    m = make("omkl_p1", kernel=TWO, beta=0.5)
    scores = run(m, X4, Y4)
    # t=1 x=1 y=+1: f=(0,0): vote 0; both err -> SV x=1 coefs (+1,+1); q=(.5,.5)*.5 renormalised (.5,.5)
    # t=2 x=2 y=-1: f0 = 2, f1 = (2+1)^2 = 9 -> vote .5+.5 = 1; both err -> SV x=2 coefs (-1,-1); q (.5,.5)
    #     f0(x) = -x,  f1(x) = (x+1)^2 - (2x+1)^2
    # t=3 x=-1 y=+1: f0 = 1 (right), f1 = 0 - 1 = -1 (wrong) -> vote .5 - .5 = 0; SV x=-1 coefs (0,+1);
    #     q = (.5, .25)/.75 = (2/3, 1/3)
    # t=4 x=0 y=+1: f0 = 0 (errs: y f <= 0; abstains), f1 = 1 - 1 + 1 = 1 (right) -> vote 1/3; SV x=0 (1, 0);
    #     q = (1/3, 1/3) -> (1/2, 1/2)
    assert scores == pytest.approx([0.0, 1.0, 0.0, 1 / 3], abs=1e-15)
    assert m.weights_ == pytest.approx([0.5, 0.5], abs=1e-15)
    assert m.n_updates == 4 and m.sv_per_kernel_.tolist() == [3, 3] and m.n_sv == 4
    assert m.mistakes_per_kernel_.tolist() == [3, 3]


def test_doubling_beta_values():
    # beta_k = 2^(k/2) / (sqrt(ln m) + 2^(k/2)), eq. (5); m = 2: sqrt(ln 2) = 0.8325546
    s = math.sqrt(math.log(2))
    assert doubling_beta(0, 2) == pytest.approx(1 / (s + 1), rel=1e-15)                 # 0.5456...
    assert doubling_beta(1, 2) == pytest.approx(math.sqrt(2) / (s + math.sqrt(2)), rel=1e-15)
    assert doubling_beta(2, 2) == pytest.approx(2 / (s + 2), rel=1e-15)
    assert doubling_beta(5, 16) == pytest.approx(2 ** 2.5 / (math.sqrt(math.log(16)) + 2 ** 2.5), rel=1e-15)
    assert doubling_beta(3, 1) == 1.0                                                     # ln 1 = 0: no Hedge
    b = [doubling_beta(k, 16) for k in range(20)]
    assert all(x < y < 1 for x, y in zip(b, b[1:]))                                        # increasing to 1


def test_p1_doubling_by_hand():
    m = make("omkl_p1", kernel=TWO, schedule="doubling")
    b0, b1, b2 = (doubling_beta(k, 2) for k in range(3))
    assert m.beta_ == b0 and m.segment_ == 0
    m.bind(X4)
    scores = [m.step(0, float(Y4[0]))]
    # t=1: z = (1,1): segment 0's min_i sum z_i = 1 = 2^0 -> segment 1 starts: q reset to 1/2, beta_1
    assert (m.segment_, m.beta_) == (1, b1) and m.weights_.tolist() == [0.5, 0.5]
    scores += [m.step(i, float(Y4[i])) for i in (1, 2)]
    # t=2: z = (1,1), segment counts (1,1); t=3: z = (0,1) -> counts (1,2), q = (1, b1)/(1 + b1)
    assert m.segment_ == 1 and m.weights_ == pytest.approx([1 / (1 + b1), b1 / (1 + b1)], rel=1e-15)
    scores.append(m.step(3, float(Y4[3])))
    # t=4: f0 = 0 abstains, f1 = 1 -> vote q_1 = b1/(1 + b1); z = (1,0) -> counts (2,2) = 2^1: segment 2
    assert scores == pytest.approx([0.0, 1.0, 0.0, b1 / (1 + b1)], abs=1e-15)
    assert (m.segment_, m.beta_) == (2, b2) and m.weights_.tolist() == [0.5, 0.5]
    assert m.run_summary()["segments"] == 3 and b0 < b1 < b2


def test_p2_by_hand():
    m = make("omkl_p2", kernel=TWO, beta=0.25, gamma=0.5)
    scores = run(m, X4, Y4)
    # t=1: f=(0,0), z=(1,1), nu = 1/2 + min(.5, 0) = .5 each -> equal discount: q (.5,.5); vote 0
    # t=2 x=2 y=-1: f = (2, 9), vote 1; -y f = (2, 9) -> nu = 1/2 + .5 = 1 each: q (.5,.5)
    # t=3 x=-1 y=+1: f = (1, -1), vote 0; nu = (0, 1/2 + min(.5, 1)) = (0, 1): q = (.5, .5*.25)/.625 = (.8, .2)
    # t=4 x=0 y=+1: f = (0, 1): vote .2; nu = (1/2 + min(.5, 0), 0) = (.5, 0): q = (.8*.5, .2)/.6 = (2/3, 1/3)
    assert scores == pytest.approx([0.0, 1.0, 0.0, 0.2], abs=1e-12)
    assert m.weights_ == pytest.approx([2 / 3, 1 / 3], abs=1e-12)
    assert m.n_updates == 4 and m.sv_per_kernel_.tolist() == [3, 3]           # Algorithm 1's Perceptrons


def test_sua_by_hand():
    m = make("omkl_sua", kernel=TWO, beta=0.5, delta=0.5)
    m.rng = Draws([0.7, 0.2, 0.9, 0.1])
    scores = run(m, X4, Y4)
    # p = (1 - .5) q + .5/2 = .5 q + .25; i_t = first i with u < cumsum(p)_i
    # t=1: q (.5,.5) -> p (.5,.5), u .7 -> i=1; f=(0,0) both err, only f1 learns: SV x=1 (0,+1); q (.5,.25)/.75
    #      = (2/3, 1/3); vote 0
    # t=2 x=2 y=-1: f0 = 0 (errs, abstains), f1 = 9 (errs): vote 1/3; p = (7/12, 5/12), u .2 -> i=0:
    #      SV x=2 (-1, 0); q (1/3, 1/3) -> (.5,.5)
    # t=3 x=-1 y=+1: f0 = -2x = 2 (right), f1 = (x+1)^2 = 0 (errs): vote .5; p (.5,.5), u .9 -> i=1 errs:
    #      SV x=-1 (0,+1); q (2/3, 1/3)
    # t=4 x=0 y=+1: f0 = 0 (errs), f1 = 1 + 1 = 2: vote 1/3; p (7/12, 5/12), u .1 -> i=0: SV x=0 (+1,0); q (.5,.5)
    assert scores == pytest.approx([0.0, 1 / 3, 0.5, 1 / 3], abs=1e-15)
    assert m.weights_ == pytest.approx([0.5, 0.5], abs=1e-15)
    assert m.n_updates == m.n_sv == m.n_sv_output == 4 and m.sv_per_kernel_.tolist() == [2, 2]
    assert m.pool.coefs.tolist() == [[0, 1], [-1, 0], [0, 1], [1, 0]]


def test_mua_by_hand():
    m = make("omkl_mua", kernel=TWO, beta=0.5, delta=0.5)
    m.rng = Draws([[0.3, 0.99], [0.8, 0.1], [0.9, 0.5], [0.1, 0.0]])
    scores = run(m, X4, Y4)
    # t=1: p_1 = 1: both sampled, both err: SV x=1 (1,1); q (.5,.5); vote 0
    # t=2 x=2 y=-1: f = (2, 9) both err, vote 1; p = .5 q + .5 = (.75,.75), u (.8,.1) -> m = (0,1):
    #      SV x=2 (0,-1); q (.5,.25)/.75 = (2/3, 1/3)
    # t=3 x=-1 y=+1: f0 = -1, f1 = 0 - 1 = -1, both err: vote -1; p = (5/6, 2/3), u (.9,.5) -> m = (0,1):
    #      SV x=-1 (0,+1); q (2/3, 1/6)/(5/6) = (.8, .2)
    # t=4 x=0 y=+1: f0 = 0 (errs), f1 = 1 - 1 + 1 = 1: vote .2; p = (.9,.6), u (.1, 0) -> m = (1,1), z = (1,0):
    #      SV x=0 (1,0); q (.4,.2)/.6 = (2/3, 1/3)
    assert scores == pytest.approx([0.0, 1.0, -1.0, 0.2], abs=1e-15)
    assert m.weights_ == pytest.approx([2 / 3, 1 / 3], abs=1e-15)
    assert m.n_updates == 4 and m.sv_per_kernel_.tolist() == [2, 3]


# ----------------------------------------------------------------------------- coincidences
def test_p1_is_omkc_dd_step_for_step():
    d = load_dataset("a9a-small")
    X, y = d.X[:400], d.y[:400]
    p1 = make("omkl_p1", kernel="spa16", beta=0.9)
    dd = make("omkc_dd", kernel="spa16", discount=0.9)
    sp1, sdd = run(p1, X, y), run(dd, X, y)
    assert sp1 == sdd                                                  # every prediction score, bit for bit
    assert np.array_equal(p1.weights_, dd.weights_) and np.array_equal(p1.pool.coefs, dd.pool.coefs)
    assert p1.mistakes_per_kernel_.tolist() == dd.mistakes_per_kernel_.tolist()


def test_mua_with_one_kernel_is_omkc_sd():
    # q / max q = q = 1 with one kernel: Algorithm 4's p = (1-delta) q + delta is omkc_sd's, draw for draw
    d = load_dataset("a9a-small")
    X, y = d.X[:400], d.y[:400]
    k = {"type": "gaussian", "gamma": 0.125}
    mua = make("omkl_mua", kernel=k, beta=0.9, delta=0.3, random_state=5)
    sd = make("omkc_sd", kernel=k, discount=0.9, delta=0.3, random_state=5)
    assert run(mua, X, y) == run(sd, X, y)
    assert mua.n_updates == sd.n_updates and 0 < mua.n_updates < 400
    # with 16 kernels they differ (p_i = (1-delta) q_i + delta vs (1-delta) q_i / max q + delta)
    a = make("omkl_mua", kernel="spa16", delta=0.3, random_state=5).partial_fit(X, y)
    b = make("omkc_sd", kernel="spa16", delta=0.3, random_state=5).partial_fit(X, y)
    assert a.n_sv_output < b.n_sv_output


def test_mua_with_delta_one_is_p1():
    d = load_dataset("a9a-small")
    X, y = d.X[:300], d.y[:300]
    mua = make("omkl_mua", kernel="spa16", beta=0.9, delta=1.0, random_state=1)
    p1 = make("omkl_p1", kernel="spa16", beta=0.9)
    assert run(mua, X, y) == run(p1, X, y)
    assert np.array_equal(mua.pool.coefs, p1.pool.coefs)


# ----------------------------------------------------------------------------- OMKL-O
def _pool_norms(model) -> np.ndarray:
    """||f_i||_{H_i} recomputed from the pool: sqrt(c_i' K_i c_i) with K_i from the stored SVs."""
    pool, C = model.pool, model.pool.coefs
    n = pool.n_sv
    out = []
    for k in range(C.shape[1]):
        K = np.array([[pool.sv_kernel(a, b, k) for b in range(n)] for a in range(n)])
        out.append(math.sqrt(max(float(C[:, k] @ K @ C[:, k]), 0.0)))
    return np.array(out)


def test_omkl_o_by_hand():
    beta, R = math.exp(-1.0), 2.0                   # ln(1/beta) = 1: w_i = exp(sum of y f_i(x) on updates)
    m = make("omkl_o", kernel=TWO, beta=beta, R=R)
    scores = run(m, X4, Y4)
    # t=1 x=1 y=+1: f=(0,0), score 0 -> y score <= 0: update.  ln w += y f = 0: q (.5,.5);
    #     ||f0||^2 = k0(1,1) = 1, ||f1||^2 = k1(1,1) = 4 (= R^2: no projection)
    # t=2 x=2 y=-1: f = (2, 9), score 5.5 -> update.  ln w += (-2, -9): q = (1, e^-7)/(1 + e^-7)
    #     ||f0~||^2 = 1 + 2(-1)(2) + k0(2,2) = 1 - 4 + 4 = 1;  ||f1~||^2 = 4 - 18 + 25 = 11 > 4: f1 *= 2/sqrt 11
    # t=3 x=-1 y=+1: f0 = -x = 1, f1 = (2/sqrt 11)(0 - 1): score = q0 - q1 2/sqrt 11 > 0: no update
    # t=4 x=0 y=+1: f = (0, (2/sqrt 11)(1 - 1)) = (0, 0): score 0 -> update, ln w unchanged;
    #     ||f0~||^2 = 1 + 0 + k0(0,0) = 1;  ||f1~||^2 = 4 + 0 + k1(0,0) = 5 > 4: f1 *= 2/sqrt 5
    q1 = math.exp(-7) / (1 + math.exp(-7))
    assert scores == pytest.approx([0.0, 5.5, (1 - q1) - q1 * 2 / math.sqrt(11), 0.0], rel=1e-12, abs=1e-15)
    assert m.weights_ == pytest.approx([1 - q1, q1], rel=1e-12)
    assert m.n_updates == m.n_sv == 3 and m.n_projections_.tolist() == [0, 2]
    assert m.sqnorms_ == pytest.approx([1.0, 4.0], rel=1e-12)
    s = 2 / math.sqrt(11) * 2 / math.sqrt(5)
    assert m.pool.coefs == pytest.approx(np.array([[1, s], [-1, -s], [1, 2 / math.sqrt(5)]]), rel=1e-12)
    assert _pool_norms(m) == pytest.approx(m.norms_, rel=1e-12)


def test_omkl_o_sua_by_hand():
    beta, R = math.exp(-1.0), 2.0
    m = make("omkl_o_sua", kernel=TWO, beta=beta, R=R, delta=0.5, eta=0.5)
    m.rng = Draws([0.7, 0.7, 0.5, 0.9])
    scores = run(m, X4, Y4)
    # p = .5 q + .25, m~ = 1/p_i, step = eta / p_i
    # t=1 x=1 y=+1: score 0 -> update; p (.5,.5), u .7 -> i=1, step .5/.5 = 1; ln w_1 += 1*1*f1 = 0;
    #     f1 = k1(1,.), ||f1||^2 = 4
    # t=2 x=2 y=-1: f = (0, 9): score 4.5 -> update; u .7 -> i=1, step 1; ln w_1 += 1*(-1)*9: q = (1, e^-9)/(1+e^-9);
    #     ||f1~||^2 = 4 + 2(-1)(9) + 25 = 11 > 4: f1 *= 2/sqrt 11
    # t=3 x=-1 y=+1: f = (0, -2/sqrt 11): score = -q1 2/sqrt 11 < 0 -> update; p0 = .5 q0 + .25, u .5 < p0 -> i=0,
    #     step .5/p0; ln w_0 += step*f0 = 0;  ||f0~||^2 = step^2 k0(-1,-1) = step^2
    # t=4 x=0 y=+1: f = (0, 0) (k0(x, 0) = 0; f1(0) = (2/sqrt 11)(1 - 1)): score 0 -> update; u .9 -> i=1,
    #     step .5/p1;  ||f1~||^2 = 4 + 0 + step^2 k1(0,0) = 4 + step^2 > 4: f1 *= 2/sqrt(4 + step^2)
    q1 = math.exp(-9) / (1 + math.exp(-9))
    p0, p1 = 0.5 * (1 - q1) + 0.25, 0.5 * q1 + 0.25     # noqa: F841 - p1 is the comment's (t=4), not asserted
    assert scores == pytest.approx([0.0, 4.5, -q1 * 2 / math.sqrt(11), 0.0], rel=1e-12, abs=1e-15)
    assert m.weights_ == pytest.approx([1 - q1, q1], rel=1e-12)
    assert m.eta_ == 0.5 and m.n_updates == m.n_sv == 4 and m.sv_per_kernel_.tolist() == [1, 3]
    assert m.sqnorms_ == pytest.approx([(0.5 / p0) ** 2, 4.0], rel=1e-12)
    assert m.n_projections_.tolist() == [0, 2]
    assert _pool_norms(m) == pytest.approx(m.norms_, rel=1e-12)


def test_omkl_o_sua_default_eta_is_theorem10s():
    # a = R^2/2 + ln m / ln(1/beta), b = ln(1/beta) R^2 m^2/(2 delta^2) + m/(2 delta):  eta = sqrt(a/b)
    a, b = theorem10_ab(5.0, 0.99, 0.1, 3)
    lib = -math.log(0.99)
    assert a == pytest.approx(12.5 + math.log(3) / lib) and b == pytest.approx(lib * 25 * 9 / 0.02 + 15)
    m = make("omkl_o_sua", kernel=GAUSS3, R=5.0, beta=0.99, delta=0.1)
    assert m.eta_ == pytest.approx(math.sqrt(a / b), rel=1e-15)


@pytest.mark.parametrize("name", ["omkl_o", "omkl_o_sua"])
def test_projection_keeps_every_norm_within_R(name):
    d = load_dataset("a9a-small")
    kern = GAUSS3 + [{"type": "polynomial", "gamma": 1.0, "coef0": 0.0, "degree": 2}]
    m = make(name, kernel=kern, R=2.0, random_state=3).partial_fit(d.X[:400], d.y[:400])
    assert (m.n_projections_ > 0).any() and m.n_updates > 20           # the projection was exercised
    recomputed = _pool_norms(m)
    assert recomputed == pytest.approx(m.norms_, rel=1e-9)             # incremental norms are exact
    assert (recomputed <= 2.0 * (1 + 1e-9)).all()


def test_stream_is_not_pickled():
    d = load_dataset("german-small")
    m = make("omkl_p1", kernel=GAUSS3, bound=True).partial_fit(d.X[:50], d.y[:50])
    assert m.stream_data()[0].shape[0] == 50
    m2 = pickle.loads(pickle.dumps(m))
    assert m2.stream_data() == (None, None) and m2.n_sv == m.n_sv


# ----------------------------------------------------------------------------- bounds
def _toy(margins, norm2, kmax, T=None):
    margins = np.atleast_2d(np.asarray(margins, dtype=float))
    kmax = np.asarray(kmax, dtype=float)
    return B.Comparator(T=T or margins.shape[1], kmax=kmax, xbar2=np.maximum(1.0, kmax),
                        norm2=np.asarray(norm2, dtype=float), margins=margins, n_train=margins.shape[1])


def test_bound_formulas_by_hand():
    c = _toy([[2.0, 0.5], [0.0, 0.0]], [1.0, 0.0], [1.0, 1.0])
    # kernel 0: hinge 0 + .5 -> G = 1 + 2(.5) = 2; kernel 1: hinge 1 + 1 -> G = 0 + 4 = 4
    assert c.G.tolist() == [2.0, 4.0] and c.N.tolist() == [2.0, 4.0]
    val, det = B.theorem2(c, 0.5, 2)        # 2 ln 2 / .5 * 2 + 2 ln 2 / .5 = 12 ln 2
    assert val == pytest.approx(12 * math.log(2)) and det["bound_kernel"] == 0
    assert B.theorem6(c, 0.5, 0.25, 2)[0] == pytest.approx(2 / 0.25 * 12 * math.log(2))
    assert B.theorem7(c, 0.5, 0.25, 2)[0] == pytest.approx(12 * math.log(2) / 0.25)
    # Theorem 3, gamma = .5: c = 1, (2 ln 2 * 2 + 4 ln 2) / (1 - .5) = 16 ln 2
    assert B.theorem3(c, 0.5, 0.5, 2)[0] == pytest.approx(16 * math.log(2))
    # Theorem 5 (proof's form): G = 2, s = 1 + floor(log2 3) = 2: 2*2 + 2*2 ln 2 + 4 sqrt(ln 2)(2 - 1)/(sqrt 2 - 1)
    L = math.log(2)
    assert B.theorem5(c, 2)[0] == pytest.approx(4 + 4 * L + 4 * math.sqrt(L) / (math.sqrt(2) - 1))
    # a kernel with k(x, x) up to 4 (X^2 = 4): G = 4 ||h||^2 + 2 hinge, N = g + 3 G
    c4 = _toy([[2.0, 0.5]], [1.0], [4.0])
    assert c4.G.tolist() == [5.0] and c4.N.tolist() == [2.0 + 3 * 5.0]


def test_theorem8_and_10_by_hand():
    beta, R = math.exp(-0.25), 1.0          # ln(1/beta) = .25, R^2 ln(1/beta) = .25 < 1
    c = _toy([[2.0, 2.0, -1.0]], [1.0], [1.0])
    # ||h|| = 1 <= R: s in [0, 1]; 2 hinge(s) + s^2 = 2(2 max(0, 1-2s) + (1+s)) + s^2, minimal at s = .5: 3 + .25
    val, det = B.theorem8(c, beta, R, 1)
    assert det["bound_scale"] == 0.5 and val == pytest.approx(3.25 / (2 - 0.25 - 1))
    # Theorem 10 (m = 1, delta = .5, eta = .5): hinge(s) minimal at s = .5: 1.5; a = 1/2 + 0, b = .25/(2 .25) + 1
    v10, _ = B.theorem10(c, beta, R, 0.5, 0.5, 1)
    assert v10 == pytest.approx(1.5 + 0.5 / 0.5 + 0.5 * 1.5 * 3)
    # Theorem 8's condition broken (R^2 ln(1/beta) >= 1, or k(x, x) > 1): vacuous
    assert B.theorem8(c, beta, 2.0, 1)[0] == math.inf
    assert B.theorem8(_toy([[2.0]], [1.0], [9.0]), beta, R, 1)[0] == math.inf


def test_comparator_is_the_svm_minimiser():
    # x = +-1, y = sign(x), linear kernel: g = min_w w^2 + 2 * 2 max(0, 1 - w) = 1 at w = 1
    X = np.array([[1.0], [-1.0]])
    c = B.comparator(X, np.array([1.0, -1.0]), KernelSet.of([{"type": "linear"}]))
    assert c.G == pytest.approx([1.0], abs=1e-6) and c.norm2 == pytest.approx([1.0], abs=1e-6)


@pytest.mark.parametrize("data", ["german-small", "a9a-small"])
def test_bounds_hold_on_real_runs(data):
    d = load_dataset(data)
    n = min(400, len(d.y))                              # german-small: 300 rows
    X, y = d.X[:n], d.y[:n]
    for name in ALT + ["omkl_p1:doubling"]:
        algo, _, sched = name.partition(":")
        extra = {"schedule": sched} if sched else {}
        runs = [online_pass(make(algo, kernel="spa16", bound=True, random_state=s, **extra), X, y, range(n))
                for s in range(3 if algo in ("omkl_sua", "omkl_mua", "omkl_o_sua") else 1)]
        s = runs[0]["summary"]
        mistakes = np.mean([r["mistakes"] for r in runs])
        assert s["bound_theorem"] in ("2", "3", "5", "6", "7", "8", "10")
        if s["bound_vacuous"]:                          # Theorem 8 with spa16's polynomials: k(x, x) > 1
            assert algo == "omkl_o" and s["bound_kmax"] > 1 and math.isnan(s["mistake_bound"])
            continue
        assert 0 < mistakes <= s["mistake_bound"], (data, name)
        assert all(r["summary"]["mistake_bound"] == s["mistake_bound"] for r in runs)   # order-free

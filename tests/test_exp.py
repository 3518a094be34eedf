"""olk's portable exp (olk/_core/svpool.pyx: olk_exp) over the whole double range, against the C library:
within 1 ulp where the result is normal, and the same underflow to denormals / 0 and overflow to inf.  (A bug
here once returned inf for x in [-1491, -1416]: a Gaussian kernel value of inf for far-apart points.)"""
import numpy as np

from olk._core.svpool import exp_array


def test_exp_matches_libm_over_the_whole_range():
    x = np.concatenate([np.linspace(-1600, 800, 400_001), [-745.2, -745.13, -745.0, -708.4, -708.0,
                                                           709.0, 709.78, 709.79, 709.8, -0.0, 0.0]])
    ours = exp_array(x)
    with np.errstate(over="ignore"):
        ref = np.exp(x)
    assert np.array_equal(np.isinf(ours), np.isinf(ref))                 # overflow at the same x
    assert np.array_equal(ours == 0, ref == 0)                           # underflow to 0 at the same x
    normal = np.isfinite(ref) & (ref >= np.finfo(float).tiny)
    err = np.abs(ours[normal] - ref[normal]) / np.spacing(ref[normal])
    fast = (x[normal] > -708.0) & (x[normal] < 709.0)                    # the table-driven range: <= 1 ulp
    assert np.max(err[fast]) <= 1.0 and np.max(err[~fast]) <= 2.0        # beyond it exp(x/2)^2: <= 2 ulp
    sub = (ref > 0) & (ref < np.finfo(float).tiny)                       # denormal results: a few steps
    assert sub.any() and np.max(np.abs(ours[sub] - ref[sub])) <= 4 * 5e-324
    assert np.all(ours >= 0) and not np.isnan(ours).any()
    assert exp_array(np.array([np.nan]))[0] != exp_array(np.array([np.nan]))[0]   # nan stays nan


def test_gaussian_kernel_of_far_apart_points_is_zero_not_inf():
    from olk._core.svpool import RowSource, SVPool
    from olk.kernels import KernelSet
    X = np.array([[0.0, 0.0], [1.2, 0.0]])            # gamma * d^2 = 2048 * 1.44 = 2949: far beyond underflow
    X2 = np.array([[0.0, 0.0], [0.85, 0.0]])          # 2048 * 0.7225 = 1479.7: the old bug's window
    for data in (X, X2):
        src = RowSource(data)
        pool = SVPool(2, False, col_kernel=[0], **KernelSet.of({"type": "gaussian", "gamma": 2048}).pool_args())
        pool.add(src, 0, [1.0], 0)
        out = np.zeros(1)
        pool.decision(src, 1, out)
        assert out[0] == 0.0

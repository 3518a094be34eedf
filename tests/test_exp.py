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


def test_every_simd_level_gives_the_scalar_bits():
    """exp_array runs a vectorised loop (AVX-512F, AVX2 or scalar, whichever the CPU has); every level must give
    bit for bit what the scalar olk_exp gives, on the fast range, beyond it and at the special values."""
    from olk._core.svpool import exp_array_scalar, exp_simd
    rng = np.random.default_rng(7)
    x = np.concatenate([rng.uniform(-800, 800, 200_000), rng.uniform(-1600, 1600, 20_000),
                        -np.linspace(0, 40, 10_001), [np.nan, np.inf, -np.inf, 0.0, -0.0, -708.0, 709.0, -745.2,
                                                      709.79, -745.13, 709.8, -1e300, 1e300, 5e-324]])
    want = exp_array_scalar(x).view(np.uint64)
    best = exp_simd()
    try:
        for level in ("scalar", "avx2", "avx512"):
            used = exp_simd(level)
            for n in (len(x), 1, 3, 7, 8, 9, 130):              # lengths around the vector widths (4 and 8)
                assert np.array_equal(exp_array(x[:n]).view(np.uint64), want[:n]), (level, used, n)
    finally:
        exp_simd(best)
    import pytest
    with pytest.raises(ValueError, match="one of scalar, avx2, avx512"):
        exp_simd("sse9")


def _sequential_gaussian_decision(svs, coefs, x, gamma):
    """The Gaussian decision value summed exactly as the pool defines it, one SV at a time, in plain Python
    floats: <x, sv> summed from 0.0 in column order, d2 = (|x|^2 + |sv|^2) - 2<x,sv> clipped at 0, exp from the
    scalar olk_exp, out += coef * k in slot order."""
    from olk._core.svpool import pexp
    def dot(a, b):
        acc = 0.0
        for u, v in zip(a, b):
            acc += u * v
        return acc
    qn = dot(x, x)
    out = 0.0
    for sv, c in zip(svs, coefs):
        d2 = qn + dot(sv, sv) - 2.0 * dot(x, sv)
        out += c * pexp(-gamma * (d2 if d2 >= 0.0 else 0.0))
    return out


def test_blocked_decision_is_bit_identical_to_one_sv_at_a_time():
    from olk._core.svpool import pexp
    """The pool's decision loop works on blocks of 128 SVs, four products interleaved, one vectorised exp per
    block, and skips the product for binary (all-ones) sparse data: check every path against the one-SV-at-a-
    time definition, to the bit, with SV counts that cross block and group-of-four boundaries."""
    import scipy.sparse as sp

    from olk._core.svpool import RowSource, SVPool
    from olk.kernels import KernelSet
    rng = np.random.default_rng(3)
    gamma = 0.37
    for n_sv in (1, 3, 4, 5, 127, 128, 129, 261):
        dense = rng.normal(size=(n_sv + 5, 9))
        binary = (rng.random((n_sv + 5, 40)) < 0.2).astype(float)
        mixed = binary * rng.choice([1.0, 0.5, 2.0], size=binary.shape)
        for X, sparse in ((dense, False), (sp.csr_matrix(binary), True), (sp.csr_matrix(mixed), True)):
            src = RowSource(X)
            pool = SVPool(X.shape[1], sparse, col_kernel=[0],
                          **KernelSet.of({"type": "gaussian", "gamma": gamma}).pool_args())
            coefs = rng.normal(size=n_sv)
            for s in range(n_sv):
                pool.add(src, s, [coefs[s]], s)
            rows = X.toarray() if sparse else X
            for q in range(n_sv, n_sv + 5):
                want = _sequential_gaussian_decision(rows[:n_sv], coefs, rows[q], gamma)
                assert pool.decision1(src, q) == want, (n_sv, sparse, q)
                kv = np.zeros((1, n_sv))
                pool.kernel_values(src, q, kv)
                for s in (0, n_sv // 2, n_sv - 1):        # kernel_values takes the same blocked path
                    a, b = rows[q], rows[s]
                    acc = 0.0
                    for u, v in zip(a, b):
                        acc += u * v
                    na = 0.0
                    for u in a:
                        na += u * u
                    nb = 0.0
                    for u in b:
                        nb += u * u
                    d2 = na + nb - 2.0 * acc
                    assert kv[0, s] == pexp(-gamma * max(d2, 0.0)), (n_sv, sparse, s)


def test_the_table_is_the_exact_decimal_computation():
    """olk_exp_table.h's constants: 2^(j/128) = hi_j (1 + tail_j), hi_j the double nearest 2^(j/128) (decimal at 60
    digits, correctly rounded to a double), tail_j its relative error, sbits_j = bits of hi_j - (j << 45)."""
    import struct
    from decimal import Decimal, localcontext

    from olk._core.svpool import exp_tables
    tail, sbits = exp_tables()
    with localcontext() as ctx:
        ctx.prec = 60
        for j in range(128):
            v = Decimal(2) ** (Decimal(j) / Decimal(128))
            hi = float(v)
            assert tail[j] == float((v - Decimal(hi)) / Decimal(hi)), j
            bits = struct.unpack("<Q", struct.pack("<d", hi))[0]
            assert int(sbits[j]) == (bits - (j << 45)) % (1 << 64), j

# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""Projectron(++)'s packed symmetric-matrix loops (Orabona, Keshet & Caputo, JMLR 2009): the inverse kernel
matrix K^{-1} of the SVs kept as its upper triangle packed by columns (LAPACK 'U' packed), multiplied by a
vector and updated by a rank-one term in a fixed summation order.

BLAS (OpenBLAS picks a kernel per CPU) sums in host-dependent orders; Projectron's decision to add x_t or
to project it hangs on a threshold on delta^2, so one ulp could change a run.  These plain loops give the
same bits on every machine.  They belong to one learner family, not to the shared SV pool
(:mod:`olk._core.svpool`), so they live in their own module; :mod:`olk.algorithms.projectron` calls them.
"""


def spmv_packed(Py_ssize_t n, const double[::1] P, const double[::1] x, double[::1] out):
    """out[:n] = A x for the symmetric n x n matrix A stored as its upper triangle, packed by columns
    (LAPACK 'U' packed: A[i, j] = P[j (j + 1) / 2 + i] for i <= j), in a fixed summation order.

    Column j adds A[i, j] x[j] to out[i] (i < j) and sums its mirror row, sum_i A[j, i] x[i], in four
    interleaved partial sums (i = 0, 1, 2, 3 mod 4, combined as (s0 + s1) + (s2 + s3), then the tail):
    four independent chains instead of one, so the loop runs at memory speed like BLAS's dspmv, and
    the order is fixed by this code, not by a library or the CPU."""
    cdef Py_ssize_t i, j, c, m
    cdef double xj, s0, s1, s2, s3, p0, p1, p2, p3
    if P.shape[0] < n * (n + 1) // 2 or x.shape[0] < n or out.shape[0] < n:
        raise ValueError("spmv_packed: operand too short")
    for i in range(n):
        out[i] = 0.0
    for j in range(n):
        c = j * (j + 1) // 2
        xj = x[j]
        s0 = s1 = s2 = s3 = 0.0
        m = j - j % 4
        i = 0
        while i < m:
            p0 = P[c + i]
            p1 = P[c + i + 1]
            p2 = P[c + i + 2]
            p3 = P[c + i + 3]
            out[i] += p0 * xj                # A[i, j] x[j]  (upper part of column j)
            out[i + 1] += p1 * xj
            out[i + 2] += p2 * xj
            out[i + 3] += p3 * xj
            s0 += p0 * x[i]                  # A[j, i] x[i]  (its mirror in row j)
            s1 += p1 * x[i + 1]
            s2 += p2 * x[i + 2]
            s3 += p3 * x[i + 3]
            i += 4
        s0 = (s0 + s1) + (s2 + s3)
        while i < j:
            out[i] += P[c + i] * xj
            s0 += P[c + i] * x[i]
            i += 1
        out[j] += s0 + P[c + j] * xj


def spr_packed(Py_ssize_t n, double alpha, const double[::1] x, double[::1] P):
    """A += alpha x x^T on the packed upper triangle (the rank-one update of LAPACK's dspr)."""
    cdef Py_ssize_t i, j, c
    cdef double axj
    if P.shape[0] < n * (n + 1) // 2 or x.shape[0] < n:
        raise ValueError("spr_packed: operand too short")
    for j in range(n):
        c = j * (j + 1) // 2
        axj = alpha * x[j]
        for i in range(j + 1):
            P[c + i] += x[i] * axj

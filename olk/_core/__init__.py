"""olk's compiled core (Cython modules and the C headers they include)."""
import os

#: the vector loops' levels, in the order of olk_cpu.h's olk_simd_detect (the index is the level)
SIMD_LEVELS = ("scalar", "avx2", "avx512")


def simd_level(best: int, level=None, what: str = "SIMD level") -> int:
    """The level a module's vector loops use: `level` ("scalar", "avx2" or "avx512"), else the environment variable
    OLK_EXP_SIMD, else `best` (what the CPU has, olk_simd_detect), never above `best`.  A name outside SIMD_LEVELS
    is a one-line ValueError starting with `what`."""
    want = level if level is not None else os.environ.get("OLK_EXP_SIMD", "").strip().lower() or None
    if want is None:
        return best
    if want not in SIMD_LEVELS:
        raise ValueError(f"{what} must be one of {', '.join(SIMD_LEVELS)}, got {want!r}")
    return min(best, SIMD_LEVELS.index(want))

"""Build script for olk's Cython extensions (metadata lives in pyproject.toml)."""
import numpy as np
from Cython.Build import cythonize
from setuptools import Extension, setup


def _core(name: str) -> Extension:
    """olk._core.NAME from olk/_core/NAME.pyx: -O3, no FMA contraction (the same bits on every machine)."""
    return Extension(
        f"olk._core.{name}",
        [f"olk/_core/{name}.pyx"],
        include_dirs=[np.get_include()],
        define_macros=[("NPY_NO_DEPRECATED_API", "NPY_1_7_API_VERSION")],
        extra_compile_args=["-O3", "-ffp-contract=off"],
    )


extensions = [
    _core("svpool"),                        # the shared SV pool (svpool.pxd: its C interface)
    _core("bpas"),                          # BPA-S's removal choice (cimports the pool)
    _core("bogd"),                          # BOGD's whole step (cimports the pool)
    _core("forgetron"),                     # the self-tuned Forgetron's rows (cimports the pool)
    _core("packed"),                        # Projectron(++)'s packed K^-1 loops
    _core("klr"),                           # the batch KLR baselines' coordinate sweeps (PCD, DCD)
    _core("refloop"),                       # olk bench's reference loops (olk's fastest reference loop)
    _core("libsvm_reader"),                 # the LIBSVM text parser (olk.data.libsvm)
    _core("approx"),                        # FOGD's and NOGD's loops: olk's sin/cos, the blocked projection
    _core("merge"),                         # BSGD's merging: squared distances, golden-section search
]

setup(
    ext_modules=cythonize(
        extensions,
        compiler_directives={"language_level": "3", "boundscheck": False, "wraparound": False},
        quiet=True,
    ),
)

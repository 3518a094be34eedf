"""Build script for olk's Cython extensions (metadata lives in pyproject.toml)."""
import numpy as np
from Cython.Build import cythonize
from setuptools import Extension, setup

extensions = [
    Extension(
        "olk._core.svpool",
        ["olk/_core/svpool.pyx"],
        include_dirs=[np.get_include()],
        define_macros=[("NPY_NO_DEPRECATED_API", "NPY_1_7_API_VERSION")],
        extra_compile_args=["-O3", "-ffp-contract=off"],
    ),
    Extension(                              # BSGD's merging: squared distances, golden-section search
        "olk._core.merge",
        ["olk/_core/merge.pyx"],
        include_dirs=[np.get_include()],
        define_macros=[("NPY_NO_DEPRECATED_API", "NPY_1_7_API_VERSION")],
        extra_compile_args=["-O3", "-ffp-contract=off"],
    ),
    Extension(                              # olk bench's reference loops (the single-core limit)
        "olk._core.refloop",
        ["olk/_core/refloop.pyx"],
        include_dirs=[np.get_include()],
        define_macros=[("NPY_NO_DEPRECATED_API", "NPY_1_7_API_VERSION")],
        extra_compile_args=["-O3", "-ffp-contract=off"],
    ),
]

setup(
    ext_modules=cythonize(
        extensions,
        compiler_directives={"language_level": "3", "boundscheck": False, "wraparound": False},
        quiet=True,
    ),
)

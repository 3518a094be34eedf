"""Online kernel regression on the SV pool (KOGD, OMKR): the shared core in core.py."""
from . import kogd_reg, omkr  # noqa: F401  (each module registers its learner)

"""Random-feature online multi-kernel regression (Raker, OMKL-AKS, AMKL, AMKL-AKS): feature maps and the Raker core in core.py."""
from . import amkl, amkl_aks, omkl_aks, raker  # noqa: F401  (each module registers its learner)

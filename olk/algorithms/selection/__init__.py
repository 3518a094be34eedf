"""Online kernel selection (Yang et al., AAAI 2012) and its baselines: the shared protocol in core.py, the OKS algorithm's core in oks_core.py."""
from . import alsvm, kernel_svm, musvm, mutron, oks, oks_convex, oks_svm, om1, om2, simplemkl, som_svm  # noqa: F401  (each module registers its learner)

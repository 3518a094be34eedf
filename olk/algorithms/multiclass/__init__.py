"""Multi-class online kernel classifiers (K score functions on one SV pool, the ``multiclass`` task): the
Perceptron, PA-I and SPA with the max-score update, and the budget learners RBP, Forgetron, BPA-S and BOGD that
remove whole SVs from all K classes; what they share is in core.py."""
from . import mc_bogd, mc_bpas, mc_forgetron, mc_pa1, mc_perceptron, mc_rbp, mc_spa  # noqa: F401  (each module registers its learner)

"""Budget online kernel classifiers (the SPA paper's bounded baselines): RBP, Forgetron, BPA-S, BOGD, Projectron, Projectron++, and BSGD (JMLR 2012); budget maintenance steps in core.py."""
from . import bogd, bpas, bsgd, forgetron, projectron, projectronpp, rbp  # noqa: F401  (each module registers its learner)

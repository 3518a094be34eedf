"""Batch kernel SVM baselines: LIBSVM (scikit-learn's SVC) and kernel Pegasos."""
from . import libsvm, pegasos  # noqa: F401  (each module registers its learner)

"""Single-kernel online classifiers without a budget: Perceptron, OGD, PA-I, SPA, OSKL."""
from . import ogd, oskl, pa1, perceptron, spa  # noqa: F401  (each module registers its learner)

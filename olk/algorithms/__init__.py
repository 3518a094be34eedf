"""Online kernel learning algorithms, registered by name (see :mod:`olk.algorithms.registry`).

The package is assembled here: importing each family subpackage imports its learner modules, and each learner
registers itself (``@register``).  The families follow the papers' structure:

* ``single/``: single-kernel online classifiers (Perceptron, OGD, PA-I, SPA, OSKL);
* ``budget/``: budget online classifiers (RBP, Forgetron, BPA-S, BOGD, Projectron, Projectron++);
* ``batch/``: batch kernel SVM baselines (LIBSVM, kernel Pegasos);
* ``multikernel/``: online multiple kernel classification (OMKC and its bounded variants);
* ``omkl/``: online multiple kernel learning with mistake bounds (ALT 2010, Algorithms 1-6);
* ``klr/``: sparse online kernel logistic regression and its batch baselines;
* ``selection/``: online kernel selection (OKS) and its baselines;
* ``regression/``: online kernel regression on the SV pool (KOGD, OMKR);
* ``random_features/``: random-feature online multi-kernel regression (Raker, OMKL-AKS, AMKL, AMKL-AKS);
* ``approximation/``: online kernel learning by functional approximation (FOGD, NOGD: JMLR 2016).

``common/`` holds what learners share (the base classes, input checks, losses, averaged and projected outputs);
``registry.py`` the registry and parameter declarations; ``protocol.py`` the learner contract.
"""
from . import (approximation, batch, budget, klr, multikernel, omkl, random_features, regression,  # noqa: F401
               selection, single)
from .common.learner import OnlineKernelLearner
from .registry import REGISTRY, Param, available, get, make, register, validate_params

__all__ = ["OnlineKernelLearner", "REGISTRY", "Param", "available", "get", "make", "register", "validate_params"]

"""Online kernel learning algorithms, registered by name (see :mod:`olk.algorithms.registry`).

Each learner registers itself (``@register``) when its module is imported -- a new learner is one module, a new
family one subpackage, with no import line to edit.  Importing this package imports no learner: the registry
imports a learner's module when its name is first looked up (``make("nogd")`` imports NOGD's module and what it
needs, not the 59 others), and every module when it is listed or iterated (:func:`registry.load_all`).  The
families follow the papers' structure:

* ``single/``: single-kernel online classifiers (Perceptron, OGD, PA-I, SPA, OSKL);
* ``budget/``: budget online classifiers (RBP, Forgetron, BPA-S, BOGD, Projectron, Projectron++);
* ``batch/``: batch kernel SVM baselines (LIBSVM, kernel Pegasos);
* ``multikernel/``: online multiple kernel classification (OMKC and its bounded variants);
* ``omkl/``: online multiple kernel learning with mistake bounds (ALT 2010, Algorithms 1-6);
* ``klr/``: sparse online kernel logistic regression and its batch baselines;
* ``selection/``: online kernel selection (OKS) and its baselines;
* ``regression/``: online kernel regression on the SV pool (KOGD, OMKR);
* ``random_features/``: random-feature online multi-kernel regression (Raker, OMKL-AKS, AMKL, AMKL-AKS);
* ``multiclass/``: multi-class online kernel classifiers (K class scores on one pool: Perceptron, PA-I, SPA and
  the budget learners RBP, Forgetron, BPA-S, BOGD).
* ``approximation/``: online kernel learning by functional approximation (FOGD, NOGD: JMLR 2016).

``common/`` holds what learners share (the base classes, input checks, losses, averaged and projected outputs);
``registry.py`` the registry and parameter declarations; ``protocol.py`` the learner contract.
"""
from .common.learner import OnlineKernelLearner
from .registry import REGISTRY, Param, available, get, make, register, validate_params

__all__ = ["OnlineKernelLearner", "REGISTRY", "Param", "available", "get", "make", "register", "validate_params"]

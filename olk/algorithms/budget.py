"""What the budget online kernel classifiers that keep at most B support vectors by *removing* one SV share.

The four removal-based baselines of the SPA paper (Lu, Sahoo, Zhao & Hoi, ACM TIST 2018,
Section 6.1.2, Table 2), each in its own module with its own registry name:

* ``rbp``        (:mod:`~olk.algorithms.rbp`) Randomized Budget Perceptron — remove a uniformly random SV.
* ``forgetron``  (:mod:`~olk.algorithms.forgetron`) self-tuned Forgetron — shrink every coefficient by
                 phi_t, remove the oldest SV.
* ``bpas``       (:mod:`~olk.algorithms.bpas`) Budgeted PA, simple variant (BPA-S) — remove the SV whose
                 removal (with the new SV's coefficient re-optimised) degrades the PA objective least.
* ``bogd``       (:mod:`~olk.algorithms.bogd`) Bounded OGD — remove a uniformly random SV and rescale the
                 others by B/(B-1).

Common conventions (as the rest of olk): ``step`` returns f_t(x_t) before the update; the online
protocol predicts sign(f_t(x_t)) with sign(0) = +1; the SPA paper evaluates these algorithms with
their last classifier f_t (Section 6.1.2: "for the other budget algorithms, we report the online
prediction results of f_t"), so there is a single output classifier.  ``budget`` B is the maximum
number of SVs: an update made with B SVs also removes one (before or right after adding x_t, as each
algorithm prescribes), so #SV <= B after every step.

Defaults: ``budget=100`` is only a round placeholder — the SPA paper never fixes B; it sets B per
dataset to SPA's mean #SV (Table 2: 149 on KDD08, 1,350 on a9a, 175 on w7a, 822 on codrna, ...),
which olk's engine does with ``params: {budget: {match: spa, stat: n_sv}}``.  ``C=1`` for BPA-S is the
default of the SPA authors' MATLAB code (jingcoco/Online-Kernel-Learning, binary/BPAs.m:
"C = options.C_BPAs; % 1 by default") and lies in the paper's PA grid {0.25, 0.5, 1, 2}.  BOGD's
``eta=0.1`` and ``lam=0.01`` are mid-grid values: the paper searches eta in {10^3, ..., 10^-3}
(Section 6.1.2) and eta, lambda in {1, 0.1, ..., 10^-4} (Section 6.2.4); neither value is prescribed
by a table, so tune them (``tune: {eta: [...], lam: [...]}``) when reproducing.

Reference implementations read to check these readings (none copied): the SPA first author's MATLAB
toolbox (github jingcoco/Online-Kernel-Learning, binary/{RBP,forgetron,BPAs,BOGD}.m), F. Orabona's
DOGMA (k_forgetron_st_train.m) and the Cognitive Foundry (Forgetron.java, self-tuned variant).
"""
from __future__ import annotations

from .registry import Param


def budget_param(minimum: int = 1) -> Param:
    """The ``budget`` parameter B (an int >= `minimum`, default 100) of the removal-based learners."""
    return Param("budget", 100, "maximum number of support vectors B (engine: SPA's mean #SV)", type=int,
                 check=lambda v: v >= minimum, requirement=f">= {minimum}")

"""Import every algorithm module so that each registers itself.

One module per learner (helpers: base.py, base_batch.py, averaged.py, budget.py).  New learner? Read
DEVELOPING.md in this folder; add exactly one import line here for your module.
"""

from . import perceptron, ogd, pa1, spa  # noqa: F401
from . import rbp, forgetron, bpas, bogd  # noqa: F401
from . import oskl  # noqa: F401
from . import projectron, projectronpp  # noqa: F401
from . import libsvm, pegasos  # noqa: F401
from . import omkc_dd  # noqa: F401
from . import omkc_sd  # noqa: F401
from . import omkc_u, omkc_ddpa, omkc_sdpa  # noqa: F401
from . import bomkc_spa_dd  # noqa: F401
from . import bomkc_dd, bomkc_sd  # noqa: F401
from . import omkl_p1, omkl_p2, omkl_sua, omkl_mua, omkl_o, omkl_o_sua  # noqa: F401
from . import klr_nc, klr_margin, klr_aux  # noqa: F401
from . import klr_pcd, klr_dcd  # noqa: F401
from . import oks, oks_convex  # noqa: F401
from . import oks_svm, som_svm, om1, mutron, musvm, alsvm, simplemkl, kernel_svm  # noqa: F401
from . import om2  # noqa: F401
from . import kogd_reg, omkr  # noqa: F401
from . import random_features, raker, omkl_aks, amkl, amkl_aks  # noqa: F401

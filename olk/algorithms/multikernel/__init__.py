"""Online multiple kernel classification (OMKC, Hoi et al. 2013; the SPA paper's Table 5): the shared core in core.py, the bounded variants' core in bounded.py."""
from . import bomkc_dd, bomkc_sd, bomkc_spa_dd, omkc_dd, omkc_ddpa, omkc_sd, omkc_sdpa, omkc_u  # noqa: F401  (each module registers its learner)

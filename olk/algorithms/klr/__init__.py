"""Sparse online kernel logistic regression (Zhang et al., AAAI 2012) and its batch baselines: online core in core.py, batch core in batch.py."""
from . import klr_aux, klr_dcd, klr_margin, klr_nc, klr_pcd  # noqa: F401  (each module registers its learner)

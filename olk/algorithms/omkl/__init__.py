"""Online multiple kernel learning with mistake bounds (Jin, Hoi & Yang, ALT 2010), Algorithms 1-6: the shared core in core.py, the theorems' bounds in bounds.py."""
from . import omkl_mua, omkl_o, omkl_o_sua, omkl_p1, omkl_p2, omkl_sua  # noqa: F401  (each module registers its learner)

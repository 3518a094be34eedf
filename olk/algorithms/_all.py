"""Import every algorithm module so that each registers itself.

New learner? Read DEVELOPING.md in this folder; add exactly one import line here for your module.
"""

from . import classic, spa  # noqa: F401
from . import budget_removal  # noqa: F401
from . import oskl, projectron  # noqa: F401
from . import batch  # noqa: F401

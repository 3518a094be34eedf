"""Online kernel learning algorithms, registered by name (see :mod:`olk.algorithms.registry`)."""
from . import _all  # noqa: F401  (registers every algorithm)
from .base import OnlineKernelLearner
from .registry import REGISTRY, Param, available, get, make, register, validate_params

__all__ = ["OnlineKernelLearner", "REGISTRY", "Param", "available", "get", "make", "register", "validate_params"]

"""Import every algorithm module so that each registers itself."""
from . import classic, spa  # noqa: F401

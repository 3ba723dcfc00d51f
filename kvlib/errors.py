"""kvlib's named exceptions (re-exported from :mod:`kvlib.core.errors`)."""

from kvlib.core.errors import *  # noqa: F401,F403
from kvlib.core.errors import __all__  # noqa: F401

"""Deprecated: the per-thread API is ``tile.threads``.

``tile.seed`` (its old name) is kept so that code written against it keeps
working: importing it warns once and gives the same module, so its names
are the very objects of ``tile.threads``.
"""

import sys
import warnings

from . import threads

warnings.warn("tile.seed is deprecated; import tile.threads (the per-thread "
              "API) instead", DeprecationWarning, stacklevel=2)
sys.modules[__name__] = threads

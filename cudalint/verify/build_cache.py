"""Where the verify builds are cached: `verify/` in cudalint's cache folder, on this machine and on each node of
a Ray cluster (`runner.py` and `ray_cluster.py` both ask).
"""

from __future__ import annotations

import os

OLD_CACHE_ENV = "CUDALINT_CACHE"  # the build cache's own variable before $CUDALINT_CACHE_DIR named them all


def default_cache_dir() -> str:
    """The build cache: `verify/` in cudalint's cache folder (`$CUDALINT_CACHE_DIR`, see
    `cudalint.caching.user_cache_dir`); `$CUDALINT_CACHE`, deprecated, still names it when set."""
    from cudalint.caching import user_cache_dir

    return os.environ.get(OLD_CACHE_ENV) or os.path.join(user_cache_dir(), "verify")

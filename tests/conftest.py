"""Test-session settings: cudalint's caches (the precompiled prelude, lint results, dry runs) live in a
temporary directory, never the user's.

With pytest-xdist, the controller makes the directory before it starts the workers, which inherit it
(`CUDALINT_TEST_CACHE` says it is the run's own): the workers share one cache, as one process running
every test would (the caches are written for many processes: a reader sees a whole entry or none), and
only the process that made the directory removes it.
"""

import os
import shutil
import tempfile

_OWN = "CUDALINT_TEST_CACHE"

if os.environ.get("PYTEST_XDIST_WORKER") and os.environ.get(_OWN):
    _CACHE, _MADE_HERE = os.environ[_OWN], False
else:
    _CACHE, _MADE_HERE = tempfile.mkdtemp(prefix="cudalint-test-cache-"), True
    os.environ[_OWN] = _CACHE
os.environ["CUDALINT_CACHE_DIR"] = _CACHE  # subprocesses (CLI tests) inherit it
os.environ.pop("CUDALINT_NO_CACHE", None)


def pytest_sessionfinish(session, exitstatus) -> None:
    if _MADE_HERE:
        shutil.rmtree(_CACHE, ignore_errors=True)

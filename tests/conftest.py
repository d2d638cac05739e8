"""Test-session settings: the precompiled-prelude cache lives in a temporary directory, never the user's."""

import os
import shutil
import tempfile

_CACHE = tempfile.mkdtemp(prefix="cudalint-test-cache-")
os.environ["CUDALINT_CACHE_DIR"] = _CACHE  # subprocesses (CLI tests) inherit it
os.environ.pop("CUDALINT_NO_CACHE", None)


def pytest_sessionfinish(session, exitstatus) -> None:
    shutil.rmtree(_CACHE, ignore_errors=True)

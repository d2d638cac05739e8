"""The launch counter preloaded into sanitized workers (`launch_counter.c`): compute-sanitizer holds CUPTI, so
torch's profiler counts nothing under it, and a clean summary alone cannot tell a checked kernel from one that
never ran. The executor builds the library (trusted: no solution is loaded there) and preloads it; the worker
reads the counts through ctypes."""
from __future__ import annotations

import ctypes
import hashlib
import os
import shutil
import subprocess
from pathlib import Path

SOURCE = Path(__file__).with_name("launch_counter.c")
DROPPED = "?dropped"  # the counter's name for launches its table could not hold


def build(directory: str) -> str | None:
    """The counter library in `directory` (built once per source text; concurrent callers race harmlessly to
    the same bytes); None where no C compiler could build it (the count is then not claimed)."""
    source = SOURCE.read_bytes()
    path = os.path.join(directory, f"launch_counter-{hashlib.sha256(source).hexdigest()[:16]}.so")
    if os.path.isfile(path):
        return path
    compiler = shutil.which("cc") or shutil.which("gcc")
    if compiler is None:
        return None
    partial = f"{path}.{os.getpid()}.{id(source)}"
    try:
        subprocess.run([compiler, "-shared", "-fPIC", "-O2", "-o", partial, str(SOURCE), "-ldl", "-lpthread"],
                       check=True, capture_output=True, timeout=120)
        os.replace(partial, path)
    except (OSError, subprocess.SubprocessError):
        return None
    return path


def preload(env: dict, library: str) -> dict:
    """`env` with `library` preloaded ahead of whatever it preloaded already."""
    return dict(env, LD_PRELOAD=" ".join(p for p in (library, env.get("LD_PRELOAD", "")) if p))


class Counter:
    """The preloaded counter, seen from inside the worker; `Counter.loaded()` is None without it."""

    def __init__(self, process: ctypes.CDLL) -> None:
        self._reset = process.cudalint_launches_reset
        self._read = process.cudalint_launches_read
        self._read.restype = ctypes.c_long
        self._read.argtypes = [ctypes.c_char_p, ctypes.c_long]

    @classmethod
    def loaded(cls) -> Counter | None:
        try:
            return cls(ctypes.CDLL(None))
        except (OSError, AttributeError):
            return None

    def reset(self) -> None:
        self._reset()

    def counts(self) -> dict[str, int]:
        """{function name: launches} since the last reset."""
        size = 1 << 16
        while True:
            buffer = ctypes.create_string_buffer(size)
            needed = self._read(buffer, size)
            if needed <= size:
                break
            size = needed
        counts: dict[str, int] = {}
        for line in buffer.raw[:needed].decode("utf-8", errors="replace").splitlines():
            count, _, name = line.partition("\t")
            counts[name] = counts.get(name, 0) + int(count)
        return counts

"""Per-architecture limits (CUDA C++ Programming Guide, compute capabilities table)."""

from __future__ import annotations

from dataclasses import dataclass

STATIC_SHARED_LIMIT = 48 * 1024  # static __shared__ per block, every architecture
MAX_THREADS_PER_BLOCK = 1024
MAX_GRID_YZ = 65535
MAX_GRID_X = 2**31 - 1


@dataclass(frozen=True)
class Architecture:
    name: str  # "sm_90"
    max_shared_per_block: int  # opt-in maximum of static + dynamic shared memory per block, bytes
    shared_per_sm: int


_KB = 1024
ARCHITECTURES = {
    a.name: a
    for a in [
        Architecture("sm_70", 96 * _KB, 96 * _KB),
        Architecture("sm_72", 96 * _KB, 96 * _KB),
        Architecture("sm_75", 64 * _KB, 64 * _KB),
        Architecture("sm_80", 163 * _KB, 164 * _KB),
        Architecture("sm_86", 99 * _KB, 100 * _KB),
        Architecture("sm_87", 163 * _KB, 164 * _KB),
        Architecture("sm_89", 99 * _KB, 100 * _KB),
        Architecture("sm_90", 227 * _KB, 228 * _KB),
        Architecture("sm_100", 227 * _KB, 228 * _KB),
        Architecture("sm_103", 227 * _KB, 228 * _KB),
        Architecture("sm_120", 99 * _KB, 100 * _KB),
    ]
}
DEFAULT_ARCH = "sm_90"


def architecture(name: str) -> Architecture:
    key = name.strip().lower().replace("compute_", "sm_")
    if key.isdigit():
        key = "sm_" + key
    if key not in ARCHITECTURES:
        raise ValueError(f"unknown architecture {name!r}; known: {', '.join(ARCHITECTURES)}")
    return ARCHITECTURES[key]

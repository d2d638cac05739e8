"""Per-architecture limits (CUDA C++ Programming Guide, compute capabilities table)."""

from __future__ import annotations

from dataclasses import dataclass

STATIC_SHARED_LIMIT = 48 * 1024  # static __shared__ per block, every architecture
MAX_THREADS_PER_BLOCK = 1024
MAX_GRID_YZ = 65535
MAX_GRID_X = 2**31 - 1
MAX_BLOCK_DIMS = (1024, 1024, 64)


def block_can_run(block: tuple[int, int, int]) -> bool:
    """Whether the GPU accepts a launch with this block (each dimension and their product in its limits)."""
    return all(0 < size <= limit for size, limit in zip(block, MAX_BLOCK_DIMS)) \
        and block[0] * block[1] * block[2] <= MAX_THREADS_PER_BLOCK


@dataclass(frozen=True)
class Architecture:
    name: str  # "sm_90"
    max_shared_per_block: int  # opt-in maximum of static + dynamic shared memory per block, bytes
    shared_per_sm: int
    max_blocks_per_sm: int  # resident blocks per SM
    max_warps_per_sm: int  # resident warps per SM
    shared_reserved_per_block: int  # shared memory the system takes for each resident block, bytes

    def resident_blocks(self, threads: int, shared_bytes: int = 0) -> int:
        """How many blocks of `threads` threads using `shared_bytes` of shared memory fit on one SM at
        once, as far as block, warp and shared-memory limits go (registers are not modelled)."""
        warps = -(-threads // 32)
        blocks = min(self.max_blocks_per_sm, self.max_warps_per_sm // warps)
        if shared_bytes:
            blocks = min(blocks, self.shared_per_sm // (shared_bytes + self.shared_reserved_per_block))
        return blocks


_KB = 1024
ARCHITECTURES = {
    a.name: a
    for a in [
        Architecture("sm_70", 96 * _KB, 96 * _KB, 32, 64, 0),
        Architecture("sm_72", 96 * _KB, 96 * _KB, 32, 64, 0),
        Architecture("sm_75", 64 * _KB, 64 * _KB, 16, 32, 0),
        Architecture("sm_80", 163 * _KB, 164 * _KB, 32, 64, _KB),
        Architecture("sm_86", 99 * _KB, 100 * _KB, 16, 48, _KB),
        Architecture("sm_87", 163 * _KB, 164 * _KB, 16, 48, _KB),
        Architecture("sm_89", 99 * _KB, 100 * _KB, 24, 48, _KB),
        Architecture("sm_90", 227 * _KB, 228 * _KB, 32, 64, _KB),
        Architecture("sm_100", 227 * _KB, 228 * _KB, 32, 64, _KB),
        Architecture("sm_103", 227 * _KB, 228 * _KB, 32, 64, _KB),
        Architecture("sm_120", 99 * _KB, 100 * _KB, 32, 48, _KB),
    ]
}
DEFAULT_ARCH = "sm_90"


def architecture(name: str) -> Architecture:
    key = name.strip().lower().replace("compute_", "sm_")
    if key.isdigit():
        key = "sm_" + key
    if key[-1:] in ("a", "f") and key[:-1] in ARCHITECTURES:
        key = key[:-1]  # sm_90a, sm_100f: the family's features, the same per-block limits
    if key not in ARCHITECTURES:
        raise ValueError(f"unknown architecture {name!r}; known: {', '.join(ARCHITECTURES)}")
    return ARCHITECTURES[key]


# GPU product names (as torch.cuda.get_device_name and harness logs print them) -> architecture, tried
# longest first so that "A100" is not read as "A10"
_GPU_ARCHS = sorted((
    ("RTX 50", "sm_120"), ("B200", "sm_100"), ("B100", "sm_100"), ("GB200", "sm_100"),
    ("H200", "sm_90"), ("H100", "sm_90"), ("GH200", "sm_90"),
    ("RTX 40", "sm_89"), ("L40", "sm_89"), ("L4", "sm_89"), ("RTX 6000 Ada", "sm_89"),
    ("RTX 30", "sm_86"), ("A40", "sm_86"), ("A10", "sm_86"), ("A6000", "sm_86"),
    ("A100", "sm_80"), ("A30", "sm_80"), ("A800", "sm_80"),
    ("T4", "sm_75"), ("RTX 20", "sm_75"), ("V100", "sm_70"),
), key=lambda pair: -len(pair[0]))


def architecture_of_gpu(name: str) -> str | None:
    """The architecture of a GPU named as `torch.cuda.get_device_name()` prints it
    ("NVIDIA A100-SXM4-40GB" -> "sm_80"), or None for a name this table does not know."""
    upper = name.upper()
    for product, arch in _GPU_ARCHS:
        if product.upper() in upper:
            return arch
    return None

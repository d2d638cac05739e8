"""Which GPUs the verify stage may use, and the CUDA architectures to build for.

Asked of `nvidia-smi` (fast, no torch in the parent); when it is missing, of torch in a probe worker.
`CUDA_VISIBLE_DEVICES`, when set, limits and orders the GPUs as it does for CUDA itself. Each run worker
is then started with `CUDA_VISIBLE_DEVICES` naming its one GPU.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from dataclasses import dataclass


@dataclass(frozen=True)
class Gpu:
    id: str  # what CUDA_VISIBLE_DEVICES names: an index or a UUID
    name: str = ""
    capability: str = ""  # "9.0"


def parse_visible_devices(value: str | None) -> list[str] | None:
    """The entries of CUDA_VISIBLE_DEVICES; None when it is unset (all GPUs), [] when it hides them all."""
    if value is None:
        return None
    entries = [entry.strip() for entry in value.split(",")]
    kept = []
    for entry in entries:
        if not entry or entry == "-1":
            break  # CUDA ignores everything from the first invalid entry on
        kept.append(entry)
    return kept


def parse_nvidia_smi(text: str) -> list[Gpu]:
    """`nvidia-smi --query-gpu=index,uuid,name,compute_cap --format=csv,noheader` output."""
    gpus = []
    for line in text.splitlines():
        fields = [f.strip() for f in line.split(",")]
        if len(fields) >= 4 and fields[0].isdigit():
            gpus.append(Gpu(fields[0], fields[2], fields[3]))
            gpus.append(Gpu(fields[1], fields[2], fields[3]))  # addressable by UUID too
    return gpus


def detect_gpus(explicit: list[str] | None = None, environ: dict | None = None) -> list[Gpu]:
    """The GPUs to spread candidates over: `explicit` ids if given, else the visible ones."""
    environ = os.environ if environ is None else environ
    known: list[Gpu] = []
    if shutil.which("nvidia-smi"):
        try:
            done = subprocess.run(["nvidia-smi", "--query-gpu=index,uuid,name,compute_cap", "--format=csv,noheader"],
                                  capture_output=True, text=True, timeout=30)
            if done.returncode == 0:
                known = parse_nvidia_smi(done.stdout)
        except (OSError, subprocess.SubprocessError):
            known = []
    by_id = {gpu.id: gpu for gpu in known}
    wanted = explicit if explicit is not None else parse_visible_devices(environ.get("CUDA_VISIBLE_DEVICES"))
    if wanted is None:
        return [gpu for gpu in known if gpu.id.isdigit()]
    return [by_id.get(entry, Gpu(entry)) for entry in wanted]


def arch_list(gpus: list[Gpu], environ: dict | None = None) -> str:
    """TORCH_CUDA_ARCH_LIST for the builds: the user's if set, else the capabilities of `gpus`."""
    environ = os.environ if environ is None else environ
    if environ.get("TORCH_CUDA_ARCH_LIST"):
        return environ["TORCH_CUDA_ARCH_LIST"]
    capabilities = sorted({gpu.capability for gpu in gpus if gpu.capability})
    return ";".join(capabilities)


__all__ = ["Gpu", "arch_list", "detect_gpus", "parse_nvidia_smi", "parse_visible_devices"]

"""`cudalint verify`: the GPU stage. Lint-gated builds (cached, in parallel), correctness trials, compute-sanitizer
runs and timings of KernelBench-style solutions, each candidate in its own worker process with a time limit.

This package is the only part of cudalint that uses torch, and only inside its worker processes
(`cudalint/verify/worker.py`, run as a script): importing it needs no torch.
"""

import importlib

# loaded on first use (PEP 562), so that the CLI, which registers `verify` on every start, does not pay
# for the GPU stage's modules when it only lints
_HOMES = {"gpu_reports": "results", "make_gpu_check": "gpu_check", "render_table": "results", "summary": "results",
          "write_json": "results", "write_per_kernel": "results", "Candidate": "runner", "VerifyOptions": "runner",
          "collect_candidates": "runner", "default_cache_dir": "build_cache", "verify_batch": "runner",
          "verify_file": "runner"}


def __getattr__(name: str):
    if name in _HOMES:
        return getattr(importlib.import_module(f"cudalint.verify.{_HOMES[name]}"), name)
    raise AttributeError(f"module 'cudalint.verify' has no attribute {name!r}")


__all__ = ["Candidate", "VerifyOptions", "collect_candidates", "default_cache_dir", "gpu_reports", "make_gpu_check",
           "render_table", "summary", "verify_batch", "verify_file", "write_json", "write_per_kernel"]

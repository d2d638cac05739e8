"""`cudalint verify`: the GPU stage. Lint-gated builds (cached, in parallel), correctness trials, compute-sanitizer
runs and timings of KernelBench-style solutions, each candidate in its own worker process with a time limit.

This package is the only part of cudalint that uses torch, and only inside its worker processes
(`cudalint/verify/worker.py`, run as a script): importing it needs no torch.
"""

from cudalint.verify.results import gpu_reports, make_gpu_check, render_table, summary, write_json, write_per_kernel
from cudalint.verify.runner import (Candidate, VerifyOptions, collect_candidates, default_cache_dir, verify_batch,
                                    verify_file)

__all__ = ["Candidate", "VerifyOptions", "collect_candidates", "default_cache_dir", "gpu_reports", "make_gpu_check",
           "render_table", "summary", "verify_batch", "verify_file", "write_json", "write_per_kernel"]

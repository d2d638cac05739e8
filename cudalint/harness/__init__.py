"""Evaluation-harness conventions: what a KernelBench-style solution looks like, where its reference
problem lives, and how `ModelNew.forward` reaches the compiled CUDA (`cudalint.harness.kernelbench`,
`cudalint.harness.forward`, with `torch_compute`, `statements` and `document_state`). The CL400-CL407 rules and
`cudalint.prefilter` build on them."""

from cudalint.harness.kernelbench import (
    LoadInlineCall, RawKernelCall, Reference, RunEntry, Solution, find_reference, in_kernelbench_run,
    is_kernelbench_solution, parse_reference, parse_run_name, parse_solution, problem_of_path, reference_for,
)

__all__ = ["LoadInlineCall", "RawKernelCall", "Reference", "RunEntry", "Solution", "find_reference",
           "in_kernelbench_run", "is_kernelbench_solution", "parse_reference", "parse_run_name", "parse_solution",
           "problem_of_path", "reference_for"]

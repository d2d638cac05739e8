"""CL904 unanalysed-code: code the file compiles that cudalint could not analyse, so the file cannot pass."""

from cudalint.checks.registry import engine_rule

engine_rule("CL904", "unanalysed-code", "error",
            "code cudalint could not analyse (a CUDA or C++ source known only when the file runs, or loaded "
            "from a file): no rule checked it, so the file cannot pass")

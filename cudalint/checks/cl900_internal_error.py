"""CL900 internal-error: cudalint itself failed on part of the input; the rest was still checked."""

from cudalint.checks.registry import engine_rule

engine_rule("CL900", "internal-error", "warning",
            "cudalint failed while analysing this file; other findings may be missing")

"""CL902 unused-suppression: a `cudalint: ignore` comment that suppresses nothing."""

from cudalint.checks.registry import engine_rule

engine_rule("CL902", "unused-suppression", "warning",
            "a suppression comment that suppresses no finding (or names no rule)")
